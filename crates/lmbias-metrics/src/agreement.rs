//! Agreement of two raters on an ordinal scale: weighted Cohen's κ (Cohen 1968, as
//! scikit-learn's `cohen_kappa_score(…, labels=…, weights=…)` computes it) and Spearman's ρ
//! (the Pearson correlation of average ranks, as `scipy.stats.spearmanr`). The valence study
//! reports both for corpus-derived token valence against the hand annotations.

/// How far apart two categories i and j of an ordinal scale count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Weights {
    /// |i − j|.
    Linear,
    /// (i − j)².
    Quadratic,
}

/// Weighted κ of paired ratings, each a category index in `0..k` (the scale's levels in
/// order): 1 − Σ w·observed / Σ w·expected, the expected table being the product of the two
/// raters' marginals. `None` with no pairs, a category ≥ `k`, or no disagreement expected
/// (both raters using one category).
pub fn weighted_kappa(pairs: &[(usize, usize)], k: usize, weights: Weights) -> Option<f64> {
    if pairs.is_empty() || pairs.iter().any(|&(a, b)| a >= k || b >= k) {
        return None;
    }
    let mut observed = vec![0.0; k * k];
    let (mut rows, mut cols) = (vec![0.0; k], vec![0.0; k]);
    for &(a, b) in pairs {
        observed[a * k + b] += 1.0;
        rows[a] += 1.0;
        cols[b] += 1.0;
    }
    let n = pairs.len() as f64;
    let weight = |i: usize, j: usize| {
        let d = i.abs_diff(j) as f64;
        match weights {
            Weights::Linear => d,
            Weights::Quadratic => d * d,
        }
    };
    let (mut seen, mut expected) = (0.0, 0.0);
    for i in 0..k {
        for j in 0..k {
            seen += weight(i, j) * observed[i * k + j];
            expected += weight(i, j) * rows[i] * cols[j] / n;
        }
    }
    (expected > 0.0).then(|| 1.0 - seen / expected)
}

/// Spearman's ρ of paired values: Pearson's r of their ranks, ties given their average rank.
/// `None` with fewer than two pairs, a length mismatch, a non-finite value, or a side without
/// spread.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 || x.iter().chain(y).any(|v| !v.is_finite()) {
        return None;
    }
    pearson(&ranks(x), &ranks(y))
}

/// 1-based ranks, ties sharing their average rank (also Page's test's, within a block).
pub(crate) fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        // Positions start..end hold one value: ranks start+1 … end, averaged.
        let rank = (start + 1 + end) as f64 / 2.0;
        for &i in &order[start..end] {
            out[i] = rank;
        }
        start = end;
    }
    out
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| sxy / (sxx * syy).sqrt())
}
