//! `BertForMaskedLM`: the encoder plus `cls.predictions`, the head that turns a
//! final hidden state into vocabulary logits.

use burn::nn::{LayerNorm, Linear};
use burn::tensor::Tensor;
use lmbias_encoder::Pooling;

use super::config::{Activation, BertConfig};
use super::model::Bert;
use crate::checkpoint::Checkpoint;
use crate::error::ModelError;
use crate::network::{Batch, MaskedNetwork, Network};
use crate::weights::{Weights, linear};

/// `cls.predictions`: a transform (dense, activation, LayerNorm), then a
/// decoder onto the vocabulary.
struct MlmHead {
    dense: Linear,
    norm: LayerNorm,
    decoder: Linear,
    activation: Activation,
}

impl MlmHead {
    /// `w` is `cls.predictions`; `encoder` the encoder's view, whose word
    /// embeddings are the decoder of tied checkpoints (the usual case, which
    /// stores no decoder weight).
    fn load(w: &Weights<'_>, encoder: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let (h, v) = (c.hidden_size, c.vocab_size);
        let decoder_weight = if w.contains("decoder.weight") {
            w.transposed("decoder.weight", h, v)?
        } else {
            encoder.transposed("embeddings.word_embeddings.weight", h, v)?
        };
        let bias = if w.contains("bias") {
            "bias"
        } else {
            "decoder.bias"
        };
        Ok(Self {
            dense: w.pp("transform.dense").linear(h, h)?,
            norm: w
                .pp("transform.LayerNorm")
                .layer_norm(h, c.layer_norm_eps)?,
            decoder: linear(decoder_weight, Some(w.tensor(bias, [v])?)),
            activation: c.hidden_act,
        })
    }

    fn forward(&self, hidden: Tensor<2>) -> Tensor<2> {
        let x = self
            .norm
            .forward(self.activation.forward(self.dense.forward(hidden)));
        self.decoder.forward(x)
    }
}

/// A BERT with its masked-language-modelling head.
pub(crate) struct BertForMaskedLm {
    bert: Bert,
    head: MlmHead,
}

impl Network for BertForMaskedLm {
    type Config = BertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<BertConfig, ModelError> {
        BertConfig::read(checkpoint)
    }

    fn load(config: BertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        let encoder = Bert::scope(&weights);
        let bert = Bert::load_scoped(config, &encoder)?;
        let head = MlmHead::load(&weights.pp("cls.predictions"), &encoder, bert.config())?;
        Ok(Self { bert, head })
    }

    fn hidden_states(&self, batch: &Batch, layers: usize) -> Tensor<3> {
        self.bert.hidden_states(batch, layers)
    }

    fn num_layers(&self) -> usize {
        self.bert.num_layers()
    }

    fn hidden_size(&self) -> usize {
        self.bert.hidden_size()
    }

    fn vocab_size(&self) -> usize {
        self.bert.vocab_size()
    }

    fn max_positions(&self) -> Option<usize> {
        self.bert.max_positions()
    }

    fn default_pooling(&self) -> Pooling {
        self.bert.default_pooling()
    }
}

impl MaskedNetwork for BertForMaskedLm {
    fn mask_logits(&self, hidden: Tensor<2>) -> Tensor<2> {
        self.head.forward(hidden)
    }
}
