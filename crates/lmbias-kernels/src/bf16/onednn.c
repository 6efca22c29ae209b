/* The `onednn` feature of lmbias-kernels (its bf16 module): `x · W + b` by oneDNN's matmul primitive, against the
 * C API of oneDNN 2.x (Debian's libdnnl-dev 2.6.3). src bf16 [rows, in] row-major (rounded by
 * the Rust side), weights bf16 in the layout the matmul prefers (reordered once,
 * when the layer is built), bias f32, dst f32 [rows, out]; oneDNN picks the ISA itself
 * (brg:avx512_core_bf16 on AVX512-BF16, AMX on Intel Sapphire Rapids and later).
 *
 * Two objects: the weights of a layer (`lmbias_dnnl_weights`), and a matmul for one number of
 * rows and one weight shape (`lmbias_dnnl_matmul`), which every layer of that shape shares
 * (src/onednn.rs caches them). Both are immutable once made: the functions that take them
 * `const` may run on any number of threads at once. Every call runs on the calling thread
 * alone (see `one_thread`), with its own stream, memory objects and scratchpad; the engine is
 * one for the process, and oneDNN's engines and primitives may be used from several threads.
 *
 * Errors: each function returns a dnnl_status_t and, on failure, names in `*failed` the oneDNN
 * call that failed (a string literal). */

#define _GNU_SOURCE /* dladdr, RTLD_DEFAULT, RTLD_NOLOAD */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>

#if DNNL_VERSION_MAJOR != 2
#error "lmbias-kernels' onednn feature is written against oneDNN 2.x's C API (Debian's libdnnl-dev 2.6)"
#endif

/* Runs the oneDNN function `fn` on `args`; on failure records its name and jumps to `done`. */
#define TRY(fn, args)                                                                        \
    do {                                                                                     \
        status = fn args;                                                                    \
        if (status != dnnl_success) {                                                        \
            *failed = #fn;                                                                   \
            goto done;                                                                       \
        }                                                                                    \
    } while (0)

/* Runs one of our helpers, which record the failing call themselves; on failure jumps to
 * `done`. */
#define CALL(expr)                                                                           \
    do {                                                                                     \
        status = (expr);                                                                     \
        if (status != dnnl_success) goto done;                                               \
    } while (0)

/* ---- One thread per call ----------------------------------------------------------------
 * lmbias runs one batch per core, each product on the thread that asks for it. oneDNN's
 * OpenMP build runs a primitive on omp_get_max_threads() threads, read when the primitive is
 * created (its blocking) and when it runs, and has no setting of its own for that. OpenMP's
 * nthreads-var is per thread (a thread outside any parallel region has its own copy), so each
 * call sets it to 1 on the calling thread and puts the caller's value back before returning:
 * nothing changes for the caller or for other threads. The two functions are looked up in the
 * OpenMP runtime libdnnl was linked with (libgomp for Debian's), which is loaded already: first
 * in the global scope (an executable), else among libdnnl's own dependencies (a library
 * loaded with RTLD_LOCAL, such as a Python extension module). */

#if DNNL_CPU_RUNTIME == DNNL_RUNTIME_OMP
static int (*omp_get_max_threads_fn)(void);
static void (*omp_set_num_threads_fn)(int);
static pthread_once_t omp_once = PTHREAD_ONCE_INIT;

static void omp_find(void) {
    void *get = dlsym(RTLD_DEFAULT, "omp_get_max_threads");
    void *set = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    Dl_info info;
    if ((!get || !set) && dladdr((void *)dnnl_engine_create, &info) && info.dli_fname) {
        void *dnnl = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (dnnl) {
            get = dlsym(dnnl, "omp_get_max_threads");
            set = dlsym(dnnl, "omp_set_num_threads");
            /* libdnnl stays loaded (we link it): dropping the reference NOLOAD took is safe. */
            dlclose(dnnl);
        }
    }
    if (get && set) {
        /* The POSIX idiom for a function pointer out of dlsym. */
        *(void **)&omp_get_max_threads_fn = get;
        *(void **)&omp_set_num_threads_fn = set;
    }
}

/* Limits oneDNN to the calling thread; returns the value to give `threads_restore`, or -1
 * (and `*failed` set) when the OpenMP runtime cannot be found. */
static int one_thread(const char **failed) {
    pthread_once(&omp_once, omp_find);
    if (!omp_get_max_threads_fn || !omp_set_num_threads_fn) {
        *failed = "omp_set_num_threads (not found in oneDNN's OpenMP runtime)";
        return -1;
    }
    int saved = omp_get_max_threads_fn();
    if (saved != 1) omp_set_num_threads_fn(1);
    return saved;
}

static void threads_restore(int saved) {
    if (saved > 1) omp_set_num_threads_fn(saved);
}
#elif DNNL_CPU_RUNTIME == DNNL_RUNTIME_SEQ
static int one_thread(const char **failed) {
    (void)failed;
    return 1;
}
static void threads_restore(int saved) { (void)saved; }
#else
#warning "oneDNN was not built with OpenMP (nor sequential): its products may use several threads"
static int one_thread(const char **failed) {
    (void)failed;
    return 1;
}
static void threads_restore(int saved) { (void)saved; }
#endif

/* ---- The engine -------------------------------------------------------------------------- */

static dnnl_engine_t engine;
static dnnl_status_t engine_status;
static pthread_once_t engine_once = PTHREAD_ONCE_INIT;

static void engine_init(void) { engine_status = dnnl_engine_create(&engine, dnnl_cpu, 0); }

static dnnl_status_t get_engine(const char **failed) {
    pthread_once(&engine_once, engine_init);
    if (engine_status != dnnl_success) *failed = "dnnl_engine_create";
    return engine_status;
}

/* ---- Weights ----------------------------------------------------------------------------- */

/* Rows of the matmul the weights' layout is asked of. oneDNN 2.6 picks the same layout
 * (brgemm's 16a64b2a blocks) for every number of rows on AVX512-BF16; the matmuls of other
 * row counts are built for this layout (`lmbias_dnnl_matmul_create`), so the weights are
 * reordered once whatever the rows. */
#define LAYOUT_ROWS 128

struct lmbias_dnnl_weights {
    int64_t in, out;
    dnnl_memory_desc_t md; /* the matmul's layout, bf16 */
    void *data;            /* md's bytes, 64-byte aligned */
    float *bias;           /* [out], or NULL */
    char impl[64];         /* the implementation oneDNN chose, e.g. "brg:avx512_core_bf16" */
};

typedef struct lmbias_dnnl_weights lmbias_dnnl_weights;

/* The memory descriptor of a [rows, cols] matrix, row-major, `ld` elements from row to row. */
static dnnl_status_t matrix(dnnl_memory_desc_t *md, int64_t rows, int64_t cols, int64_t ld,
                            dnnl_data_type_t type, const char **failed) {
    dnnl_status_t status;
    dnnl_dims_t dims = {rows, cols}, strides = {ld, 1};
    TRY(dnnl_memory_desc_init_by_strides, (md, 2, dims, type, strides));
done:
    return status;
}

/* The matmul of `rows` × [in, out]: src bf16 row-major, weights `weights` (NULL: the layout
 * oneDNN prefers), f32 bias if `bias`, f32 dst; user scratchpad (each call brings its own, so
 * that calls on several threads share none). The src rows are dense: oneDNN 2.6 picks a
 * slower implementation (gemm:jit) for rows padded apart. */
static dnnl_status_t matmul_pd(dnnl_primitive_desc_t *pd, int64_t rows, int64_t in,
                               int64_t out, const dnnl_memory_desc_t *weights, int bias,
                               const char **failed) {
    dnnl_status_t status;
    dnnl_memory_desc_t src_md, weights_md, bias_md, dst_md;
    dnnl_matmul_desc_t desc;
    dnnl_primitive_attr_t attr = NULL;
    dnnl_dims_t weights_dims = {in, out};
    CALL(matrix(&src_md, rows, in, in, dnnl_bf16, failed));
    if (weights)
        weights_md = *weights;
    else
        TRY(dnnl_memory_desc_init_by_tag,
            (&weights_md, 2, weights_dims, dnnl_bf16, dnnl_format_tag_any));
    CALL(matrix(&bias_md, 1, out, out, dnnl_f32, failed));
    CALL(matrix(&dst_md, rows, out, out, dnnl_f32, failed));
    TRY(dnnl_matmul_desc_init, (&desc, &src_md, &weights_md, bias ? &bias_md : NULL, &dst_md));
    TRY(dnnl_primitive_attr_create, (&attr));
    TRY(dnnl_primitive_attr_set_scratchpad_mode, (attr, dnnl_scratchpad_mode_user));
    TRY(dnnl_primitive_desc_create, (pd, &desc, attr, engine, NULL));
done:
    if (attr) dnnl_primitive_attr_destroy(attr);
    return status;
}

static void copy_impl(char impl[64], const_dnnl_primitive_desc_t pd) {
    const char *name = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &name) != dnnl_success ||
        !name)
        name = "?";
    strncpy(impl, name, 63);
    impl[63] = '\0';
}

/* Runs a reorder from `from` to `to` on a stream of its own. */
static dnnl_status_t reorder(dnnl_memory_t from, dnnl_memory_t to, const char **failed) {
    dnnl_status_t status;
    const dnnl_memory_desc_t *from_md, *to_md;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_stream_t stream = NULL;
    TRY(dnnl_memory_get_memory_desc, (from, &from_md));
    TRY(dnnl_memory_get_memory_desc, (to, &to_md));
    TRY(dnnl_reorder_primitive_desc_create, (&pd, from_md, engine, to_md, engine, NULL));
    TRY(dnnl_primitive_create, (&prim, pd));
    TRY(dnnl_stream_create, (&stream, engine, dnnl_stream_default_flags));
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
    TRY(dnnl_primitive_execute, (prim, stream, 2, args));
    TRY(dnnl_stream_wait, (stream));
done:
    if (stream) dnnl_stream_destroy(stream);
    if (prim) dnnl_primitive_destroy(prim);
    if (pd) dnnl_primitive_desc_destroy(pd);
    return status;
}

void lmbias_dnnl_weights_destroy(lmbias_dnnl_weights *w) {
    if (!w) return;
    free(w->data);
    free(w->bias);
    free(w);
}

/* `weight` [in, out] row-major f32, rounded to bf16 (to nearest even) by oneDNN's reorder into
 * the matmul's layout; `bias` [out] f32 or NULL. */
dnnl_status_t lmbias_dnnl_weights_create(int64_t in, int64_t out, const float *weight,
                                         const float *bias, lmbias_dnnl_weights **result,
                                         const char **failed) {
    dnnl_status_t status;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_memory_desc_t from_md;
    lmbias_dnnl_weights *w = NULL;
    int threads = one_thread(failed);
    *result = NULL;
    if (threads < 0) return dnnl_runtime_error;
    CALL(get_engine(failed));
    status = dnnl_out_of_memory;
    if (!(w = calloc(1, sizeof *w))) {
        *failed = "calloc";
        goto done;
    }
    w->in = in;
    w->out = out;
    CALL(matmul_pd(&pd, LAYOUT_ROWS, in, out, NULL, bias != NULL, failed));
    w->md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    copy_impl(w->impl, pd);
    size_t size = dnnl_memory_desc_get_size(&w->md);
    status = dnnl_out_of_memory;
    if (posix_memalign(&w->data, 64, size ? size : 64)) {
        w->data = NULL;
        *failed = "posix_memalign";
        goto done;
    }
    if (bias) {
        if (!(w->bias = malloc((size_t)out * sizeof *bias))) {
            *failed = "malloc";
            goto done;
        }
        memcpy(w->bias, bias, (size_t)out * sizeof *bias);
    }
    CALL(matrix(&from_md, in, out, out, dnnl_f32, failed));
    /* The reorder only reads `from`: the cast drops a const oneDNN's C API does not spell. */
    TRY(dnnl_memory_create, (&from, &from_md, engine, (void *)weight));
    TRY(dnnl_memory_create, (&to, &w->md, engine, w->data));
    CALL(reorder(from, to, failed));
    *result = w;
    w = NULL;
done:
    if (to) dnnl_memory_destroy(to);
    if (from) dnnl_memory_destroy(from);
    if (pd) dnnl_primitive_desc_destroy(pd);
    lmbias_dnnl_weights_destroy(w);
    threads_restore(threads);
    return status;
}

/* The stored weights back into `weight` [in, out] row-major f32 (each value its bf16). */
dnnl_status_t lmbias_dnnl_weights_read(const lmbias_dnnl_weights *w, float *weight,
                                       const char **failed) {
    dnnl_status_t status;
    dnnl_memory_t from = NULL, to = NULL;
    dnnl_memory_desc_t to_md;
    int threads = one_thread(failed);
    if (threads < 0) return dnnl_runtime_error;
    CALL(matrix(&to_md, w->in, w->out, w->out, dnnl_f32, failed));
    TRY(dnnl_memory_create, (&from, &w->md, engine, w->data));
    TRY(dnnl_memory_create, (&to, &to_md, engine, weight));
    CALL(reorder(from, to, failed));
done:
    if (to) dnnl_memory_destroy(to);
    if (from) dnnl_memory_destroy(from);
    threads_restore(threads);
    return status;
}

/* The implementation oneDNN chose for these weights (valid as long as `w`). */
const char *lmbias_dnnl_weights_impl(const lmbias_dnnl_weights *w) { return w->impl; }

/* ---- Matmuls ----------------------------------------------------------------------------- */

struct lmbias_dnnl_matmul {
    int64_t rows, in, out;
    int bias;
    dnnl_memory_desc_t src, weights, dst, bias_md, scratchpad;
    size_t scratchpad_size;
    dnnl_primitive_t prim;
    char impl[64];
};

typedef struct lmbias_dnnl_matmul lmbias_dnnl_matmul;

void lmbias_dnnl_matmul_destroy(lmbias_dnnl_matmul *m) {
    if (!m) return;
    if (m->prim) dnnl_primitive_destroy(m->prim);
    free(m);
}

/* The matmul of `rows` rows for weights of `w`'s shape, layout and bias (with or without);
 * it serves every weights of the same shape. */
dnnl_status_t lmbias_dnnl_matmul_create(const lmbias_dnnl_weights *w, int64_t rows,
                                        lmbias_dnnl_matmul **result, const char **failed) {
    dnnl_status_t status;
    dnnl_primitive_desc_t pd = NULL;
    lmbias_dnnl_matmul *m = NULL;
    int threads = one_thread(failed);
    *result = NULL;
    if (threads < 0) return dnnl_runtime_error;
    status = dnnl_out_of_memory;
    if (!(m = calloc(1, sizeof *m))) {
        *failed = "calloc";
        goto done;
    }
    m->rows = rows;
    m->in = w->in;
    m->out = w->out;
    m->bias = w->bias != NULL;
    CALL(matmul_pd(&pd, rows, w->in, w->out, &w->md, m->bias, failed));
    m->src = *dnnl_primitive_desc_query_md(pd, dnnl_query_src_md, 0);
    m->weights = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    m->dst = *dnnl_primitive_desc_query_md(pd, dnnl_query_dst_md, 0);
    if (m->bias) m->bias_md = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 1);
    m->scratchpad = *dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
    m->scratchpad_size = dnnl_memory_desc_get_size(&m->scratchpad);
    copy_impl(m->impl, pd);
    TRY(dnnl_primitive_create, (&m->prim, pd));
    *result = m;
    m = NULL;
done:
    if (pd) dnnl_primitive_desc_destroy(pd);
    lmbias_dnnl_matmul_destroy(m);
    threads_restore(threads);
    return status;
}

/* The implementation oneDNN chose for this matmul (valid as long as `m`). */
const char *lmbias_dnnl_matmul_impl(const lmbias_dnnl_matmul *m) { return m->impl; }

/* `dst` [m->rows, out] f32 = `src` [m->rows, in] bf16 · w + bias, both row-major, on the
 * calling thread. `w` must have the shape and layout `m` was made for (checked). */
dnnl_status_t lmbias_dnnl_matmul_run(const lmbias_dnnl_matmul *m, const lmbias_dnnl_weights *w,
                                     const uint16_t *src, float *dst, const char **failed) {
    dnnl_status_t status;
    dnnl_memory_t mems[5] = {NULL, NULL, NULL, NULL, NULL};
    dnnl_stream_t stream = NULL;
    void *scratchpad = NULL;
    int nargs = 3;
    int threads = one_thread(failed);
    if (threads < 0) return dnnl_runtime_error;
    status = dnnl_invalid_arguments;
    if (w->in != m->in || w->out != m->out || (w->bias != NULL) != m->bias ||
        !dnnl_memory_desc_equal(&w->md, &m->weights)) {
        *failed = "lmbias_dnnl_matmul_run (weights of another shape or layout)";
        goto done;
    }
    status = dnnl_out_of_memory;
    if (m->scratchpad_size && posix_memalign(&scratchpad, 64, m->scratchpad_size)) {
        scratchpad = NULL;
        *failed = "posix_memalign";
        goto done;
    }
    /* Memory objects of our own for this call, over the caller's buffers and the stored
     * weights: oneDNN only reads src, weights and bias (the casts drop consts its C API does
     * not spell). */
    TRY(dnnl_memory_create, (&mems[0], &m->src, engine, (void *)src));
    TRY(dnnl_memory_create, (&mems[1], &m->weights, engine, w->data));
    TRY(dnnl_memory_create, (&mems[2], &m->dst, engine, dst));
    dnnl_exec_arg_t args[5] = {
        {DNNL_ARG_SRC, mems[0]}, {DNNL_ARG_WEIGHTS, mems[1]}, {DNNL_ARG_DST, mems[2]}};
    if (m->bias) {
        TRY(dnnl_memory_create, (&mems[3], &m->bias_md, engine, w->bias));
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_BIAS, mems[3]};
    }
    if (scratchpad) {
        TRY(dnnl_memory_create, (&mems[4], &m->scratchpad, engine, scratchpad));
        args[nargs++] = (dnnl_exec_arg_t){DNNL_ARG_SCRATCHPAD, mems[4]};
    }
    TRY(dnnl_stream_create, (&stream, engine, dnnl_stream_default_flags));
    TRY(dnnl_primitive_execute, (m->prim, stream, nargs, args));
    TRY(dnnl_stream_wait, (stream));
done:
    if (stream) dnnl_stream_destroy(stream);
    for (int i = 0; i < 5; i++)
        if (mems[i]) dnnl_memory_destroy(mems[i]);
    free(scratchpad);
    threads_restore(threads);
    return status;
}

/* oneDNN's name of a status, e.g. "out_of_memory". */
const char *lmbias_dnnl_status_name(dnnl_status_t status) { return dnnl_status2str(status); }

/* oneDNN's version, e.g. 2.6.3. */
void lmbias_dnnl_version(int *major, int *minor, int *patch) {
    const dnnl_version_t *v = dnnl_version();
    *major = v->major;
    *minor = v->minor;
    *patch = v->patch;
}
