/* oneDNN matmul throughput at the shapes of lmbias' forward pass (issue #23), the yardstick
 * for our own bf16 kernel. For each (M, K, N) it times C[M,N] = A[M,K] * B[K,N] + bias[N] with
 * oneDNN's matmul primitive in two configurations:
 *   f32   f32 src, f32 weights, f32 dst;
 *   bf16  bf16 src (plain row-major), bf16 weights, f32 bias and dst.
 * Weights are created with format_tag any and reordered once outside the timing into the layout
 * oneDNN prefers (what an inference engine does with stored weights); src is plain row-major.
 * The f32 -> bf16 conversion of src is not in the bf16 time: its own reorder is timed apart
 * (last column). M = 176 and 352 are 16 and 32 sentences of 11 tokens; (K, N) are the
 * projections of MiniLM (384 hidden, 1536 FFN) and bert-base (768, 3072).
 * Each measurement: 5 warm-up calls, then calls repeated until at least 0.5 s have passed.
 * Output: M K N config GFLOP/s (2*M*K*N per call) us/call implementation [src reorder us].
 *
 * Run: scripts/bench-dnnl.sh [M...] (needs Debian's libdnnl-dev; threads via OMP_NUM_THREADS, since
 * Debian builds oneDNN with the OpenMP runtime). ONEDNN_VERBOSE=1 also logs each primitive. */
#include <oneapi/dnnl/dnnl.h>
#include <oneapi/dnnl/dnnl_debug.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(f) do { dnnl_status_t s_ = (f); if (s_ != dnnl_success) { \
    fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #f, dnnl_status2str(s_)); exit(1); } } while (0)

static dnnl_engine_t eng;
static dnnl_stream_t strm;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static dnnl_memory_t mem(const dnnl_memory_desc_t *md) {
    dnnl_memory_t m;
    CHECK(dnnl_memory_create(&m, md, eng, DNNL_MEMORY_ALLOCATE));
    return m;
}

static void *ptr(dnnl_memory_t m) { void *p; CHECK(dnnl_memory_get_data_handle(m, &p)); return p; }

static void plain(dnnl_memory_desc_t *md, int64_t rows, int64_t cols, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_dims_t dims = {rows, cols};
    CHECK(dnnl_memory_desc_init_by_tag(md, 2, dims, dt, tag));
}

/* A random f32 matrix in [-1, 1) (no denormals), row-major. */
static dnnl_memory_t random_f32(int64_t rows, int64_t cols) {
    dnnl_memory_desc_t md;
    plain(&md, rows, cols, dnnl_f32, dnnl_ab);
    dnnl_memory_t m = mem(&md);
    float *p = ptr(m);
    for (int64_t i = 0; i < rows * cols; i++) p[i] = (float)rand() / RAND_MAX * 2.0f - 1.0f;
    return m;
}

/* Seconds per call of prim with args: 5 warm-up calls, then repeats for >= 0.5 s. */
static double time_it(dnnl_primitive_t prim, int nargs, const dnnl_exec_arg_t *args) {
    for (int i = 0; i < 5; i++) CHECK(dnnl_primitive_execute(prim, strm, nargs, args));
    CHECK(dnnl_stream_wait(strm));
    long calls = 0;
    double start = now(), elapsed;
    do {
        for (int i = 0; i < 10; i++) CHECK(dnnl_primitive_execute(prim, strm, nargs, args));
        CHECK(dnnl_stream_wait(strm));
        calls += 10;
    } while ((elapsed = now() - start) < 0.5);
    return elapsed / calls;
}

/* A reorder primitive from one memory to another; run once when once != 0. */
static dnnl_primitive_t reorder(dnnl_memory_t from, dnnl_memory_t to, int once, dnnl_exec_arg_t args[2]) {
    const dnnl_memory_desc_t *fmd, *tmd;
    CHECK(dnnl_memory_get_memory_desc(from, &fmd));
    CHECK(dnnl_memory_get_memory_desc(to, &tmd));
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t prim;
    CHECK(dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, NULL));
    CHECK(dnnl_primitive_create(&prim, pd));
    CHECK(dnnl_primitive_desc_destroy(pd));
    args[0] = (dnnl_exec_arg_t){DNNL_ARG_FROM, from};
    args[1] = (dnnl_exec_arg_t){DNNL_ARG_TO, to};
    if (once) { CHECK(dnnl_primitive_execute(prim, strm, 2, args)); CHECK(dnnl_stream_wait(strm)); }
    return prim;
}

static void bench(int64_t M, int64_t K, int64_t N, int bf16) {
    dnnl_data_type_t dt = bf16 ? dnnl_bf16 : dnnl_f32;
    dnnl_memory_t a32 = random_f32(M, K), b32 = random_f32(K, N), bias = random_f32(1, N);
    dnnl_memory_desc_t a_md, b_md, c_md;
    const dnnl_memory_desc_t *bias_md;
    plain(&a_md, M, K, dt, dnnl_ab);
    plain(&b_md, K, N, dt, dnnl_format_tag_any);
    plain(&c_md, M, N, dnnl_f32, dnnl_ab);
    CHECK(dnnl_memory_get_memory_desc(bias, &bias_md));

    dnnl_matmul_desc_t desc;
    dnnl_primitive_desc_t pd;
    dnnl_primitive_t mm;
    const char *impl;
    CHECK(dnnl_matmul_desc_init(&desc, &a_md, &b_md, bias_md, &c_md));
    CHECK(dnnl_primitive_desc_create(&pd, &desc, NULL, eng, NULL));
    CHECK(dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl));
    CHECK(dnnl_primitive_create(&mm, pd));

    /* Outside the timing: weights into the primitive's layout, src into its data type. */
    dnnl_exec_arg_t rargs[2];
    dnnl_memory_t a = mem(&a_md), b = mem(dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)), c = mem(&c_md);
    dnnl_primitive_destroy(reorder(b32, b, 1, rargs));
    dnnl_primitive_t src_reorder = reorder(a32, a, 1, rargs);

    dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, c}};
    double t = time_it(mm, 4, args), t_src = bf16 ? time_it(src_reorder, 2, rargs) : 0;
    printf("%4lld %4lld %4lld %-4s %7.1f %9.1f %s", (long long)M, (long long)K, (long long)N, bf16 ? "bf16" : "f32",
           2.0 * M * K * N / t * 1e-9, t * 1e6, impl);
    if (bf16) printf(" %.1f", t_src * 1e6);
    printf("\n");
    fflush(stdout); /* keep our lines whole among ONEDNN_VERBOSE's */

    /* Sanity: a few entries against a double-precision product of the f32 inputs, error
     * relative to sum |a*b| (bf16 inputs give ~1e-3). */
    const float *pa = ptr(a32), *pb = ptr(b32), *pbias = ptr(bias), *pc = ptr(c);
    for (int s = 0; s < 4; s++) {
        int64_t i = s * (M - 1) / 3, j = (s * 7919) % N;
        double ref = pbias[j], mag = fabs(pbias[j]);
        for (int64_t k = 0; k < K; k++) { ref += (double)pa[i * K + k] * pb[k * N + j]; mag += fabs((double)pa[i * K + k] * pb[k * N + j]); }
        if (fabs(pc[i * N + j] - ref) > (bf16 ? 2e-2 : 1e-5) * mag) {
            fprintf(stderr, "wrong result at %lld,%lld: %g vs %g\n", (long long)i, (long long)j, pc[i * N + j], ref);
            exit(1);
        }
    }
    dnnl_primitive_destroy(src_reorder);
    dnnl_primitive_destroy(mm);
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_t all[] = {a32, b32, bias, a, b, c};
    for (int i = 0; i < 6; i++) dnnl_memory_destroy(all[i]);
}

int main(int argc, char **argv) {
    const dnnl_version_t *v = dnnl_version();
    CHECK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    CHECK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    printf("# oneDNN %d.%d.%d, max ISA %s\n", v->major, v->minor, v->patch, dnnl_cpu_isa2str(dnnl_get_effective_cpu_isa()));
    printf("#  M    K    N cfg  GFLOP/s   us/call impl [f32->bf16 src reorder us]\n");
    const int64_t kn[][2] = {{384, 384}, {384, 1536}, {1536, 384}, {768, 768}, {768, 3072}, {3072, 768}};
    const int64_t ms[] = {176, 352};
    for (int m = 0; m < 2; m++) {
        int wanted = argc < 2; /* arguments, if any, pick the M values to run */
        for (int i = 1; i < argc; i++) wanted |= atoll(argv[i]) == ms[m];
        for (int s = 0; wanted && s < 6; s++)
            for (int bf16 = 0; bf16 < 2; bf16++) bench(ms[m], kn[s][0], kn[s][1], bf16);
    }
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return 0;
}
