//! A loaded T5 / mT5 encoder with its tokenizer, answering lmbias-encoder's `Embedder`.
//!
//! T5 has no [CLS]: the tokenizer only appends `</s>`. The poolings therefore mean:
//! `mean` — attention-masked mean over all positions including `</s>` (the usual
//! sentence vector for T5 encoders, e.g. sentence-t5); `cls` — position 0 of the
//! encoded input, i.e. the first piece of the text, kept so a study written for
//! BERT runs unchanged (it is *not* a trained summary token); `first` — position 0
//! of the text encoded without `</s>` (sent-bias's convention, as for BERT).
//! There is no masked-LM head: T5 is trained on span corruption, not fill-mask.

use burn::tensor::{Device, Tensor};
use lmbias_encoder::{Embedder, EncoderError, Layer, Piece, Pooling, WordInContext};
use lmbias_text::{Encoding, Tokenizer};

use crate::bert::BertInput;
use crate::checkpoint::Checkpoint;
use crate::device::DeviceKind;
use crate::encoder::{CHUNK, mean_over_spans, pieces, reject_empty, rows, text_error, word_spans};
use crate::error::ModelError;
use crate::t5::T5Encoder;

/// Any T5 / mT5 checkpoint, as an [`Embedder`].
pub struct T5Embedder {
    name: String,
    tokenizer: Tokenizer,
    encoder: T5Encoder,
    device: Device,
}

impl T5Embedder {
    /// Load the encoder of `checkpoint`; decoder and `lm_head` weights are not read.
    pub fn load(checkpoint: &Checkpoint, device: DeviceKind) -> Result<Self, ModelError> {
        let device = device.device()?;
        let tokenizer =
            Tokenizer::from_dir(checkpoint.dir()).map_err(|e| ModelError::Tokenizer {
                path: checkpoint.dir().to_path_buf(),
                message: e.to_string(),
            })?;
        let encoder = T5Encoder::load(checkpoint, &device)?;
        Ok(Self {
            name: checkpoint.name().to_string(),
            tokenizer,
            encoder,
            device,
        })
    }

    pub fn encoder(&self) -> &T5Encoder {
        &self.encoder
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// `Layer` as a number of blocks to run, checked against the model.
    fn blocks(&self, layer: Layer) -> Result<usize, EncoderError> {
        let available = self.encoder.config().num_layers;
        match layer {
            Layer::Last => Ok(available),
            Layer::Index(i) if i <= available => Ok(i),
            Layer::Index(requested) => Err(EncoderError::Layer {
                requested,
                available,
            }),
        }
    }

    fn input(&self, sequences: &[Vec<u32>]) -> BertInput {
        BertInput::new(sequences, self.tokenizer.pad_id(), &self.device)
    }

    /// One pooled vector per token-id sequence (none may be empty).
    pub fn embed_ids(
        &self,
        sequences: &[Vec<u32>],
        pooling: Pooling,
        blocks: usize,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let d = self.encoder.config().d_model;
        let mut out = Vec::with_capacity(sequences.len());
        for chunk in sequences.chunks(CHUNK) {
            let input = self.input(chunk);
            let hidden = self.encoder.hidden_states(&input, blocks);
            let [b, _, _] = hidden.dims();
            let pooled: Tensor<2> = match pooling {
                Pooling::Cls | Pooling::First => hidden.narrow(1, 0, 1).reshape([b, d]),
                Pooling::Mean => {
                    let mask = input.mask().unsqueeze_dim::<3>(2);
                    let count = mask.clone().sum_dim(1);
                    (hidden * mask).sum_dim(1).div(count).reshape([b, d])
                }
            };
            out.extend(rows(pooled)?);
        }
        Ok(out)
    }

    fn encode_all(&self, texts: &[&str], add_special: bool) -> Result<Vec<Encoding>, EncoderError> {
        self.tokenizer
            .encode_batch(texts, add_special)
            .map_err(text_error)
    }
}

impl Embedder for T5Embedder {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn hidden_size(&self) -> usize {
        self.encoder.config().d_model
    }

    fn num_layers(&self) -> usize {
        self.encoder.config().num_layers
    }

    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        // With `</s>` an empty text is one token; `first` drops it, leaving nothing.
        let add_special = pooling != Pooling::First;
        let encodings = self.encode_all(texts, add_special)?;
        reject_empty(texts, &encodings)?;
        let ids: Vec<Vec<u32>> = encodings.iter().map(|e| e.ids().to_vec()).collect();
        self.embed_ids(&ids, pooling, blocks)
    }

    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        let mut out = Vec::with_capacity(items.len());
        for chunk in items.chunks(CHUNK) {
            let texts: Vec<&str> = chunk.iter().map(|i| i.text).collect();
            let encodings = self.encode_all(&texts, true)?;
            // A word's pieces include a lone `▁` before it: the tokenizer gives that
            // piece the offset of the word's first character, as transformers' word_ids do.
            let spans = word_spans(chunk, &encodings)?;
            let ids: Vec<Vec<u32>> = encodings.iter().map(|e| e.ids().to_vec()).collect();
            let hidden = self.encoder.hidden_states(&self.input(&ids), blocks);
            out.extend(mean_over_spans(hidden, &spans)?);
        }
        Ok(out)
    }

    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError> {
        pieces(&self.tokenizer, text)
    }

    fn lowercases(&self) -> bool {
        self.tokenizer.lowercases()
    }
}
