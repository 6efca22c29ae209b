//! Relative Norm Distance (Garg et al. 2018), as WEFE 1.0.1's `RND` with its default
//! `distance="norm"`: the mean over attribute words a of ‖a − x̄‖ − ‖a − ȳ‖, x̄ and ȳ the
//! mean target vectors. Negative: A lies nearer X than Y.

use crate::wefe::vectors::{mean, norm};

/// RND of targets X, Y wrt attribute set A.
pub fn rnd(x: &[Vec<f64>], y: &[Vec<f64>], a: &[Vec<f64>]) -> f64 {
    from_means(&mean(x), &mean(y), a)
}

/// RND from the two mean target vectors (what the split test recomputes).
pub(crate) fn from_means(mean_x: &[f64], mean_y: &[f64], a: &[Vec<f64>]) -> f64 {
    let distance = |u: &[f64], v: &[f64]| {
        let d: Vec<f64> = u.iter().zip(v).map(|(p, q)| p - q).collect();
        norm(&d)
    };
    let sum: f64 = a
        .iter()
        .map(|w| distance(w, mean_x) - distance(w, mean_y))
        .sum();
    sum / a.len() as f64
}
