//! `BertForMaskedLM` and its descendants' masked-LM classes: the encoder plus the head
//! that turns a final hidden state into vocabulary logits (`cls.predictions` in BERT,
//! `lm_head` in RoBERTa, the generator's in ELECTRA, `vocab_*` in DistilBERT).

use burn::module::{Module, Param};
use burn::nn::LayerNorm;
use burn::tensor::Tensor;
use lmbias_core::Pooling;

use super::config::{Activation, BertConfig};
use super::model::Bert;
use crate::checkpoint::Checkpoint;
use crate::dense::Dense;
use crate::error::ModelError;
use crate::network::{Batch, MaskedNetwork, Network};
use crate::weights::{Weights, WeightsOut};

/// The head: a transform (dense, activation, LayerNorm), then a decoder onto the
/// vocabulary. Its width is the embeddings' (ELECTRA's generator maps the hidden size back
/// to the embedding size before decoding).
#[derive(Module, Debug)]
pub(super) struct MlmHead {
    pub(super) dense: Dense,
    pub(super) norm: LayerNorm,
    /// A decoder stored apart from the word embeddings, `[width, vocab]`;
    /// `None` when tied to them (the usual case, which stores no decoder weight),
    /// so that training updates one matrix, as transformers' tied weights do.
    pub(super) decoder: Option<Param<Tensor<2>>>,
    pub(super) bias: Param<Tensor<1>>,
    #[module(skip)]
    activation: Activation,
}

impl MlmHead {
    /// `w` is the checkpoint's root; the variant's [`super::variant::HeadNames`] say where
    /// the head is. The encoder's word embeddings are the decoder of tied checkpoints.
    fn load(w: &Weights<'_>, c: &BertConfig) -> Result<Self, ModelError> {
        let (h, e, v) = (c.hidden_size, c.embedding_size(), c.vocab_size);
        let n = &c.variant().names().head;
        let decoder = if w.contains(n.decoder) {
            Some(Param::from_tensor(w.transposed(n.decoder, e, v)?))
        } else {
            None
        };
        // transformers ties the decoder's bias to the head's `bias` only with the
        // decoder tied; an untied decoder (one the file stores) adds its own bias.
        let [head_bias, decoder_bias] = n.bias;
        let order = if decoder.is_some() {
            [decoder_bias, head_bias]
        } else {
            [head_bias, decoder_bias]
        };
        let bias = order
            .into_iter()
            .find(|b| w.contains(b))
            .unwrap_or(head_bias);
        Ok(Self {
            dense: w.pp(n.dense).linear(h, e)?,
            norm: w.pp(n.norm).layer_norm(e, c.layer_norm_eps)?,
            decoder,
            bias: Param::from_tensor(w.tensor(bias, [v])?),
            activation: c.head_activation(),
        })
    }

    fn save(&self, out: &mut WeightsOut<'_>, c: &BertConfig) {
        let n = &c.variant().names().head;
        out.pp(n.dense).linear(&self.dense);
        out.pp(n.norm).layer_norm(&self.norm);
        if let Some(decoder) = &self.decoder {
            out.transposed(n.decoder, decoder.val());
        }
        out.tensor(n.bias[0], self.bias.val());
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
    /// Names every tensor as transformers' `save_pretrained` does: the encoder under
    /// its prefix (`bert.`), the head under its names (`cls.predictions.`), a tied
    /// decoder not stored.
    pub(crate) fn save(&self, out: &mut WeightsOut<'_>) {
        let config = self.bert.config();
        self.bert.save(&mut out.pp(config.variant().names().prefix));
        self.head.save(out, config);
    }

    pub(crate) fn bert_config(&self) -> &BertConfig {
        self.bert.config()
    }

    /// The full names of the tensors indexed by vocabulary id, as a file of this variant may
    /// store them (the encoder with or without its prefix): what grows when words are added.
    pub(crate) fn vocabulary_tensors(config: &BertConfig) -> Vec<String> {
        let names = config.variant().names();
        let embeddings = "embeddings.word_embeddings.weight";
        vec![
            embeddings.to_owned(),
            format!("{}.{embeddings}", names.prefix),
            names.head.decoder.to_owned(),
            names.head.bias[0].to_owned(),
            names.head.bias[1].to_owned(),
        ]
    }
}

impl Network for BertForMaskedLm {
    type Config = BertConfig;

    fn config(checkpoint: &Checkpoint) -> Result<BertConfig, ModelError> {
        BertConfig::read(checkpoint)
    }

    fn load(config: BertConfig, weights: Weights<'_>) -> Result<Self, ModelError> {
        let encoder = Bert::scope(&weights, &config);
        let bert = Bert::load_scoped(config, &encoder)?;
        let head = MlmHead::load(&weights, bert.config())?;
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
