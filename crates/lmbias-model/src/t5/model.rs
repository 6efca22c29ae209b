//! The T5 encoder, one struct per Hugging Face sub-module, each loading its own
//! tensors from a scoped view and computing its own forward pass.

use burn::nn::Embedding;
use burn::tensor::Tensor;
use burn::tensor::activation::{gelu_approximate, relu, softmax};
use lmbias_core::Pooling;

use super::config::{FeedForwardProj, T5Config};
use super::position::RelativePositionBias;
use crate::checkpoint::Checkpoint;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::network::{Batch, Network};
use crate::weights::Weights;

/// T5's layer norm: `x / sqrt(mean(x²) + eps) * weight`, no mean, no bias.
struct RmsNorm {
    weight: Tensor<1>,
    eps: f64,
}

impl RmsNorm {
    /// `w` holds `weight`, `[d]`.
    fn load(w: &Weights<'_>, d: usize, eps: f64) -> Result<Self, ModelError> {
        Ok(Self {
            weight: w.tensor("weight", [d])?,
            eps,
        })
    }

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

/// `layer.0`: pre-norm self-attention with its residual (`T5LayerSelfAttention`).
struct SelfAttention {
    norm: RmsNorm,
    q: Dense,
    k: Dense,
    v: Dense,
    o: Dense,
    heads: usize,
    d_kv: usize,
}

impl SelfAttention {
    fn load(w: &Weights<'_>, c: &T5Config) -> Result<Self, ModelError> {
        let (d, inner) = (c.d_model, c.num_heads * c.d_kv);
        let attention = w.pp("SelfAttention");
        Ok(Self {
            norm: RmsNorm::load(&w.pp("layer_norm"), d, c.layer_norm_epsilon)?,
            q: attention.pp("q").linear_no_bias(d, inner)?,
            k: attention.pp("k").linear_no_bias(d, inner)?,
            v: attention.pp("v").linear_no_bias(d, inner)?,
            o: attention.pp("o").linear_no_bias(inner, d)?,
            heads: c.num_heads,
            d_kv: c.d_kv,
        })
    }

    /// `bias`: relative positions plus the key mask, `[batch, heads, seq, seq]`.
    fn forward(&self, x: Tensor<3>, bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, _] = x.dims();
        let (heads, d_kv) = (self.heads, self.d_kv);
        let normed = self.norm.forward(x.clone());
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d_kv]).swap_dims(1, 2);
        let q = split(self.q.forward(normed.clone()));
        let k = split(self.k.forward(normed.clone()));
        let v = split(self.v.forward(normed));
        // No division by sqrt(d_kv): T5 folds it into the initialisation of q.
        let scores = q.matmul(k.swap_dims(2, 3)) + bias;
        let context =
            softmax(scores, 3)
                .matmul(v)
                .swap_dims(1, 2)
                .reshape([batch, seq, heads * d_kv]);
        x + self.o.forward(context)
    }
}

/// `DenseReluDense`, as config.json's `feed_forward_proj` shapes it.
enum DenseReluDense {
    Relu { wi: Dense, wo: Dense },
    GatedGelu { wi_0: Dense, wi_1: Dense, wo: Dense },
}

/// `layer.1`: pre-norm feed-forward with its residual (`T5LayerFF`).
struct FeedForward {
    norm: RmsNorm,
    dense: DenseReluDense,
}

impl FeedForward {
    fn load(w: &Weights<'_>, c: &T5Config) -> Result<Self, ModelError> {
        let (d, ff) = (c.d_model, c.d_ff);
        let dense = w.pp("DenseReluDense");
        Ok(Self {
            norm: RmsNorm::load(&w.pp("layer_norm"), d, c.layer_norm_epsilon)?,
            dense: match c.feed_forward() {
                FeedForwardProj::Relu => DenseReluDense::Relu {
                    wi: dense.pp("wi").linear_no_bias(d, ff)?,
                    wo: dense.pp("wo").linear_no_bias(ff, d)?,
                },
                FeedForwardProj::GatedGelu => DenseReluDense::GatedGelu {
                    wi_0: dense.pp("wi_0").linear_no_bias(d, ff)?,
                    wi_1: dense.pp("wi_1").linear_no_bias(d, ff)?,
                    wo: dense.pp("wo").linear_no_bias(ff, d)?,
                },
            },
        })
    }

    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let normed = self.norm.forward(x.clone());
        let out = match &self.dense {
            DenseReluDense::Relu { wi, wo } => wo.forward(relu(wi.forward(normed))),
            DenseReluDense::GatedGelu { wi_0, wi_1, wo } => {
                wo.forward(gelu_approximate(wi_0.forward(normed.clone())) * wi_1.forward(normed))
            }
        };
        x + out
    }
}

/// `encoder.block.{i}`.
struct Block {
    attention: SelfAttention,
    feed_forward: FeedForward,
}

impl Block {
    fn load(w: &Weights<'_>, c: &T5Config) -> Result<Self, ModelError> {
        Ok(Self {
            attention: SelfAttention::load(&w.pp("layer.0"), c)?,
            feed_forward: FeedForward::load(&w.pp("layer.1"), c)?,
        })
    }

    fn forward(&self, x: Tensor<3>, bias: Tensor<4>) -> Tensor<3> {
        self.feed_forward.forward(self.attention.forward(x, bias))
    }
}

/// A loaded T5 / mT5 encoder; decoder and `lm_head` tensors are not read.
pub(crate) struct T5Encoder {
    config: T5Config,
    embed_tokens: Embedding,
    /// Computed by the first block, shared by all blocks.
    position_bias: RelativePositionBias,
    blocks: Vec<Block>,
    final_layer_norm: RmsNorm,
}

impl Network for T5Encoder {
    type Config = T5Config;

    fn config(checkpoint: &Checkpoint) -> Result<T5Config, ModelError> {
        T5Config::read(checkpoint)
    }

    fn load(c: T5Config, weights: Weights<'_>) -> Result<Self, ModelError> {
        let encoder = weights.pp("encoder");
        // `MT5EncoderModel` ties `encoder.embed_tokens` to `shared` and may store either.
        let embeddings = if weights.contains("shared.weight") {
            weights.pp("shared")
        } else {
            encoder.pp("embed_tokens")
        };
        let embed_tokens = embeddings.embedding(c.vocab_size, c.d_model)?;
        let position_bias = RelativePositionBias::load(
            &encoder.pp("block.0.layer.0.SelfAttention.relative_attention_bias"),
            &c,
        )?;
        let blocks = (0..c.num_layers)
            .map(|i| Block::load(&encoder.pp(format!("block.{i}")), &c))
            .collect::<Result<_, _>>()?;
        let final_layer_norm = RmsNorm::load(
            &encoder.pp("final_layer_norm"),
            c.d_model,
            c.layer_norm_epsilon,
        )?;
        Ok(Self {
            config: c,
            embed_tokens,
            position_bias,
            blocks,
            final_layer_norm,
        })
    }

    /// 0 is the token embeddings; `num_layers` includes the final layer norm, as
    /// transformers' `hidden_states[-1]` (= `last_hidden_state`); in between,
    /// the un-normalised residual stream, as transformers' `hidden_states[i]`.
    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        let ids = batch.ids();
        let [_, seq] = ids.dims();
        let device = ids.device();
        let mut x = self.embed_tokens.forward(ids);
        // Relative-position bias plus the key mask, computed once and added in
        // every block as transformers does.
        let bias = self.position_bias.forward(seq, &device) + batch.attention_bias();
        for block in self.blocks.iter().take(layers) {
            x = block.forward(x, bias.clone());
        }
        if layers >= self.blocks.len() {
            x = self.final_layer_norm.forward(x);
        }
        x
    }

    fn num_layers(&self) -> usize {
        self.config.num_layers
    }

    fn hidden_size(&self) -> usize {
        self.config.d_model
    }

    fn vocab_size(&self) -> usize {
        self.config.vocab_size
    }

    /// Relative positions: any length is read.
    fn max_positions(&self) -> Option<usize> {
        None
    }

    /// T5 has no [CLS]: the masked mean is its sentence vector.
    fn default_pooling(&self) -> Pooling {
        Pooling::Mean
    }
}
