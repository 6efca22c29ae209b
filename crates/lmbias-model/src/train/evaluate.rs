//! How well a trained model predicts held-out text: masked-token accuracy
//! under the training masking, and pseudo-perplexity (Salazar et al. 2020,
//! "Masked Language Model Scoring", ACL), which masks every token in turn.

use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Int, Tensor, TensorData};
use serde::{Deserialize, Serialize};

use super::data::{Blocks, MaskedBatch, Masking, step_rng};
use super::{TrainSettings, masked_logits};
use crate::bert::BertForMaskedLm;

/// Held-out sequences scored by pseudo-perplexity: each costs one forward
/// pass per token, so a fixed number of them (the first in corpus order).
pub const PPPL_SEQUENCES: usize = 32;

/// The held-out scores of training.json.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HeldOutScores {
    /// Held-out sequences masked for accuracy.
    pub sequences: usize,
    /// Tokens chosen for prediction in them (the training masking, a fixed seed).
    pub masked_tokens: usize,
    /// Share of the chosen tokens whose top-1 prediction is the original token.
    pub accuracy: f64,
    /// Mean cross-entropy (nats) at the chosen tokens.
    pub loss: f64,
    /// exp of the mean negative log-probability of each token of the first
    /// [`PPPL_SEQUENCES`] sequences with that token alone masked.
    pub pseudo_perplexity: f64,
    /// Tokens scored for the pseudo-perplexity.
    pub pppl_tokens: usize,
}

/// Scores `held` with `model` (not training: no dropout); `None` without held-out text.
pub(super) fn held_out(
    model: &BertForMaskedLm,
    held: &Blocks,
    masking: &Masking,
    s: &TrainSettings,
    device: &Device,
) -> Option<HeldOutScores> {
    if held.count() == 0 {
        return None;
    }
    let mask_id = masking.mask_id;
    let mut rng = step_rng(s.seed, usize::MAX);
    let (mut correct, mut chosen, mut loss_sum) = (0usize, 0usize, 0f64);
    let rows: Vec<usize> = (0..held.count()).collect();
    for chunk in rows.chunks(s.batch) {
        let masked = masking.apply(held, chunk, &mut rng);
        if masked.positions.is_empty() {
            continue;
        }
        let (hits, nll) = score(model, &masked, device);
        correct += hits;
        chosen += masked.labels.len();
        loss_sum += nll;
    }
    // Pseudo-perplexity: every maskable token of a sequence masked in turn.
    let mut queries = Vec::new();
    for row in 0..held.count().min(PPPL_SEQUENCES) {
        let ids = held.ids(row);
        for (t, _) in held.maskable(row) {
            let mut input = ids.to_vec();
            input[t] = mask_id;
            queries.push((input, t, ids[t]));
        }
    }
    let mut pppl_nll = 0f64;
    for chunk in queries.chunks(s.batch) {
        let len = held.len();
        let masked = MaskedBatch {
            input: chunk
                .iter()
                .flat_map(|(input, _, _)| input.iter().copied())
                .collect(),
            len,
            positions: chunk
                .iter()
                .enumerate()
                .map(|(r, (_, t, _))| (r * len + t) as i64)
                .collect(),
            labels: chunk.iter().map(|(_, _, id)| i64::from(*id)).collect(),
        };
        pppl_nll += score(model, &masked, device).1;
    }
    let mean = |sum: f64, n: usize| sum / n.max(1) as f64;
    Some(HeldOutScores {
        sequences: held.count(),
        masked_tokens: chosen,
        accuracy: mean(correct as f64, chosen),
        loss: mean(loss_sum, chosen),
        pseudo_perplexity: mean(pppl_nll, queries.len()).exp(),
        pppl_tokens: queries.len(),
    })
}

/// Top-1 hits and the summed negative log-probability of the labels.
fn score(model: &BertForMaskedLm, masked: &MaskedBatch, device: &Device) -> (usize, f64) {
    let logits = masked_logits(model, masked, device);
    let m = masked.labels.len();
    let labels =
        Tensor::<2, Int>::from_data(TensorData::new(masked.labels.clone(), [m, 1]), device);
    let nll = log_softmax(logits.clone(), 1)
        .gather(1, labels.clone())
        .sum()
        .neg();
    let hits = logits
        .argmax(1)
        .equal(labels)
        .int()
        .sum()
        .into_scalar::<i64>();
    (hits as usize, f64::from(nll.into_scalar::<f32>()))
}
