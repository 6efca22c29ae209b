//! torch's `nn.Linear`, in the precision the model was loaded in: Burn's `Linear` for f32
//! (and training), or the weight packed once in bf16 for the CPU's bf16 units.

use std::sync::Arc;

use burn::module::{
    Content, Devices, Module, ModuleDisplay, ModuleDisplayDefault, ModuleMapper, ModuleVisitor,
};
use burn::nn::Linear;
use burn::tensor::{Device, Tensor, TensorData};

/// A linear layer, `x · W + b` over the last dimension.
#[derive(Module, Debug)]
pub(crate) enum Dense {
    /// Burn's f32 layer: the default, and the only one that trains.
    F32(Linear),
    /// The weight in bf16, multiplied on the CPU's bf16 units; the bias f32.
    Bf16(Packed),
}

impl Dense {
    /// `x` `[..., in]` → `[..., out]`.
    pub(crate) fn forward<const D: usize>(&self, x: Tensor<D>) -> Tensor<D> {
        match self {
            Dense::F32(linear) => linear.forward(x),
            Dense::Bf16(Packed(layer)) => {
                let device = x.device();
                let mut dims = x.dims();
                let values = x
                    .into_data()
                    .try_into_vec::<f32>()
                    .expect("activations are f32: only weights are stored in bf16");
                let out = layer.forward(&values);
                dims[D - 1] = layer.out_features();
                Tensor::from_data(TensorData::new(out, dims), &device)
            }
        }
    }
}

/// lmbias-kernels' bf16 layer as a Burn module with no parameters: inference only, nothing for
/// an optimizer or a device move to touch (the weights live in host memory).
#[derive(Debug, Clone)]
pub(crate) struct Packed(pub(crate) Arc<lmbias_kernels::bf16::Linear>);

impl Module for Packed {
    fn visit<V: ModuleVisitor>(&self, _visitor: &mut V) {}

    fn map<M: ModuleMapper>(self, _mapper: &mut M) -> Self {
        self
    }

    fn to_device(self, _: &Device) -> Self {
        self
    }

    fn fork(self, _: &Device) -> Self {
        self
    }

    fn collect_devices(&self, devices: Devices) -> Devices {
        devices
    }

    fn materialize(self) -> Self {
        self
    }

    fn valid(&self) -> Self {
        self.clone()
    }

    fn train(self) -> Self {
        self
    }
}

impl ModuleDisplayDefault for Packed {
    fn content(&self, content: Content) -> Option<Content> {
        let layer = &self.0;
        content
            .add_formatted(&format!(
                "bf16 {}→{}",
                layer.in_features(),
                layer.out_features()
            ))
            .optional()
    }
}

impl ModuleDisplay for Packed {}
