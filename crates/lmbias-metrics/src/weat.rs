//! WEAT / SEAT (Caliskan et al. 2017; May et al. 2019) on given vectors.
//!
//! Formulas, following sent-bias's `weat.py`:
//! - `cos(u, v) = u·v / sqrt((u·u)(v·v))`
//! - `s(w, A, B) = mean_{a∈A} cos(w, a) − mean_{b∈B} cos(w, b)`
//! - test statistic `s(X, Y, A, B) = Σ_{x∈X} s(x, A, B) − Σ_{y∈Y} s(y, A, B)`
//! - effect size `(mean_X s − mean_Y s) / std_{w∈X∪Y} s(w, A, B)`, with the sample standard
//!   deviation (ddof = 1, sent-bias and Caliskan) or the population one (ddof = 0, WEFE).
//! - one-sided permutation p-value `P[s(Xi, Yi) ≥ s(X, Y)]` over splits of X ∪ Y into sizes
//!   |X|, |Y|; see [`Options`] for exact versus sampled.
//!
//! Errors name a set by [`Role`], the same type the datasets use, so that
//! `test.set(role).examples()[index]` finds the text behind a bad vector.

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::numpy_sum::{numpy_mean, numpy_sum};
use crate::permutation;

/// The four sets, named once for all of lmbias: [`Role::Targ1`] is X, [`Role::Targ2`] Y,
/// [`Role::Attr1`] A and [`Role::Attr2`] B ([`Role::symbol`]).
///
/// It lives in `lmbias-data` and this crate depends on it, not the reverse: the names come
/// from the dataset format, which `lmbias-data` owns, and a dataset crate must not pull in the
/// statistics (statrs, rand). Both crates are Burn-free, so the dependency costs a scorer of
/// its own vectors nothing heavy. Re-exported so such a scorer can match on [`WeatError`]
/// without naming `lmbias-data`.
pub use lmbias_core::Role;

/// Which standard deviation divides the effect size; both are in use in the literature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StdKind {
    /// ddof = 1, as in Caliskan et al. (2017) and sent-bias.
    #[default]
    Sample,
    /// ddof = 0, as in WEFE.
    Population,
}

impl StdKind {
    /// numpy's `ddof` for this kind.
    pub fn ddof(self) -> usize {
        match self {
            StdKind::Sample => 1,
            StdKind::Population => 0,
        }
    }
}

/// Which permutations count as "at least as extreme" as the observed split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    /// X is more associated with A than Y is (sent-bias's only test): `s(Xi, Yi) ≥ s(X, Y)`.
    #[default]
    Greater,
    /// Either direction: `|mean_Xi s − mean_Yi s| ≥ |mean_X s − mean_Y s|`.
    TwoSided,
}

/// The seed of the sampled permutation test and the bootstrap unless the caller gives one.
pub const DEFAULT_SEED: u64 = 42;

/// sent-bias's default: enumerate exactly when there are at most this many splits.
pub const DEFAULT_N_SAMPLES: u64 = 100_000;

/// How to run the permutation test and which effect size to report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Options {
    /// Exact enumeration when the number of splits is ≤ `n_samples`; otherwise `n_samples − 1`
    /// random splits plus one imagined hit (sent-bias), so p ≥ 1/n_samples.
    pub n_samples: u64,
    /// Seed of the ChaCha8 generator of the random splits.
    pub seed: u64,
    /// Which standard deviation divides the effect size.
    pub std: StdKind,
    /// Which splits count as extreme for the p-value.
    pub alternative: Alternative,
    /// sent-bias requires |X| = |Y|; unequal sizes are an error unless this is set.
    pub allow_unequal_sizes: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            n_samples: DEFAULT_N_SAMPLES,
            seed: DEFAULT_SEED,
            std: StdKind::Sample,
            alternative: Alternative::Greater,
            allow_unequal_sizes: false,
        }
    }
}

/// Why a WEAT cannot be computed. A set is printed as "X (targ1)": the formula's letter and the
/// file's key, so both a reader of the paper and an editor of the file recognise it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WeatError {
    /// A mean over an empty set is undefined.
    #[error("set {} ({}) is empty", .0.symbol(), .0)]
    EmptySet(Role),
    /// sent-bias's permutation test assumes |X| = |Y|; [`Options::allow_unequal_sizes`] lifts it.
    #[error(
        "X has {x} items and Y has {y}: sent-bias requires equal sizes (`lmbias weat --allow-unequal-sizes`, or allow_unequal_sizes=True in Python, tests anyway)"
    )]
    UnequalSizes {
        /// |X|.
        x: usize,
        /// |Y|.
        y: usize,
    },
    /// Vectors of different lengths (the first vector of X sets the dimension).
    #[error("set {} ({set}), item {index}: dimension {found}, expected {expected}", set.symbol())]
    Dimension {
        /// The set holding the vector.
        set: Role,
        /// Its position in the set, counting from 0.
        index: usize,
        /// Its length.
        found: usize,
        /// The length of X's first vector.
        expected: usize,
    },
    /// A NaN or infinite component would make every cosine with it NaN.
    #[error("set {} ({set}), item {index}: vector has a non-finite value", set.symbol())]
    NonFinite {
        /// The set holding the vector.
        set: Role,
        /// Its position in the set, counting from 0.
        index: usize,
    },
    /// A zero vector has no direction, so no cosine.
    #[error(
        "set {} ({set}), item {index}: zero vector, its cosine similarity is undefined",
        set.symbol()
    )]
    ZeroVector {
        /// The set holding the vector.
        set: Role,
        /// Its position in the set, counting from 0.
        index: usize,
    },
    /// Finite but huge (|v| ≳ 1e154): its dot products overflow.
    #[error(
        "set {} ({set}), item {index}: its squared norm overflows f64, so its cosines would be wrong",
        set.symbol()
    )]
    Overflow {
        /// The set holding the vector.
        set: Role,
        /// Its position in the set, counting from 0.
        index: usize,
    },
    /// A score `s(w, A, B)` (given, or computed from overflowing dot products) is NaN or infinite.
    #[error(
        "set {} ({set}), item {index}: association score is not finite",
        set.symbol()
    )]
    NonFiniteScore {
        /// The target set holding the score.
        set: Role,
        /// Its position in the set, counting from 0.
        index: usize,
    },
    /// A sampled test needs at least the one imagined hit.
    #[error("n_samples must be at least 1")]
    NoSamples,
    /// Enumerating every split would take too long ([`MAX_TEST_WORK`]); refused before it starts.
    #[error(
        "an exact test over the {} splits of X ∪ Y ({x} + {y} items) would take about {} \
         (more than lmbias allows, about a minute): set --n-samples (n_samples in Python) below the number of splits \
         (e.g. {DEFAULT_N_SAMPLES}, the default, or 1000000 for p down to 1e-6) to sample them instead",
        splits.map_or_else(|| "more than 2^128".to_owned(), |n| n.to_string()),
        duration(*estimate_s)
    )]
    ExactTooCostly {
        /// |X|.
        x: usize,
        /// |Y|.
        y: usize,
        /// `C(|X|+|Y|, |X|)`; `None` beyond `u128::MAX`.
        splits: Option<u128>,
        /// The estimated time on two cores, in seconds.
        estimate_s: f64,
    },
    /// Drawing that many random splits would take too long ([`MAX_TEST_WORK`]); refused
    /// before it starts.
    #[error(
        "a sampled test of {samples} splits of X ∪ Y ({x} + {y} items) would take about {} \
         (more than lmbias allows, about a minute): set --n-samples (n_samples in Python) lower (e.g. \
         {DEFAULT_N_SAMPLES}, the default, or 1000000 for p down to 1e-6)",
        duration(*estimate_s)
    )]
    SampledTooCostly {
        /// |X|.
        x: usize,
        /// |Y|.
        y: usize,
        /// The splits asked for.
        samples: u64,
        /// The estimated time on two cores, in seconds.
        estimate_s: f64,
    },
    /// The caller's cancellation flag was set while the test ran ([`weat_cancellable`]).
    #[error("cancelled")]
    Cancelled,
}

/// "40 seconds", "3 minutes", "2 hours", "10^5 years": an estimate, so rounded.
fn duration(seconds: f64) -> String {
    const UNITS: [(f64, &str); 5] = [
        (365.25 * 86_400.0, "years"),
        (86_400.0, "days"),
        (3_600.0, "hours"),
        (60.0, "minutes"),
        (1.0, "seconds"),
    ];
    let (size, unit) = UNITS
        .into_iter()
        .find(|&(size, _)| seconds >= 2.0 * size)
        .unwrap_or((1.0, "seconds"));
    let value = seconds / size;
    if value >= 1e6 {
        format!("10^{} {unit}", value.log10().floor())
    } else {
        format!("{value:.0} {unit}")
    }
}

/// The association scores `s(w, A, B)` of the targets: all a WEAT needs once A and B are fixed.
///
/// Valid by construction: both sets non-empty, every score finite.
#[derive(Debug, Clone, PartialEq)]
pub struct Associations {
    x: Vec<f64>,
    y: Vec<f64>,
}

impl Associations {
    /// Scores from embeddings: `s(w, A, B)` for every w in X and Y.
    ///
    /// Vectors may be `f32` or `f64`; everything is computed in `f64`.
    pub fn from_vectors<V, T>(x: &[V], y: &[V], a: &[V], b: &[V]) -> Result<Self, WeatError>
    where
        V: AsRef<[T]>,
        T: Copy + Into<f64>,
    {
        let dim = x
            .first()
            .map(|v| v.as_ref().len())
            .ok_or(WeatError::EmptySet(Role::Targ1))?;
        let x = Prepared::new(x, Role::Targ1, dim)?;
        let y = Prepared::new(y, Role::Targ2, dim)?;
        let a = Prepared::new(a, Role::Attr1, dim)?;
        let b = Prepared::new(b, Role::Attr2, dim)?;
        // Finite vectors can still overflow a dot product (|v| ~ 1e155 and up): check the scores.
        Self::from_scores(x.scores(&a, &b), y.scores(&a, &b))
    }

    /// Scores computed elsewhere (e.g. from another similarity), X's then Y's.
    pub fn from_scores(x: Vec<f64>, y: Vec<f64>) -> Result<Self, WeatError> {
        for (set, scores) in [(Role::Targ1, &x), (Role::Targ2, &y)] {
            if scores.is_empty() {
                return Err(WeatError::EmptySet(set));
            }
            if let Some(index) = scores.iter().position(|s| !s.is_finite()) {
                return Err(WeatError::NonFiniteScore { set, index });
            }
        }
        Ok(Associations { x, y })
    }

    /// `s(x, A, B)` for each x in X, in order.
    pub fn x(&self) -> &[f64] {
        &self.x
    }

    /// `s(y, A, B)` for each y in Y, in order.
    pub fn y(&self) -> &[f64] {
        &self.y
    }

    /// X's scores then Y's: the order in which sent-bias numbers the targets.
    pub(crate) fn all(&self) -> Vec<f64> {
        let mut all = self.x.clone();
        all.extend_from_slice(&self.y);
        all
    }
}

/// Vectors of one set, converted to f64, with their squared norms.
struct Prepared {
    vectors: Vec<Vec<f64>>,
    squared_norms: Vec<f64>,
}

impl Prepared {
    fn new<V, T>(set: &[V], name: Role, dim: usize) -> Result<Self, WeatError>
    where
        V: AsRef<[T]>,
        T: Copy + Into<f64>,
    {
        if set.is_empty() {
            return Err(WeatError::EmptySet(name));
        }
        let mut vectors = Vec::with_capacity(set.len());
        let mut squared_norms = Vec::with_capacity(set.len());
        for (index, v) in set.iter().enumerate() {
            let v: Vec<f64> = v.as_ref().iter().map(|&t| t.into()).collect();
            if v.len() != dim {
                return Err(WeatError::Dimension {
                    set: name,
                    index,
                    found: v.len(),
                    expected: dim,
                });
            }
            if v.iter().any(|t| !t.is_finite()) {
                return Err(WeatError::NonFinite { set: name, index });
            }
            let nn = dot(&v, &v);
            if nn == 0.0 {
                return Err(WeatError::ZeroVector { set: name, index });
            }
            if !nn.is_finite() {
                return Err(WeatError::Overflow { set: name, index });
            }
            vectors.push(v);
            squared_norms.push(nn);
        }
        Ok(Prepared {
            vectors,
            squared_norms,
        })
    }

    /// `s(w, A, B)` for each w of this set (sent-bias's `s_wAB` over its cosine table).
    fn scores(&self, a: &Prepared, b: &Prepared) -> Vec<f64> {
        let mut cos_a = vec![0.0; a.vectors.len()];
        let mut cos_b = vec![0.0; b.vectors.len()];
        self.vectors
            .iter()
            .zip(&self.squared_norms)
            .map(|(w, &ww)| {
                for (c, (v, &vv)) in cos_a.iter_mut().zip(a.vectors.iter().zip(&a.squared_norms)) {
                    *c = dot(w, v) / (ww * vv).sqrt();
                }
                for (c, (v, &vv)) in cos_b.iter_mut().zip(b.vectors.iter().zip(&b.squared_norms)) {
                    *c = dot(w, v) / (ww * vv).sqrt();
                }
                numpy_mean(&cos_a) - numpy_mean(&cos_b)
            })
            .collect()
    }
}

fn dot(u: &[f64], v: &[f64]) -> f64 {
    u.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// Cosine similarity as sent-bias computes it: `u·v / sqrt((u·u)(v·v))`.
///
/// NaN when either vector is zero; [`Associations::from_vectors`] rejects zero vectors first.
pub fn cosine<T: Copy + Into<f64>>(u: &[T], v: &[T]) -> f64 {
    let u: Vec<f64> = u.iter().map(|&t| t.into()).collect();
    let v: Vec<f64> = v.iter().map(|&t| t.into()).collect();
    dot(&u, &v) / (dot(&u, &u) * dot(&v, &v)).sqrt()
}

/// Cohen's d of the scores: `(mean_X s − mean_Y s) / std_{X∪Y} s`.
///
/// `None` when every score is equal: the standard deviation is 0 and d is 0/0
/// (sent-bias returns NaN there).
pub fn effect_size(assoc: &Associations, std: StdKind) -> Option<f64> {
    let numerator = numpy_mean(&assoc.x) - numpy_mean(&assoc.y);
    let sd = std_dev(&assoc.all(), std.ddof());
    (sd > 0.0 && sd.is_finite()).then(|| numerator / sd)
}

/// `np.std(values, ddof)`: mean, squared deviations, their numpy sum over (n − ddof).
pub(crate) fn std_dev(values: &[f64], ddof: usize) -> f64 {
    let mean = numpy_mean(values);
    let squares: Vec<f64> = values.iter().map(|v| (v - mean) * (v - mean)).collect();
    // n − ddof ≥ 1 here: X and Y are non-empty, so there are at least two scores.
    (numpy_sum(&squares) / (values.len() - ddof) as f64).sqrt()
}

/// Caliskan's test statistic `Σ_X s − Σ_Y s`.
pub fn test_statistic(assoc: &Associations) -> f64 {
    numpy_sum(&assoc.x) - numpy_sum(&assoc.y)
}

/// The outcome of the permutation test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PermutationTest {
    /// `n_extreme / n_evaluated`.
    pub p_value: f64,
    /// True when every split was enumerated; false when splits were sampled.
    pub exact: bool,
    /// How many splits of X ∪ Y into |X| and |Y| items exist (`C(|X|+|Y|, |X|)`);
    /// `None` beyond `u128::MAX`. Serialised as an integer up to `u64::MAX`, as a float above
    /// (JSON readers seldom take wider integers; serde_json's `Value` cannot).
    #[serde(serialize_with = "count_as_json_number")]
    pub n_partitions: Option<u128>,
    /// Splits evaluated: all of them when exact; `n_samples` (one imagined) when sampled.
    pub n_evaluated: u64,
    /// Splits at least as extreme as the observed one (ties count), including the imagined one.
    pub n_extreme: u64,
    /// The tail(s) counted, so a stored result says what its p-value means.
    pub alternative: Alternative,
    /// The seed of the random splits; `None` for exact tests.
    pub seed: Option<u64>,
}

fn count_as_json_number<S: serde::Serializer>(
    count: &Option<u128>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match count.map(u64::try_from) {
        None => s.serialize_none(),
        Some(Ok(small)) => s.serialize_u64(small),
        Some(Err(_)) => s.serialize_f64(count.unwrap_or_default() as f64),
    }
}

/// The most work (in the units of the engines' cost estimate) a permutation test may take; a
/// larger one is refused up front, exact ([`WeatError::ExactTooCostly`]) or sampled
/// ([`WeatError::SampledTooCostly`]: 3·10^10 is about 5·10^8 splits of 32 + 32 scores, 1.7·10^8
/// of 100 + 100).
///
/// Measured on this project's 2-core test machine, shared with other jobs (`dev` profile, as
/// `cargo test` and the Python package's default build), random scores, one-sided unless said:
///
/// | X × Y      | engine            | estimated work | time   |
/// |------------|-------------------|----------------|--------|
/// | 3 × 1000   | direct            | 1.2·10^9       | 1.8 s  |
/// | 22 × 22    | meet in the middle| 1.2·10^9       | 2.2 s  |
/// | 23 × 23    | meet in the middle| 3.6·10^9       | 7.0 s  |
/// | 24 × 24    | meet in the middle| 1.3·10^10      | 18 s   |
/// | 24 × 24, two-sided | meet in the middle | 2.6·10^10 | 71 s (under load) |
/// | 25 × 25    | meet in the middle| 5.1·10^10      | 99 s   |
///
/// About 5·10^8 units a second, so 3·10^10 is about a minute: 2 × 24 items (either
/// alternative) is the largest equal-size exact test; 2 × 25 is refused. The bound is an amount
/// of work, not of time, so that whether a test runs never depends on the machine or its
/// thread count.
pub const MAX_TEST_WORK: f64 = 3e10;

/// Work units per second on two cores (measured, see [`MAX_TEST_WORK`]), for the refusal's
/// estimate.
const WORK_PER_SECOND: f64 = 5e8;

/// The permutation p-value of the observed split, with sent-bias's semantics.
///
/// A split counts when its statistic is ≥ the observed one as numpy computes both, so ties
/// count as in sent-bias (its "conservative test"). The engine (module `permutation`) finds
/// the splits whose sums are clearly above or below using exact integer arithmetic and
/// recomputes only near-ties in numpy's order. A test whose estimated work exceeds
/// [`MAX_TEST_WORK`] is refused before it starts.
pub fn permutation_test(
    assoc: &Associations,
    options: &Options,
) -> Result<PermutationTest, WeatError> {
    permutation_test_cancellable(assoc, options, &AtomicBool::new(false))
}

/// [`permutation_test`], stopping with [`WeatError::Cancelled`] soon after `cancel` is set
/// (the engines check it between chunks of a few thousand splits).
pub fn permutation_test_cancellable(
    assoc: &Associations,
    options: &Options,
    cancel: &AtomicBool,
) -> Result<PermutationTest, WeatError> {
    check_sizes(assoc, options)?;
    if options.n_samples == 0 {
        return Err(WeatError::NoSamples);
    }
    let scores = assoc.all();
    let nx = assoc.x.len();
    let observed = numpy_sum(&assoc.x);
    let tails = match options.alternative {
        Alternative::Greater => permutation::Tails {
            at_least: observed,
            at_most: None,
        },
        Alternative::TwoSided => {
            // The split's mean difference is linear in its X-sum S_i, centred at c = total·|X|/m;
            // the mirror image of S is 2c − S, which for |X| = |Y| is exactly Y's numpy sum.
            let mirror = if assoc.x.len() == assoc.y.len() {
                numpy_sum(&assoc.y)
            } else {
                let total = numpy_sum(&scores);
                2.0 * total * nx as f64 / scores.len() as f64 - observed
            };
            permutation::Tails {
                at_least: observed.max(mirror),
                at_most: Some(observed.min(mirror)),
            }
        }
    };
    let n_partitions = binomial(scores.len() as u128, nx as u128);
    let exact = n_partitions.is_some_and(|n| n <= u128::from(options.n_samples));
    // Two-sided with the observed split at the centre (S = its mirror): every split is at least as
    // far out. Counted directly, as the two tails would otherwise count each split twice.
    let every_split = tails.at_most.is_some_and(|lo| lo >= tails.at_least);
    let tail_count = 1 + usize::from(tails.at_most.is_some());
    let cancelled = |_: permutation::Cancelled| WeatError::Cancelled;
    let (n_extreme, n_evaluated) = if exact {
        let total = n_partitions.map(|n| n as u64).unwrap_or_default();
        let count = if every_split {
            total
        } else {
            let cost = permutation::exact_cost(scores.len(), nx, tail_count);
            if cost.work > MAX_TEST_WORK {
                return Err(WeatError::ExactTooCostly {
                    x: nx,
                    y: assoc.y.len(),
                    splits: n_partitions,
                    estimate_s: cost.work / WORK_PER_SECOND,
                });
            }
            permutation::exact(&scores, nx, tails, cancel).map_err(cancelled)?
        };
        (count, total)
    } else {
        // sent-bias "hallucinates" one hit: with N samples the p-value cannot go below 1/N.
        let draws = options.n_samples - 1;
        let work = permutation::sampled_work(scores.len(), nx, draws, tail_count);
        if work > MAX_TEST_WORK {
            return Err(WeatError::SampledTooCostly {
                x: nx,
                y: assoc.y.len(),
                samples: options.n_samples,
                estimate_s: work / WORK_PER_SECOND,
            });
        }
        let count = if every_split {
            draws
        } else {
            permutation::sampled(&scores, nx, tails, draws, options.seed, cancel)
                .map_err(cancelled)?
        };
        (count + 1, options.n_samples)
    };
    Ok(PermutationTest {
        p_value: n_extreme as f64 / n_evaluated as f64,
        exact,
        n_partitions,
        n_evaluated,
        n_extreme,
        alternative: options.alternative,
        seed: (!exact).then_some(options.seed),
    })
}

fn check_sizes(assoc: &Associations, options: &Options) -> Result<(), WeatError> {
    if assoc.x.len() != assoc.y.len() && !options.allow_unequal_sizes {
        return Err(WeatError::UnequalSizes {
            x: assoc.x.len(),
            y: assoc.y.len(),
        });
    }
    Ok(())
}

/// `C(n, k)`, or `None` when it exceeds `u128::MAX`; 0 when `k > n` (no such subsets).
pub fn binomial(n: u128, k: u128) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // c · (n − i) / (i + 1) stays an integer at every step; divide by the gcd first to delay
        // overflow.
        let (num, den) = (n - i, i + 1);
        let g = gcd(c, den);
        let (c_red, den_red) = (c / g, den / g);
        c = c_red.checked_mul(num / den_red)?;
        // den_red divides num because c·num/den is an integer and gcd(c_red, den_red) = 1.
    }
    Some(c)
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Everything `lmbias weat` reports about one association test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WeatResult {
    /// Cohen's d; `None` when all scores are equal (0/0).
    pub effect_size: Option<f64>,
    /// The standard deviation `effect_size` was divided by.
    pub std: StdKind,
    /// `Σ_X s − Σ_Y s` (Caliskan's s(X, Y, A, B)).
    pub test_statistic: f64,
    /// The p-value and how it was obtained.
    pub permutation: PermutationTest,
    /// |X| and |Y|, which bound how small p can be.
    pub sizes: Sizes,
}

/// Set sizes: |X| and |Y| (the attribute sizes are the caller's to report).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Sizes {
    /// |X|.
    pub x: usize,
    /// |Y|.
    pub y: usize,
}

/// Effect size, test statistic and permutation test in one call.
pub fn weat(assoc: &Associations, options: &Options) -> Result<WeatResult, WeatError> {
    weat_cancellable(assoc, options, &AtomicBool::new(false))
}

/// [`weat`], stopping with [`WeatError::Cancelled`] soon after `cancel` is set: how a caller
/// that can be interrupted (the Python package, on Ctrl-C) stops a long permutation test.
pub fn weat_cancellable(
    assoc: &Associations,
    options: &Options,
    cancel: &AtomicBool,
) -> Result<WeatResult, WeatError> {
    let permutation = permutation_test_cancellable(assoc, options, cancel)?;
    Ok(WeatResult {
        effect_size: effect_size(assoc, options.std),
        std: options.std,
        test_statistic: test_statistic(assoc),
        permutation,
        sizes: Sizes {
            x: assoc.x.len(),
            y: assoc.y.len(),
        },
    })
}
