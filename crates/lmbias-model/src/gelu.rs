//! transformers' exact (erf) GELU, computed on the host slice.
//!
//! Burn's `gelu` calls libm's scalar `erff` once per element: 17 % of a MiniLM
//! forward pass in a profile (docs/benchmarks.md). On the CPU backends the
//! activations are already in host memory, so one pass over the slice with a
//! branch-free rational erf (lmbias-kernels' `math::gelu`, which the compiler
//! vectorises) does the same work; on a GPU Burn's own kernel stays.
//!
//! Training through Burn's graph on the CPU (a network the hand-written step
//! does not cover) takes the same route: Burn's autodiff GELU calls the
//! scalar `erff` forward and again backward (14 % of a MiniLM training step's
//! samples in a profile; this path takes 10 % less CPU time per step). The
//! host pass (lmbias-kernels' `math::gelu_with_slope`, which the hand-written training step
//! uses too) computes GELU's derivative `d = Φ(x) + x·φ(x)` beside it, and the result is
//! built as `x·d + (gelu(x) − x·d)` with both `d` and the bracket constants: the value is
//! gelu(x), and the one tracked product gives the exact gradient `d`.

use burn::tensor::activation;
use burn::tensor::{DType, Tensor, TensorData};

use lmbias_kernels::math::gelu_with_slope;

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
        lmbias_kernels::math::gelu(values);
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
    let (mut rest, mut slope) = (vec![0.0; values.len()], vec![0.0; values.len()]);
    gelu_with_slope(&values, &mut rest, &mut slope);
    // gelu(x) − x·d, so that x·d + rest is gelu(x).
    for ((r, &s), &x) in rest.iter_mut().zip(&slope).zip(&values) {
        *r -= x * s;
    }
    let slope = Tensor::<D>::from_data(TensorData::new(slope, shape.clone()), &device);
    let rest = Tensor::<D>::from_data(TensorData::new(rest, shape), &device);
    x * slope + rest
}

#[cfg(test)]
mod tests {
    use super::*;

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
