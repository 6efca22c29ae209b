//! The trained parameters on the host: the master copy the optimizer updates,
//! taken from a Burn module and put back into it (for a checkpoint, the export
//! and the evaluation; on a GPU, before every step).

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param, ParamId};
use burn::optim::GradientsParams;
use burn::tensor::{Tensor, TensorData};

use crate::weights::host_values;

/// One float tensor per parameter, in the module's visiting order.
pub(super) struct Store {
    /// The values, row-major.
    pub(super) values: Vec<Vec<f32>>,
    /// Each tensor's shape.
    pub(super) shapes: Vec<Vec<usize>>,
    /// Each tensor's id in the module.
    ids: Vec<ParamId>,
}

impl Store {
    /// Copies every float parameter of `model` to the host.
    pub(super) fn of<M: Module>(model: &M) -> Self {
        struct Collect(Store);
        impl ModuleVisitor for Collect {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                let value = param.val();
                self.0.shapes.push(value.dims().to_vec());
                self.0.values.push(host_values(value));
                self.0.ids.push(param.id);
            }
        }
        let mut collect = Collect(Store {
            values: Vec::new(),
            shapes: Vec::new(),
            ids: Vec::new(),
        });
        model.visit(&mut collect);
        collect.0
    }

    /// The index of parameter `id`.
    pub(super) fn index(&self, id: ParamId) -> usize {
        self.ids
            .iter()
            .position(|&i| i == id)
            .expect("the parameter belongs to the model the store was taken from")
    }

    /// Zero-filled buffers of the same shapes (gradients, moments).
    pub(super) fn zeros(&self) -> Vec<Vec<f32>> {
        self.values.iter().map(|v| vec![0.0; v.len()]).collect()
    }

    /// `model` with this store's values, ids and gradient tracking kept.
    pub(super) fn put_into<M: Module>(&self, model: M) -> M {
        struct Put<'a>(&'a Store, usize);
        impl ModuleMapper for Put<'_> {
            fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
                let i = self.1;
                self.1 += 1;
                let (store, shape) = (self.0, self.0.shapes[i].clone());
                param.map(|old| {
                    let tracked = old.is_require_grad();
                    let data = TensorData::new(store.values[i].clone(), shape);
                    let new = Tensor::<D>::from_data(data, &old.device());
                    if tracked { new.require_grad() } else { new }
                })
            }
        }
        model.map(&mut Put(self, 0))
    }

    /// The gradients Burn's autodiff computed for `model` (taken from this store), in
    /// the store's order; a parameter the loss does not reach gets zeros.
    pub(super) fn gradients<M: Module>(&self, model: &M, grads: &GradientsParams) -> Vec<Vec<f32>> {
        struct Take<'a>(&'a GradientsParams, Vec<Vec<f32>>, &'a Store);
        impl ModuleVisitor for Take<'_> {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                let i = self.1.len();
                self.1.push(match self.0.get::<D>(param.id) {
                    Some(g) => host_values(g),
                    None => vec![0.0; self.2.values[i].len()],
                });
            }
        }
        let mut take = Take(grads, Vec::with_capacity(self.values.len()), self);
        model.visit(&mut take);
        take.1
    }
}
