//! The DeBERTa-v2/v3 encoder and its masked-LM heads, one struct per Hugging Face
//! sub-module, each loading its own tensors from a scoped view.

use burn::nn::{Embedding, LayerNorm};
use burn::tensor::module::conv1d;
use burn::tensor::ops::ConvOptions;
use burn::tensor::{Device, Int, Tensor, TensorData};
use lmbias_core::Pooling;

use super::config::{DebertaV2Config, Relative};
use crate::bert::Activation;
use crate::checkpoint::Checkpoint;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::network::{Batch, Head, Keys, Network, WithHead, per_token};
use crate::weights::Weights;

/// `embeddings`: word (+ absolute position, + token type 0, where configured), projected to
/// the hidden width where the table is narrower, LayerNorm, then zero on padding (the
/// convolution beside layer 0 reads neighbours, so padding must not leak into a text).
struct Embeddings {
    word: Embedding,
    position: Option<Tensor<2>>,
    token_type: Option<Tensor<2>>,
    project: Option<Dense>,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(w: &Weights<'_>, c: &DebertaV2Config) -> Result<Self, ModelError> {
        let (e, h) = (c.embedding_size(), c.hidden_size);
        Ok(Self {
            word: w.pp("word_embeddings").embedding(c.vocab_size, e)?,
            position: if c.position_biased_input {
                Some(w.tensor("position_embeddings.weight", [c.max_position_embeddings, e])?)
            } else {
                None
            },
            token_type: match c.type_vocab_size {
                0 => None,
                n => Some(w.tensor("token_type_embeddings.weight", [n, e])?),
            },
            project: if e == h {
                None
            } else {
                Some(w.pp("embed_proj").linear_no_bias(e, h)?)
            },
            norm: w.pp("LayerNorm").layer_norm(h, c.layer_norm_eps)?,
        })
    }

    fn forward(&self, batch: &Batch) -> Tensor<3> {
        let ids = batch.ids();
        let [b, seq] = ids.dims();
        let mut x = self.word.forward(ids);
        let e = x.dims()[2];
        if let Some(position) = &self.position {
            x = x + position.clone().narrow(0, 0, seq).reshape([1, seq, e]);
        }
        if let Some(token_type) = &self.token_type {
            x = x + token_type.clone().narrow(0, 0, 1).reshape([1, 1, e]);
        }
        if let Some(project) = &self.project {
            x = per_token(project, x);
        }
        self.norm.forward(x) * batch.mask().reshape([b, seq, 1])
    }
}

/// transformers' `make_log_bucket_position`: distances within half the buckets stay as they
/// are; longer ones share log-spaced buckets up to `max_distance`. Computed in f32, as torch
/// computes it, so a distance on a bucket boundary falls on the same side.
fn log_bucket(distance: i64, buckets: usize, max_distance: usize) -> i64 {
    let mid = (buckets / 2) as i64;
    if distance.abs() <= mid {
        return distance;
    }
    let ratio = ((max_distance - 1) as f64 / mid as f64) as f32;
    let log = ((distance.abs() as f32 / mid as f32).ln() / ratio.ln() * (mid - 1) as f32).ceil();
    (log as i64 + mid) * distance.signum()
}

/// The relative positions of a text of `seq` tokens and the rows of the position table they
/// reach, with the gather indices of both disentangled terms into those rows.
struct Positions {
    /// First row of the table that any index reaches, and how many rows.
    first: usize,
    rows: usize,
    /// `[1, 1, seq, seq]`: row of query i's term with key j (c2p: `clamp(δ(i, j) + span)`).
    c2p: Tensor<4, Int>,
    /// `[1, 1, seq, seq]`, laid out by key then query, as transformers gathers it before
    /// transposing: `clamp(−δ(j, i) + span)` at `[j, i]`.
    p2c: Tensor<4, Int>,
}

impl Positions {
    fn new(seq: usize, r: &Relative, device: &Device) -> Self {
        let delta = |i: usize, j: usize| {
            let d = i as i64 - j as i64;
            match r.buckets {
                Some(b) => log_bucket(d, b, r.max_distance),
                None => d,
            }
        };
        let span = r.span as i64;
        let clamp = |x: i64| x.clamp(0, 2 * span - 1);
        let c2p: Vec<i64> = (0..seq)
            .flat_map(|i| (0..seq).map(move |j| clamp(delta(i, j) + span)))
            .collect();
        let p2c: Vec<i64> = (0..seq)
            .flat_map(|j| (0..seq).map(move |i| clamp(-delta(j, i) + span)))
            .collect();
        // Only the rows an index reaches are projected: for a short text a few of the
        // 2 × span rows (512 in DeBERTa-v3).
        let first = *c2p.iter().chain(&p2c).min().unwrap_or(&0);
        let last = *c2p.iter().chain(&p2c).max().unwrap_or(&0);
        let shifted = |v: Vec<i64>| {
            let v: Vec<i64> = v.into_iter().map(|x| x - first).collect();
            Tensor::<4, Int>::from_data(TensorData::new(v, [1, 1, seq, seq]), device)
        };
        Self {
            first: first as usize,
            rows: (last - first + 1) as usize,
            c2p: shifted(c2p),
            p2c: shifted(p2c),
        }
    }
}

/// The relative-position table `rel_embeddings` (through the encoder's LayerNorm where the
/// config says so), shared by every layer.
struct RelativeTable {
    settings: Relative,
    table: Tensor<2>,
    norm: Option<LayerNorm>,
}

impl RelativeTable {
    fn load(w: &Weights<'_>, c: &DebertaV2Config, r: Relative) -> Result<Self, ModelError> {
        Ok(Self {
            table: w.tensor("rel_embeddings.weight", [2 * r.span, c.hidden_size])?,
            norm: if r.norm {
                Some(
                    w.pp("LayerNorm")
                        .layer_norm(c.hidden_size, c.layer_norm_eps)?,
                )
            } else {
                None
            },
            settings: r,
        })
    }

    /// The rows `positions` reaches, normalised: `[rows, hidden]`.
    fn rows(&self, positions: &Positions) -> Tensor<2> {
        let rows = self
            .table
            .clone()
            .narrow(0, positions.first, positions.rows);
        match &self.norm {
            Some(norm) => norm.forward(rows),
            None => rows,
        }
    }
}

/// `attention.self` (disentangled self-attention) and `attention.output`.
struct Attention {
    query: Dense,
    key: Dense,
    value: Dense,
    /// Positions' own projections (`pos_key_proj`, `pos_query_proj`) unless `share_att_key`.
    pos_key: Option<Dense>,
    pos_query: Option<Dense>,
    share_att_key: bool,
    output: Dense,
    norm: LayerNorm,
    heads: usize,
    head_size: usize,
    /// √(head size · scale factor), dividing every term of the scores.
    scale: f64,
}

impl Attention {
    fn load(w: &Weights<'_>, c: &DebertaV2Config) -> Result<Self, ModelError> {
        let (h, all) = (c.hidden_size, c.num_attention_heads * c.head_size());
        let s = w.pp("self");
        let relative = c.relative_attention();
        let own = |name: &str, wanted: bool| -> Result<Option<Dense>, ModelError> {
            if wanted && !c.share_att_key {
                Ok(Some(s.pp(name).linear(h, all)?))
            } else {
                Ok(None)
            }
        };
        Ok(Self {
            query: s.pp("query_proj").linear(h, all)?,
            key: s.pp("key_proj").linear(h, all)?,
            value: s.pp("value_proj").linear(h, all)?,
            pos_key: own("pos_key_proj", relative.is_some_and(|r| r.c2p))?,
            pos_query: own("pos_query_proj", relative.is_some_and(|r| r.p2c))?,
            share_att_key: c.share_att_key,
            output: w.pp("output.dense").linear(all, h)?,
            norm: w.pp("output.LayerNorm").layer_norm(h, c.layer_norm_eps)?,
            heads: c.num_attention_heads,
            head_size: c.head_size(),
            scale: ((c.head_size() * c.scale_factor()) as f64).sqrt(),
        })
    }

    /// `[batch, seq, heads·d]` → `[batch, heads, seq, d]`.
    fn split(&self, x: Tensor<3>) -> Tensor<4> {
        let [batch, seq, _] = x.dims();
        x.reshape([batch, seq, self.heads, self.head_size])
            .swap_dims(1, 2)
    }

    /// Projected position rows `[rows, hidden]` → `[1, heads, rows, d]`.
    fn split_rows(&self, linear: &Dense, rows: &Tensor<2>) -> Tensor<4> {
        let [n, _] = rows.dims();
        linear
            .forward(rows.clone())
            .reshape([1, n, self.heads, self.head_size])
            .swap_dims(1, 2)
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>, relative: Option<&Rel<'_>>) -> Tensor<3> {
        let [batch, seq, _] = x.dims();
        let q = self.split(per_token(&self.query, x.clone()));
        let k = self.split(per_token(&self.key, x.clone()));
        let v = self.split(per_token(&self.value, x.clone()));
        let mut scores = q.clone().matmul(k.clone().swap_dims(2, 3));
        if let Some(rel) = relative {
            let expand =
                |index: &Tensor<4, Int>| index.clone().expand([batch, self.heads, seq, seq]);
            if rel.settings.c2p {
                let proj = self
                    .pos_key
                    .as_ref()
                    .filter(|_| !self.share_att_key)
                    .unwrap_or(&self.key);
                let pos_key = self.split_rows(proj, rel.rows);
                // [batch, heads, seq, rows]: each query against each position, then the
                // position of each key.
                let c2p = q
                    .matmul(pos_key.swap_dims(2, 3))
                    .gather(3, expand(&rel.positions.c2p));
                scores = scores + c2p;
            }
            if rel.settings.p2c {
                let proj = self
                    .pos_query
                    .as_ref()
                    .filter(|_| !self.share_att_key)
                    .unwrap_or(&self.query);
                let pos_query = self.split_rows(proj, rel.rows);
                let p2c = k
                    .matmul(pos_query.swap_dims(2, 3))
                    .gather(3, expand(&rel.positions.p2c))
                    .swap_dims(2, 3);
                scores = scores + p2c;
            }
        }
        let scores = scores.div_scalar(self.scale) + keys.bias.clone();
        let context = keys.attend(scores).matmul(v).swap_dims(1, 2).reshape([
            batch,
            seq,
            self.heads * self.head_size,
        ]);
        self.norm.forward(per_token(&self.output, context) + x)
    }
}

/// What every layer's attention shares for one batch: the table rows and gather indices.
struct Rel<'a> {
    settings: Relative,
    positions: &'a Positions,
    rows: &'a Tensor<2>,
}

/// `encoder.layer.{i}`: attention, then BERT's feed-forward (`intermediate`, `output`).
struct Layer {
    attention: Attention,
    intermediate: Dense,
    output: Dense,
    norm: LayerNorm,
    activation: Activation,
}

impl Layer {
    fn load(w: &Weights<'_>, c: &DebertaV2Config) -> Result<Self, ModelError> {
        let (h, m) = (c.hidden_size, c.intermediate_size);
        Ok(Self {
            attention: Attention::load(&w.pp("attention"), c)?,
            intermediate: w.pp("intermediate.dense").linear(h, m)?,
            output: w.pp("output.dense").linear(m, h)?,
            norm: w.pp("output.LayerNorm").layer_norm(h, c.layer_norm_eps)?,
            activation: c.hidden_act,
        })
    }

    fn forward(&self, x: Tensor<3>, keys: &Keys<'_>, relative: Option<&Rel<'_>>) -> Tensor<3> {
        let x = self.attention.forward(x, keys, relative);
        let inner = self
            .activation
            .forward(per_token(&self.intermediate, x.clone()));
        self.norm.forward(per_token(&self.output, inner) + x)
    }
}

/// `encoder.conv`: a 1-D convolution over the embeddings' output, added to layer 0's output
/// before a LayerNorm (DeBERTa-v2 xlarge and up).
struct Conv {
    weight: Tensor<3>,
    bias: Tensor<1>,
    options: ConvOptions<1>,
    activation: Activation,
    norm: LayerNorm,
}

impl Conv {
    fn load(w: &Weights<'_>, c: &DebertaV2Config) -> Result<Self, ModelError> {
        let (h, k, g) = (c.hidden_size, c.conv_kernel_size, c.conv_groups);
        Ok(Self {
            weight: w.tensor("conv.weight", [h, h / g, k])?,
            bias: w.tensor("conv.bias", [h])?,
            options: ConvOptions::new([1], [(k - 1) / 2], [1], g),
            activation: c.conv_act,
            norm: w.pp("LayerNorm").layer_norm(h, c.layer_norm_eps)?,
        })
    }

    /// `embedded` is the embeddings' output, `layer0` the first layer's; padding is zero.
    fn forward(&self, embedded: Tensor<3>, layer0: Tensor<3>, mask: Tensor<3>) -> Tensor<3> {
        let out = conv1d(
            embedded.swap_dims(1, 2),
            self.weight.clone(),
            Some(self.bias.clone()),
            self.options.clone(),
        )
        .swap_dims(1, 2);
        let out = self.activation.forward(out * mask.clone());
        self.norm.forward(layer0 + out) * mask
    }
}

/// A loaded DeBERTa-v2/v3 encoder (`DebertaV2Model`; a head, if stored, is not read).
pub(crate) struct DebertaV2 {
    config: DebertaV2Config,
    embeddings: Embeddings,
    layers: Vec<Layer>,
    relative: Option<RelativeTable>,
    conv: Option<Conv>,
}

impl DebertaV2 {
    /// The encoder's view: `DebertaV2ForMaskedLM` stores it under `deberta.`.
    fn scope<'a>(weights: &Weights<'a>) -> Weights<'a> {
        if weights.has_prefix("deberta") {
            weights.pp("deberta")
        } else {
            weights.clone()
        }
    }

    fn load_scoped(c: DebertaV2Config, w: &Weights<'_>) -> Result<Self, ModelError> {
        let encoder = w.pp("encoder");
        let layers = (0..c.num_hidden_layers)
            .map(|i| Layer::load(&encoder.pp(format!("layer.{i}")), &c))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            embeddings: Embeddings::load(&w.pp("embeddings"), &c)?,
            layers,
            relative: c
                .relative_attention()
                .map(|r| RelativeTable::load(&encoder, &c, r))
                .transpose()?,
            conv: if c.conv_kernel_size > 0 {
                Some(Conv::load(&encoder.pp("conv"), &c)?)
            } else {
                None
            },
            config: c,
        })
    }
}

impl Network for DebertaV2 {
    type Config = DebertaV2Config;

    fn config(checkpoint: &Checkpoint) -> Result<DebertaV2Config, ModelError> {
        DebertaV2Config::read(checkpoint)
    }

    fn load(config: DebertaV2Config, weights: Weights<'_>) -> Result<Self, ModelError> {
        Self::load_scoped(config, &Self::scope(&weights))
    }

    /// 0 is the embeddings' output; `i` the output of layer `i` (with the convolution's
    /// term after layer 1), as transformers' `hidden_states[i]`.
    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        let keys = batch.keys();
        let embedded = self.embeddings.forward(batch);
        let [b, seq, _] = embedded.dims();
        let device = embedded.device();
        let positions = self
            .relative
            .as_ref()
            .map(|t| Positions::new(seq, &t.settings, &device));
        let rows = self
            .relative
            .as_ref()
            .zip(positions.as_ref())
            .map(|(t, p)| t.rows(p));
        let relative = self
            .relative
            .as_ref()
            .zip(positions.as_ref().zip(rows.as_ref()))
            .map(|(t, (positions, rows))| Rel {
                settings: t.settings,
                positions,
                rows,
            });
        let mut x = embedded.clone();
        for (i, layer) in self.layers.iter().take(layers).enumerate() {
            x = layer.forward(x, &keys, relative.as_ref());
            if i == 0
                && let Some(conv) = &self.conv
            {
                x = conv.forward(embedded.clone(), x, batch.mask().reshape([b, seq, 1]));
            }
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

    /// Absolute positions bound the length; relative ones alone (DeBERTa-v3) do not.
    fn max_positions(&self) -> Option<usize> {
        self.config
            .position_biased_input
            .then_some(self.config.max_position_embeddings)
    }

    /// DeBERTa was pretrained without a sentence-level objective (masked LM in v2, replaced
    /// token detection in v3): the sentence vector is the mean over tokens.
    fn default_pooling(&self) -> Pooling {
        Pooling::Mean
    }
}

/// `DebertaV2ForMaskedLM`'s head, one of transformers' two, chosen by the config's `legacy`
/// flag as transformers chooses it — `cls.predictions` (transform to the embedding width,
/// LayerNorm, a decoder tied to the token table unless stored) or `lm_predictions.lm_head`
/// (dense, LayerNorm, the token table) — each with its own bias. The head transformers would
/// not read is an error if missing, never a random one.
pub(crate) struct DebertaV2Head {
    dense: Dense,
    activation: Activation,
    norm: LayerNorm,
    /// A stored decoder, `[embedding, vocab]`.
    decoder: Option<Tensor<2>>,
    bias: Tensor<1>,
}

/// `DebertaV2ForMaskedLM`: the encoder (under `deberta.`) and its head.
pub(crate) type DebertaV2ForMaskedLm = WithHead<DebertaV2, DebertaV2Head>;

impl Head<DebertaV2> for DebertaV2Head {
    fn load(c: &DebertaV2Config, weights: &Weights<'_>) -> Result<Self, ModelError> {
        let (h, e, v) = (c.hidden_size, c.embedding_size(), c.vocab_size);
        let (head, transform) = if c.legacy {
            let head = weights.pp("cls.predictions");
            let transform = head.pp("transform");
            (head, transform)
        } else {
            let head = weights.pp("lm_predictions.lm_head");
            (head.clone(), head)
        };
        let decoder = if c.legacy && head.contains("decoder.weight") {
            Some(head.transposed("decoder.weight", e, v)?)
        } else {
            None
        };
        Ok(Self {
            // lm_head's dense keeps the hidden width: the hidden state meets the token table
            // directly, so it fails here (naming the tensor) where the two widths differ.
            dense: transform.pp("dense").linear(h, e)?,
            activation: c.hidden_act,
            norm: transform.pp("LayerNorm").layer_norm(e, c.layer_norm_eps)?,
            decoder,
            bias: head.tensor("bias", [v])?,
        })
    }

    fn logits(&self, encoder: &DebertaV2, hidden: Tensor<2>) -> Tensor<2> {
        let x = self
            .norm
            .forward(self.activation.forward(self.dense.forward(hidden)));
        let logits = match &self.decoder {
            Some(decoder) => x.matmul(decoder.clone()),
            None => x.matmul(encoder.embeddings.word.weight.val().transpose()),
        };
        let [_, v] = logits.dims();
        logits + self.bias.clone().reshape([1, v])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// transformers' `make_log_bucket_position` (5.24, torch 2.15) for DeBERTa-v3's settings
    /// (256 buckets, 512 positions) and a small table (8 buckets, 64 positions).
    #[test]
    fn log_buckets_match_transformers() {
        let v3: Vec<i64> = [0, 1, 127, 128, 129, 130, 200, 300, 511, 600, 1000]
            .iter()
            .map(|&d| log_bucket(d, 256, 512))
            .collect();
        assert_eq!(v3, [0, 1, 127, 128, 129, 130, 169, 207, 255, 270, 317]);
        let small: Vec<i64> = [-60, -9, -5, -4, -3, 0, 3, 4, 5, 6, 9, 17, 40, 63]
            .iter()
            .map(|&d| log_bucket(d, 8, 64))
            .collect();
        assert_eq!(small, [-7, -5, -5, -4, -3, 0, 3, 4, 5, 5, 5, 6, 7, 7]);
    }
}
