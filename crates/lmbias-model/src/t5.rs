//! The encoder of T5 (Raffel et al. 2020), T5 v1.1 and mT5 (Xue et al. 2021) as
//! Hugging Face transformers computes it (`T5EncoderModel` / `MT5EncoderModel`,
//! or the encoder half of `*ForConditionalGeneration`). Inference only.
//!
//! What differs from BERT, and why each matters for parity: no absolute
//! positions but a learned bias per (bucketed relative distance, head), computed
//! by the first block and added in every block; no 1/sqrt(d) scaling of the
//! attention scores (folded into the initialisation by the authors); RMS layer
//! norm without bias or mean subtraction, applied *before* each sub-layer
//! (pre-norm), plus a final one; bias-free projections.

use burn::nn::{Embedding, Linear};
use burn::tensor::activation::{gelu_approximate, relu, softmax};
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::Deserialize;

use crate::bert::BertInput;
use crate::checkpoint::{Checkpoint, read_json};
use crate::error::ModelError;
use crate::weights::Weights;

/// The fields of config.json that shape the encoder (transformers' `T5Config` /
/// `MT5Config` names and defaults).
#[derive(Debug, Clone, Deserialize)]
pub struct T5Config {
    pub model_type: String,
    pub vocab_size: usize,
    pub d_model: usize,
    pub d_kv: usize,
    pub d_ff: usize,
    pub num_layers: usize,
    pub num_heads: usize,
    #[serde(default = "default_num_buckets")]
    pub relative_attention_num_buckets: usize,
    #[serde(default = "default_max_distance")]
    pub relative_attention_max_distance: usize,
    #[serde(default = "default_layer_norm_epsilon")]
    pub layer_norm_epsilon: f64,
    /// Absent means the class default: "gated-gelu" for mT5, "relu" for T5.
    pub feed_forward_proj: Option<String>,
}

fn default_num_buckets() -> usize {
    32
}
fn default_max_distance() -> usize {
    128
}
fn default_layer_norm_epsilon() -> f64 {
    1e-6
}

/// The feed-forward sub-layer, from config.json's `feed_forward_proj`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FeedForwardKind {
    /// `"relu"`: `wo(relu(wi(x)))` (original T5).
    Relu,
    /// `"gated-gelu"`: `wo(gelu_new(wi_0(x)) * wi_1(x))` (T5 v1.1, mT5). transformers
    /// maps "gated-gelu" to `gelu_new`, the tanh approximation, not erf GELU.
    GatedGelu,
}

impl T5Config {
    /// The feed-forward kind, or an error naming an unsupported `feed_forward_proj`.
    fn feed_forward(&self, path: &std::path::Path) -> Result<FeedForwardKind, ModelError> {
        let default = if self.model_type == "mt5" {
            "gated-gelu"
        } else {
            "relu"
        };
        match self.feed_forward_proj.as_deref().unwrap_or(default) {
            "relu" => Ok(FeedForwardKind::Relu),
            "gated-gelu" => Ok(FeedForwardKind::GatedGelu),
            other => Err(ModelError::Config {
                path: path.to_path_buf(),
                message: format!(
                    "feed_forward_proj {other:?} is not supported (expected gated-gelu or relu)"
                ),
            }),
        }
    }
}

/// T5's layer norm: `x / sqrt(mean(x²) + eps) * weight`, no mean, no bias.
struct RmsNorm {
    weight: Tensor<1>,
    eps: f64,
}

impl RmsNorm {
    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let d = self.weight.dims()[0];
        let scale = x
            .clone()
            .square()
            .mean_dim(2)
            .add_scalar(self.eps)
            .sqrt()
            .recip();
        x * scale * self.weight.clone().reshape([1, 1, d])
    }
}

enum FeedForward {
    Relu {
        wi: Linear,
        wo: Linear,
    },
    GatedGelu {
        wi_0: Linear,
        wi_1: Linear,
        wo: Linear,
    },
}

impl FeedForward {
    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        match self {
            FeedForward::Relu { wi, wo } => wo.forward(relu(wi.forward(x))),
            FeedForward::GatedGelu { wi_0, wi_1, wo } => {
                wo.forward(gelu_approximate(wi_0.forward(x.clone())) * wi_1.forward(x))
            }
        }
    }
}

struct Block {
    attention_norm: RmsNorm,
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    feed_forward_norm: RmsNorm,
    feed_forward: FeedForward,
}

/// A loaded T5 / mT5 encoder.
pub struct T5Encoder {
    config: T5Config,
    embed_tokens: Embedding,
    /// `[num_buckets, num_heads]`, from the first block, shared by all blocks.
    relative_attention_bias: Tensor<2>,
    blocks: Vec<Block>,
    final_layer_norm: RmsNorm,
    device: Device,
}

impl T5Encoder {
    /// Load every encoder tensor of `checkpoint`; decoder and `lm_head` tensors
    /// are not read. Any missing encoder tensor is an error naming it.
    pub fn load(checkpoint: &Checkpoint, device: &Device) -> Result<Self, ModelError> {
        let config_path = checkpoint.config_path();
        let config: T5Config = read_json(&config_path)?;
        let kind = config.feed_forward(&config_path)?;
        if config.num_heads == 0 || config.relative_attention_num_buckets < 4 {
            return Err(ModelError::Config {
                path: config_path,
                message: format!(
                    "num_heads {} and relative_attention_num_buckets {} must be at least 1 and 4",
                    config.num_heads, config.relative_attention_num_buckets
                ),
            });
        }
        let w = Weights::open(checkpoint, device)?;
        let (d, inner, ff) = (config.d_model, config.num_heads * config.d_kv, config.d_ff);
        let eps = config.layer_norm_epsilon;
        let norm = |name: String| -> Result<RmsNorm, ModelError> {
            Ok(RmsNorm {
                weight: w.tensor(&name, [d])?,
                eps,
            })
        };
        // `MT5EncoderModel` ties `encoder.embed_tokens` to `shared` and may store either.
        let embeddings = if w.contains("shared.weight") {
            "shared.weight"
        } else {
            "encoder.embed_tokens.weight"
        };
        let embed_tokens = w.embedding(embeddings, config.vocab_size, d)?;
        let relative_attention_bias = w.tensor(
            "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight",
            [config.relative_attention_num_buckets, config.num_heads],
        )?;
        let blocks = (0..config.num_layers)
            .map(|i| {
                let a = format!("encoder.block.{i}.layer.0");
                let f = format!("encoder.block.{i}.layer.1");
                let proj = |name: &str, d_in: usize, d_out: usize| {
                    w.linear_no_bias(&format!("{name}.weight"), d_in, d_out)
                };
                let feed_forward = match kind {
                    FeedForwardKind::Relu => FeedForward::Relu {
                        wi: proj(&format!("{f}.DenseReluDense.wi"), d, ff)?,
                        wo: proj(&format!("{f}.DenseReluDense.wo"), ff, d)?,
                    },
                    FeedForwardKind::GatedGelu => FeedForward::GatedGelu {
                        wi_0: proj(&format!("{f}.DenseReluDense.wi_0"), d, ff)?,
                        wi_1: proj(&format!("{f}.DenseReluDense.wi_1"), d, ff)?,
                        wo: proj(&format!("{f}.DenseReluDense.wo"), ff, d)?,
                    },
                };
                Ok(Block {
                    attention_norm: norm(format!("{a}.layer_norm.weight"))?,
                    q: proj(&format!("{a}.SelfAttention.q"), d, inner)?,
                    k: proj(&format!("{a}.SelfAttention.k"), d, inner)?,
                    v: proj(&format!("{a}.SelfAttention.v"), d, inner)?,
                    o: proj(&format!("{a}.SelfAttention.o"), inner, d)?,
                    feed_forward_norm: norm(format!("{f}.layer_norm.weight"))?,
                    feed_forward,
                })
            })
            .collect::<Result<Vec<_>, ModelError>>()?;
        let final_layer_norm = norm("encoder.final_layer_norm.weight".to_string())?;
        Ok(Self {
            config,
            embed_tokens,
            relative_attention_bias,
            blocks,
            final_layer_norm,
            device: device.clone(),
        })
    }

    pub fn config(&self) -> &T5Config {
        &self.config
    }

    /// Hidden states after `layers` blocks: `[batch, seq, d_model]`. 0 is the
    /// token embeddings; `num_layers` includes the final layer norm, as
    /// transformers' `hidden_states[-1]` (= `last_hidden_state`); in between,
    /// the un-normalised residual stream, as transformers' `hidden_states[i]`.
    pub fn hidden_states(&self, input: &BertInput, layers: usize) -> Tensor<3> {
        let [batch, seq] = input.ids().dims();
        let mut x = self.embed_tokens.forward(input.ids());
        // Relative-position bias `[1, heads, seq, seq]` plus an additive key mask
        // `[batch, 1, 1, seq]` (0 on tokens, very negative on padding, so exp() gives 0),
        // computed once and added in every block as transformers does.
        let mask_bias = (input.mask() - 1.0)
            .mul_scalar(1e30)
            .reshape([batch, 1, 1, seq]);
        let bias = self.position_bias(seq) + mask_bias;
        for block in self.blocks.iter().take(layers) {
            x = self.block(block, x, bias.clone());
        }
        if layers >= self.blocks.len() {
            x = self.final_layer_norm.forward(x);
        }
        x
    }

    /// The learned bias of each (query, key) pair: `[1, heads, seq, seq]`.
    fn position_bias(&self, seq: usize) -> Tensor<4> {
        let heads = self.config.num_heads;
        let buckets: Vec<i64> = (0..seq)
            .flat_map(|q| (0..seq).map(move |k| (q, k)))
            .map(|(q, k)| {
                relative_position_bucket(
                    k as i64 - q as i64,
                    self.config.relative_attention_num_buckets,
                    self.config.relative_attention_max_distance,
                ) as i64
            })
            .collect();
        let index =
            Tensor::<1, Int>::from_data(TensorData::new(buckets, [seq * seq]), &self.device);
        self.relative_attention_bias
            .clone()
            .select(0, index)
            .reshape([seq, seq, heads])
            .permute([2, 0, 1])
            .reshape([1, heads, seq, seq])
    }

    fn block(&self, b: &Block, x: Tensor<3>, bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, _] = x.dims();
        let (heads, d_kv) = (self.config.num_heads, self.config.d_kv);
        let normed = b.attention_norm.forward(x.clone());
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d_kv]).swap_dims(1, 2);
        let q = split(b.q.forward(normed.clone()));
        let k = split(b.k.forward(normed.clone()));
        let v = split(b.v.forward(normed));
        // No division by sqrt(d_kv): T5 folds it into the initialisation of q.
        let scores = q.matmul(k.swap_dims(2, 3)) + bias;
        let context =
            softmax(scores, 3)
                .matmul(v)
                .swap_dims(1, 2)
                .reshape([batch, seq, heads * d_kv]);
        let x = x + b.o.forward(context);
        let normed = b.feed_forward_norm.forward(x.clone());
        x + b.feed_forward.forward(normed)
    }
}

/// T5's bidirectional bucket of `relative = key - query`, as transformers'
/// `T5Attention._relative_position_bucket`: half the buckets for keys after the
/// query, within each half exact distances below `num_buckets / 4` and
/// logarithmic bins up to `max_distance`, beyond which all share the last bucket.
/// The log is taken in f32 like torch's, so bin edges fall where transformers' do.
pub fn relative_position_bucket(relative: i64, num_buckets: usize, max_distance: usize) -> usize {
    let half = num_buckets / 2;
    let offset = if relative > 0 { half } else { 0 };
    let distance = relative.unsigned_abs() as usize;
    let max_exact = half / 2;
    if distance < max_exact {
        return offset + distance;
    }
    // math.log(max_distance / max_exact) is a Python float, applied to an f32 tensor.
    let scale = ((max_distance as f64) / (max_exact as f64)).ln() as f32;
    let log_ratio = (distance as f32 / max_exact as f32).ln();
    let large = max_exact + (log_ratio / scale * (half - max_exact) as f32) as usize;
    offset + large.min(half - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_match_transformers() {
        // transformers 5.24 T5Attention._relative_position_bucket(torch.arange(-400, 401),
        // bidirectional=True, num_buckets, max_distance): the relative positions where the
        // bucket changes and the bucket from there on (at -400 it is num_buckets / 2 - 1).
        /// (num_buckets, max_distance, [(relative position, bucket from there on)]).
        type Case = (usize, usize, &'static [(i64, usize)]);
        #[rustfmt::skip]
        let cases: [Case; 3] = [
            (32, 128, &[
                (-90, 14), (-63, 13), (-45, 12), (-31, 11), (-22, 10), (-15, 9), (-11, 8),
                (-7, 7), (-6, 6), (-5, 5), (-4, 4), (-3, 3), (-2, 2), (-1, 1), (0, 0),
                (1, 17), (2, 18), (3, 19), (4, 20), (5, 21), (6, 22), (7, 23), (8, 24),
                (12, 25), (16, 26), (23, 27), (32, 28), (46, 29), (64, 30), (91, 31),
            ]),
            (16, 12, &[
                (-9, 6), (-6, 5), (-5, 4), (-3, 3), (-2, 2), (-1, 1), (0, 0), (1, 9),
                (2, 10), (3, 11), (4, 12), (6, 13), (7, 14), (10, 15),
            ]),
            (8, 20, &[(-6, 2), (-1, 1), (0, 0), (1, 5), (2, 6), (7, 7)]),
        ];
        for (num_buckets, max_distance, changes) in cases {
            let mut expected = num_buckets / 2 - 1;
            for relative in -400..=400 {
                if let Some(&(_, b)) = changes.iter().find(|(r, _)| *r == relative) {
                    expected = b;
                }
                assert_eq!(
                    relative_position_bucket(relative, num_buckets, max_distance),
                    expected,
                    "relative {relative}, {num_buckets} buckets, max_distance {max_distance}"
                );
            }
        }
    }
}
