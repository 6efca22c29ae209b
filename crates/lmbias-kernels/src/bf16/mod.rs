//! Matrix products on the CPU's bf16 units: `x · W + b` with `W` stored once in bf16 and
//! packed for the kernel, `x` rounded to bf16 on the way in, every product accumulated in
//! f32 (AVX512-BF16's `vdpbf16ps`), the output f32.
//!
//! burn-flex 0.22 multiplies bf16 matrices by converting them to f32 first, so it never
//! reaches these units; this crate is the one place lmbias does. Whether the CPU has them
//! is decided at run time ([`Bf16Units::detect`]); a [`Linear`] can only be built with the
//! [`Bf16Units`] that detection returned, so the kernel never runs where it cannot.
//!
//! The opt-in cargo feature `onednn` runs [`Linear`]'s products with oneDNN's matmul
//! primitive instead of this crate's kernel: oneDNN 2.x's C library (Debian's libdnnl-dev
//! 2.6), found with pkg-config or else linked as `dnnl`, which chooses its instructions itself
//! (AMX on Intel Sapphire Rapids and later). The default build needs no oneDNN.
//!
//! ```
//! use lmbias_kernels::bf16::{Bf16Units, Linear};
//!
//! // W is [in, out] = [2, 3], row-major; x is one row of 2.
//! let weight = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
//! if let Some(units) = Bf16Units::detect() {
//!     let layer = Linear::new(units, &weight, 2, 3, Some(&[0.5, 0.5, 0.5]))?;
//!     assert_eq!(layer.forward(&[1.0, 1.0]), vec![5.5, 7.5, 9.5]);
//! }
//! # Ok::<(), lmbias_kernels::bf16::ShapeError>(())
//! ```

/// Output columns per panel of packed weights: two 16-lane registers. The packing
/// (`pack`) lays weights out in panels of this width and the kernel (`avx512`) reads them so.
#[cfg(not(feature = "onednn"))]
const PANEL: usize = 32;

#[cfg(target_arch = "x86_64")]
mod avx512;
mod convert;
#[cfg(feature = "onednn")]
mod onednn;
mod pack;

pub use convert::{bf16_to_f32, f32_to_bf16};
pub use pack::{Linear, ShapeError};

/// Proof that this CPU has bf16 matrix units, obtained only from [`Bf16Units::detect`].
#[derive(Debug, Clone, Copy)]
pub struct Bf16Units {
    /// No value of this type exists where there is no kernel.
    #[cfg(not(target_arch = "x86_64"))]
    never: std::convert::Infallible,
}

impl Bf16Units {
    /// The CPU's bf16 units, if it has them: AVX512-BF16 (with AVX512-F) on x86-64, checked
    /// with `cpuid` at run time. `None` elsewhere, and then callers run in f32.
    pub fn detect() -> Option<Self> {
        #[cfg(target_arch = "x86_64")]
        {
            (std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bf16"))
            .then_some(Self {})
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// The instruction set the kernel uses, for notices and reports.
    pub fn isa(&self) -> &'static str {
        "avx512_bf16"
    }
}
