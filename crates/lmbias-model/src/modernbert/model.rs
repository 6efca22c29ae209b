//! The ModernBERT encoder and its masked-LM head, one struct per Hugging Face
//! sub-module, each loading its own tensors from a scoped view.

use burn::nn::{Embedding, LayerNorm};
use burn::tensor::{Tensor, TensorData};
use lmbias_core::Pooling;

use super::config::ModernBertConfig;
use crate::bert::Activation;
use crate::checkpoint::Checkpoint;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::network::{Batch, Head, Keys, Network, WithHead, per_token};
use crate::weights::Weights;

/// `nn.LayerNorm(bias=config.norm_bias)`.
fn norm(w: &Weights<'_>, c: &ModernBertConfig) -> Result<LayerNorm, ModelError> {
    if c.norm_bias {
        w.layer_norm(c.hidden_size, c.norm_eps)
    } else {
        w.layer_norm_no_bias(c.hidden_size, c.norm_eps)
    }
}

/// `nn.Linear(bias=bias)`.
fn linear(w: &Weights<'_>, d_in: usize, d_out: usize, bias: bool) -> Result<Dense, ModelError> {
    if bias {
        w.linear(d_in, d_out)
    } else {
        w.linear_no_bias(d_in, d_out)
    }
}

/// Rotary position embedding tables for positions 0 … seq − 1: cos and sin of
/// p · θ^(−2i/d), each frequency written twice (`cat(freqs, freqs)`), `[1, 1, seq, d]`.
fn rotary(seq: usize, d: usize, theta: f64, device: &burn::tensor::Device) -> [Tensor<4>; 2] {
    let half = d / 2;
    let mut cos = Vec::with_capacity(seq * d);
    let mut sin = Vec::with_capacity(seq * d);
    for p in 0..seq {
        for j in 0..d {
            // transformers computes inv_freq in f32, then p · inv_freq in f32.
            let inv_freq = (1.0 / theta.powf((2 * (j % half)) as f64 / d as f64)) as f32;
            let angle = p as f32 * inv_freq;
            cos.push(angle.cos());
            sin.push(angle.sin());
        }
    }
    let table = |v: Vec<f32>| Tensor::<4>::from_data(TensorData::new(v, [1, 1, seq, d]), device);
    [table(cos), table(sin)]
}

/// `x · cos + rotate_half(x) · sin`, rotate_half(x) = `cat(−x₂, x₁)` over the halves.
fn apply_rotary(x: Tensor<4>, cos: &Tensor<4>, sin: &Tensor<4>) -> Tensor<4> {
    let d = x.dims()[3];
    let x1 = x.clone().narrow(3, 0, d / 2);
    let x2 = x.clone().narrow(3, d / 2, d / 2);
    let rotated = Tensor::cat(vec![x2.neg(), x1], 3);
    x * cos.clone() + rotated * sin.clone()
}

/// `layers.{i}.attn`: fused query/key/value, rotary positions, attention over every key
/// (global layers) or over keys within `local_attention / 2` positions (local layers).
struct Attention {
    wqkv: Dense,
    wo: Dense,
    heads: usize,
    theta: f64,
    /// Half the window of a local layer; `None` for a global one.
    reach: Option<usize>,
}

impl Attention {
    fn load(w: &Weights<'_>, c: &ModernBertConfig, i: usize) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        Ok(Self {
            wqkv: linear(&w.pp("Wqkv"), h, 3 * h, c.attention_bias)?,
            wo: linear(&w.pp("Wo"), h, h, c.attention_bias)?,
            heads: c.num_attention_heads,
            theta: c.rope_theta(i),
            reach: (!c.is_global(i)).then_some(c.local_attention / 2),
        })
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let (heads, d) = (self.heads, hidden / self.heads);
        // [batch, seq, 3, heads, d] → three [batch, heads, seq, d].
        let qkv = per_token(&self.wqkv, x).reshape([batch, seq, 3, heads, d]);
        let part = |k: usize| {
            qkv.clone()
                .narrow(2, k, 1)
                .reshape([batch, seq, heads, d])
                .swap_dims(1, 2)
        };
        let device = qkv.device();
        let [cos, sin] = rotary(seq, d, self.theta, &device);
        let q = apply_rotary(part(0), &cos, &sin);
        let k = apply_rotary(part(1), &cos, &sin);
        let v = part(2);
        let mut scores =
            q.matmul(k.swap_dims(2, 3)).div_scalar((d as f64).sqrt()) + keys.bias.clone();
        if let Some(reach) = self.reach {
            scores = scores + window_bias(seq, reach, &device);
        }
        let context = keys
            .attend(scores)
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        per_token(&self.wo, context)
    }
}

/// The additive mask of a local layer, `[1, 1, seq, seq]`: 0 where |i − j| ≤ `reach`,
/// a large negative elsewhere (transformers' sliding-window mask).
fn window_bias(seq: usize, reach: usize, device: &burn::tensor::Device) -> Tensor<4> {
    let values: Vec<f32> = (0..seq)
        .flat_map(|i| (0..seq).map(move |j| if i.abs_diff(j) <= reach { 0.0 } else { -1e30 }))
        .collect();
    Tensor::from_data(TensorData::new(values, [1, 1, seq, seq]), device)
}

/// `layers.{i}.mlp`: GeGLU, `Wo(act(input) · gate)` with `input, gate = Wi(x).chunk(2)`.
struct Mlp {
    wi: Dense,
    wo: Dense,
    activation: Activation,
    inner: usize,
}

impl Mlp {
    fn load(w: &Weights<'_>, c: &ModernBertConfig) -> Result<Self, ModelError> {
        let (h, m) = (c.hidden_size, c.intermediate_size);
        Ok(Self {
            wi: linear(&w.pp("Wi"), h, 2 * m, c.mlp_bias)?,
            wo: linear(&w.pp("Wo"), m, h, c.mlp_bias)?,
            activation: c.hidden_activation,
            inner: m,
        })
    }

    fn forward(&self, x: Tensor<3>) -> Tensor<3> {
        let both = per_token(&self.wi, x);
        let input = both.clone().narrow(2, 0, self.inner);
        let gate = both.narrow(2, self.inner, self.inner);
        per_token(&self.wo, self.activation.forward(input) * gate)
    }
}

/// `layers.{i}`: pre-norm attention and MLP with residuals; layer 0 has no attention
/// norm (the embeddings end with one).
struct Layer {
    attn_norm: Option<LayerNorm>,
    attn: Attention,
    mlp_norm: LayerNorm,
    mlp: Mlp,
}

impl Layer {
    fn load(w: &Weights<'_>, c: &ModernBertConfig, i: usize) -> Result<Self, ModelError> {
        Ok(Self {
            attn_norm: if i == 0 {
                None
            } else {
                Some(norm(&w.pp("attn_norm"), c)?)
            },
            attn: Attention::load(&w.pp("attn"), c, i)?,
            mlp_norm: norm(&w.pp("mlp_norm"), c)?,
            mlp: Mlp::load(&w.pp("mlp"), c)?,
        })
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>) -> Tensor<3> {
        let normed = match &self.attn_norm {
            Some(n) => n.forward(x.clone()),
            None => x.clone(),
        };
        let x = x + self.attn.forward(normed, keys);
        let mlp = self.mlp.forward(self.mlp_norm.forward(x.clone()));
        x + mlp
    }
}

/// A loaded ModernBERT encoder (`ModernBertModel`; a head, if stored, is not read).
pub(crate) struct ModernBert {
    config: ModernBertConfig,
    tok_embeddings: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    final_norm: LayerNorm,
}

impl ModernBert {
    /// The encoder's view: `ModernBertForMaskedLM` stores it under `model.`.
    fn scope<'a>(weights: &Weights<'a>) -> Weights<'a> {
        if weights.has_prefix("model") {
            weights.pp("model")
        } else {
            weights.clone()
        }
    }

    fn load_scoped(c: ModernBertConfig, w: &Weights<'_>) -> Result<Self, ModelError> {
        let layers = (0..c.num_hidden_layers)
            .map(|i| Layer::load(&w.pp(format!("layers.{i}")), &c, i))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            tok_embeddings: w
                .pp("embeddings.tok_embeddings")
                .embedding(c.vocab_size, c.hidden_size)?,
            embeddings_norm: norm(&w.pp("embeddings.norm"), &c)?,
            layers,
            final_norm: norm(&w.pp("final_norm"), &c)?,
            config: c,
        })
    }
}

impl Network for ModernBert {
    type Config = ModernBertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<ModernBertConfig, ModelError> {
        ModernBertConfig::read(checkpoint)
    }

    fn load(config: ModernBertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        Self::load_scoped(config, &Self::scope(&weights))
    }

    /// 0 is the normed token embeddings; `num_layers` includes the final norm
    /// (transformers' `last_hidden_state`), as T5's does; in between, the residual
    /// stream after each layer, as transformers' `hidden_states[i]`.
    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        let keys = batch.keys();
        let mut x = self
            .embeddings_norm
            .forward(self.tok_embeddings.forward(batch.ids()));
        for layer in self.layers.iter().take(layers) {
            x = layer.forward(x, &keys);
        }
        if layers == self.layers.len() {
            x = self.final_norm.forward(x);
        }
        x
    }

    fn num_layers(&self) -> usize {
        self.config.num_hidden_layers
    }

    fn hidden_size(&self) -> usize {
        self.config.hidden_size
    }

    fn vocab_size(&self) -> usize {
        self.config.vocab_size
    }

    fn max_positions(&self) -> Option<usize> {
        Some(self.config.max_position_embeddings)
    }

    /// ModernBERT was pretrained on masked-LM alone, with no objective on its first token:
    /// the sentence vector is the mean over tokens.
    fn default_pooling(&self) -> Pooling {
        Pooling::Mean
    }
}

/// `ModernBertForMaskedLM`'s head: `head` (dense, activation, norm) and a decoder tied to the
/// token embeddings unless the file stores its own.
pub(crate) struct ModernBertHead {
    dense: Dense,
    activation: Activation,
    norm: LayerNorm,
    /// An untied decoder, `[hidden, vocab]`.
    decoder: Option<Tensor<2>>,
    bias: Option<Tensor<1>>,
}

/// `ModernBertForMaskedLM`: the encoder (under `model.`) and its head.
pub(crate) type ModernBertForMaskedLm = WithHead<ModernBert, ModernBertHead>;

impl Head<ModernBert> for ModernBertHead {
    fn load(c: &ModernBertConfig, weights: &Weights<'_>) -> Result<Self, ModelError> {
        let (h, v) = (c.hidden_size, c.vocab_size);
        let head = weights.pp("head");
        let decoder = if weights.contains("decoder.weight") {
            Some(weights.transposed("decoder.weight", h, v)?)
        } else {
            None
        };
        let bias = if c.decoder_bias {
            Some(weights.tensor("decoder.bias", [v])?)
        } else {
            None
        };
        Ok(Self {
            dense: linear(&head.pp("dense"), h, h, c.classifier_bias)?,
            activation: c.classifier_activation,
            norm: norm(&head.pp("norm"), c)?,
            decoder,
            bias,
        })
    }

    fn logits(&self, encoder: &ModernBert, hidden: Tensor<2>) -> Tensor<2> {
        let x = self
            .norm
            .forward(self.activation.forward(self.dense.forward(hidden)));
        let logits = match &self.decoder {
            Some(decoder) => x.matmul(decoder.clone()),
            None => x.matmul(encoder.tok_embeddings.weight.val().transpose()),
        };
        match &self.bias {
            Some(bias) => {
                let [_, v] = logits.dims();
                logits + bias.clone().reshape([1, v])
            }
            None => logits,
        }
    }
}
