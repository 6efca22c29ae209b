//! A network with its tokenizer, answering lmbias-core's traits — written
//! once for every model family, generic over [`Network`] (as ripgrep's searcher
//! is generic over its `Matcher`).
//!
//! Every text is tokenized and checked before any forward pass, so an error
//! names the failing text by its index in the call and nothing is computed in
//! vain; the texts then run sorted by length in batches of at most [`BATCH`],
//! in parallel on the CPU (see [`Adapter::run`]).

use std::ops::Range;

use burn::tensor::{Device, Int, Tensor, TensorData};
use lmbias_core::{
    Embedder, Encoded, EncoderError, HiddenPiece, HiddenScore, HiddenSpan, Layer, MaskedLm, Piece,
    PieceScores, Pooling, Prediction, WordInContext, check_finite,
};
use lmbias_text::{Encoding, TextError, Tokenizer};

use rayon::prelude::*;

use crate::checkpoint::Checkpoint;
use crate::compute::Compute;
use crate::device::on_host;
use crate::error::ModelError;
use crate::network::{Batch, MaskedNetwork, Network};
use crate::weights::WeightsFile;

/// Most texts per forward pass: bounds memory on long lists. lmbias's one
/// batching constant: callers hand over all their texts at once. Measured on
/// MiniLM, one thread, 128 ~11-token texts (docs/benchmarks.md): 16 and 32 run
/// alike, 64 is 10 % and 128 20 % slower (the activations outgrow the caches).
const BATCH: usize = 32;

/// A loaded checkpoint: its network, its tokenizer, the device it runs on.
pub(crate) struct Adapter<N> {
    name: String,
    tokenizer: Tokenizer,
    network: N,
    /// The folder's declared pooling (sentence-transformers), else the family's.
    default_pooling: Pooling,
    device: Device,
    /// The device is the CPU (see [`on_host`]).
    host: bool,
}

impl<N: Network> Adapter<N> {
    /// The tokenizer, then config.json, then the weights: the cheap checks first.
    pub(crate) fn load(checkpoint: &Checkpoint, compute: Compute) -> Result<Self, ModelError> {
        let device = &compute.device().device()?;
        let tokenizer = Tokenizer::from_dir(checkpoint.dir())?;
        let config = N::config(checkpoint)?;
        let file = WeightsFile::open(checkpoint, device)?.with_bf16(compute.bf16_units());
        let network = N::load(config, file.root())?;
        file.check_layers()?;
        // Padding is looked up in the embedding table too.
        let pad = tokenizer.pad();
        if pad.id as usize >= network.vocab_size() {
            return Err(ModelError::ConfigValue {
                path: checkpoint.config_path(),
                problem: format!(
                    "vocab_size {} does not cover the tokenizer's padding token {:?} (id {})",
                    network.vocab_size(),
                    pad.token,
                    pad.id
                ),
            });
        }
        Ok(Self {
            name: checkpoint.name().to_owned(),
            tokenizer,
            default_pooling: checkpoint
                .declared_pooling()
                .unwrap_or_else(|| network.default_pooling()),
            network,
            device: device.clone(),
            host: on_host(device),
        })
    }

    /// `Layer` as a number of blocks to run, checked against the network.
    fn blocks(&self, layer: Layer) -> Result<usize, EncoderError> {
        layer.blocks(self.network.num_layers())
    }

    /// Every text tokenized and checked (see [`Adapter::check`]); errors name the text.
    fn encode_checked(
        &self,
        texts: &[&str],
        add_special: bool,
    ) -> Result<Vec<Encoding>, EncoderError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts, add_special)
            .map_err(text_error)?;
        for (index, (text, encoding)) in texts.iter().zip(&encodings).enumerate() {
            self.check(index, text, encoding)?;
        }
        Ok(encodings)
    }

    /// What would otherwise panic inside Burn or give NaN: no tokens at all
    /// (nothing to pool), more tokens than learned positions, an id outside the
    /// embedding table (a tokenizer that does not match the model).
    fn check(&self, index: usize, text: &str, encoding: &Encoding) -> Result<(), EncoderError> {
        if encoding.is_empty() {
            return Err(EncoderError::EmptyText { index });
        }
        if let Some(max) = self.network.max_positions()
            && encoding.len() > max
        {
            return Err(EncoderError::TooLong {
                index,
                tokens: encoding.len(),
                max,
                text: text.to_owned(),
            });
        }
        let vocab = self.network.vocab_size();
        let mut pieces = encoding.ids().iter().zip(encoding.tokens());
        if let Some((id, token)) = pieces.find(|(id, _)| **id as usize >= vocab) {
            return Err(EncoderError::Tokenizer {
                index,
                message: format!(
                    "piece {token:?} has id {id}, outside the model's vocabulary of {vocab} ids"
                ),
            });
        }
        Ok(())
    }

    /// Hidden states of `sequences` after `blocks` blocks, turned into one
    /// row per sequence by `read`, returned in input order. Batches come from
    /// [`plan`]; on the CPU they run in parallel, one per core (rayon's pool:
    /// `RAYON_NUM_THREADS` caps it), each batch's own matrix products staying
    /// on its core, since at these sizes splitting one product across cores
    /// gains little. `read` gets the input index of each row of its batch; with `observe`,
    /// the batch adds up the attention its tokens receive ([`Batch::attention_received`]).
    fn run<T: Send>(
        &self,
        sequences: &[Vec<u32>],
        blocks: usize,
        observe: bool,
        read: impl Fn(&[usize], Tensor<3>, &Batch) -> Result<Vec<T>, EncoderError> + Sync,
    ) -> Result<Vec<T>, EncoderError> {
        let workers = if self.host {
            rayon::current_num_threads()
        } else {
            1
        };
        let batches = plan(sequences, workers);
        let forward = |rows: &Vec<usize>| {
            let chunk: Vec<&[u32]> = rows.iter().map(|&i| sequences[i].as_slice()).collect();
            let mut batch = Batch::new(&chunk, self.tokenizer.pad_id(), &self.device);
            if observe {
                batch = batch.observing_attention();
            }
            let hidden = self.network.hidden_states(&batch, blocks);
            read(rows, hidden, &batch)
        };
        let outputs: Vec<Result<Vec<T>, EncoderError>> = if workers > 1 {
            batches.par_iter().map(forward).collect()
        } else {
            batches.iter().map(forward).collect()
        };
        let mut slots: Vec<Option<T>> = std::iter::repeat_with(|| None)
            .take(sequences.len())
            .collect();
        for (rows, output) in batches.iter().zip(outputs) {
            for (&i, row) in rows.iter().zip(output?) {
                slots[i] = Some(row);
            }
        }
        slots
            .into_iter()
            .map(|row| {
                row.ok_or_else(|| EncoderError::Backend("a batch returned too few rows".into()))
            })
            .collect()
    }

    /// Softmax over the vocabulary at the single mask of each text: `[n][vocab]`; a NaN
    /// (an overflow in the logits) is an error naming the text, never a probability.
    /// The `k` most probable ids of `probs`, highest first (equal probabilities by id, as a
    /// stable top-k), as predictions.
    fn top(&self, probs: &[f32], k: usize) -> Result<Vec<Prediction>, EncoderError> {
        let mut order: Vec<usize> = (0..probs.len()).collect();
        order.sort_by(|&a, &b| probs[b].total_cmp(&probs[a]).then(a.cmp(&b)));
        order
            .into_iter()
            .take(k)
            .map(|id| {
                let id = id as u32;
                let token = self.tokenizer.token(id).ok_or_else(|| {
                    EncoderError::Backend(format!(
                        "the model predicts id {id}, which the tokenizer's vocabulary does not have"
                    ))
                })?;
                let text = self
                    .tokenizer
                    .piece_text(id)
                    .unwrap_or_else(|| token.clone());
                Ok(Prediction {
                    token,
                    text,
                    id,
                    prob: probs[id as usize],
                })
            })
            .collect()
    }

    fn mask_probs(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError>
    where
        N: MaskedNetwork,
    {
        let mut sequences = Vec::with_capacity(texts.len());
        let mut positions = Vec::with_capacity(texts.len());
        for (index, text) in texts.iter().enumerate() {
            let (encoding, position) = self
                .tokenizer
                .encode_masked(index, text)
                .map_err(text_error)?;
            self.check(index, text, &encoding)?;
            sequences.push(encoding.ids().to_vec());
            positions.push(position);
        }
        let probs =
            self.at_positions(&sequences, &positions, |_, logits| Ok(softmax_f64(logits)))?;
        check_finite(probs)
    }

    /// The head's logits at `positions[i]` of each sequence, each row turned into a `T` by
    /// `reduce` (given the sequence's index) inside its batch, so that a long call never
    /// holds a vocabulary-wide row per sequence.
    fn at_positions<T: Send>(
        &self,
        sequences: &[Vec<u32>],
        positions: &[usize],
        reduce: impl Fn(usize, Vec<f32>) -> Result<T, EncoderError> + Sync,
    ) -> Result<Vec<T>, EncoderError>
    where
        N: MaskedNetwork,
    {
        self.at_positions_observed(sequences, positions, false, |member, logits, _| {
            reduce(member, logits)
        })
    }

    /// [`at_positions`](Self::at_positions), `reduce` also given the attention each position
    /// of the sequence received when `observe` asks for it (else an empty slice).
    fn at_positions_observed<T: Send>(
        &self,
        sequences: &[Vec<u32>],
        positions: &[usize],
        observe: bool,
        reduce: impl Fn(usize, Vec<f32>, &[f32]) -> Result<T, EncoderError> + Sync,
    ) -> Result<Vec<T>, EncoderError>
    where
        N: MaskedNetwork,
    {
        let h = self.network.hidden_size();
        self.run(
            sequences,
            self.network.num_layers(),
            observe,
            |members, hidden, batch| {
                let attention = if observe {
                    batch.attention_received().ok_or_else(|| {
                        EncoderError::Backend("the network reported no attention".into())
                    })?
                } else {
                    Vec::new()
                };
                let [b, seq, _] = hidden.dims();
                let rows_at: Vec<i64> = members
                    .iter()
                    .enumerate()
                    .map(|(i, &member)| (i * seq + positions[member]) as i64)
                    .collect();
                let index =
                    Tensor::<1, Int>::from_data(TensorData::new(rows_at, [b]), &self.device);
                let selected = hidden.reshape([b * seq, h]).select(0, index);
                let logits = rows(self.network.mask_logits(selected))?;
                members
                    .iter()
                    .zip(logits)
                    .enumerate()
                    .map(|(i, (&member, row))| {
                        let received = attention
                            .get(i)
                            .map_or(&[][..], |a| &a[..sequences[member].len()]);
                        reduce(member, row, received)
                    })
                    .collect()
            },
        )
    }

    /// The head's logits at `positions` of the sequence whose first row in `flat` (a batch's
    /// hidden states, `[batch · seq, hidden]`) is `start`, one row per position.
    fn logits_at(
        &self,
        flat: &Tensor<2>,
        start: usize,
        positions: impl ExactSizeIterator<Item = usize>,
    ) -> Result<Vec<Vec<f32>>, EncoderError>
    where
        N: MaskedNetwork,
    {
        let n = positions.len();
        let index = Tensor::<1, Int>::from_data(
            TensorData::new(positions.map(|p| (start + p) as i64).collect(), [n]),
            &self.device,
        );
        rows(self.network.mask_logits(flat.clone().select(0, index)))
    }

    /// Item `index`'s ids, checked, with the mask token at `positions` (each must be one of
    /// its positions).
    fn masked_ids(
        &self,
        index: usize,
        ids: &[u32],
        positions: &[usize],
    ) -> Result<Vec<u32>, EncoderError> {
        self.check_ids(index, ids)?;
        // Present: `load_masked` refuses a tokenizer without one.
        let mask = self.tokenizer.mask().map_or(0, |m| m.id);
        let mut masked = ids.to_vec();
        for &position in positions {
            let Some(slot) = masked.get_mut(position) else {
                return Err(EncoderError::Position {
                    index,
                    position,
                    len: ids.len(),
                });
            };
            *slot = mask;
        }
        Ok(masked)
    }

    /// A sequence of ids given directly (not from a text): checked as [`Adapter::check`]
    /// checks an encoding.
    fn check_ids(&self, index: usize, ids: &[u32]) -> Result<(), EncoderError> {
        if ids.is_empty() {
            return Err(EncoderError::EmptyText { index });
        }
        if let Some(max) = self.network.max_positions()
            && ids.len() > max
        {
            return Err(EncoderError::TooLong {
                index,
                tokens: ids.len(),
                max,
                text: ids
                    .iter()
                    .filter_map(|&id| self.tokenizer.token(id))
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
        let vocab = self.network.vocab_size();
        match ids.iter().find(|&&id| id as usize >= vocab) {
            Some(&id) => Err(EncoderError::UnknownId { id, vocab }),
            None => Ok(()),
        }
    }
}

/// `ln p(target)` from one row of logits, the normaliser summed in f64 (as
/// [`softmax_f64`]); a logit that is not finite is an error naming item `index`.
fn log_prob_f64(index: usize, logits: &[f32], target: u32) -> Result<f64, EncoderError> {
    if let Some(position) = logits.iter().position(|v| !v.is_finite()) {
        return Err(EncoderError::NonFinite {
            index,
            position,
            value: logits[position],
        });
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let sum: f64 = logits.iter().map(|&x| (x as f64 - max).exp()).sum();
    Ok(logits[target as usize] as f64 - max - sum.ln())
}

/// The batches of one call, as input indices: sequences sorted by length, so
/// each batch pads only to its own longest (results go back in input order),
/// cut into batches of at most [`BATCH`], and into at least `workers` batches
/// when there are enough sequences, so every core gets work.
fn plan(sequences: &[Vec<u32>], workers: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sequences.len()).collect();
    order.sort_by_key(|&i| sequences[i].len());
    let size = BATCH.min(sequences.len().div_ceil(workers.max(1))).max(1);
    order.chunks(size).map(<[usize]>::to_vec).collect()
}

/// One pooled vector per row of `hidden`, `[batch, seq, h]` → `[batch][h]`.
fn pool(hidden: Tensor<3>, batch: &Batch, pooling: Pooling) -> Result<Vec<Vec<f32>>, EncoderError> {
    let [b, _, h] = hidden.dims();
    let pooled: Tensor<2> = match pooling {
        Pooling::Cls | Pooling::First => hidden.narrow(1, 0, 1).reshape([b, h]),
        Pooling::Mean => {
            let mask = batch.mask().unsqueeze_dim::<3>(2);
            let count = mask.clone().sum_dim(1);
            (hidden * mask).sum_dim(1).div(count).reshape([b, h])
        }
    };
    rows(pooled)
}

/// For each row b of a `[batch, seq, h]` hidden state, the mean over positions `spans[b]`.
fn mean_over_spans(
    hidden: Tensor<3>,
    spans: &[&Range<usize>],
) -> Result<Vec<Vec<f32>>, EncoderError> {
    let [_, seq, h] = hidden.dims();
    let values = hidden
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| EncoderError::Backend(e.to_string()))?;
    Ok(spans
        .iter()
        .enumerate()
        .map(|(b, span)| {
            let mut mean = vec![0f32; h];
            for p in (*span).clone() {
                let row = &values[(b * seq + p) * h..(b * seq + p + 1) * h];
                mean.iter_mut().zip(row).for_each(|(m, x)| *m += x);
            }
            let n = span.len() as f32;
            mean.iter_mut().for_each(|m| *m /= n);
            mean
        })
        .collect())
}

/// A `[n, d]` tensor as `n` rows.
fn rows(t: Tensor<2>) -> Result<Vec<Vec<f32>>, EncoderError> {
    let [n, d] = t.dims();
    let values = t
        .into_data()
        .try_into_vec::<f32>()
        .map_err(|e| EncoderError::Backend(e.to_string()))?;
    if d == 0 {
        return Ok(vec![Vec::new(); n]);
    }
    Ok(values.chunks(d).map(<[f32]>::to_vec).collect())
}

/// Probabilities from one row of logits: shifted by the row's maximum and normalised by a
/// sum accumulated in f64. Burn's f32 softmax sums the terms one at a time in f32, which on
/// a 30k-piece vocabulary loses ~2e-5 of the mass (1e-5 at p = 0.44); here the error is
/// the final rounding to f32, as in transformers' softmax (issue #21).
fn softmax_f64(logits: Vec<f32>) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let exp: Vec<f64> = logits.iter().map(|&x| (x as f64 - max).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.into_iter().map(|e| (e / sum) as f32).collect()
}

/// A tokenizer error on text `index` of a call, as the encoder trait reports it.
fn text_error(e: TextError) -> EncoderError {
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
        TextError::NoMask { index, mask, text } => EncoderError::NoMask { index, mask, text },
        TextError::Encode { index, message } => EncoderError::Tokenizer { index, message },
        other => EncoderError::Backend(other.to_string()),
    }
}

impl<N: Network> Embedder for Adapter<N> {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn hidden_size(&self) -> usize {
        self.network.hidden_size()
    }

    fn num_layers(&self) -> usize {
        self.network.num_layers()
    }

    fn default_pooling(&self) -> Pooling {
        self.default_pooling
    }

    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        // sent-bias's `first`: the text without special tokens, position 0.
        let add_special = pooling != Pooling::First;
        let sequences: Vec<Vec<u32>> = self
            .encode_checked(texts, add_special)?
            .iter()
            .map(|e| e.ids().to_vec())
            .collect();
        let vectors = self.run(&sequences, blocks, false, |_, hidden, batch| {
            pool(hidden, batch, pooling)
        })?;
        check_finite(vectors)
    }

    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        let texts: Vec<&str> = items.iter().map(|i| i.text).collect();
        let encodings = self.encode_checked(&texts, true)?;
        let spans = items
            .iter()
            .zip(&encodings)
            .enumerate()
            .map(|(index, (item, encoding))| {
                if encoding.special_mask().iter().all(|&special| special) {
                    return Err(EncoderError::EmptyText { index });
                }
                encoding.pieces_in(item.word.clone()).map_err(|e| {
                    let reason = match e {
                        TextError::WordRange { reason, .. } => reason,
                        other => other.to_string(),
                    };
                    EncoderError::WordRange {
                        index,
                        start: item.word.start,
                        end: item.word.end,
                        reason,
                        text: item.text.to_owned(),
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let sequences: Vec<Vec<u32>> = encodings.iter().map(|e| e.ids().to_vec()).collect();
        let vectors = self.run(&sequences, blocks, false, |members, hidden, _| {
            let spans: Vec<&Range<usize>> = members.iter().map(|&m| &spans[m]).collect();
            mean_over_spans(hidden, &spans)
        })?;
        check_finite(vectors)
    }

    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError> {
        let encoding = self.tokenizer.encode(text, false).map_err(text_error)?;
        let unk = self.tokenizer.unk().map(|u| u.id);
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

    fn lowercases(&self) -> bool {
        self.tokenizer.lowercases()
    }
}

impl<N: MaskedNetwork> Adapter<N> {
    /// As [`Adapter::load`], for a network with a head: the tokenizer must have a mask token.
    pub(crate) fn load_masked(
        checkpoint: &Checkpoint,
        compute: Compute,
    ) -> Result<Self, ModelError> {
        let adapter = Self::load(checkpoint, compute)?;
        if adapter.tokenizer.mask().is_none() {
            return Err(TextError::NoMaskToken {
                tokenizer: checkpoint.dir().display().to_string(),
            }
            .into());
        }
        Ok(adapter)
    }
}

impl<N: MaskedNetwork> MaskedLm for Adapter<N> {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn mask_token(&self) -> &str {
        // Present: `load_masked` refuses a tokenizer without one.
        self.tokenizer.mask().map_or("", |m| m.token.as_str())
    }

    fn fill_mask(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Prediction>>, EncoderError> {
        self.mask_probs(texts)?
            .into_iter()
            .map(|probs| self.top(&probs, top_k))
            .collect()
    }

    fn fill_masks(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Vec<Prediction>>>, EncoderError> {
        // One row per mask: its text's ids and its position. The rows of one text are the
        // same sequence, so each mask reads the logits one forward pass gives there.
        let (mut sequences, mut positions, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        for (index, text) in texts.iter().enumerate() {
            let (encoding, masks) = self
                .tokenizer
                .encode_masks(index, text)
                .map_err(text_error)?;
            self.check(index, text, &encoding)?;
            counts.push(masks.len());
            for position in masks {
                sequences.push(encoding.ids().to_vec());
                positions.push(position);
            }
        }
        let probs = check_finite(
            self.at_positions(&sequences, &positions, |_, logits| Ok(softmax_f64(logits)))?,
        )?;
        let mut rows = probs.iter();
        counts
            .into_iter()
            .map(|n| {
                rows.by_ref()
                    .take(n)
                    .map(|probs| self.top(probs, top_k))
                    .collect()
            })
            .collect()
    }

    fn piece_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.piece_id(token)
    }

    fn token_probs(&self, text: &str, ids: &[u32]) -> Result<Vec<f32>, EncoderError> {
        let probs = self
            .mask_probs(&[text])?
            .pop()
            .ok_or_else(|| EncoderError::Backend("no probabilities for the text".into()))?;
        ids.iter()
            .map(|&id| {
                probs
                    .get(id as usize)
                    .copied()
                    .ok_or(EncoderError::UnknownId {
                        id,
                        vocab: probs.len(),
                    })
            })
            .collect()
    }

    fn encode(&self, texts: &[&str]) -> Result<Vec<Encoded>, EncoderError> {
        Ok(self
            .encode_checked(texts, true)?
            .into_iter()
            .map(|e| Encoded {
                ids: e.ids().to_vec(),
                tokens: e.tokens().to_vec(),
                special: e.special_mask().to_vec(),
            })
            .collect())
    }

    fn hidden_scores(
        &self,
        items: &[HiddenPiece<'_>],
        attention: bool,
    ) -> Result<Vec<HiddenScore>, EncoderError> {
        let mut sequences = Vec::with_capacity(items.len());
        let mut positions = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            sequences.push(self.masked_ids(index, item.ids, &[item.position])?);
            positions.push(item.position);
        }
        self.at_positions_observed(
            &sequences,
            &positions,
            attention,
            |member, logits, received| {
                let item = &items[member];
                let target = item.ids[item.position];
                let log_prob = log_prob_f64(member, &logits, target)?;
                let own = logits[target as usize];
                let best = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let above = logits.iter().filter(|&&l| l > own).count();
                Ok(HiddenScore {
                    log_prob,
                    // ln p_max − ln p_own is the logits' difference: no second normaliser.
                    top_log_prob: log_prob + f64::from(best) - f64::from(own),
                    rank: 1 + above as u32,
                    attention: received.iter().map(|&a| f64::from(a)).collect(),
                })
            },
        )
    }

    fn hidden_span_log_probs(
        &self,
        spans: &[HiddenSpan<'_>],
    ) -> Result<Vec<Vec<Vec<f64>>>, EncoderError> {
        let sequences = spans
            .iter()
            .enumerate()
            .map(|(index, span)| self.masked_ids(index, span.ids, span.positions))
            .collect::<Result<Vec<_>, _>>()?;
        let h = self.network.hidden_size();
        self.run(
            &sequences,
            self.network.num_layers(),
            false,
            |members, hidden, _| {
                let [b, seq, _] = hidden.dims();
                let flat = hidden.reshape([b * seq, h]);
                members
                    .iter()
                    .enumerate()
                    .map(|(row, &member)| {
                        let span = &spans[member];
                        if span.positions.is_empty() {
                            return Ok(Vec::new());
                        }
                        self.logits_at(&flat, row * seq, span.positions.iter().copied())?
                            .iter()
                            .map(|logits| {
                                span.positions
                                    .iter()
                                    .map(|&j| log_prob_f64(member, logits, span.ids[j]))
                                    .collect()
                            })
                            .collect()
                    })
                    .collect()
            },
        )
    }

    fn piece_scores(&self, sequences: &[&[u32]]) -> Result<Vec<PieceScores>, EncoderError> {
        for (index, ids) in sequences.iter().enumerate() {
            self.check_ids(index, ids)?;
        }
        let owned: Vec<Vec<u32>> = sequences.iter().map(|s| s.to_vec()).collect();
        let h = self.network.hidden_size();
        self.run(
            &owned,
            self.network.num_layers(),
            true,
            |members, hidden, batch| {
                let attention = batch.attention_received().ok_or_else(|| {
                    EncoderError::Backend("the network reported no attention".into())
                })?;
                let [b, seq, _] = hidden.dims();
                let flat = hidden.reshape([b * seq, h]);
                members
                    .iter()
                    .enumerate()
                    .map(|(row, &member)| {
                        let ids = &owned[member];
                        // One text's rows at a time: its logits are `len × vocab` at most.
                        let logits = self.logits_at(&flat, row * seq, 0..ids.len())?;
                        let log_probs = logits
                            .iter()
                            .zip(ids)
                            .map(|(l, &id)| log_prob_f64(member, l, id))
                            .collect::<Result<_, _>>()?;
                        Ok(PieceScores {
                            log_probs,
                            attention: attention[row][..ids.len()]
                                .iter()
                                .map(|&a| f64::from(a))
                                .collect(),
                        })
                    })
                    .collect()
            },
        )
    }
}

/// What the loader hands out for any family: an [`Embedder`], plus (feature
/// `testing`) the unpooled hidden states lmbias's parity tests compare.
pub(crate) trait AnyEmbedder: Embedder + Send + Sync {
    /// The hidden states of one id sequence, `[seq][hidden]`.
    #[cfg(feature = "testing")]
    fn hidden_states(&self, ids: &[u32], layer: Layer) -> Result<Vec<Vec<f32>>, EncoderError>;
}

impl<N: Network> AnyEmbedder for Adapter<N> {
    #[cfg(feature = "testing")]
    fn hidden_states(&self, ids: &[u32], layer: Layer) -> Result<Vec<Vec<f32>>, EncoderError> {
        let blocks = self.blocks(layer)?;
        if ids.is_empty() {
            return Err(EncoderError::EmptyText { index: 0 });
        }
        if let Some(&id) = ids
            .iter()
            .find(|&&id| id as usize >= self.network.vocab_size())
        {
            return Err(EncoderError::UnknownId {
                id,
                vocab: self.network.vocab_size(),
            });
        }
        if let Some(max) = self.network.max_positions()
            && ids.len() > max
        {
            return Err(EncoderError::TooLong {
                index: 0,
                tokens: ids.len(),
                max,
                text: String::new(),
            });
        }
        let batch = Batch::new(&[ids], self.tokenizer.pad_id(), &self.device);
        let hidden = self.network.hidden_states(&batch, blocks);
        let [_, seq, h] = hidden.dims();
        rows(hidden.reshape([seq, h]))
    }
}

#[cfg(test)]
mod tests {
    use super::softmax_f64;

    /// On bert-base-uncased's vocabulary size, with logits spread like a trained head's
    /// (the top piece at p ≈ 0.4), every probability is within 1e-7 of the exact value
    /// (computed here with compensated summation) and the mass sums to 1 within 1e-6,
    /// where a normaliser summed in f32 misses it by ~2e-5.
    #[test]
    fn probabilities_on_a_large_vocabulary_keep_their_mass() {
        let n = 30_522;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut logits: Vec<f32> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 24) as f32 * 6.0 - 3.0
            })
            .collect();
        logits[1234] = 12.3;
        let p = softmax_f64(logits.clone());

        // Exact: Neumaier-compensated sum of exp(x - max) in f64.
        let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
        let (mut sum, mut c) = (0f64, 0f64);
        for &x in &logits {
            let e = (x as f64 - max).exp();
            let t = sum + e;
            c += if sum.abs() >= e {
                (sum - t) + e
            } else {
                (e - t) + sum
            };
            sum = t;
        }
        let sum = sum + c;
        let worst = logits
            .iter()
            .zip(&p)
            .map(|(&x, &q)| ((x as f64 - max).exp() / sum - q as f64).abs())
            .fold(0f64, f64::max);
        assert!(worst < 1e-7, "worst difference {worst:e}");
        assert!((0.2..0.9).contains(&p[1234]), "top probability {}", p[1234]);
        let mass: f64 = p.iter().map(|&q| q as f64).sum();
        assert!((mass - 1.0).abs() < 1e-6, "mass {mass}");

        // The f32 running sum this replaces loses more than the tolerance above.
        let naive: f32 = logits.iter().map(|&x| (x - max as f32).exp()).sum();
        assert!(
            ((naive as f64) / sum - 1.0).abs() > 1e-6,
            "naive sum {naive} vs {sum}"
        );
    }
}
