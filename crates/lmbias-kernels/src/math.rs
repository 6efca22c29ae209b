//! Branch-free `exp`, `erf` and GELU for loops over slices: plain `*`, `+` and
//! bit operations, so that the compiler vectorises them (libm's scalar calls do
//! not vectorise; they were most of a GELU's time).

/// e^x in f32 arithmetic, within 2 ulp of the exact value on [-87, 88] (0 below it,
/// e^88 above): x = n·ln 2 + r with |r| ≤ ln 2 / 2, e^r by its Taylor polynomial
/// to degree 7, 2^n put into the exponent bits.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 in two parts, so that n·ln 2 is exact to f32's precision.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // 1.5 · 2^23: adding it rounds to an integer, held in the low mantissa bits.
    const ROUND: f32 = 12_582_912.0;
    let below = x < -87.0;
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * LOG2_E + ROUND;
    let n = shifted - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0
                    + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0 + r / 5040.0))))));
    // The low bits of `shifted` are n (two's complement); n + 127 is the biased exponent.
    let scale = f32::from_bits((shifted.to_bits().wrapping_add(127)) << 23);
    if below { 0.0 } else { p * scale }
}

/// erf as a ratio of an odd and an even polynomial in x on [-4, 4] (beyond it
/// erf is ±1 in f32): the coefficients of XLA's `ErfImpl32` and Eigen's
/// `generic_fast_erf_float`, evaluated in f64, where the approximation is
/// within 6.5e-8 of erf (in f32 arithmetic its rounding reaches 4e-7; torch's
/// f32 erf is within 3.3e-8). No branch, plain `*` and `+` (`mul_add` is a libm
/// call on a CPU baseline without FMA), so a loop over a slice vectorises.
#[inline(always)]
pub fn erf(x: f64) -> f64 {
    const ALPHA: [f64; 7] = [
        -2.726_142_258_013_06e-10,
        2.770_681_424_959_02e-8,
        -2.101_024_020_825_08e-6,
        -5.692_506_394_623_46e-5,
        -7.349_906_303_268_55e-4,
        -2.954_599_808_540_25e-3,
        -1.609_603_332_624_15e-2,
    ];
    const BETA: [f64; 5] = [
        -1.456_607_184_649_96e-5,
        -2.133_740_552_789_05e-4,
        -1.682_826_974_382_03e-3,
        -7.373_329_167_204_68e-3,
        -1.426_473_905_141_89e-2,
    ];
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = ALPHA.iter().fold(0.0, |acc: f64, &a| acc * x2 + a);
    let q = BETA.iter().fold(0.0, |acc: f64, &b| acc * x2 + b);
    // The ratio overshoots ±1 by up to 5e-8 near the clamp, where erf is ±1 in f32.
    (x * p / q).clamp(-1.0, 1.0)
}

/// Runs `body` compiled for the widest vector units the CPU has, chosen at run time so that
/// the binary stays portable: the loops inside (plain arithmetic, nothing fused) vectorise to
/// AVX-512 or AVX2 and compute the same numbers on each. The one dispatch of this crate's
/// slice loops.
#[inline(always)]
fn on_widest_units(body: impl FnOnce()) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { with_avx512(body) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { with_avx2(body) };
        }
    }
    body();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn with_avx512(body: impl FnOnce()) {
    body();
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn with_avx2(body: impl FnOnce()) {
    body();
}

/// transformers' exact GELU, `x·Φ(x)` (not `gelu_new`), in place: Φ from [`erf`] in f64, one
/// rounding to f32 at the end.
pub fn gelu(values: &mut [f32]) {
    on_widest_units(|| values.iter_mut().for_each(|v| *v = gelu_scalar(*v)));
}

#[inline(always)]
fn gelu_scalar(x: f32) -> f32 {
    let x = f64::from(x);
    (0.5 * x * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2))) as f32
}

/// transformers' exact GELU, `x·Φ(x)`, into `value`, and its derivative
/// `Φ(x) + x·φ(x)` into `slope` (what the backward pass multiplies by), in f32 arithmetic
/// beside [`erf`]'s f64.
pub fn gelu_with_slope(x: &[f32], value: &mut [f32], slope: &mut [f32]) {
    const FRAC_1_SQRT_2PI: f32 = 0.398_942_3;
    on_widest_units(|| {
        for ((&x, v), s) in x.iter().zip(value.iter_mut()).zip(slope.iter_mut()) {
            let cdf = (0.5 * (1.0 + erf(f64::from(x) * std::f64::consts::FRAC_1_SQRT_2))) as f32;
            let pdf = FRAC_1_SQRT_2PI * exp(-0.5 * x * x);
            *v = x * cdf;
            *s = cdf + x * pdf;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_within_two_ulp() {
        let mut worst = 0f64;
        for i in -870_000..=880_000 {
            let x = i as f32 * 1e-4;
            let exact = f64::from(x).exp();
            let err = (f64::from(exp(x)) - exact).abs() / exact;
            worst = worst.max(err);
        }
        assert!(worst < 2.5e-7, "worst relative error {worst:e}");
        assert_eq!(exp(-100.0), 0.0);
        assert_eq!(exp(0.0), 1.0);
    }

    #[test]
    fn erf_is_within_1e7_of_exact() {
        for i in -60_000..=60_000 {
            let x = f64::from(i as f32 * 1e-4);
            assert!((erf(x) - libm::erf(x)).abs() < 1e-7, "x = {x}");
        }
    }

    /// GELU against the f64 formula (within one f32 rounding and the erf error, relative to
    /// max(1, |x|)), its tails, and the vectorised path against the scalar one.
    #[test]
    fn gelu_matches_the_exact_formula() {
        for i in -20_000..=20_000 {
            let x = i as f32 * 5e-4;
            let exact = 0.5 * f64::from(x) * (1.0 + libm::erf(f64::from(x) / 2f64.sqrt()));
            let err = (f64::from(gelu_scalar(x)) - exact).abs() / f64::from(x.abs()).max(1.0);
            assert!(err < 1.5e-7, "x = {x}: {} vs {exact}", gelu_scalar(x));
        }
        let xs: Vec<f32> = (-3000..3000).map(|i| i as f32 * 3.3e-3).collect();
        let mut ys = xs.clone();
        gelu(&mut ys);
        for (x, y) in xs.iter().zip(&ys) {
            assert!(
                (y - gelu_scalar(*x)).abs() <= 1e-7 * x.abs().max(1.0),
                "x = {x}"
            );
        }
        assert_eq!(gelu_scalar(0.0), 0.0);
        assert_eq!(gelu_scalar(20.0), 20.0);
        assert_eq!(gelu_scalar(-20.0), 0.0);
    }

    /// Value and slope against the f64 formulas.
    #[test]
    fn gelu_and_its_slope() {
        let xs: Vec<f32> = (-16_000..=16_000).map(|i| i as f32 * 5e-4).collect();
        let (mut v, mut s) = (vec![0.0; xs.len()], vec![0.0; xs.len()]);
        gelu_with_slope(&xs, &mut v, &mut s);
        for ((&x, &v), &s) in xs.iter().zip(&v).zip(&s) {
            let x64 = f64::from(x);
            let cdf = 0.5 * (1.0 + libm::erf(x64 / 2f64.sqrt()));
            let pdf = (-0.5 * x64 * x64).exp() / (2.0 * std::f64::consts::PI).sqrt();
            assert!(
                (f64::from(v) - x64 * cdf).abs() < 1e-6 * x64.abs().max(1.0),
                "x = {x}"
            );
            assert!((f64::from(s) - (cdf + x64 * pdf)).abs() < 1e-6, "x = {x}");
        }
    }
}
