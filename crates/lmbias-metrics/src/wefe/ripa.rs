//! Relational Inner Product Association (Ethayarajh et al. 2019), as WEFE 1.0.1's `RIPA`:
//! target words pair by position, xᵢ with yᵢ, each pair gives the unit relation vector
//! bᵢ = (xᵢ − yᵢ)/‖xᵢ − yᵢ‖, and RIPA is the mean over attribute words a of the mean over
//! pairs of a · bᵢ. Positive: A leans towards X.
//!
//! WEFE indexes Y by X's positions, so it fails when Y is shorter and ignores Y's surplus
//! when it is longer; here unequal sizes leave RIPA undefined, with the reason.

use crate::wefe::vectors::{dot, norm};

/// Per pair i, the mean over a ∈ A of a · bᵢ: what the sign-flip test flips.
pub fn ripa_per_pair(x: &[Vec<f64>], y: &[Vec<f64>], a: &[Vec<f64>]) -> Result<Vec<f64>, String> {
    if x.len() != y.len() {
        return Err(format!(
            "RIPA pairs X and Y word by word; they have {} and {} words",
            x.len(),
            y.len()
        ));
    }
    let mut per_pair = Vec::with_capacity(x.len());
    for (i, (xi, yi)) in x.iter().zip(y).enumerate() {
        let d: Vec<f64> = xi.iter().zip(yi).map(|(p, q)| p - q).collect();
        let length = norm(&d);
        if length == 0.0 {
            return Err(format!(
                "pair {} has equal vectors: its relation vector is 0/0",
                i + 1
            ));
        }
        let b: Vec<f64> = d.iter().map(|v| v / length).collect();
        per_pair.push(a.iter().map(|w| dot(w, &b)).sum::<f64>() / a.len() as f64);
    }
    Ok(per_pair)
}

/// RIPA of targets X, Y wrt attribute set A, in WEFE's order of averaging (per attribute
/// word over the pairs, then over the words).
pub fn ripa(x: &[Vec<f64>], y: &[Vec<f64>], a: &[Vec<f64>]) -> Result<f64, String> {
    ripa_per_pair(x, y, a)?; // the same conditions
    let b: Vec<Vec<f64>> = x
        .iter()
        .zip(y)
        .map(|(xi, yi)| {
            let d: Vec<f64> = xi.iter().zip(yi).map(|(p, q)| p - q).collect();
            let length = norm(&d);
            d.iter().map(|v| v / length).collect()
        })
        .collect();
    let per_word: Vec<f64> = a
        .iter()
        .map(|w| b.iter().map(|bi| dot(w, bi)).sum::<f64>() / b.len() as f64)
        .collect();
    Ok(per_word.iter().sum::<f64>() / per_word.len() as f64)
}
