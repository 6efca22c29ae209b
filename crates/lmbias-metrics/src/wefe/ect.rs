//! Embedding Coherence Test (Dev & Phillips 2019), as WEFE 1.0.1's `ECT`: the cosine
//! similarities of the mean target vectors x̄ and ȳ to every attribute word, and Spearman's ρ
//! between the two lists (ties get average ranks, as scipy's `spearmanr`;
//! [`crate::agreement::spearman`]). 1: X and Y relate
//! to the attribute words alike (no bias); lower: they do not.

use crate::agreement::spearman;
use crate::wefe::vectors::{cosine_similarity, mean};

/// ECT of targets X, Y wrt attribute set A; `None` when a list of similarities is constant
/// (as it is with one attribute word).
pub fn ect(x: &[Vec<f64>], y: &[Vec<f64>], a: &[Vec<f64>]) -> Option<f64> {
    from_means(&mean(x), &mean(y), a)
}

/// ECT from the two mean target vectors (what the split test recomputes).
pub(crate) fn from_means(mean_x: &[f64], mean_y: &[f64], a: &[Vec<f64>]) -> Option<f64> {
    let sx: Vec<f64> = a.iter().map(|w| cosine_similarity(mean_x, w)).collect();
    let sy: Vec<f64> = a.iter().map(|w| cosine_similarity(mean_y, w)).collect();
    spearman(&sx, &sy)
}
