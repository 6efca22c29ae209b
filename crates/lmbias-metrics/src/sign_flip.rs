//! The paired sign-flip permutation test: is the mean of paired differences above (or below) 0?
//!
//! Two measurements of the same n items (one sentence scored by two models) give differences
//! d₁ … dₙ. Under H₀ the two members of each pair are exchangeable, so each dᵢ is as likely to
//! be −dᵢ: the 2ⁿ sign patterns are equally likely, and p is the share of them whose sum Σ ±dᵢ
//! is at least as extreme as the observed Σ dᵢ (ties count). This is Fisher's randomisation test
//! for paired data (Fisher 1935, *The Design of Experiments*, ch. III, on Darwin's *Zea mays*
//! pairs), scipy's `permutation_test(..., permutation_type="samples")` for one sample of
//! differences.
//!
//! Up to [`MAX_EXACT_PAIRS`] pairs every pattern is enumerated. Beyond, `n_samples − 1` seeded
//! random patterns are drawn and the observed one is counted once more, so p ≥ 1/n_samples: the
//! convention of sent-bias and of [`crate::weat::permutation_test`] (Phipson & Smyth 2010,
//! "Permutation p-values should never be zero").
//!
//! Ties are decided exactly: the differences are put on one integer grid (a power-of-two scale,
//! so the scaling itself is exact; the grid step is at most 2⁻⁶¹ of n·max |dᵢ|), where sums do not
//! depend on the order of the additions. Equal |dᵢ| and zero differences therefore tie as they
//! should, whatever order a float sum would have taken.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;

use crate::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED};

/// Up to this many pairs the test enumerates all 2ⁿ sign patterns (2²⁴ ≈ 1.7·10⁷ integer
/// additions, well under a second); more are sampled.
pub const MAX_EXACT_PAIRS: usize = 24;

/// The direction of the one-sided alternative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    /// H₁: the mean difference is above 0; extreme patterns have Σ ±dᵢ ≥ Σ dᵢ.
    Greater,
    /// H₁: the mean difference is below 0; extreme patterns have Σ ±dᵢ ≤ Σ dᵢ.
    Less,
}

/// How to sample when there are too many pairs to enumerate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SignFlipOptions {
    /// Patterns evaluated when sampling, the observed one included (sent-bias's `n_samples`).
    pub n_samples: u64,
    /// Seed of the ChaCha8 generator of the random patterns.
    pub seed: u64,
}

impl Default for SignFlipOptions {
    /// sent-bias's defaults, as the WEAT's permutation test uses them.
    fn default() -> Self {
        SignFlipOptions {
            n_samples: DEFAULT_N_SAMPLES,
            seed: DEFAULT_SEED,
        }
    }
}

/// The outcome of a sign-flip test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SignFlipTest {
    /// Number of pairs.
    pub n: usize,
    /// The mean of the differences, as given (not on the integer grid).
    pub mean_difference: f64,
    /// The tail counted, so a stored result says what its p-value means.
    pub alternative: Alternative,
    /// `n_extreme / n_evaluated`.
    pub p_value: f64,
    /// True when all 2ⁿ patterns were enumerated.
    pub exact: bool,
    /// Patterns evaluated: 2ⁿ when exact, `n_samples` (the observed one once more) when sampled.
    pub n_evaluated: u64,
    /// Patterns at least as extreme as the observed one (ties count).
    pub n_extreme: u64,
    /// The seed of the random patterns; `None` for exact tests.
    pub seed: Option<u64>,
}

/// Why the test cannot run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SignFlipError {
    /// A test over no pairs has no p-value.
    #[error("no paired differences to test")]
    Empty,
    /// A NaN or infinite difference has no sign to flip.
    #[error("difference {index} is not finite ({value})")]
    NonFinite {
        /// Its position, counting from 0.
        index: usize,
        /// The value.
        value: f64,
    },
    /// Sampling needs at least the observed pattern.
    #[error("n_samples must be at least 1")]
    NoSamples,
}

/// The one-sided paired sign-flip test of `differences` (see the module docs).
pub fn sign_flip_test(
    differences: &[f64],
    alternative: Alternative,
    options: &SignFlipOptions,
) -> Result<SignFlipTest, SignFlipError> {
    if differences.is_empty() {
        return Err(SignFlipError::Empty);
    }
    if let Some((index, &value)) = differences.iter().enumerate().find(|(_, d)| !d.is_finite()) {
        return Err(SignFlipError::NonFinite { index, value });
    }
    if options.n_samples == 0 {
        return Err(SignFlipError::NoSamples);
    }
    let n = differences.len();
    let q = on_grid(differences, alternative);
    let exact = n <= MAX_EXACT_PAIRS;
    let (n_extreme, n_evaluated) = if exact {
        (count_exact(&q), 1u64 << n)
    } else {
        let draws = options.n_samples - 1;
        (
            count_sampled(&q, draws, options.seed) + 1,
            options.n_samples,
        )
    };
    Ok(SignFlipTest {
        n,
        // From +0.0, so that a mean of zeros does not print as "−0".
        mean_difference: differences.iter().fold(0.0, |a, d| a + d) / n as f64,
        alternative,
        p_value: n_extreme as f64 / n_evaluated as f64,
        exact,
        n_evaluated,
        n_extreme,
        seed: (!exact).then_some(options.seed),
    })
}

/// The differences as integers `round(dᵢ · 2ᵉ)`, negated for [`Alternative::Less`], with `e` as
/// large as keeps every sum of them below 2⁶² in magnitude.
fn on_grid(differences: &[f64], alternative: Alternative) -> Vec<i64> {
    let max_abs = differences.iter().fold(0.0f64, |m, d| m.max(d.abs()));
    let exponent = if max_abs > 0.0 {
        62 - (differences.len() as f64 * max_abs).log2().ceil() as i32
    } else {
        0
    };
    let scale = 2f64.powi(exponent.clamp(-1000, 1000));
    let sign = match alternative {
        Alternative::Greater => 1.0,
        Alternative::Less => -1.0,
    };
    differences
        .iter()
        .map(|d| (sign * d * scale).round() as i64)
        .collect()
}

/// A pattern flips the signs of a subset F; its sum is Σ qᵢ − 2 Σ_F qᵢ, at least the observed
/// Σ qᵢ exactly when Σ_F qᵢ ≤ 0. Counted over all 2ⁿ subsets in Gray-code order, each one a
/// single addition away from the one before.
fn count_exact(q: &[i64]) -> u64 {
    let mut flipped = 0u64;
    let mut sum = 0i64;
    let mut count = u64::from(sum <= 0);
    for step in 1u64..(1 << q.len()) {
        let bit = step.trailing_zeros();
        flipped ^= 1 << bit;
        if flipped & (1 << bit) != 0 {
            sum += q[bit as usize];
        } else {
            sum -= q[bit as usize];
        }
        count += u64::from(sum <= 0);
    }
    count
}

/// Random patterns per generator stream: fixed, so counts do not depend on the thread count.
const SAMPLES_PER_STREAM: u64 = 1 << 16;

/// How many of `draws` uniformly random patterns are extreme. Stream `c` of
/// `ChaCha8Rng::seed_from_u64(seed)` draws patterns `c·2¹⁶ ..`, each as n random bits (1 = flip).
fn count_sampled(q: &[i64], draws: u64, seed: u64) -> u64 {
    let streams = draws.div_ceil(SAMPLES_PER_STREAM);
    (0..streams)
        .into_par_iter()
        .map(|stream| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            let samples = SAMPLES_PER_STREAM.min(draws - stream * SAMPLES_PER_STREAM);
            let mut count = 0u64;
            for _ in 0..samples {
                let mut flipped_sum = 0i64;
                for chunk in q.chunks(64) {
                    let bits: u64 = rng.random();
                    for (i, &qi) in chunk.iter().enumerate() {
                        if bits & (1 << i) != 0 {
                            flipped_sum += qi;
                        }
                    }
                }
                count += u64::from(flipped_sum <= 0);
            }
            count
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pattern as a vector of signs, summed in f64 from the integer-valued inputs used
    /// here (exact): the definition.
    fn brute_force(d: &[f64], alternative: Alternative) -> u64 {
        let observed: f64 = d.iter().sum();
        (0u64..1 << d.len())
            .filter(|mask| {
                let s: f64 = d
                    .iter()
                    .enumerate()
                    .map(|(i, x)| if mask & (1 << i) != 0 { -x } else { *x })
                    .sum();
                match alternative {
                    Alternative::Greater => s >= observed,
                    Alternative::Less => s <= observed,
                }
            })
            .count() as u64
    }

    #[test]
    fn gray_code_count_matches_brute_force() {
        // Small integers: many exact ties, and float sums of them are exact.
        let mut state = 7u64;
        for n in 1..=12 {
            for _ in 0..5 {
                let d: Vec<f64> = (0..n)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        ((state >> 33) % 9) as f64 - 3.0
                    })
                    .collect();
                for alt in [Alternative::Greater, Alternative::Less] {
                    assert_eq!(
                        count_exact(&on_grid(&d, alt)),
                        brute_force(&d, alt),
                        "{d:?} {alt:?}"
                    );
                }
            }
        }
    }

    /// The number of subsets of `q` (small integers) with sum ≤ 0, by dynamic programming over
    /// sums: exact for any n, so it checks the sampler where enumeration is out of reach.
    fn count_by_sums(q: &[i64]) -> u128 {
        let span: i64 = q.iter().map(|x| x.abs()).sum();
        let mut ways = vec![0u128; (2 * span + 1) as usize];
        ways[span as usize] = 1;
        for &x in q {
            let before = ways.clone();
            for (i, &w) in before.iter().enumerate() {
                if w > 0 {
                    ways[(i as i64 + x) as usize] += w;
                }
            }
        }
        ways[..=span as usize].iter().sum()
    }

    #[test]
    fn sampled_frequency_approaches_the_exact_share() {
        // 40 pairs, mean slightly positive: the exact p is middling, where a wrong sampler shows.
        let q: Vec<i64> = (0..40).map(|i| [2, -2, 1, -1, 1][i % 5]).collect();
        let p_exact = count_by_sums(&q) as f64 / 2f64.powi(40);
        assert!(p_exact > 0.05 && p_exact < 0.95, "{p_exact}");
        let draws = 200_000;
        let p = count_sampled(&q, draws, 3) as f64 / draws as f64;
        let se = (p_exact * (1.0 - p_exact) / draws as f64).sqrt();
        assert!((p - p_exact).abs() < 4.5 * se, "{p} vs {p_exact}");
    }

    #[test]
    fn more_than_64_pairs_draw_every_sign() {
        // 70 pairs: one u64 of bits is not enough. Only the last six are nonzero, so a sampler
        // that never flipped them would find every pattern extreme.
        let mut q = vec![0i64; 70];
        q[64..].fill(1);
        let draws = 100_000;
        let p = count_sampled(&q, draws, 1) as f64 / draws as f64;
        // Subsets of the six with sum ≤ 0: only the empty one, 1/64.
        assert!((p - 1.0 / 64.0).abs() < 0.002, "{p}");
    }
}
