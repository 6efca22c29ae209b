//! Page's test for an ordered trend across k treatments measured on the same blocks (Page 1963,
//! "Ordered Hypotheses for Multiple Treatments: A Significance Test for Linear Ranks", *JASA*
//! 58(301)): the dose-response known answer of the valence method (issue #46), blocks the
//! sentences, treatments the models in their predicted order.
//!
//! Within each block the k values are ranked 1…k (ties share their mean rank); R_j is treatment
//! j's rank sum over the blocks, and L = Σ_j j · R_j is large when the values rise along the
//! order. The p-value is a permutation one: under the null hypothesis the k values of a block are
//! exchangeable, so each block's ranks are shuffled independently (ChaCha8, `seed`), and p is the
//! share of `n_samples` patterns, the observed one included, whose L is at least the observed
//! one (sent-bias's convention, as the other permutation tests of lmbias-metrics). A block
//! whose k values are all equal has the same ranks under every shuffle: it adds a constant to L
//! and no evidence, and [`PageTest::informative_blocks`] leaves it out of its count.

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::agreement::ranks;

/// The outcome of Page's test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PageTest {
    /// Blocks (sentences).
    pub blocks: usize,
    /// Blocks whose values are not all equal: those that can move L.
    pub informative_blocks: usize,
    /// Treatments, in the predicted order.
    pub treatments: usize,
    /// Page's L.
    pub l: f64,
    /// Its expectation under the null hypothesis, n·k·(k+1)²/4.
    pub expected_l: f64,
    /// Each treatment's mean rank over the blocks, in the predicted order.
    pub mean_ranks: Vec<f64>,
    /// The permutation p of an increasing trend.
    pub p_value: f64,
    /// Patterns evaluated, the observed one included.
    pub n_samples: u64,
    /// The seed of the shuffles.
    pub seed: u64,
}

/// Why the test cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PageError {
    /// No block, or fewer than two treatments.
    #[error(
        "Page's test needs at least one block and two treatments, got {blocks} and {treatments}"
    )]
    TooSmall {
        /// Blocks given.
        blocks: usize,
        /// Treatments in the first block.
        treatments: usize,
    },
    /// Blocks of different lengths.
    #[error("block {index} has {got} values, the first has {expected}")]
    Ragged {
        /// The block, counting from 0.
        index: usize,
        /// Its length.
        got: usize,
        /// The first block's.
        expected: usize,
    },
    /// A NaN or infinite value cannot be ranked.
    #[error("block {index} holds a value that is not finite ({value})")]
    NonFinite {
        /// The block, counting from 0.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Sampling needs at least the observed pattern.
    #[error("n_samples must be at least 1")]
    NoSamples,
}

/// L of ranked blocks: Σ_j (j + 1) · Σ_blocks rank_j.
fn statistic(ranked: &[Vec<f64>]) -> f64 {
    ranked
        .iter()
        .map(|r| {
            r.iter()
                .enumerate()
                .map(|(j, x)| (j + 1) as f64 * x)
                .sum::<f64>()
        })
        .sum()
}

/// Page's test that the values of each block rise along the order of its columns (`blocks[i][j]`:
/// block i, treatment j), with a permutation p over `n_samples` patterns.
pub fn page_test(blocks: &[Vec<f64>], n_samples: u64, seed: u64) -> Result<PageTest, PageError> {
    let k = blocks.first().map_or(0, Vec::len);
    if blocks.is_empty() || k < 2 {
        return Err(PageError::TooSmall {
            blocks: blocks.len(),
            treatments: k,
        });
    }
    for (index, block) in blocks.iter().enumerate() {
        if block.len() != k {
            return Err(PageError::Ragged {
                index,
                got: block.len(),
                expected: k,
            });
        }
        if let Some(&value) = block.iter().find(|v| !v.is_finite()) {
            return Err(PageError::NonFinite { index, value });
        }
    }
    if n_samples == 0 {
        return Err(PageError::NoSamples);
    }
    let mut ranked: Vec<Vec<f64>> = blocks.iter().map(|b| ranks(b)).collect();
    let l = statistic(&ranked);
    let n = blocks.len();
    let mean_ranks = (0..k)
        .map(|j| ranked.iter().map(|r| r[j]).sum::<f64>() / n as f64)
        .collect();
    let informative_blocks = blocks
        .iter()
        .filter(|b| b.iter().any(|v| *v != b[0]))
        .count();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // L and the shuffled Ls are sums of half-integers times integers: exact in f64 at these
    // sizes, so "at least" compares without rounding.
    let mut at_least = 1u64;
    for _ in 1..n_samples {
        for r in &mut ranked {
            r.shuffle(&mut rng);
        }
        at_least += u64::from(statistic(&ranked) >= l);
    }
    Ok(PageTest {
        blocks: n,
        informative_blocks,
        treatments: k,
        l,
        expected_l: n as f64 * k as f64 * ((k + 1) * (k + 1)) as f64 / 4.0,
        mean_ranks,
        p_value: at_least as f64 / n_samples as f64,
        n_samples,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_share_ties() {
        assert_eq!(ranks(&[0.3, 0.1, 0.3, 0.0]), [3.5, 2.0, 3.5, 1.0]);
        assert_eq!(ranks(&[1.0, 1.0, 1.0]), [2.0, 2.0, 2.0]);
    }

    /// scipy 1.17.1 `page_trend_test(data)`: L = 87, exact p = 0.007016782407407407 on the
    /// first three blocks; L = 80 on the second, with ties. The permutation p is within three
    /// standard errors of scipy's exact one.
    #[test]
    fn l_and_p_agree_with_scipy() {
        let data = vec![
            vec![1.0, 2.0, 3.0, 4.0],
            vec![2.0, 1.0, 4.0, 3.0],
            vec![1.0, 3.0, 2.0, 4.0],
        ];
        let test = page_test(&data, 200_000, 1).unwrap();
        assert_eq!(test.l, 87.0);
        assert_eq!(test.expected_l, 75.0);
        assert_eq!(test.mean_ranks, [4.0 / 3.0, 2.0, 3.0, 11.0 / 3.0]);
        let exact = 0.007_016_782_407_407_407;
        let se = (exact * (1.0 - exact) / 200_000.0_f64).sqrt();
        assert!((test.p_value - exact).abs() < 3.0 * se, "{}", test.p_value);
        let tied = vec![
            vec![0.3, 0.1, 0.3, 0.0],
            vec![1.0, 2.0, 2.0, 3.0],
            vec![5.0, 4.0, 6.0, 6.0],
        ];
        assert_eq!(page_test(&tied, 10, 1).unwrap().l, 80.0);
    }

    #[test]
    fn a_rising_trend_is_significant_a_flat_one_is_not() {
        // 30 blocks of 5 rising values with a little noise: p at its floor, 1/n_samples.
        let rising: Vec<Vec<f64>> = (0..30)
            .map(|i| {
                (0..5)
                    .map(|j| j as f64 + 0.3 * ((i * 5 + j) as f64).sin())
                    .collect()
            })
            .collect();
        let test = page_test(&rising, 2000, 7).unwrap();
        assert_eq!(test.p_value, 1.0 / 2000.0);
        assert_eq!(test.informative_blocks, 30);
        // Falling: p near 1.
        let falling: Vec<Vec<f64>> = rising
            .iter()
            .map(|b| b.iter().rev().copied().collect())
            .collect();
        assert!(page_test(&falling, 2000, 7).unwrap().p_value > 0.99);
        // Every block tied: L is its expectation under every shuffle, p = 1.
        let tied = vec![vec![0.5; 5]; 10];
        let test = page_test(&tied, 500, 7).unwrap();
        assert_eq!((test.p_value, test.informative_blocks), (1.0, 0));
        assert_eq!(test.l, test.expected_l);
    }

    #[test]
    fn bad_input_is_refused() {
        assert_eq!(
            page_test(&[], 10, 0).unwrap_err().to_string(),
            "Page's test needs at least one block and two treatments, got 0 and 0"
        );
        assert_eq!(
            page_test(&[vec![1.0, 2.0], vec![1.0]], 10, 0).unwrap_err(),
            PageError::Ragged {
                index: 1,
                got: 1,
                expected: 2
            }
        );
        assert!(matches!(
            page_test(&[vec![1.0, f64::NAN]], 10, 0),
            Err(PageError::NonFinite { index: 0, .. })
        ));
        assert_eq!(
            page_test(&[vec![1.0, 2.0]], 0, 0),
            Err(PageError::NoSamples)
        );
    }
}
