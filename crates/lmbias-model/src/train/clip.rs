//! torch's `clip_grad_norm_`: one norm over every gradient of the model.
//! burn's own clipping bounds each tensor's norm separately, which is not
//! what a transformers run with `max_grad_norm` does.

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::tensor::Tensor;

/// Scales every gradient by `min(1, max_norm / (‖g‖ + 1e-6))`, ‖g‖ the L2 norm
/// of all gradients together.
pub(super) fn global_norm<M: Module>(model: &M, grads: &mut GradientsParams, max_norm: f64) {
    struct SumSquares<'a> {
        grads: &'a GradientsParams,
        total: Option<Tensor<1>>,
    }
    impl ModuleVisitor for SumSquares<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if let Some(g) = self.grads.get::<D>(param.id) {
                let s = g.square().sum();
                self.total = Some(match self.total.take() {
                    Some(t) => t + s,
                    None => s,
                });
            }
        }
    }
    struct Scale<'a> {
        grads: &'a mut GradientsParams,
        factor: f64,
    }
    impl ModuleVisitor for Scale<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            if let Some(g) = self.grads.remove::<D>(param.id) {
                self.grads.register(param.id, g.mul_scalar(self.factor));
            }
        }
    }
    let mut sum = SumSquares { grads, total: None };
    model.visit(&mut sum);
    let Some(total) = sum.total else { return };
    let norm = f64::from(total.into_scalar::<f32>()).sqrt();
    let factor = max_norm / (norm + 1e-6);
    if factor < 1.0 {
        model.visit(&mut Scale { grads, factor });
    }
}

#[cfg(test)]
mod tests {
    use burn::nn::LinearConfig;
    use burn::tensor::{Tensor, TensorData};

    use super::*;

    /// ‖g‖ over both tensors of a linear layer, as torch's clip_grad_norm_ computes it.
    fn total_norm(model: &burn::nn::Linear, grads: &GradientsParams) -> f64 {
        let w = grads.get::<2>(model.weight.id).unwrap();
        let b = grads.get::<1>(model.bias.as_ref().unwrap().id).unwrap();
        let sum = w.square().sum().into_scalar::<f32>() + b.square().sum().into_scalar::<f32>();
        f64::from(sum).sqrt()
    }

    #[test]
    fn clipping_bounds_the_norm_of_all_gradients_together() {
        let device = crate::DeviceKind::Cpu.device().unwrap().autodiff();
        let model = LinearConfig::new(3, 2).init(&device);
        let x = Tensor::<2>::from_data(TensorData::new(vec![10f32, -20., 30.], [1, 3]), &device);
        let grads = |model: &burn::nn::Linear| {
            GradientsParams::from_grads(model.forward(x.clone()).sum().backward(), model)
        };
        let mut g = grads(&model);
        let before = total_norm(&model, &g);
        assert!(before > 1.0);
        global_norm(&model, &mut g, 1.0);
        assert!((total_norm(&model, &g) - 1.0).abs() < 1e-5);
        // Under the bound, nothing changes.
        let mut g = grads(&model);
        global_norm(&model, &mut g, before * 2.0);
        assert!((total_norm(&model, &g) - before).abs() < 1e-4);
    }
}
