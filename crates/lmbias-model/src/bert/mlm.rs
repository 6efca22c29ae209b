//! `BertForMaskedLM`: the encoder plus `cls.predictions`, the head that turns a
//! final hidden state into vocabulary logits.

use burn::module::{Module, Param};
use burn::nn::{LayerNorm, Linear};
use burn::tensor::Tensor;
use lmbias_encoder::Pooling;

use super::config::{Activation, BertConfig};
use super::model::Bert;
use crate::checkpoint::Checkpoint;
use crate::error::ModelError;
use crate::network::{Batch, MaskedNetwork, Network};
use crate::weights::{Weights, WeightsOut};

/// `cls.predictions`: a transform (dense, activation, LayerNorm), then a
/// decoder onto the vocabulary.
#[derive(Module, Debug)]
pub(super) struct MlmHead {
    dense: Linear,
    norm: LayerNorm,
    /// A decoder stored apart from the word embeddings, `[hidden, vocab]`;
    /// `None` when tied to them (the usual case, which stores no decoder weight),
    /// so that training updates one matrix, as transformers' tied weights do.
    decoder: Option<Param<Tensor<2>>>,
    bias: Param<Tensor<1>>,
    #[module(skip)]
    activation: Activation,
}

impl MlmHead {
    /// `w` is `cls.predictions`; `encoder` the encoder's view, whose word
    /// embeddings are the decoder of tied checkpoints (the usual case, which
    /// stores no decoder weight).
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let (h, v) = (c.hidden_size, c.vocab_size);
        let decoder = if w.contains("decoder.weight") {
            Some(Param::from_tensor(w.transposed("decoder.weight", h, v)?))
        } else {
            None
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
            decoder,
            bias: Param::from_tensor(w.tensor(bias, [v])?),
            activation: c.hidden_act,
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>) {
        out.pp("transform.dense").linear(&self.dense);
        out.pp("transform.LayerNorm").layer_norm(&self.norm);
        if let Some(decoder) = &self.decoder {
            out.transposed("decoder.weight", decoder.val());
        }
        out.tensor("bias", self.bias.val());
    }

    /// `word` is the word-embedding table `[vocab, hidden]`, the decoder when tied.
    fn forward(&self, hidden: Tensor<2>, word: &Param<Tensor<2>>) -> Tensor<2> {
        let x = self
            .norm
            .forward(self.activation.forward(self.dense.forward(hidden)));
        let logits = match &self.decoder {
            Some(decoder) => x.matmul(decoder.val()),
            None => x.matmul(word.val().transpose()),
        };
        let [_, v] = logits.dims();
        logits + self.bias.val().reshape([1, v])
    }
}

/// A BERT with its masked-language-modelling head.
#[derive(Module, Debug)]
pub(crate) struct BertForMaskedLm {
    pub(super) bert: Bert,
    pub(super) head: MlmHead,
}

impl BertForMaskedLm {
    /// Names every tensor as transformers' `BertForMaskedLM.save_pretrained`
    /// does: the encoder under `bert.`, the head under `cls.predictions.`, a
    /// tied decoder not stored.
    pub(crate) fn save(&self, out: &mut WeightsOut<'_>) {
        self.bert.save(&mut out.pp("bert"));
        self.head.save(&mut out.pp("cls.predictions"));
    }

    pub(crate) fn bert_config(&self) -> &BertConfig {
        self.bert.config()
    }
}

impl Network for BertForMaskedLm {
    type Config = BertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<BertConfig, ModelError> {
        BertConfig::read(checkpoint)
    }

    fn load(config: BertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        let encoder = Bert::scope(&weights);
        let bert = Bert::load_scoped(config, &encoder)?;
        let head = MlmHead::load(&weights.pp("cls.predictions"), bert.config())?;
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
        self.head.forward(hidden, &self.bert.embeddings.word.weight)
    }
}
