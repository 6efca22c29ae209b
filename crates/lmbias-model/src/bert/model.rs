//! The BERT encoder, one struct per Hugging Face sub-module, each loading its
//! own tensors from a scoped view, computing its own forward pass and naming
//! its tensors for export. The structs are Burn modules, so the one definition
//! serves inference and training (`crate::train`); dropout acts only on an
//! autodiff device, as in transformers' train mode.

use burn::module::{Module, Param};
use burn::nn::{Dropout, DropoutConfig, Embedding, LayerNorm, Linear};
use burn::tensor::activation::softmax;
use burn::tensor::{Int, Tensor};
use lmbias_encoder::Pooling;

use super::config::{Activation, BertConfig, PositionEmbeddingType};
use crate::checkpoint::Checkpoint;
use crate::error::ModelError;
use crate::network::{Batch, Network};
use crate::weights::{Weights, WeightsOut};

/// `embeddings`: word + absolute position + token type 0, then LayerNorm.
#[derive(Module, Debug)]
pub(super) struct Embeddings {
    pub(super) word: Embedding,
    /// `[max_position, hidden]`, sliced to the sequence length.
    position: Param<Tensor<2>>,
    /// The token-type table; every lmbias input is one segment, so only row 0 is read.
    token_type: Param<Tensor<2>>,
    norm: LayerNorm,
    dropout: Dropout,
}

impl Embeddings {
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let h = c.hidden_size;
        let max_positions = match c.position_embedding_type {
            PositionEmbeddingType::Absolute => c.max_position_embeddings,
        };
        Ok(Self {
            word: w.pp("word_embeddings").embedding(c.vocab_size, h)?,
            position: Param::from_tensor(
                w.tensor("position_embeddings.weight", [max_positions, h])?,
            ),
            token_type: Param::from_tensor(
                w.tensor("token_type_embeddings.weight", [c.type_vocab_size, h])?,
            ),
            norm: w.pp("LayerNorm").layer_norm(h, c.layer_norm_eps)?,
            dropout: dropout(c.hidden_dropout_prob),
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>) {
        out.pp("word_embeddings").embedding(&self.word);
        out.tensor("position_embeddings.weight", self.position.val());
        out.tensor("token_type_embeddings.weight", self.token_type.val());
        out.pp("LayerNorm").layer_norm(&self.norm);
    }

    fn forward(&self, ids: Tensor<2, Int>) -> Tensor<3> {
        let [_, seq] = ids.dims();
        let [_, h] = self.position.dims();
        let x = self.word.forward(ids)
            + self.position.val().narrow(0, 0, seq).reshape([1, seq, h])
            + self.token_type.val().narrow(0, 0, 1).reshape([1, 1, h]);
        self.dropout.forward(self.norm.forward(x))
    }
}

/// `linear` on every position of `x` `[batch, seq, in]`, as one `[batch·seq, in]`
/// product: burn's `Linear` on a 3-D input broadcasts the weight over the batch,
/// and its weight gradient is then a batch of products summed afterwards.
fn per_token(linear: &Linear, x: Tensor<3>) -> Tensor<3> {
    let [batch, seq, d] = x.dims();
    let y = linear.forward(x.reshape([batch * seq, d]));
    let [_, out] = y.dims();
    y.reshape([batch, seq, out])
}

/// transformers' `nn.Dropout(p)`: active only where gradients are tracked.
fn dropout(prob: f64) -> Dropout {
    DropoutConfig::new(prob).init()
}

/// `attention`: multi-head self-attention (`self`) and its output projection,
/// residual and LayerNorm (`output`).
#[derive(Module, Debug)]
struct SelfAttention {
    query: Linear,
    key: Linear,
    value: Linear,
    output: Linear,
    norm: LayerNorm,
    probs_dropout: Dropout,
    output_dropout: Dropout,
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
            probs_dropout: dropout(c.attention_probs_dropout_prob),
            output_dropout: dropout(c.hidden_dropout_prob),
            heads: c.num_attention_heads,
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>) {
        let mut attention = out.pp("self");
        attention.pp("query").linear(&self.query);
        attention.pp("key").linear(&self.key);
        attention.pp("value").linear(&self.value);
        let mut output = out.pp("output");
        output.pp("dense").linear(&self.output);
        output.pp("LayerNorm").layer_norm(&self.norm);
    }

    fn forward(&self, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let [batch, seq, hidden] = x.dims();
        let heads = self.heads;
        let d = hidden / heads;
        let split = |t: Tensor<3>| t.reshape([batch, seq, heads, d]).swap_dims(1, 2);
        let q = split(per_token(&self.query, x.clone()));
        let k = split(per_token(&self.key, x.clone()));
        let v = split(per_token(&self.value, x.clone()));
        let scores = q.matmul(k.swap_dims(2, 3)).div_scalar((d as f64).sqrt()) + mask_bias;
        let context = self
            .probs_dropout
            .forward(softmax(scores, 3))
            .matmul(v)
            .swap_dims(1, 2)
            .reshape([batch, seq, hidden]);
        let projected = self
            .output_dropout
            .forward(per_token(&self.output, context));
        self.norm.forward(projected + x)
    }
}

/// `encoder.layer.{i}`: attention, then the feed-forward `intermediate` /
/// `output` pair with its residual and LayerNorm.
#[derive(Module, Debug)]
struct Layer {
    attention: SelfAttention,
    intermediate: Linear,
    output: Linear,
    norm: LayerNorm,
    dropout: Dropout,
    #[module(skip)]
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
            dropout: dropout(c.hidden_dropout_prob),
            activation: c.hidden_act,
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>) {
        self.attention.save(&mut out.pp("attention"));
        out.pp("intermediate.dense").linear(&self.intermediate);
        out.pp("output.dense").linear(&self.output);
        out.pp("output.LayerNorm").layer_norm(&self.norm);
    }

    fn forward(&self, x: Tensor<3>, mask_bias: Tensor<4>) -> Tensor<3> {
        let x = self.attention.forward(x, mask_bias);
        let inner = self
            .activation
            .forward(per_token(&self.intermediate, x.clone()));
        let projected = self.dropout.forward(per_token(&self.output, inner));
        self.norm.forward(projected + x)
    }
}

/// `encoder`: the stack of layers.
#[derive(Module, Debug)]
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

    fn save(&self, out: &mut WeightsOut<'_>) {
        for (i, layer) in self.layers.iter().enumerate() {
            layer.save(&mut out.pp(format!("layer.{i}")));
        }
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
#[derive(Module, Debug)]
pub(crate) struct Bert {
    #[module(skip)]
    config: BertConfig,
    pub(super) embeddings: Embeddings,
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

    /// Names the encoder's tensors as transformers does, under `out`'s prefix.
    pub(super) fn save(&self, out: &mut WeightsOut<'_>) {
        self.embeddings.save(&mut out.pp("embeddings"));
        self.encoder.save(&mut out.pp("encoder"));
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
