//! Named tensors of a checkpoint file, turned into Burn modules.
//!
//! burn-store reads the file (safetensors, or a torch pickle without Python);
//! this module maps Hugging Face names onto Burn layouts itself, because the
//! naming variants of real BERT checkpoints (`bert.` prefix or not, LayerNorm
//! `weight/bias` or TF-era `gamma/beta`, tied or untied decoder) are easier to
//! state as lookups than as regex remappings, and because a missing tensor must
//! be an error that names it: nothing is ever left at its random init.

use std::collections::BTreeMap;
use std::path::PathBuf;

use burn::module::Param;
use burn::nn::{Embedding, LayerNorm, LayerNormConfig, Linear};
use burn::tensor::{DType, Device, Tensor, TensorData};
use burn_store::burn_pack::Tensor as PackTensor;
use burn_store::{ModuleStore, PytorchStore, SafetensorsStore, bridge};

use crate::checkpoint::{Checkpoint, WeightsFormat};
use crate::error::ModelError;

/// All tensors of one weights file, by their names in the file.
pub(crate) struct Weights {
    path: PathBuf,
    tensors: BTreeMap<String, PackTensor>,
    device: Device,
}

impl Weights {
    pub fn open(checkpoint: &Checkpoint, device: &Device) -> Result<Self, ModelError> {
        let path = checkpoint.weights_path().to_path_buf();
        let fail = |message: String| ModelError::Weights {
            path: path.clone(),
            message,
        };
        let tensors = match checkpoint.weights_format() {
            WeightsFormat::Safetensors => SafetensorsStore::from_file(&path)
                .get_all_tensors()
                .cloned()
                .map_err(|e| fail(e.to_string()))?,
            WeightsFormat::PytorchBin => PytorchStore::from_file(&path)
                .get_all_tensors()
                .cloned()
                .map_err(|e| fail(e.to_string()))?,
        };
        Ok(Self {
            path,
            tensors,
            device: device.clone(),
        })
    }

    /// Whether `name` (with or without the `bert.` prefix) is in the file.
    pub fn contains(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// The tensor stored as `name`, trying the `bert.` prefix and, for LayerNorm
    /// parameters, the TF-era `gamma`/`beta` names.
    fn find(&self, name: &str) -> Option<&PackTensor> {
        let aliases = [
            Some(name.to_string()),
            name.strip_suffix("LayerNorm.weight")
                .map(|p| format!("{p}LayerNorm.gamma")),
            name.strip_suffix("LayerNorm.bias")
                .map(|p| format!("{p}LayerNorm.beta")),
        ];
        aliases
            .into_iter()
            .flatten()
            .flat_map(|n| [format!("bert.{n}"), n])
            .find_map(|n| self.tensors.get(&n))
    }

    /// The f32 values of `name`, checked against `shape`.
    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        let tensor = self.find(name).ok_or_else(|| ModelError::MissingTensor {
            path: self.path.clone(),
            tensor: name.to_string(),
        })?;
        let found: Vec<usize> = tensor.shape.iter().copied().collect();
        if found != shape {
            return Err(ModelError::Shape {
                path: self.path.clone(),
                tensor: tensor.name.clone(),
                expected: shape.to_vec(),
                found,
            });
        }
        let bad = |message: String| ModelError::Weights {
            path: self.path.clone(),
            message: format!("tensor {}: {message}", tensor.name),
        };
        let data = bridge::to_data(tensor).map_err(|e| bad(e.to_string()))?;
        let data = match data.dtype() {
            DType::F32 => data,
            // Half-precision checkpoints are widened once at load: all arithmetic is f32.
            DType::F16 | DType::BF16 => data
                .try_cast_as::<f32>()
                .map_err(|e| bad(format!("{e:?}")))?,
            other => {
                return Err(ModelError::DType {
                    path: self.path.clone(),
                    tensor: tensor.name.clone(),
                    dtype: format!("{other:?}"),
                });
            }
        };
        data.try_into_vec::<f32>()
            .map_err(|e| bad(format!("{e:?}")))
    }

    pub fn tensor<const D: usize>(
        &self,
        name: &str,
        shape: [usize; D],
    ) -> Result<Tensor<D>, ModelError> {
        let values = self.values(name, &shape)?;
        Ok(Tensor::from_data(
            TensorData::new(values, shape),
            &self.device,
        ))
    }

    /// A torch `nn.Linear` (`weight` is `[out, in]`), transposed to Burn's `[in, out]`.
    pub fn linear(&self, prefix: &str, d_in: usize, d_out: usize) -> Result<Linear, ModelError> {
        self.linear_from(
            &format!("{prefix}.weight"),
            &format!("{prefix}.bias"),
            d_in,
            d_out,
        )
    }

    /// A linear layer from a `[out, in]` weight and a bias stored under any names
    /// (the MLM decoder reuses the word embeddings when tied).
    pub fn linear_from(
        &self,
        weight: &str,
        bias: &str,
        d_in: usize,
        d_out: usize,
    ) -> Result<Linear, ModelError> {
        Ok(Linear {
            weight: Param::from_tensor(self.transposed(weight, d_in, d_out)?),
            bias: Some(Param::from_tensor(self.tensor(bias, [d_out])?)),
        })
    }

    /// A torch `nn.Linear(bias=False)` (T5's projections), transposed to Burn's `[in, out]`.
    pub fn linear_no_bias(
        &self,
        weight: &str,
        d_in: usize,
        d_out: usize,
    ) -> Result<Linear, ModelError> {
        Ok(Linear {
            weight: Param::from_tensor(self.transposed(weight, d_in, d_out)?),
            bias: None,
        })
    }

    /// A `[out, in]` weight as a contiguous `[in, out]` tensor.
    fn transposed(&self, weight: &str, d_in: usize, d_out: usize) -> Result<Tensor<2>, ModelError> {
        let weight = self.values(weight, &[d_out, d_in])?;
        let mut transposed = vec![0f32; weight.len()];
        for (o, row) in weight.chunks_exact(d_in).enumerate() {
            for (i, w) in row.iter().enumerate() {
                transposed[i * d_out + o] = *w;
            }
        }
        Ok(Tensor::from_data(
            TensorData::new(transposed, [d_in, d_out]),
            &self.device,
        ))
    }

    pub fn layer_norm(&self, prefix: &str, d: usize, eps: f64) -> Result<LayerNorm, ModelError> {
        let mut norm = LayerNormConfig::new(d).with_epsilon(eps).init(&self.device);
        norm.gamma = Param::from_tensor(self.tensor(&format!("{prefix}.weight"), [d])?);
        norm.beta = Some(Param::from_tensor(
            self.tensor(&format!("{prefix}.bias"), [d])?,
        ));
        Ok(norm)
    }

    pub fn embedding(&self, name: &str, n: usize, d: usize) -> Result<Embedding, ModelError> {
        Ok(Embedding {
            weight: Param::from_tensor(self.tensor(name, [n, d])?),
        })
    }
}
