//! Relational Inner Product Association (Ethayarajh et al. 2019), as WEFE 1.0.1's `RIPA`:
//! target words pair by position, xᵢ with yᵢ, each pair gives the unit relation vector
//! bᵢ = (xᵢ − yᵢ)/‖xᵢ − yᵢ‖, and RIPA is the mean over attribute words a of the mean over
//! pairs of a · bᵢ. Positive: A leans towards X.
//!
//! WEFE indexes Y by X's positions, so it fails when Y is shorter and ignores Y's surplus
//! when it is longer; here unequal sizes leave RIPA undefined, with the reason.

use crate::wefe::vectors::{dot, norm};

/// RIPA of targets X, Y wrt attribute set A, in WEFE's order of averaging (per attribute
/// word over the pairs, then over the words), and per pair i the mean over a ∈ A of a · bᵢ
/// (what the sign-flip test flips); each bᵢ computed once.
pub fn ripa(x: &[Vec<f64>], y: &[Vec<f64>], a: &[Vec<f64>]) -> Result<(f64, Vec<f64>), String> {
    if x.len() != y.len() {
        return Err(format!(
            "RIPA pairs X and Y word by word; they have {} and {} words",
            x.len(),
            y.len()
        ));
    }
    let mut b = Vec::with_capacity(x.len());
    for (i, (xi, yi)) in x.iter().zip(y).enumerate() {
        let d: Vec<f64> = xi.iter().zip(yi).map(|(p, q)| p - q).collect();
        let length = norm(&d);
        if length == 0.0 {
            return Err(format!(
                "pair {} has equal vectors: its relation vector is 0/0",
                i + 1
            ));
        }
        b.push(d.iter().map(|v| v / length).collect::<Vec<f64>>());
    }
    // scores[w][i] = a_w · b_i
    let scores: Vec<Vec<f64>> = a
        .iter()
        .map(|w| b.iter().map(|bi| dot(w, bi)).collect())
        .collect();
    let per_word: Vec<f64> = scores
        .iter()
        .map(|s| s.iter().sum::<f64>() / b.len() as f64)
        .collect();
    let value = per_word.iter().sum::<f64>() / per_word.len() as f64;
    let per_pair = (0..b.len())
        .map(|i| scores.iter().map(|s| s[i]).sum::<f64>() / a.len() as f64)
        .collect();
    Ok((value, per_pair))
}
