//! Named tensors of a checkpoint file, read through scoped views.
//!
//! burn-store reads the file (safetensors, or a torch pickle without Python);
//! the models map Hugging Face names onto Burn layouts themselves, each sub-module
//! reading its own tensors through a view scoped to its prefix, as candle's
//! `VarBuilder` does: `weights.pp("encoder").pp("layer.3").linear(..)` reads
//! `encoder.layer.3.weight` and `.bias`. A missing tensor is an error that names
//! it: nothing is ever left at its random init.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use burn::module::Param;
use burn::nn::{Embedding, LayerNorm, LayerNormConfig, Linear};
use burn::tensor::{DType, Device, Tensor, TensorData};
use burn_store::burn_pack::Tensor as PackTensor;
use burn_store::{
    ModuleStore, PytorchStore, PytorchStoreError, SafetensorsStore, SafetensorsStoreError, bridge,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use lmbias_kernels::bf16::Bf16Units;

use crate::checkpoint::{Checkpoint, WeightsFormat};
use crate::dense::{Dense, Packed};
use crate::error::ModelError;

/// All tensors of one weights file, by their names in the file.
pub(crate) struct WeightsFile {
    path: PathBuf,
    tensors: BTreeMap<String, PackTensor>,
    device: Device,
    /// Where tensors the file lacks are freshly initialised instead of an error.
    fresh: Option<Fresh>,
    /// Linear layers are packed for these bf16 units (`Compute`'s precision).
    bf16: Option<Bf16Units>,
    /// Vocabulary rows appended to the tensors indexed by vocabulary id.
    grown: Option<Grown>,
    /// The names read so far, for [`WeightsFile::check_layers`].
    read: Mutex<BTreeSet<String>>,
}

/// transformers' `_init_weights` for BERT, for the tensors a file lacks under
/// one prefix (a new MLM head on an encoder, or every tensor of a model
/// trained from scratch): biases and LayerNorm betas 0, LayerNorm weights 1,
/// every other weight N(0, std²), drawn in load order from one seeded stream.
struct Fresh {
    under: String,
    std: f64,
    rng: Mutex<ChaCha8Rng>,
}

impl Fresh {
    fn covers(&self, name: &str) -> bool {
        self.under.is_empty() || name.starts_with(&format!("{}.", self.under))
    }

    fn values(&self, name: &str, len: usize) -> Vec<f32> {
        let leaf = name.rsplit('.').next().unwrap_or(name);
        let in_norm = name.contains("LayerNorm.");
        match leaf {
            "bias" | "beta" => vec![0.0; len],
            "weight" | "gamma" if in_norm => vec![1.0; len],
            _ => {
                let mut rng = self.rng.lock().unwrap_or_else(PoisonError::into_inner);
                (0..len)
                    .map(|_| (standard_normal(&mut *rng) * self.std) as f32)
                    .collect()
            }
        }
    }
}

/// New vocabulary entries (`train-mlm --add-words`): every tensor whose first dimension is
/// the vocabulary, `old` rows in the file, gets one row per entry, the mean of the rows of the
/// pieces the old vocabulary cut the word into: the initialisation of Fast Vocabulary Transfer
/// (Gee, Zugarini, Rigutini & Torroni 2022, "Fast Vocabulary Transfer for Language Model
/// Compression", §3), so that a new word starts where its pieces put it, for the embedding
/// and, tied, the decoder; the decoder's bias likewise starts at its pieces' mean.
struct Grown {
    /// The tensors to grow, by their full names.
    names: Vec<String>,
    /// Rows in the file.
    old: usize,
    /// Each new row's source rows.
    pieces: Vec<Vec<u32>>,
}

impl Grown {
    /// `values`, `old` rows of `width`, with the new rows appended.
    fn grow(&self, mut values: Vec<f32>, width: usize) -> Vec<f32> {
        values.reserve(self.pieces.len() * width);
        for pieces in &self.pieces {
            let mut row = vec![0f32; width];
            for &p in pieces {
                let from = &values[p as usize * width..(p as usize + 1) * width];
                row.iter_mut().zip(from).for_each(|(r, v)| *r += v);
            }
            let n = pieces.len().max(1) as f32;
            values.extend(row.into_iter().map(|r| r / n));
        }
        values
    }
}

/// One N(0, 1) draw by Box–Muller (no distribution crate for one formula).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>();
    let u2: f64 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

impl WeightsFile {
    /// Reads every tensor of the checkpoint's weight file (values are decoded lazily).
    pub(crate) fn open(checkpoint: &Checkpoint, device: &Device) -> Result<Self, ModelError> {
        let path = checkpoint.weights_path().to_path_buf();
        // burn-store's errors hide their io::Error from `source()`: a file that cannot be
        // opened is told apart here, so its kind (not found, permission) reaches the caller.
        let io = |source| ModelError::Io {
            path: path.clone(),
            doing: "read",
            source,
        };
        let file = lmbias_core::read::open(&path).map_err(io)?;
        // A device or a pipe (a link to /dev/zero, say) would be read without end; a folder
        // fails on reading, as the system says.
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() && !meta.is_dir() {
            return Err(io(lmbias_core::read::not_regular(
                &meta,
                "weights are read at the offsets their header gives, so they must be a regular \
                 file",
            )));
        }
        let fail = |source: Box<dyn std::error::Error + Send + Sync>| ModelError::Weights {
            path: path.clone(),
            source,
        };
        let tensors = match checkpoint.weights_format() {
            WeightsFormat::Safetensors => {
                if let Some(name) = repeated_tensor(&path).map_err(io)? {
                    return Err(ModelError::RepeatedTensor { path, tensor: name });
                }
                SafetensorsStore::from_file(&path)
                    .get_all_tensors()
                    .cloned()
                    .map_err(|e| match e {
                        SafetensorsStoreError::Io(e) => io(e),
                        e => fail(e.into()),
                    })?
            }
            WeightsFormat::PytorchBin => PytorchStore::from_file(&path)
                .get_all_tensors()
                .cloned()
                .map_err(|e| match e {
                    PytorchStoreError::Io(e) => io(e),
                    e => fail(e.into()),
                })?,
        };
        Ok(Self {
            path,
            tensors,
            device: device.clone(),
            fresh: None,
            bf16: None,
            grown: None,
            read: Mutex::default(),
        })
    }

    /// After a model is built: a tensor of a layer the config does not declare (weights for
    /// three layers under a config of two) is an error, not silently left out. A layer is a
    /// numbered name segment after `layer`, `layers` or `block` whose siblings were read.
    pub(crate) fn check_layers(&self) -> Result<(), ModelError> {
        let read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        let numbered = |name: &str| -> Option<(String, usize)> {
            let parts: Vec<&str> = name.split('.').collect();
            (1..parts.len()).find_map(|i| {
                let index = parts[i].parse::<usize>().ok()?;
                matches!(parts[i - 1], "layer" | "layers" | "block").then(|| {
                    let mut pattern = parts.clone();
                    pattern[i] = "#";
                    (pattern.join("."), index)
                })
            })
        };
        let mut layers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        for (pattern, index) in read.iter().filter_map(|name| numbered(name)) {
            layers.entry(pattern).or_default().insert(index);
        }
        for name in self.tensors.keys().filter(|n| !read.contains(*n)) {
            if let Some((pattern, _)) = numbered(name)
                && let Some(indices) = layers.get(&pattern)
            {
                return Err(ModelError::ExtraTensor {
                    path: self.path.clone(),
                    tensor: name.clone(),
                    layers: indices.len(),
                });
            }
        }
        Ok(())
    }

    /// Linear layers read from now on are packed for `units` (bf16), or f32 when `None`.
    pub(crate) fn with_bf16(mut self, units: Option<Bf16Units>) -> Self {
        self.bf16 = units;
        self
    }

    /// No file at all: every tensor freshly initialised (training from scratch);
    /// `path` names the model in errors.
    pub(crate) fn fresh(path: PathBuf, std: f64, seed: u64, device: &Device) -> Self {
        Self {
            path,
            tensors: BTreeMap::new(),
            device: device.clone(),
            fresh: None,
            bf16: None,
            grown: None,
            read: Mutex::default(),
        }
        .fresh_under("", std, seed)
    }

    /// Tensors under `prefix` that the file lacks are freshly initialised
    /// (an empty prefix: any tensor).
    pub(crate) fn fresh_under(mut self, prefix: &str, std: f64, seed: u64) -> Self {
        self.fresh = Some(Fresh {
            under: prefix.to_owned(),
            std,
            rng: Mutex::new(ChaCha8Rng::seed_from_u64(seed)),
        });
        self
    }

    /// Tensors `names` (full names), indexed by vocabulary id with `old` rows in the file,
    /// are read with one more row per entry of `pieces`, the mean of those rows ([`Grown`]).
    pub(crate) fn grow_vocabulary(
        mut self,
        names: Vec<String>,
        old: usize,
        pieces: Vec<Vec<u32>>,
    ) -> Self {
        self.grown = Some(Grown { names, old, pieces });
        self
    }

    /// The view of the whole file.
    pub(crate) fn root(&self) -> Weights<'_> {
        Weights {
            file: self,
            prefix: String::new(),
        }
    }
}

/// A tensor name the safetensors header at `path` lists twice. serde reads a JSON object
/// into a map keeping the last entry, so the safetensors reader would see one tensor and
/// blame the offsets ("invalid offset") instead; a header it cannot read is left to it.
fn repeated_tensor(path: &Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    /// safetensors' own cap on a header.
    const MAX_HEADER: u64 = 100_000_000;
    let mut file = lmbias_core::read::open(path)?;
    let mut len = [0u8; 8];
    if file.read_exact(&mut len).is_err() {
        return Ok(None);
    }
    let len = u64::from_le_bytes(len);
    if len > MAX_HEADER {
        return Ok(None);
    }
    let mut header = Vec::new();
    file.take(len).read_to_end(&mut header)?;
    Ok(serde_json::from_slice::<Names>(&header)
        .ok()
        .and_then(|names| names.repeated))
}

/// The first key a JSON object repeats.
struct Names {
    repeated: Option<String>,
}

impl<'de> serde::Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Keys;
        impl<'de> serde::de::Visitor<'de> for Keys {
            type Value = Names;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Names, A::Error> {
                let mut seen = BTreeSet::new();
                let mut repeated = None;
                while let Some(key) = map.next_key::<String>()? {
                    map.next_value::<serde::de::IgnoredAny>()?;
                    if !seen.insert(key.clone()) && repeated.is_none() {
                        repeated = Some(key);
                    }
                }
                Ok(Names { repeated })
            }
        }
        d.deserialize_map(Keys)
    }
}

/// The tensors under one name prefix of a [`WeightsFile`].
#[derive(Clone)]
pub(crate) struct Weights<'a> {
    file: &'a WeightsFile,
    prefix: String,
}

impl<'a> Weights<'a> {
    /// The view one level down: `pp("attention")` on `encoder.layer.0` reads
    /// `encoder.layer.0.attention.*` (candle's "push prefix").
    pub(crate) fn pp(&self, name: impl AsRef<str>) -> Weights<'a> {
        Weights {
            file: self.file,
            prefix: self.name(name.as_ref()),
        }
    }

    fn name(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.prefix)
        }
    }

    /// Whether tensor `name` is in the file under this view.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.file.tensors.contains_key(&self.name(name))
    }

    /// Whether any tensor of the file lies under `prefix` in this view
    /// (BERT checkpoints with a head store the encoder under `bert.`).
    pub(crate) fn has_prefix(&self, prefix: &str) -> bool {
        let scoped = format!("{}.", self.name(prefix));
        self.file
            .tensors
            .range(scoped.clone()..)
            .next()
            .is_some_and(|(name, _)| name.starts_with(&scoped))
    }

    /// The f32 values of `name`, checked against `shape`.
    fn values(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, ModelError> {
        let path = &self.file.path;
        let full = self.name(name);
        (self
            .file
            .read
            .lock()
            .unwrap_or_else(PoisonError::into_inner))
        .insert(full.clone());
        let Some(tensor) = self.file.tensors.get(&full) else {
            return match &self.file.fresh {
                Some(fresh) if fresh.covers(&full) => {
                    Ok(fresh.values(&full, shape.iter().product()))
                }
                _ => Err(ModelError::MissingTensor {
                    path: path.clone(),
                    tensor: full,
                }),
            };
        };
        let found: Vec<usize> = tensor.shape.iter().copied().collect();
        let grown = self
            .file
            .grown
            .as_ref()
            .filter(|g| g.names.contains(&full) && found.first() == Some(&g.old));
        let in_file: Vec<usize> = match grown {
            Some(g) => std::iter::once(g.old)
                .chain(shape.iter().skip(1).copied())
                .collect(),
            None => shape.to_vec(),
        };
        if found != in_file {
            return Err(ModelError::Shape {
                path: path.clone(),
                tensor: full,
                expected: shape.to_vec(),
                found,
            });
        }
        let bad = |doing, source: Box<dyn std::error::Error + Send + Sync>| ModelError::Tensor {
            path: path.clone(),
            tensor: full.clone(),
            doing,
            source,
        };
        let data = bridge::to_data(tensor).map_err(|e| bad("decode it", e.into()))?;
        let data = match data.dtype() {
            DType::F32 => data,
            // Half-precision checkpoints are widened once at load: all arithmetic is f32.
            DType::F16 | DType::BF16 => data
                .try_cast_as::<f32>()
                .map_err(|e| bad("widen it to f32", e.into()))?,
            other => {
                return Err(ModelError::DType {
                    path: path.clone(),
                    tensor: full.clone(),
                    dtype: format!("{other:?}"),
                });
            }
        };
        let values = data
            .try_into_vec::<f32>()
            .map_err(|e| bad("read its values as f32", e.into()))?;
        // One pass as the values are read: a NaN or infinite weight would make every
        // output it reaches NaN, silently (static vectors are refused the same way).
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(ModelError::NonFinite {
                path: path.clone(),
                tensor: full,
                index: i,
                value: values[i],
            });
        }
        Ok(match grown {
            Some(g) => g.grow(values, shape.iter().skip(1).product()),
            None => values,
        })
    }

    /// Tensor `name`, which must have `shape`.
    pub(crate) fn tensor<const D: usize>(
        &self,
        name: &str,
        shape: [usize; D],
    ) -> Result<Tensor<D>, ModelError> {
        let values = self.values(name, &shape)?;
        Ok(Tensor::from_data(
            TensorData::new(values, shape),
            &self.file.device,
        ))
    }

    /// A tensor computed rather than read (a table the checkpoint need not store), on the
    /// file's device.
    pub(crate) fn constant<const D: usize>(
        &self,
        values: Vec<f32>,
        shape: [usize; D],
    ) -> Tensor<D> {
        Tensor::from_data(TensorData::new(values, shape), &self.file.device)
    }

    /// A torch `[out, in]` weight `name` as a contiguous Burn `[in, out]` tensor.
    pub(crate) fn transposed(
        &self,
        name: &str,
        d_in: usize,
        d_out: usize,
    ) -> Result<Tensor<2>, ModelError> {
        let weight = self.values(name, &[d_out, d_in])?;
        let mut transposed = vec![0f32; weight.len()];
        for (o, row) in weight.chunks_exact(d_in.max(1)).enumerate() {
            for (i, w) in row.iter().enumerate() {
                transposed[i * d_out + o] = *w;
            }
        }
        Ok(Tensor::from_data(
            TensorData::new(transposed, [d_in, d_out]),
            &self.file.device,
        ))
    }

    /// The torch `nn.Linear` of this view: `weight` (`[out, in]`) and `bias`.
    pub(crate) fn linear(&self, d_in: usize, d_out: usize) -> Result<Dense, ModelError> {
        let weight = self.transposed("weight", d_in, d_out)?;
        self.dense(weight, Some(self.tensor("bias", [d_out])?))
    }

    /// The torch `nn.Linear(bias=False)` of this view (T5's projections).
    pub(crate) fn linear_no_bias(&self, d_in: usize, d_out: usize) -> Result<Dense, ModelError> {
        self.dense(self.transposed("weight", d_in, d_out)?, None)
    }

    /// The layer of an `[in, out]` `weight` and a `bias`, in the file's precision.
    fn dense(&self, weight: Tensor<2>, bias: Option<Tensor<1>>) -> Result<Dense, ModelError> {
        let Some(units) = self.file.bf16 else {
            return Ok(Dense::F32(linear(weight, bias)));
        };
        let [d_in, d_out] = weight.dims();
        let bias = bias.map(host_values);
        let layer = lmbias_kernels::bf16::Linear::new(
            units,
            &host_values(weight),
            d_in,
            d_out,
            bias.as_deref(),
        )
        .map_err(|e| ModelError::Weights {
            path: self.file.path.clone(),
            source: format!("{}: {e}", self.name("weight")).into(),
        })?;
        Ok(Dense::Bf16(Packed(Arc::new(layer))))
    }

    /// The `nn.LayerNorm` of this view: `weight`/`bias`, or the TF-era
    /// `gamma`/`beta` of older BERT exports.
    pub(crate) fn layer_norm(&self, d: usize, eps: f64) -> Result<LayerNorm, ModelError> {
        let tf_era = !self.contains("weight") && self.contains("gamma");
        let (gamma, beta) = if tf_era {
            ("gamma", "beta")
        } else {
            ("weight", "bias")
        };
        let mut norm = LayerNormConfig::new(d)
            .with_epsilon(eps)
            .init(&self.file.device);
        norm.gamma = Param::from_tensor(self.tensor(gamma, [d])?);
        norm.beta = Some(Param::from_tensor(self.tensor(beta, [d])?));
        Ok(norm)
    }

    /// The `nn.LayerNorm(bias=False)` of this view: `weight` alone (ModernBERT's).
    pub(crate) fn layer_norm_no_bias(&self, d: usize, eps: f64) -> Result<LayerNorm, ModelError> {
        let mut norm = LayerNormConfig::new(d)
            .with_epsilon(eps)
            .init(&self.file.device);
        norm.gamma = Param::from_tensor(self.tensor("weight", [d])?);
        norm.beta = None;
        Ok(norm)
    }

    /// The `nn.Embedding` of this view: `weight`, `[n, d]`.
    pub(crate) fn embedding(&self, n: usize, d: usize) -> Result<Embedding, ModelError> {
        Ok(Embedding {
            weight: Param::from_tensor(self.tensor("weight", [n, d])?),
        })
    }
}

/// A Burn linear layer from an `[in, out]` weight and an optional bias.
pub(crate) fn linear(weight: Tensor<2>, bias: Option<Tensor<1>>) -> Linear {
    Linear {
        weight: Param::from_tensor(weight),
        bias: bias.map(Param::from_tensor),
    }
}

/// The write side of [`Weights`]: each sub-module names its tensors through a
/// view scoped to its prefix, as it reads them, so an exported file has
/// transformers' names and torch layouts (`[out, in]` linear weights).
pub(crate) struct WeightsOut<'a> {
    tensors: &'a mut BTreeMap<String, (Vec<usize>, Vec<f32>)>,
    prefix: String,
}

impl WeightsOut<'_> {
    /// The view one level down (see [`Weights::pp`]).
    pub(crate) fn pp(&mut self, name: impl AsRef<str>) -> WeightsOut<'_> {
        let prefix = self.name(name.as_ref());
        WeightsOut {
            tensors: self.tensors,
            prefix,
        }
    }

    fn name(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.prefix)
        }
    }

    /// Tensor `name` as it is.
    pub(crate) fn tensor<const D: usize>(&mut self, name: &str, tensor: Tensor<D>) {
        let shape = tensor.dims().to_vec();
        let values = host_values(tensor);
        self.tensors.insert(self.name(name), (shape, values));
    }

    /// A Burn `[in, out]` weight written as torch's `[out, in]`.
    pub(crate) fn transposed(&mut self, name: &str, weight: Tensor<2>) {
        self.tensor(name, weight.transpose());
    }

    /// The torch `nn.Linear` of this view (a bf16 layer's weight as its bf16 values).
    pub(crate) fn linear(&mut self, dense: &Dense) {
        match dense {
            Dense::F32(linear) => {
                self.transposed("weight", linear.weight.val());
                if let Some(bias) = &linear.bias {
                    self.tensor("bias", bias.val());
                }
            }
            Dense::Bf16(Packed(layer)) => {
                let (d_in, d_out) = (layer.in_features(), layer.out_features());
                let weight = layer.weight();
                let mut torch = vec![0f32; weight.len()];
                for (i, row) in weight.chunks_exact(d_out).enumerate() {
                    for (o, w) in row.iter().enumerate() {
                        torch[o * d_in + i] = *w;
                    }
                }
                self.tensors
                    .insert(self.name("weight"), (vec![d_out, d_in], torch));
                if let Some(bias) = layer.bias() {
                    self.tensors
                        .insert(self.name("bias"), (vec![d_out], bias.to_vec()));
                }
            }
        }
    }

    /// The `nn.LayerNorm` of this view, as `weight` and `bias`.
    pub(crate) fn layer_norm(&mut self, norm: &LayerNorm) {
        self.tensor("weight", norm.gamma.val());
        if let Some(beta) = &norm.beta {
            self.tensor("bias", beta.val());
        }
    }

    /// The `nn.Embedding` of this view.
    pub(crate) fn embedding(&mut self, embedding: &Embedding) {
        self.tensor("weight", embedding.weight.val());
    }
}

/// The f32 values of a tensor, row-major (a transposed view is laid out anew).
pub(crate) fn host_values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor
        .into_data()
        .convert::<f32>()
        .try_into_vec::<f32>()
        .expect("converted to f32 just above")
}

/// Every tensor a model names through [`WeightsOut`], written as one
/// safetensors file (f32, metadata `format: pt` as torch writes it).
pub(crate) struct ExportedWeights {
    tensors: BTreeMap<String, (Vec<usize>, Vec<f32>)>,
}

impl ExportedWeights {
    /// The tensors `save` names from the root.
    pub(crate) fn collect(save: impl FnOnce(&mut WeightsOut<'_>)) -> Self {
        let mut tensors = BTreeMap::new();
        save(&mut WeightsOut {
            tensors: &mut tensors,
            prefix: String::new(),
        });
        Self { tensors }
    }

    /// Writes the file at `path` (the caller renames a temporary folder into place).
    pub(crate) fn write(&self, path: &Path) -> Result<(), ModelError> {
        let fail = |source| ModelError::WriteWeights {
            path: path.to_path_buf(),
            source,
        };
        let bytes: Vec<(&str, Vec<u8>, &[usize])> = self
            .tensors
            .iter()
            .map(|(name, (shape, values))| {
                let raw = values.iter().flat_map(|v| v.to_le_bytes()).collect();
                (name.as_str(), raw, shape.as_slice())
            })
            .collect();
        let views = bytes
            .iter()
            .map(|(name, raw, shape)| {
                safetensors::tensor::TensorView::new(safetensors::Dtype::F32, shape.to_vec(), raw)
                    .map(|view| (*name, view))
                    .map_err(fail)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let metadata = Some(std::collections::HashMap::from([(
            "format".to_owned(),
            "pt".to_owned(),
        )]));
        safetensors::serialize_to_file(views, metadata, path).map_err(|e| match e {
            // The system's reason once (safetensors' I/O error repeats it as its source).
            safetensors::SafeTensorError::IoError(source) => ModelError::Io {
                path: path.to_path_buf(),
                doing: "write the weights",
                source,
            },
            e => fail(e),
        })
    }
}
