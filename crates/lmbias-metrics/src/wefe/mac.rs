//! Mean Average Cosine distance (Manzini et al. 2019), as WEFE 1.0.1's `MAC`: for every
//! target word t of every target set and every attribute set A_j, the mean over a ∈ A_j of
//! the cosine distance 1 − cos(t, a); MAC is the mean of those means. 0: every target word
//! points where every attribute word does; 1: orthogonal on average.

use crate::wefe::vectors::cosine_similarity;

/// MAC over the target sets and attribute sets.
pub fn mac(targets: &[&[Vec<f64>]], attributes: &[&[Vec<f64>]]) -> f64 {
    let mut scores = Vec::new();
    for set in targets {
        for t in set.iter() {
            for a_j in attributes {
                let distance: f64 = a_j.iter().map(|a| 1.0 - cosine_similarity(t, a)).sum();
                scores.push(distance / a_j.len() as f64);
            }
        }
    }
    scores.iter().sum::<f64>() / scores.len() as f64
}
