//! Vector arithmetic shared by the metrics, in f64, as numpy and scipy compute it.

/// Euclidean norm.
pub(crate) fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

pub(crate) fn dot(u: &[f64], v: &[f64]) -> f64 {
    u.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// scipy's `1 - distance.cosine(u, v)`: u·v / (‖u‖ ‖v‖).
pub(crate) fn cosine_similarity(u: &[f64], v: &[f64]) -> f64 {
    dot(u, v) / (norm(u) * norm(v))
}

/// The mean of vectors, element by element.
pub(crate) fn mean(vectors: &[Vec<f64>]) -> Vec<f64> {
    let mut sum = vec![0.0; vectors[0].len()];
    for v in vectors {
        for (s, x) in sum.iter_mut().zip(v) {
            *s += x;
        }
    }
    let n = vectors.len() as f64;
    sum.iter().map(|s| s / n).collect()
}
