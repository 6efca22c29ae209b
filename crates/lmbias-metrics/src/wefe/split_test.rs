//! The permutation test over splits of X ∪ Y into sets of sizes |X| and |Y| for a statistic
//! of the two mean vectors (RND, ECT): exact when there are at most `n_samples` splits, else
//! `n_samples − 1` seeded random splits plus the observed one (sent-bias's convention, so
//! p ≥ 1/n_samples). A split whose statistic is within 1e-12 (relative) of the observed one
//! counts as extreme.

use rand::SeedableRng;
use rand::seq::index;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::weat::binomial;

/// Which values count as at least as extreme as the observed one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tail {
    /// |value| ≥ |observed|.
    TwoSided,
    /// value ≤ observed.
    Lower,
}

/// What was permuted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Target words re-split between X and Y.
    TargetSplits,
    /// The two words of each (xᵢ, yᵢ) pair swapped.
    PairSignFlip,
}

/// A test's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SplitTest {
    /// What was permuted.
    pub kind: Kind,
    /// The tail counted.
    pub tail: Tail,
    /// Share of evaluated splits (or sign patterns) at least as extreme.
    pub p_value: f64,
    /// True when every split was enumerated.
    pub exact: bool,
    /// Splits evaluated, the observed one included.
    pub n_evaluated: u64,
}

/// The test of `statistic(mean of X', mean of Y')` over splits (X', Y') of X ∪ Y, exact up to
/// `n_samples` splits, else sampled with `seed`.
pub(crate) fn run(
    x: &[Vec<f64>],
    y: &[Vec<f64>],
    tail: Tail,
    (n_samples, seed): (u64, u64),
    statistic: impl Fn(&[f64], &[f64]) -> f64 + Sync,
) -> SplitTest {
    let pooled: Vec<&Vec<f64>> = x.iter().chain(y).collect();
    let (m, k) = (pooled.len(), x.len());
    let width = pooled[0].len();
    let total: Vec<f64> = (0..width)
        .map(|j| pooled.iter().map(|v| v[j]).sum())
        .collect();
    let of_split = |members: &[usize]| {
        let mut sum_x = vec![0.0; width];
        for &i in members {
            for (s, v) in sum_x.iter_mut().zip(pooled[i]) {
                *s += v;
            }
        }
        let mean_x: Vec<f64> = sum_x.iter().map(|s| s / k as f64).collect();
        let mean_y: Vec<f64> = total
            .iter()
            .zip(&sum_x)
            .map(|(t, s)| (t - s) / (m - k) as f64)
            .collect();
        statistic(&mean_x, &mean_y)
    };
    let observed: Vec<usize> = (0..k).collect();
    let reference = of_split(&observed);
    let slack = 1e-12 * reference.abs().max(f64::MIN_POSITIVE);
    let extreme = |value: f64| match tail {
        Tail::TwoSided => value.abs() >= reference.abs() - slack,
        Tail::Lower => value <= reference + slack,
    };
    let splits = binomial(m as u128, k as u128);
    let exact = splits.is_some_and(|s| s <= u128::from(n_samples));
    let (n_extreme, n_evaluated) = if exact {
        let all = combinations(m, k);
        let hits = all.par_iter().filter(|s| extreme(of_split(s))).count() as u64;
        (hits, all.len() as u64)
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let draws: Vec<Vec<usize>> = (1..n_samples)
            .map(|_| index::sample(&mut rng, m, k).into_vec())
            .collect();
        let hits = draws.par_iter().filter(|s| extreme(of_split(s))).count() as u64;
        (hits + 1, n_samples)
    };
    SplitTest {
        kind: Kind::TargetSplits,
        tail,
        p_value: n_extreme as f64 / n_evaluated as f64,
        exact,
        n_evaluated,
    }
}

/// Every k-subset of 0 … m − 1, in lexicographic order (the first is the observed X).
fn combinations(m: usize, k: usize) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    let mut current: Vec<usize> = (0..k).collect();
    loop {
        all.push(current.clone());
        // The rightmost index that can still move right.
        let Some(i) = (0..k).rev().find(|&i| current[i] < m - k + i) else {
            return all;
        };
        current[i] += 1;
        for j in i + 1..k {
            current[j] = current[j - 1] + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinations_are_all_k_subsets() {
        let all = combinations(5, 2);
        assert_eq!(all.len(), 10);
        assert_eq!(all[0], vec![0, 1]);
        assert_eq!(all[9], vec![3, 4]);
        assert_eq!(combinations(3, 0), vec![Vec::<usize>::new()]);
    }
}
