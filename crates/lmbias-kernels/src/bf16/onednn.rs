//! The `onednn` feature: [`crate::bf16::Linear`]'s products by oneDNN's matmul primitive
//! (src/bf16/onednn.c, against oneDNN 2.x's C API: Debian's libdnnl-dev 2.6.3), which picks its ISA
//! itself: `brg:avx512_core_bf16` on AVX512-BF16, AMX on Intel Sapphire Rapids and later.
//!
//! A layer's weights are rounded to bf16 and reordered once, when it is built, into the layout
//! oneDNN's matmul prefers ([`Weights`]). A matmul primitive is made for one number of rows
//! and serves every layer of its shape ([`Matmul`]): they are cached here, process-wide, by
//! `(rows, in, out, bias)`, since batches come in many token counts. Measured on one Zen 5
//! core at MiniLM's and bert-base's shapes: oneDNN 2.6's bf16 matmul with a run-time row
//! count is another implementation (`gemm:jit`, plain weights), up to ~11 % slower than the
//! brgemm one a fixed row count gets; making a primitive descriptor on every call (oneDNN's
//! own primitive cache then hands back the primitive) costs ~8 µs, up to ~3 % of a product.
//! Each call runs on the calling thread alone (src/bf16/onednn.c says how).

use std::collections::BTreeMap;
use std::ffi::{CStr, c_char, c_int};
use std::ptr::NonNull;
use std::sync::{Arc, Mutex, PoisonError};

use crate::bf16::ShapeError;

/// The weights of a layer in the shim (`struct lmbias_dnnl_weights`).
#[repr(C)]
struct RawWeights {
    _opaque: [u8; 0],
}

/// A matmul primitive in the shim (`struct lmbias_dnnl_matmul`).
#[repr(C)]
struct RawMatmul {
    _opaque: [u8; 0],
}

/// `dnnl_status_t`: 0 is success.
type Status = c_int;

// SAFETY (of the declarations): they match src/bf16/onednn.c's definitions.
unsafe extern "C" {
    fn lmbias_dnnl_weights_create(
        in_features: i64,
        out_features: i64,
        weight: *const f32,
        bias: *const f32,
        result: *mut *mut RawWeights,
        failed: *mut *const c_char,
    ) -> Status;
    fn lmbias_dnnl_weights_read(
        weights: *const RawWeights,
        weight: *mut f32,
        failed: *mut *const c_char,
    ) -> Status;
    fn lmbias_dnnl_weights_impl(weights: *const RawWeights) -> *const c_char;
    fn lmbias_dnnl_weights_destroy(weights: *mut RawWeights);
    fn lmbias_dnnl_matmul_create(
        weights: *const RawWeights,
        rows: i64,
        result: *mut *mut RawMatmul,
        failed: *mut *const c_char,
    ) -> Status;
    fn lmbias_dnnl_matmul_run(
        matmul: *const RawMatmul,
        weights: *const RawWeights,
        src: *const u16,
        dst: *mut f32,
        failed: *mut *const c_char,
    ) -> Status;
    fn lmbias_dnnl_matmul_destroy(matmul: *mut RawMatmul);
    safe fn lmbias_dnnl_status_name(status: Status) -> *const c_char;
    fn lmbias_dnnl_version(major: *mut c_int, minor: *mut c_int, patch: *mut c_int);
}

/// A C string of the shim's (a literal, oneDNN's, or one inside a live object) as text.
///
/// # Safety
/// `string` is null or a NUL-terminated string that lives for `'a`.
unsafe fn text<'a>(string: *const c_char) -> &'a str {
    if string.is_null() {
        return "?";
    }
    // SAFETY: the caller's.
    unsafe { CStr::from_ptr(string) }.to_str().unwrap_or("?")
}

/// The failed call and oneDNN's name of its status.
fn failure(status: Status, failed: *const c_char) -> ShapeError {
    // SAFETY: `failed` is null or one of the shim's string literals; `lmbias_dnnl_status_name`
    // returns oneDNN's static names.
    let (call, status) = unsafe { (text(failed), text(lmbias_dnnl_status_name(status))) };
    ShapeError::OneDnn {
        call: call.to_owned(),
        status: status.to_owned(),
    }
}

/// oneDNN's version, e.g. `2.6.3`.
fn version() -> String {
    let (mut major, mut minor, mut patch) = (0, 0, 0);
    // SAFETY: three valid pointers to write to.
    unsafe { lmbias_dnnl_version(&mut major, &mut minor, &mut patch) };
    format!("{major}.{minor}.{patch}")
}

/// A layer's weights (and bias) as oneDNN's matmul reads them: bf16 in its layout.
#[derive(Debug)]
pub(crate) struct Weights {
    raw: NonNull<RawWeights>,
    in_features: usize,
    out_features: usize,
    bias: bool,
}

// SAFETY: the shim's weights are immutable after `lmbias_dnnl_weights_create`; every function
// that takes them only reads them, from any thread (src/bf16/onednn.c), and `Drop` frees them once.
unsafe impl Send for Weights {}
// SAFETY: as for `Send`: shared references only ever read.
unsafe impl Sync for Weights {}

impl Drop for Weights {
    fn drop(&mut self) {
        // SAFETY: made by `lmbias_dnnl_weights_create`, freed only here.
        unsafe { lmbias_dnnl_weights_destroy(self.raw.as_ptr()) }
    }
}

impl Weights {
    /// `weight` `[in, out]` row-major, `bias` `[out]` (lengths checked by the caller, neither
    /// width 0), rounded to bf16 and reordered into the matmul's layout.
    pub(crate) fn new(
        weight: &[f32],
        in_features: usize,
        out_features: usize,
        bias: Option<&[f32]>,
    ) -> Result<Self, ShapeError> {
        debug_assert_eq!(weight.len(), in_features * out_features);
        debug_assert!(bias.is_none_or(|b| b.len() == out_features));
        let mut raw = std::ptr::null_mut();
        let mut failed = std::ptr::null();
        // SAFETY: `weight` holds `in · out` values and `bias` (or null) `out`, read only
        // during the call; the two out-pointers are valid.
        let status = unsafe {
            lmbias_dnnl_weights_create(
                dim(in_features),
                dim(out_features),
                weight.as_ptr(),
                bias.map_or(std::ptr::null(), <[f32]>::as_ptr),
                &mut raw,
                &mut failed,
            )
        };
        match NonNull::new(raw) {
            Some(raw) if status == 0 => Ok(Self {
                raw,
                in_features,
                out_features,
                bias: bias.is_some(),
            }),
            _ => Err(failure(status, failed)),
        }
    }

    /// The weight as stored, `[in, out]` f32 (each value its bf16).
    ///
    /// # Panics
    /// If oneDNN fails to reorder what it reordered when the layer was built (a bug).
    pub(crate) fn weight(&self) -> Vec<f32> {
        let mut weight = vec![0f32; self.in_features * self.out_features];
        let mut failed = std::ptr::null();
        // SAFETY: `weight` has room for `in · out` values, the shape of `self.raw`.
        let status = unsafe {
            lmbias_dnnl_weights_read(self.raw.as_ptr(), weight.as_mut_ptr(), &mut failed)
        };
        if status != 0 {
            panic!(
                "oneDNN could not read back a layer's weights: {}",
                failure(status, failed)
            );
        }
        weight
    }

    /// oneDNN's version and the implementation it chose for this layer's shape, e.g.
    /// `oneDNN 2.6.3 brg:avx512_core_bf16`.
    pub(crate) fn engine(&self) -> String {
        // SAFETY: the string lives inside `self.raw`, alive for the borrow.
        let implementation = unsafe { text(lmbias_dnnl_weights_impl(self.raw.as_ptr())) };
        format!("oneDNN {} {implementation}", version())
    }

    /// `out` `[rows, out]` = `src` `[rows, in]` (bf16 bits, row-major) times the weights,
    /// plus the bias.
    ///
    /// # Panics
    /// If oneDNN fails to make or run the matmul of this many rows, after it accepted the layer:
    /// a bug (or memory exhausted), not a user's input.
    pub(crate) fn product(&self, src: &[u16], rows: usize) -> Vec<f32> {
        assert_eq!(
            src.len(),
            rows * self.in_features,
            "src is not {rows} rows of {}",
            self.in_features
        );
        let len = rows * self.out_features;
        if rows == 0 {
            return Vec::new();
        }
        let matmul = self.matmul(rows);
        let mut out: Vec<f32> = Vec::with_capacity(len);
        let mut failed = std::ptr::null();
        // SAFETY: `matmul` was made for `rows` rows and weights of `self`'s shape, layout and
        // bias (the shim checks); `src` holds `rows · in` bf16, `out` has room for `rows · out`
        // f32.
        let status = unsafe {
            lmbias_dnnl_matmul_run(
                matmul.raw.as_ptr(),
                self.raw.as_ptr(),
                src.as_ptr().cast(),
                out.as_mut_ptr(),
                &mut failed,
            )
        };
        if status != 0 {
            panic!(
                "oneDNN's matmul of {rows} × {} × {} failed: {}",
                self.in_features,
                self.out_features,
                failure(status, failed)
            );
        }
        // SAFETY: the matmul succeeded, and it writes every value of its dst.
        unsafe { out.set_len(len) };
        out
    }

    /// The matmul of `rows` rows for this layer's shape: the cached one, or a new one cached.
    fn matmul(&self, rows: usize) -> Arc<Matmul> {
        let key = (rows, self.in_features, self.out_features, self.bias);
        let cached = |cache: &BTreeMap<_, Arc<Matmul>>| cache.get(&key).cloned();
        if let Some(matmul) = cached(&lock()) {
            return matmul;
        }
        // Made outside the lock: oneDNN compiles its kernels (~0.2 ms), and the other threads
        // go on meanwhile. Two threads that miss at once both make one; the first kept wins.
        let mut raw = std::ptr::null_mut();
        let mut failed = std::ptr::null();
        // SAFETY: `self.raw` is live; the two out-pointers are valid.
        let status = unsafe {
            lmbias_dnnl_matmul_create(self.raw.as_ptr(), dim(rows), &mut raw, &mut failed)
        };
        let made = match NonNull::new(raw) {
            Some(raw) if status == 0 => Arc::new(Matmul { raw }),
            _ => panic!(
                "oneDNN could not make the matmul of {rows} × {} × {}: {}",
                self.in_features,
                self.out_features,
                failure(status, failed)
            ),
        };
        let mut cache = lock();
        if cache.len() >= CACHE_CAPACITY {
            // Emptied rather than evicted one by one: it fills only where more distinct
            // shapes run than oneDNN's own primitive cache holds. Calls in flight keep theirs.
            cache.clear();
        }
        Arc::clone(cache.entry(key).or_insert(made))
    }
}

/// Matmuls kept at most, as many as oneDNN's own primitive cache holds by default (one of
/// bert-base's shapes at 400 row counts took ~80 KiB each).
const CACHE_CAPACITY: usize = 1024;

/// `(rows, in, out, bias)` → its matmul. The layout of the weights is a function of the
/// shape (`lmbias_dnnl_weights_create` always asks oneDNN the same question of it), which
/// `lmbias_dnnl_matmul_run` checks on every call.
type Cache = BTreeMap<(usize, usize, usize, bool), Arc<Matmul>>;

static MATMULS: Mutex<Cache> = Mutex::new(BTreeMap::new());

/// The cache; a panic while it was held left it whole (each change is one map operation).
fn lock() -> std::sync::MutexGuard<'static, Cache> {
    MATMULS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A matmul primitive for one number of rows and one shape of weights.
struct Matmul {
    raw: NonNull<RawMatmul>,
}

// SAFETY: the shim's matmul is immutable after `lmbias_dnnl_matmul_create`; oneDNN's primitives
// may run on several threads at once, and each run brings its own stream, memory objects and
// scratchpad (user scratchpad mode, src/bf16/onednn.c). `Drop` frees it once, when the last `Arc`
// goes.
unsafe impl Send for Matmul {}
// SAFETY: as for `Send`.
unsafe impl Sync for Matmul {}

impl Drop for Matmul {
    fn drop(&mut self) {
        // SAFETY: made by `lmbias_dnnl_matmul_create`, freed only here.
        unsafe { lmbias_dnnl_matmul_destroy(self.raw.as_ptr()) }
    }
}

/// A width or row count as oneDNN's `dnnl_dim_t`.
fn dim(n: usize) -> i64 {
    i64::try_from(n).expect("a dimension beyond i64")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16::Bf16Units;

    unsafe extern "C" {
        fn lmbias_dnnl_matmul_impl(matmul: *const RawMatmul) -> *const c_char;
    }

    #[test]
    fn a_failure_names_the_call_and_the_status() {
        // dnnl_unimplemented.
        let err = failure(3, c"dnnl_primitive_desc_create".as_ptr());
        assert_eq!(
            err.to_string(),
            "oneDNN's dnnl_primitive_desc_create failed: unimplemented"
        );
    }

    /// Layers of one shape share the matmul of a row count; each row count gets oneDNN's
    /// matmul for the stored layout, not its reference code.
    #[test]
    fn matmuls_are_shared_by_shape_and_fast_at_every_row_count() {
        if Bf16Units::detect().is_none() {
            return;
        }
        let (k, n) = (64, 48);
        let weight = vec![0.5f32; k * n];
        let a = Weights::new(&weight, k, n, None).unwrap();
        let b = Weights::new(&weight, k, n, None).unwrap();
        for rows in [1, 3, 128, 177] {
            let matmul = a.matmul(rows);
            assert!(Arc::ptr_eq(&matmul, &b.matmul(rows)));
            // SAFETY: the string lives inside the matmul, alive for the borrow.
            let implementation = unsafe { text(lmbias_dnnl_matmul_impl(matmul.raw.as_ptr())) };
            assert!(
                implementation.starts_with("brg"),
                "{rows} rows: {implementation}"
            );
        }
        // The same shape with a bias is another matmul.
        let c = Weights::new(&weight, k, n, Some(&[0.0; 48])).unwrap();
        assert!(!Arc::ptr_eq(&a.matmul(3), &c.matmul(3)));
    }
}
