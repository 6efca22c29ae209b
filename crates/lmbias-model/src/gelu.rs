//! transformers' exact (erf) GELU, computed on the host slice.
//!
//! Burn's `gelu` calls libm's scalar `erff` once per element: 17 % of a MiniLM
//! forward pass in a profile (docs/benchmarks.md). On the CPU backends the
//! activations are already in host memory, so one pass over the slice with a
//! branch-free rational erf (lmbias-kernels' `math::erf`, which the compiler
//! vectorises) does the same work; on a GPU Burn's own kernel stays.
//!
//! Training through Burn's graph on the CPU (a network the hand-written step
//! does not cover) takes the same route: Burn's autodiff GELU calls the
//! scalar `erff` forward and again backward (14 % of a MiniLM training step's
//! samples in a profile; this path takes 10 % less CPU time per step). The
//! host pass computes GELU's derivative `d = Φ(x) + x·φ(x)` beside it, and the result is built as `x·d + (gelu(x) − x·d)` with both `d`
//! and the bracket constants: the value is gelu(x), and the one tracked product
//! gives the exact gradient `d`.

use burn::tensor::activation;
use burn::tensor::{DType, Tensor, TensorData};

use lmbias_kernels::math::erf;

use crate::device::on_host;

/// `x · Φ(x) = x/2 · (1 + erf(x/√2))`, as transformers' `gelu` (not `gelu_new`).
pub(crate) fn gelu<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    let device = x.device();
    if !on_host(&device) || x.dtype() != DType::F32 {
        return activation::gelu(x);
    }
    if device.is_autodiff() {
        return gelu_tracked(x);
    }
    let mut data = x.into_data();
    if let Ok(values) = data.as_mut_slice::<f32>() {
        gelu_slice(values);
        return Tensor::from_data(data, &device);
    }
    // Not reached (the dtype is F32), but Burn's kernel is always right.
    activation::gelu(Tensor::from_data(data, &device))
}

/// GELU of a tracked tensor on the host: the value from the slice, the gradient
/// through one product with the derivative (see the module docs).
fn gelu_tracked<const D: usize>(x: Tensor<D>) -> Tensor<D> {
    let device = x.device();
    let shape = x.shape();
    let Ok(values) = x.clone().into_data().try_into_vec::<f32>() else {
        return activation::gelu(x);
    };
    let mut slope = values.clone();
    let mut rest = values;
    gelu_and_slope(&mut rest, &mut slope);
    let slope = Tensor::<D>::from_data(TensorData::new(slope, shape.clone()), &device);
    let rest = Tensor::<D>::from_data(TensorData::new(rest, shape), &device);
    x * slope + rest
}

/// On entry both hold x; on exit `slope` holds d = Φ(x) + x·φ(x) and `rest`
/// holds gelu(x) − x·d (so that x·d + rest = gelu(x)).
fn gelu_and_slope(rest: &mut [f32], slope: &mut [f32]) {
    const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
    for (r, s) in rest.iter_mut().zip(slope.iter_mut()) {
        let x = f64::from(*r);
        let cdf = 0.5 * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2));
        let pdf = FRAC_1_SQRT_2PI * (-0.5 * x * x).exp();
        let d = cdf + x * pdf;
        *s = d as f32;
        *r = (x * cdf - x * f64::from(d as f32)) as f32;
    }
}

/// GELU in place, with the widest vector units the CPU has (chosen at run
/// time, so the binary stays portable).
fn gelu_slice(values: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { gelu_slice_avx512(values) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, checked just above.
            return unsafe { gelu_slice_avx2(values) };
        }
    }
    values.iter_mut().for_each(|v| *v = gelu_scalar(*v));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn gelu_slice_avx512(values: &mut [f32]) {
    values.iter_mut().for_each(|v| *v = gelu_scalar(*v));
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn gelu_slice_avx2(values: &mut [f32]) {
    values.iter_mut().for_each(|v| *v = gelu_scalar(*v));
}

#[inline(always)]
fn gelu_scalar(x: f32) -> f32 {
    let x = f64::from(x);
    (0.5 * x * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2))) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GELU against the f64 formula (within one f32 rounding and the erf error,
    /// relative to max(1, |x|)), and its tails.
    #[test]
    fn gelu_matches_the_exact_formula() {
        for i in -20_000..=20_000 {
            let x = i as f32 * 5e-4;
            let exact = 0.5 * f64::from(x) * (1.0 + libm::erf(f64::from(x) / 2f64.sqrt()));
            let err = (f64::from(gelu_scalar(x)) - exact).abs() / f64::from(x.abs()).max(1.0);
            assert!(err < 1.5e-7, "x = {x}: {} vs {exact}", gelu_scalar(x));
        }
        // The vectorised path computes the same numbers as the scalar one.
        let xs: Vec<f32> = (-3000..3000).map(|i| i as f32 * 3.3e-3).collect();
        let mut ys = xs.clone();
        gelu_slice(&mut ys);
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

    /// On an autodiff device: the value and the gradient of Burn's own GELU.
    #[test]
    fn the_tracked_gelu_has_burns_value_and_gradient() {
        let device = crate::DeviceKind::Cpu.device().unwrap().autodiff();
        let xs: Vec<f32> = (-400..400).map(|i| i as f32 * 0.0125).collect();
        let n = xs.len();
        let run = |f: fn(Tensor<1>) -> Tensor<1>| {
            let x =
                Tensor::<1>::from_data(TensorData::new(xs.clone(), [n]), &device).require_grad();
            let y = f(x.clone());
            let values = y.clone().into_data().try_into_vec::<f32>().unwrap();
            let grads = y.sum().backward();
            let slope = x
                .grad(&grads)
                .unwrap()
                .into_data()
                .try_into_vec::<f32>()
                .unwrap();
            (values, slope)
        };
        let (ours, our_slope) = run(gelu);
        let (burns, burn_slope) = run(activation::gelu);
        for i in 0..n {
            assert!(
                (ours[i] - burns[i]).abs() < 1e-6,
                "x = {}: {} vs {}",
                xs[i],
                ours[i],
                burns[i]
            );
            assert!(
                (our_slope[i] - burn_slope[i]).abs() < 1e-5,
                "x = {}: d {} vs {}",
                xs[i],
                our_slope[i],
                burn_slope[i]
            );
        }
    }
}
