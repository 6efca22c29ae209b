//! A loaded BERT with its tokenizer, answering lmbias-encoder's traits.
//!
//! Two types so the difference is in the type: [`BertEmbedder`] (any BERT,
//! `Embedder` only) and [`BertMaskedLm`] (a checkpoint with its MLM head,
//! `Embedder` + `MaskedLm`). Asking for the head of a `BertModel` checkpoint
//! fails at load, not at the first query.

use std::ops::Range;

use burn::tensor::{Device, Int, Tensor, TensorData};
use lmbias_encoder::{
    Embedder, EncoderError, Layer, MaskedLm, Piece, Pooling, Prediction, WordInContext,
};
use lmbias_text::{Encoding, TextError, Tokenizer};

use crate::bert::{Bert, BertInput};
use crate::checkpoint::{Architecture, Checkpoint};
use crate::device::DeviceKind;
use crate::error::ModelError;

/// Texts per forward pass: bounds memory on long lists (padding is per chunk).
pub(crate) const CHUNK: usize = 32;

/// Any BERT checkpoint, as an [`Embedder`].
pub struct BertEmbedder {
    name: String,
    tokenizer: Tokenizer,
    bert: Bert,
    device: Device,
}

impl BertEmbedder {
    /// Load the encoder of `checkpoint` (an MLM head, if present, is not read).
    pub fn load(checkpoint: &Checkpoint, device: DeviceKind) -> Result<Self, ModelError> {
        Self::load_inner(checkpoint, device, false)
    }

    fn load_inner(
        checkpoint: &Checkpoint,
        device: DeviceKind,
        with_head: bool,
    ) -> Result<Self, ModelError> {
        let device = device.device()?;
        let tokenizer =
            Tokenizer::from_dir(checkpoint.dir()).map_err(|e| ModelError::Tokenizer {
                path: checkpoint.dir().to_path_buf(),
                message: e.to_string(),
            })?;
        let bert = Bert::load(checkpoint, with_head, &device)?;
        Ok(Self {
            name: checkpoint.name().to_string(),
            tokenizer,
            bert,
            device,
        })
    }

    pub fn bert(&self) -> &Bert {
        &self.bert
    }

    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// `Layer` as a number of blocks to run, checked against the model.
    fn blocks(&self, layer: Layer) -> Result<usize, EncoderError> {
        let available = self.bert.config().num_hidden_layers;
        match layer {
            Layer::Last => Ok(available),
            Layer::Index(i) if i <= available => Ok(i),
            Layer::Index(requested) => Err(EncoderError::Layer {
                requested,
                available,
            }),
        }
    }

    /// BERT's learned positions end at `max_position_embeddings`: a longer text
    /// is an error naming it (transformers would fail on it too), never a panic.
    fn check_lengths(
        &self,
        first_index: usize,
        texts: &[&str],
        encodings: &[Encoding],
    ) -> Result<(), EncoderError> {
        let max = self.bert.config().max_position_embeddings;
        match encodings.iter().position(|e| e.ids().len() > max) {
            Some(i) => Err(EncoderError::TooLong {
                index: first_index + i,
                tokens: encodings[i].ids().len(),
                max,
                text: texts[i].to_string(),
            }),
            None => Ok(()),
        }
    }

    fn input(&self, encodings: &[Encoding]) -> BertInput {
        let ids: Vec<Vec<u32>> = encodings.iter().map(|e| e.ids().to_vec()).collect();
        BertInput::new(&ids, self.tokenizer.pad_id(), &self.device)
    }

    /// One pooled vector per token-id sequence.
    pub fn embed_ids(
        &self,
        sequences: &[Vec<u32>],
        pooling: Pooling,
        blocks: usize,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let h = self.bert.config().hidden_size;
        let mut out = Vec::with_capacity(sequences.len());
        for chunk in sequences.chunks(CHUNK) {
            let input = BertInput::new(chunk, self.tokenizer.pad_id(), &self.device);
            let hidden = self.bert.hidden_states(&input, blocks);
            let [b, _, _] = hidden.dims();
            let pooled: Tensor<2> = match pooling {
                Pooling::Cls | Pooling::First => hidden.narrow(1, 0, 1).reshape([b, h]),
                Pooling::Mean => {
                    let mask = input.mask().unsqueeze_dim::<3>(2);
                    let count = mask.clone().sum_dim(1);
                    (hidden * mask).sum_dim(1).div(count).reshape([b, h])
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

/// Every encoding must hold a token: an empty text has nothing to pool.
pub(crate) fn reject_empty(texts: &[&str], encodings: &[Encoding]) -> Result<(), EncoderError> {
    match encodings.iter().position(Encoding::is_empty) {
        Some(index) => Err(EncoderError::Tokenizer(format!(
            "text {index} has no tokens: {:?}",
            texts[index]
        ))),
        None => Ok(()),
    }
}

/// The piece indices of each item's word in its encoding.
pub(crate) fn word_spans(
    items: &[WordInContext<'_>],
    encodings: &[Encoding],
) -> Result<Vec<Range<usize>>, EncoderError> {
    items
        .iter()
        .zip(encodings)
        .map(|(item, enc)| {
            enc.pieces_in(item.word.clone())
                .map_err(|_| EncoderError::WordRange {
                    start: item.word.start,
                    end: item.word.end,
                    text: item.text.to_string(),
                })
        })
        .collect()
}

/// For each row b of a `[batch, seq, h]` hidden state, the mean over positions `spans[b]`.
pub(crate) fn mean_over_spans(
    hidden: Tensor<3>,
    spans: &[Range<usize>],
) -> Result<Vec<Vec<f32>>, EncoderError> {
    let [_, seq, h] = hidden.dims();
    let values = hidden
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| EncoderError::Backend(format!("{e:?}")))?;
    Ok(spans
        .iter()
        .enumerate()
        .map(|(b, span)| {
            let mut mean = vec![0f32; h];
            for p in span.clone() {
                let row = &values[(b * seq + p) * h..(b * seq + p + 1) * h];
                mean.iter_mut().zip(row).for_each(|(m, x)| *m += x);
            }
            let n = span.len() as f32;
            mean.iter_mut().for_each(|m| *m /= n);
            mean
        })
        .collect())
}

/// The pieces of `text` without special tokens, the unknown piece marked.
pub(crate) fn pieces(tokenizer: &Tokenizer, text: &str) -> Result<Vec<Piece>, EncoderError> {
    let encoding = tokenizer.encode(text, false).map_err(text_error)?;
    let unk = tokenizer.unk().map(|u| u.id);
    Ok(encoding
        .ids()
        .iter()
        .zip(encoding.tokens())
        .map(|(&id, token)| Piece {
            id,
            token: token.clone(),
            unknown: Some(id) == unk,
        })
        .collect())
}

/// A `[n, d]` tensor as `n` rows.
pub(crate) fn rows(t: Tensor<2>) -> Result<Vec<Vec<f32>>, EncoderError> {
    let [_, d] = t.dims();
    let values = t
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| EncoderError::Backend(format!("{e:?}")))?;
    Ok(values.chunks(d.max(1)).map(<[f32]>::to_vec).collect())
}

pub(crate) fn text_error(e: TextError) -> EncoderError {
    match e {
        TextError::MaskCount {
            index,
            mask,
            found,
            text,
        } => EncoderError::MaskCount {
            index,
            mask,
            found,
            text,
        },
        other => EncoderError::Tokenizer(other.to_string()),
    }
}

impl Embedder for BertEmbedder {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn hidden_size(&self) -> usize {
        self.bert.config().hidden_size
    }

    fn num_layers(&self) -> usize {
        self.bert.config().num_hidden_layers
    }

    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        // sent-bias's `first`: the text without [CLS]/[SEP], position 0.
        let add_special = pooling != Pooling::First;
        let encodings = self.encode_all(texts, add_special)?;
        self.check_lengths(0, texts, &encodings)?;
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
        for (c, chunk) in items.chunks(CHUNK).enumerate() {
            let texts: Vec<&str> = chunk.iter().map(|i| i.text).collect();
            let encodings = self.encode_all(&texts, true)?;
            self.check_lengths(c * CHUNK, &texts, &encodings)?;
            let spans = word_spans(chunk, &encodings)?;
            let hidden = self.bert.hidden_states(&self.input(&encodings), blocks);
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

/// A BERT checkpoint with its masked-language-modelling head.
pub struct BertMaskedLm {
    embedder: BertEmbedder,
    mask_token: String,
}

impl BertMaskedLm {
    /// Load encoder and head; a checkpoint whose config declares no MLM head is an error.
    pub fn load(checkpoint: &Checkpoint, device: DeviceKind) -> Result<Self, ModelError> {
        let no_head = || ModelError::NoMlmHead {
            name: checkpoint.name().to_string(),
            architectures: checkpoint.architectures().to_vec(),
        };
        if checkpoint.architecture() != Architecture::BertMaskedLm {
            return Err(no_head());
        }
        let embedder = BertEmbedder::load_inner(checkpoint, device, true)?;
        let mask_token = embedder
            .tokenizer
            .mask()
            .map(|m| m.token.clone())
            .ok_or_else(|| ModelError::Tokenizer {
                path: checkpoint.dir().to_path_buf(),
                message: "the tokenizer has no mask token".into(),
            })?;
        Ok(Self {
            embedder,
            mask_token,
        })
    }

    pub fn embedder(&self) -> &BertEmbedder {
        &self.embedder
    }

    /// Softmax over the vocabulary at the single mask of each text: `[n][vocab]`.
    fn mask_probs(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        let e = &self.embedder;
        let blocks = e.bert.config().num_hidden_layers;
        let h = e.bert.config().hidden_size;
        let mut out = Vec::with_capacity(texts.len());
        for (c, chunk) in texts.chunks(CHUNK).enumerate() {
            let (encodings, positions): (Vec<Encoding>, Vec<usize>) = chunk
                .iter()
                .enumerate()
                .map(|(i, text)| e.tokenizer.encode_masked(c * CHUNK + i, text))
                .collect::<Result<Vec<_>, _>>()
                .map_err(text_error)?
                .into_iter()
                .unzip();
            e.check_lengths(c * CHUNK, chunk, &encodings)?;
            let input = e.input(&encodings);
            let hidden = e.bert.hidden_states(&input, blocks);
            let [b, seq, _] = hidden.dims();
            let rows_at: Vec<i64> = positions
                .iter()
                .enumerate()
                .map(|(i, p)| (i * seq + p) as i64)
                .collect();
            let index = Tensor::<1, Int>::from_data(TensorData::new(rows_at, [b]), &e.device);
            let at_mask = hidden.reshape([b * seq, h]).select(0, index);
            let logits = e
                .bert
                .mlm_logits(at_mask)
                .ok_or_else(|| EncoderError::Backend("the MLM head is not loaded".into()))?;
            out.extend(rows(burn::tensor::activation::softmax(logits, 1))?);
        }
        Ok(out)
    }
}

impl Embedder for BertMaskedLm {
    fn model_name(&self) -> &str {
        self.embedder.model_name()
    }
    fn hidden_size(&self) -> usize {
        self.embedder.hidden_size()
    }
    fn num_layers(&self) -> usize {
        self.embedder.num_layers()
    }
    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        self.embedder.embed(texts, pooling, layer)
    }
    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        self.embedder.embed_words(items, layer)
    }
    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError> {
        self.embedder.tokenize(text)
    }
    fn lowercases(&self) -> bool {
        self.embedder.lowercases()
    }
}

impl MaskedLm for BertMaskedLm {
    fn model_name(&self) -> &str {
        self.embedder.model_name()
    }

    fn mask_token(&self) -> &str {
        &self.mask_token
    }

    fn fill_mask(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Prediction>>, EncoderError> {
        let tokenizer = &self.embedder.tokenizer;
        self.mask_probs(texts)?
            .into_iter()
            .map(|probs| {
                let mut order: Vec<usize> = (0..probs.len()).collect();
                // Highest probability first; equal probabilities by id, as a stable top-k.
                order.sort_by(|&a, &b| probs[b].total_cmp(&probs[a]).then(a.cmp(&b)));
                order
                    .into_iter()
                    .take(top_k)
                    .map(|id| {
                        let id = id as u32;
                        let token = tokenizer.token(id).ok_or_else(|| {
                            EncoderError::Tokenizer(format!(
                                "model predicts id {id}, which the vocabulary does not have"
                            ))
                        })?;
                        Ok(Prediction {
                            token,
                            id,
                            prob: probs[id as usize],
                        })
                    })
                    .collect()
            })
            .collect()
    }

    fn piece_id(&self, token: &str) -> Option<u32> {
        self.embedder.tokenizer.piece_id(token)
    }

    fn token_probs(&self, text: &str, ids: &[u32]) -> Result<Vec<f32>, EncoderError> {
        let probs = self.mask_probs(&[text])?.remove(0);
        ids.iter()
            .map(|&id| {
                probs.get(id as usize).copied().ok_or_else(|| {
                    EncoderError::Tokenizer(format!(
                        "id {id} is outside the vocabulary of {} ids",
                        probs.len()
                    ))
                })
            })
            .collect()
    }
}
