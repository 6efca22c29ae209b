//! The BERT encoder, one struct per Hugging Face sub-module, each loading its
//! own tensors from a scoped view and computing its own forward pass.

use burn::nn::{Embedding, LayerNorm, Linear};
use burn::tensor::activation::softmax;
use burn::tensor::{Int, Tensor};
use lmbias_encoder::Pooling;

use super::config::{Activation, BertConfig, PositionEmbeddingType};
use crate::checkpoint::Checkpoint;
use crate::error::ModelError;
use crate::network::{Batch, Network};
use crate::weights::Weights;

/// `embeddings`: word + absolute position + token type 0, then LayerNorm.
struct Embeddings {
    word: Embedding,
    /// `[max_position, hidden]`, sliced to the sequence length.
    position: Tensor<2>,
    /// Row 0 of the token-type table: every lmbias input is one segment.
    token_type0: Tensor<1>,
    norm: LayerNorm,
}

impl Embeddings {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        let max_positions = match c.position_embedding_type {
            PositionEmbeddingType::Absolute => c.max_position_embeddings,
        };
        Ok(Self {
            word: w.pp("word_embeddings").embedding(c.vocab_size, h)?,
            position: w.tensor("position_embeddings.weight", [max_positions, h])?,
            token_type0: w
                .tensor("token_type_embeddings.weight", [c.type_vocab_size, h])?
                .narrow(0, 0, 1)
                .reshape([h]),
            norm: w.pp("LayerNorm").layer_norm(h, c.layer_norm_eps)?,
        })
    }

    fn forward(&self, ids: Tensor<2, Int>) -> Tensor<3> {
        let [_, seq] = ids.dims();
        let [_, h] = self.position.dims();
        let x = self.word.forward(ids)
            + self.position.clone().narrow(0, 0, seq).reshape([1, seq, h])
            + self.token_type0.clone().reshape([1, 1, h]);
        self.norm.forward(x)
    }
}

/// `attention`: multi-head self-attention (`self`) and its output projection,
/// residual and LayerNorm (`output`).
struct SelfAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    norm: LayerNorm,
    heads: usize,
}

impl SelfAttention {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        let (attention, output) = (w.pp("self"), w.pp("output"));
        Ok(Self {
            query: attention.pp("query").linear(h, h)?,
            key: attention.pp("key").linear(h, h)?,
            value: attention.pp("value").linear(h, h)?,
            output: output.pp("dense").linear(h, h)?,
            norm: output.pp("LayerNorm").layer_norm(h, c.layer_norm_eps)?,
            heads: c.num_attention_heads,
        })
    }

    fn forward(&self, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let heads = self.heads;
        let d = hidden / heads;
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d]).swap_dims(1, 2);
        let q = split(self.query.forward(x.clone()));
        let k = split(self.key.forward(x.clone()));
        let v = split(self.value.forward(x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((d as f64).sqrt()) + mask_bias;
        let context = softmax(scores, 3)
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        self.norm.forward(self.output.forward(context) + x)
    }
}

/// `encoder.layer.{i}`: attention, then the feed-forward `intermediate` /
/// `output` pair with its residual and LayerNorm.
struct Layer {
    attention: SelfAttention,
    intermediate: Linear,
    output: Linear,
    norm: LayerNorm,
    activation: Activation,
}

impl Layer {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let (h, m) = (c.hidden_size, c.intermediate_size);
        Ok(Self {
            attention: SelfAttention::load(&w.pp("attention"), c)?,
            intermediate: w.pp("intermediate.dense").linear(h, m)?,
            output: w.pp("output.dense").linear(m, h)?,
            norm: w.pp("output.LayerNorm").layer_norm(h, c.layer_norm_eps)?,
            activation: c.hidden_act,
        })
    }

    fn forward(&self, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let x = self.attention.forward(x, mask_bias);
        let inner = self
            .activation
            .forward(self.intermediate.forward(x.clone()));
        self.norm.forward(self.output.forward(inner) + x)
    }
}

/// `encoder`: the stack of layers.
struct Encoder {
    layers: Vec<Layer>,
}

impl Encoder {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let layers = (0..c.num_hidden_layers)
            .map(|i| Layer::load(&w.pp(format!("layer.{i}")), c))
            .collect::<Result<_, _>>()?;
        Ok(Self { layers })
    }

    /// The output of the first `n` layers.
    fn forward(&self, mut x: Tensor<3>, mask_bias: Tensor<4>, n: usize) -> Tensor<3> {
        for layer in self.layers.iter().take(n) {
            x = layer.forward(x, mask_bias.clone());
        }
        x
    }
}

/// A loaded BERT encoder (`BertModel`; a head, if stored, is not read).
pub(crate) struct Bert {
    config: BertConfig,
    embeddings: Embeddings,
    encoder: Encoder,
}

impl Bert {
    /// The encoder's view of the file: checkpoints with a head store it under `bert.`.
    pub(super) fn scope<'a>(weights: &Weights<'a>) -> Weights<'a> {
        if weights.has_prefix("bert") {
            weights.pp("bert")
        } else {
            weights.clone()
        }
    }

    /// The encoder from its own view of the file (see [`Bert::scope`]).
    pub(super) fn load_scoped(config: BertConfig, w: &Weights<'_>) -> Result<Self, ModelError> {
        Ok(Self {
            embeddings: Embeddings::load(&w.pp("embeddings"), &config)?,
            encoder: Encoder::load(&w.pp("encoder"), &config)?,
            config,
        })
    }

    pub(super) fn config(&self) -> &BertConfig {
        &self.config
    }
}

impl Network for Bert {
    type Config = BertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<BertConfig, ModelError> {
        BertConfig::read(checkpoint)
    }

    fn load(config: BertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        Self::load_scoped(config, &Self::scope(&weights))
    }

    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        let x = self.embeddings.forward(batch.ids());
        self.encoder.forward(x, batch.attention_bias(), layers)
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

    /// May et al. (sent-bias) read BERT's [CLS].
    fn default_pooling(&self) -> Pooling {
        Pooling::Cls
    }
}
