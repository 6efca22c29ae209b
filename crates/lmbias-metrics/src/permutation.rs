//! Counting the splits of a permutation test, fast and with sent-bias's float semantics.
//!
//! sent-bias decides each split by comparing two numpy float sums (`si > s`, then `si == s`
//! counts too). Reproducing that bit for bit while enumerating millions of splits works in two
//! layers:
//!
//! 1. Every score is quantised to an integer, `q = round(s · 2^k)` with `2^k` as large as i64
//!    allows. Integer sums are exact and order-free, so a subset's quantised sum `Q` is the same
//!    however we reach it, and it differs from `2^k ·` (the numpy sum of the subset) by at most
//!    a proven bound: `n/2` from rounding, plus numpy's own rounding `n · 2^-52 · Σ|s|`.
//! 2. A split whose `Q` is more than that bound from the threshold is decided by `Q` alone. A
//!    split within the bound — a tie or a near-tie — is recomputed exactly as sent-bias does
//!    (numpy's pairwise sum over the subset in ascending index order) and compared with `≥`.
//!
//! So no tolerance changes any decision: ties are counted exactly as sent-bias counts them.
//! (Data with very many exact ties, e.g. all-equal vectors, recompute most splits and run slower.)
//!
//! Exact counting does not visit the C(m, n) splits one by one: it splits the m items into a low
//! and a high half ("meet in the middle"), sorts the low half's subset sums by size, and for each
//! high subset counts the matching low subsets with two binary searches. That is
//! O(2^(m/2) · m) instead of C(m, n); for n = 16 per side, 65 536 sums instead of 6·10^8 splits.
//! When one side is small (1 vs 1000 items, or m > 64 where masks do not fit) the splits are
//! instead visited directly, as the subsets of the smaller side: C(m, k) of them, cheaper there.
//!
//! Both engines check a cancellation flag between chunks of work ([`Cancelled`]), and
//! [`exact_cost`] estimates their work before anything starts, so that a caller can refuse an
//! enumeration that would run for hours.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::numpy_sum::numpy_sum;

/// A split is extreme when its X-sum is ≥ `at_least` or (two-sided) ≤ `at_most`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tails {
    pub at_least: f64,
    pub at_most: Option<f64>,
}

/// Scores quantised to integers, with the proven distance to numpy's sums.
struct Quantized<'a> {
    scores: &'a [f64],
    q: Vec<i64>,
    /// Power-of-two scale, so that `s · scale` is exact.
    scale: f64,
    /// `|Q − scale · numpy_sum(subset)| < band` for any subset of `subset_len` scores.
    band: i64,
    subset_len: usize,
}

impl<'a> Quantized<'a> {
    fn new(scores: &'a [f64], subset_len: usize) -> Self {
        let m = scores.len() as f64;
        let max_abs = scores.iter().fold(0.0f64, |acc, s| acc.max(s.abs()));
        // Keep every partial sum of up to m quantised scores below 2^60.
        let exponent = if max_abs > 0.0 {
            60 - (m * max_abs).log2().ceil() as i32
        } else {
            0
        };
        let scale = 2f64.powi(exponent.clamp(-1000, 1000));
        let q = scores.iter().map(|&s| (s * scale).round() as i64).collect();
        // numpy's sum of n terms is within (n−1)·u·Σ|a| /(1 − (n−1)u) of the exact sum (u = 2^-53,
        // any summation tree); n·2^-52·Σ|s| over all scores bounds it, ×1.01 for our own rounding.
        let sum_abs: f64 = scores.iter().map(|s| s.abs()).sum();
        let n = subset_len as f64;
        let numpy_error = n * f64::EPSILON * sum_abs * 1.01;
        let bound = n * 0.5 + numpy_error * scale;
        Quantized {
            scores,
            q,
            scale,
            band: (bound.ceil() as i64).saturating_add(1),
            subset_len,
        }
    }

    /// `floor(t · scale)`: the threshold on the integer scale.
    fn floor_scaled(&self, t: f64) -> i64 {
        (t * self.scale).floor() as i64
    }

    /// numpy's sum of the subset `members` (ascending indices), as sent-bias computes `si`.
    fn numpy_subset_sum(&self, members: impl Iterator<Item = usize>, buf: &mut Vec<f64>) -> f64 {
        buf.clear();
        buf.extend(members.map(|i| self.scores[i]));
        debug_assert_eq!(buf.len(), self.subset_len);
        numpy_sum(buf)
    }
}

/// One tail's decision rule on quantised sums.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// floor(threshold · scale).
    h: i64,
    band: i64,
    threshold: f64,
    upper: bool,
}

enum Decision {
    Hit,
    Miss,
    Recompute,
}

impl Rule {
    fn new(quant: &Quantized, threshold: f64, upper: bool) -> Self {
        Rule {
            h: quant.floor_scaled(threshold),
            band: quant.band,
            threshold,
            upper,
        }
    }

    /// Q at or above this is certainly above the threshold.
    fn sure_above(&self) -> i64 {
        self.h.saturating_add(self.band).saturating_add(1)
    }

    /// Q at or below this is certainly below the threshold.
    fn sure_below(&self) -> i64 {
        self.h.saturating_sub(self.band).saturating_sub(1)
    }

    fn decide(&self, q: i64) -> Decision {
        let (above, below) = (q >= self.sure_above(), q <= self.sure_below());
        match (self.upper, above, below) {
            (true, true, _) | (false, _, true) => Decision::Hit,
            (true, _, true) | (false, true, _) => Decision::Miss,
            _ => Decision::Recompute,
        }
    }

    /// The exact comparison sent-bias makes (`>` or `==`: ties count).
    fn hit_exact(&self, sum: f64) -> bool {
        if self.upper {
            sum >= self.threshold
        } else {
            sum <= self.threshold
        }
    }
}

fn rules(quant: &Quantized, tails: Tails) -> Vec<Rule> {
    let mut rules = vec![Rule::new(quant, tails.at_least, true)];
    if let Some(t) = tails.at_most {
        rules.push(Rule::new(quant, t, false));
    }
    rules
}

/// Whether a split with X-sum `q` (quantised) is extreme; `x_sum` gives its numpy sum, asked
/// for only when `q` is too near a threshold to decide.
fn is_extreme(rules: &[Rule], q: i64, mut x_sum: impl FnMut() -> f64) -> bool {
    let mut recomputed = None;
    rules.iter().any(|rule| match rule.decide(q) {
        Decision::Hit => true,
        Decision::Miss => false,
        Decision::Recompute => rule.hit_exact(*recomputed.get_or_insert_with(&mut x_sum)),
    })
}

/// The work stopped because its cancellation flag was set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cancelled;

fn check(cancel: &AtomicBool) -> Result<(), Cancelled> {
    if cancel.load(Ordering::Relaxed) {
        Err(Cancelled)
    } else {
        Ok(())
    }
}

/// Low-half items of the meet-in-the-middle engine: its sorted sums take 2^22 · 16 B = 64 MiB.
const MAX_LOW_BITS: usize = 22;

/// The engines of [`exact`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Engine {
    MeetInTheMiddle,
    Direct,
}

/// The estimated work of counting every split exactly (in units of a few nanoseconds; measured
/// against time in `weat::MAX_TEST_WORK`), and the engine that does the least. Near-ties that
/// must be recomputed in numpy's order (data with very many exact ties) are not foreseen and
/// can add to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cost {
    pub work: f64,
    engine: Engine,
}

/// [`Cost`] for `m` scores split into `nx` and `m − nx`, with `tails` thresholds (1 or 2).
pub(crate) fn exact_cost(m: usize, nx: usize, tails: usize) -> Cost {
    let tails = tails as f64;
    let draw = nx.min(m - nx);
    // Direct: each split sums `draw` integers and is decided against each threshold.
    let direct = choose(m, draw) * (DIRECT_PER_ITEM * draw as f64 + DIRECT_PER_SPLIT * tails);
    let mitm = if m > 64 {
        f64::INFINITY
    } else {
        let low = m.div_ceil(2).min(MAX_LOW_BITS);
        let high = m - low;
        // Building and sorting the 2^low sums, then for every high subset of a usable size two
        // binary searches per threshold in the sorted group of the matching low size.
        let build = 2f64.powi(low as i32) * MITM_PER_LOW_SUM * low as f64;
        let searches: f64 = (0..=high.min(nx))
            .filter(|&k| nx - k <= low)
            .map(|k| {
                let group = choose(low, nx - k).max(2.0);
                choose(high, k) * tails * MITM_PER_SEARCH_STEP * group.log2()
            })
            .sum();
        build + searches + 2f64.powi(high as i32) * MITM_PER_HIGH_MASK
    };
    if direct <= mitm {
        Cost {
            work: direct,
            engine: Engine::Direct,
        }
    } else {
        Cost {
            work: mitm,
            engine: Engine::MeetInTheMiddle,
        }
    }
}

/// The estimated work of drawing `n` random splits of `m` scores (`nx` on X's side) and
/// deciding each against `tails` thresholds, in [`Cost`]'s units.
pub(crate) fn sampled_work(m: usize, nx: usize, n: u64, tails: usize) -> f64 {
    let draw = nx.min(m - nx) as f64;
    n as f64 * (SAMPLED_PER_ITEM * draw + DIRECT_PER_SPLIT * tails as f64)
}

// Relative costs of the engines' steps, chosen so that both engines' estimates track their
// measured times alike (`weat::MAX_TEST_WORK` has the timings).
const DIRECT_PER_ITEM: f64 = 1.0;
const DIRECT_PER_SPLIT: f64 = 4.0;
const MITM_PER_LOW_SUM: f64 = 4.0;
const MITM_PER_SEARCH_STEP: f64 = 10.0;
const MITM_PER_HIGH_MASK: f64 = 4.0;
// A sampled split draws each item with the generator: 10^7 splits of 32 + 32 scores took
// 1.2 s and of 100 + 100 3.5 s (2 cores, dev profile), 1.75 units an item at 5·10^8 a second.
const SAMPLED_PER_ITEM: f64 = 1.75;

/// `C(n, k)` as a float: only an estimate's ingredient.
fn choose(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    let k = k.min(n - k);
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// How many of the C(m, nx) splits are extreme, enumerating all, by the cheaper engine of
/// [`exact_cost`]; stops with [`Cancelled`] soon after `cancel` is set.
pub(crate) fn exact(
    scores: &[f64],
    nx: usize,
    tails: Tails,
    cancel: &AtomicBool,
) -> Result<u64, Cancelled> {
    let m = scores.len();
    let quant = Quantized::new(scores, nx);
    let rules = rules(&quant, tails);
    match exact_cost(m, nx, rules.len()).engine {
        Engine::MeetInTheMiddle => meet_in_the_middle(&quant, &rules, nx, cancel),
        Engine::Direct => direct(&quant, &rules, nx, cancel),
    }
}

/// Every split visited as a subset of the smaller side, in lexicographic order, in parallel
/// over the subset's first (smallest) index.
fn direct(
    quant: &Quantized,
    rules: &[Rule],
    nx: usize,
    cancel: &AtomicBool,
) -> Result<u64, Cancelled> {
    let m = quant.q.len();
    let draw = nx.min(m - nx);
    let drawn_is_x = draw == nx;
    let total_q: i64 = quant.q.iter().sum();
    (0..=m - draw)
        .into_par_iter()
        .map_init(
            || {
                (
                    Vec::with_capacity(draw),
                    vec![false; m],
                    Vec::with_capacity(nx),
                )
            },
            |(subset, member, buf), first| -> Result<u64, Cancelled> {
                subset.clear();
                subset.extend(first..first + draw);
                let mut count = 0u64;
                for visited in 0u64.. {
                    if visited % 4096 == 0 {
                        check(cancel)?;
                    }
                    let drawn: i64 = subset.iter().map(|&i| quant.q[i]).sum();
                    let q = if drawn_is_x { drawn } else { total_q - drawn };
                    let hit = is_extreme(rules, q, || {
                        member.fill(!drawn_is_x);
                        for &i in subset.iter() {
                            member[i] = drawn_is_x;
                        }
                        quant.numpy_subset_sum((0..m).filter(|&i| member[i]), buf)
                    });
                    count += u64::from(hit);
                    // The next subset with the same first index: advance the rightmost index
                    // that can move, and put the ones after it right behind it.
                    let Some(j) = (1..draw).rev().find(|&j| subset[j] < m - draw + j) else {
                        break;
                    };
                    subset[j] += 1;
                    for t in j + 1..draw {
                        subset[t] = subset[t - 1] + 1;
                    }
                }
                Ok(count)
            },
        )
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// Meet in the middle (see the module docs).
fn meet_in_the_middle(
    quant: &Quantized,
    rules: &[Rule],
    nx: usize,
    cancel: &AtomicBool,
) -> Result<u64, Cancelled> {
    let m = quant.q.len();
    let low_bits = m.div_ceil(2).min(MAX_LOW_BITS);
    let high_bits = m - low_bits;
    // Low-half subset sums grouped by size, sorted by sum (ties broken by mask: deterministic).
    let mut by_size: Vec<Vec<(i64, u64)>> = vec![Vec::new(); low_bits + 1];
    for mask in 0u64..(1u64 << low_bits) {
        let sum = bits(mask).map(|i| quant.q[i]).sum();
        by_size[mask.count_ones() as usize].push((sum, mask));
    }
    for group in &mut by_size {
        group.sort_unstable();
    }
    let high_count = 1u64 << high_bits;
    // Chunks of high subsets, spread over rayon's pool (a battery's tests share it).
    const CHUNK: u64 = 256;
    (0..high_count.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(
            || Vec::with_capacity(nx),
            |buf, chunk| -> Result<u64, Cancelled> {
                check(cancel)?;
                let mut count = 0u64;
                for high in chunk * CHUNK..((chunk + 1) * CHUNK).min(high_count) {
                    let k = high.count_ones() as usize;
                    if k > nx || nx - k > low_bits {
                        continue;
                    }
                    let base: i64 = bits(high).map(|i| quant.q[i + low_bits]).sum();
                    let group = &by_size[nx - k];
                    for rule in rules {
                        count += count_group(quant, rule, group, base, high << low_bits, buf);
                    }
                }
                Ok(count)
            },
        )
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// Extreme splits among `high_mask` joined with each low subset in `group` (sorted by sum).
fn count_group(
    quant: &Quantized,
    rule: &Rule,
    group: &[(i64, u64)],
    base: i64,
    high_mask: u64,
    buf: &mut Vec<f64>,
) -> u64 {
    // Indices where base + q crosses the sure-below and sure-above lines.
    let below_end = group.partition_point(|&(q, _)| base + q <= rule.sure_below());
    let above_start = group.partition_point(|&(q, _)| base + q < rule.sure_above());
    let sure_hits = if rule.upper {
        group.len() - above_start
    } else {
        below_end
    };
    let near_hits = group[below_end..above_start]
        .iter()
        .filter(|&&(_, low)| rule.hit_exact(quant.numpy_subset_sum(bits(high_mask | low), buf)))
        .count();
    (sure_hits + near_hits) as u64
}

/// Indices of the set bits of `mask`, ascending.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let i = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            i
        })
    })
}

/// Random splits per generator stream: fixed, so results do not depend on the thread count.
const SAMPLES_PER_STREAM: u64 = 1 << 16;

/// How many of `n` uniformly random splits are extreme.
///
/// Stream `c` of `ChaCha8Rng::seed_from_u64(seed)` draws samples `c·2^16 ..`; each split is a
/// partial Fisher–Yates draw of the smaller side.
pub(crate) fn sampled(
    scores: &[f64],
    nx: usize,
    tails: Tails,
    n: u64,
    seed: u64,
    cancel: &AtomicBool,
) -> Result<u64, Cancelled> {
    let m = scores.len();
    let quant = Quantized::new(scores, nx);
    let rules = rules(&quant, tails);
    let total_q: i64 = quant.q.iter().sum();
    // Draw whichever side is smaller; the X-sum of the other is total − drawn (exact in integers).
    let draw = nx.min(m - nx);
    let drawn_is_x = draw == nx;
    let streams = n.div_ceil(SAMPLES_PER_STREAM);
    (0..streams)
        .into_par_iter()
        .map(|stream| -> Result<u64, Cancelled> {
            let mut perm: Vec<usize> = (0..m).collect();
            let mut member = vec![false; m];
            let mut buf = Vec::with_capacity(nx);
            let mut count = 0u64;
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            rng.set_stream(stream);
            let samples = SAMPLES_PER_STREAM.min(n - stream * SAMPLES_PER_STREAM);
            for sample in 0..samples {
                if sample % 4096 == 0 {
                    check(cancel)?;
                }
                let mut drawn = 0i64;
                for i in 0..draw {
                    let j = rng.random_range(i..m);
                    perm.swap(i, j);
                    drawn += quant.q[perm[i]];
                }
                let q = if drawn_is_x { drawn } else { total_q - drawn };
                let hit = is_extreme(&rules, q, || {
                    member.fill(!drawn_is_x);
                    for &i in &perm[..draw] {
                        member[i] = drawn_is_x;
                    }
                    quant.numpy_subset_sum((0..m).filter(|&i| member[i]), &mut buf)
                });
                count += u64::from(hit);
            }
            Ok(count)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Never set: the work runs to its end.
    static GO: AtomicBool = AtomicBool::new(false);

    /// The count of each engine, whichever [`exact_cost`] would pick.
    fn engines(scores: &[f64], nx: usize, tails: Tails) -> [Result<u64, Cancelled>; 2] {
        let quant = Quantized::new(scores, nx);
        let rules = rules(&quant, tails);
        [
            meet_in_the_middle(&quant, &rules, nx, &GO),
            direct(&quant, &rules, nx, &GO),
        ]
    }

    /// Every split visited one by one, decided by numpy sums: the definition.
    fn brute_force(scores: &[f64], nx: usize, tails: Tails) -> u64 {
        let m = scores.len();
        (0u64..(1 << m))
            .filter(|mask| mask.count_ones() as usize == nx)
            .filter(|&mask| {
                let members: Vec<f64> = bits(mask).map(|i| scores[i]).collect();
                let s = numpy_sum(&members);
                s >= tails.at_least || tails.at_most.is_some_and(|t| s <= t)
            })
            .count() as u64
    }

    fn lcg_scores(m: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..m)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn exact_count_matches_brute_force() {
        for (m, nx) in [(2, 1), (8, 4), (9, 3), (12, 6), (13, 7), (16, 8), (15, 5)] {
            for seed in 0..4 {
                let scores = lcg_scores(m, seed);
                let obs = numpy_sum(&scores[..nx]);
                for tails in [
                    Tails {
                        at_least: obs,
                        at_most: None,
                    },
                    Tails {
                        at_least: obs.max(-obs),
                        at_most: Some(obs.min(-obs)),
                    },
                ] {
                    let expected = Ok(brute_force(&scores, nx, tails));
                    assert_eq!(
                        engines(&scores, nx, tails),
                        [expected; 2],
                        "m={m} nx={nx} seed={seed}"
                    );
                }
            }
        }
    }

    proptest::proptest! {
        /// Any scores — drawn from a few values so that sums tie or nearly tie in floats —
        /// any split sizes, both tails: the engine counts exactly what brute force counts.
        #[test]
        fn exact_engine_equals_brute_force(
            picks in proptest::collection::vec(0usize..5, 2..13),
            values in proptest::array::uniform5(-1.0f64..1.0),
            nx_fraction in 0.0f64..1.0,
            shift in -0.5f64..0.5,
        ) {
            let scores: Vec<f64> = picks.iter().map(|&i| values[i] / [1.0, 3.0, 7.0, 10.0, 1.0][i]).collect();
            let m = scores.len();
            let nx = 1 + ((m - 1) as f64 * nx_fraction) as usize;
            let nx = nx.min(m - 1);
            let obs = numpy_sum(&scores[..nx]);
            for tails in [
                Tails { at_least: obs, at_most: None },
                Tails { at_least: obs + shift.abs(), at_most: Some(obs - shift.abs()) },
            ] {
                proptest::prop_assert_eq!(engines(&scores, nx, tails), [Ok(brute_force(&scores, nx, tails)); 2]);
            }
        }
    }

    #[test]
    fn ties_from_repeated_scores_count_like_numpy() {
        // 0.1, 0.2, 0.3 repeat: sums of the same multiset in different orders differ in the last
        // bit, which is exactly where the band recomputes.
        let scores: Vec<f64> = (0..14).map(|i| [0.1, 0.2, 0.3, 0.7][i % 4]).collect();
        for nx in [3, 7] {
            let obs = numpy_sum(&scores[..nx]);
            let tails = Tails {
                at_least: obs,
                at_most: None,
            };
            assert_eq!(
                engines(&scores, nx, tails),
                [Ok(brute_force(&scores, nx, tails)); 2]
            );
        }
    }

    #[test]
    fn all_equal_scores_tie_everywhere() {
        let scores = vec![0.25; 12];
        let tails = Tails {
            at_least: numpy_sum(&scores[..6]),
            at_most: None,
        };
        assert_eq!(engines(&scores, 6, tails), [Ok(924); 2]);
        assert_eq!(sampled(&scores, 6, tails, 1000, 7, &GO).unwrap(), 1000);
        let zeros = vec![0.0; 10];
        assert_eq!(
            exact(
                &zeros,
                5,
                Tails {
                    at_least: 0.0,
                    at_most: None
                },
                &GO
            ),
            Ok(252)
        );
    }

    #[test]
    fn a_small_side_among_many_items_is_enumerated_directly() {
        // 1 and 2 items against 1000: beyond 64-bit masks, yet only 1001 and C(1002, 2) splits.
        let scores = lcg_scores(1002, 11);
        for nx in [1, 2, 1000] {
            let m = if nx == 2 { 1002 } else { 1001 };
            let scores = &scores[..m];
            let tails = Tails {
                at_least: numpy_sum(&scores[..nx]),
                at_most: None,
            };
            assert_eq!(exact_cost(m, nx, 1).engine, Engine::Direct);
            // Brute force over the smaller side's subsets, decided by numpy sums.
            let draw = nx.min(m - nx);
            let x_sum = |drawn: &[usize]| {
                let members: Vec<f64> = (0..m)
                    .filter(|i| drawn.contains(i) == (draw == nx))
                    .map(|i| scores[i])
                    .collect();
                numpy_sum(&members)
            };
            let subsets: Vec<Vec<usize>> = if draw == 1 {
                (0..m).map(|i| vec![i]).collect()
            } else {
                (0..m)
                    .flat_map(|i| (i + 1..m).map(move |j| vec![i, j]))
                    .collect()
            };
            let expected = subsets
                .iter()
                .filter(|drawn| x_sum(drawn) >= tails.at_least)
                .count();
            assert!(
                expected > 0 && expected < subsets.len(),
                "a middling count: {expected}"
            );
            assert_eq!(
                exact(scores, nx, tails, &GO),
                Ok(expected as u64),
                "nx={nx}"
            );
        }
    }

    #[test]
    fn the_cheaper_engine_is_chosen_and_costs_grow_with_the_splits() {
        assert_eq!(exact_cost(32, 16, 1).engine, Engine::MeetInTheMiddle);
        assert_eq!(exact_cost(42, 2, 1).engine, Engine::Direct);
        assert!(
            exact_cost(200, 100, 1).work > 1e58,
            "C(200, 100) ≈ 9·10^58 splits"
        );
        // Each added pair of items costs more, and two tails cost more than one.
        let works: Vec<f64> = (20..=30).map(|n| exact_cost(2 * n, n, 1).work).collect();
        assert!(works.windows(2).all(|w| w[1] > 2.0 * w[0]), "{works:?}");
        assert!(exact_cost(48, 24, 2).work > exact_cost(48, 24, 1).work);
    }

    #[test]
    fn a_set_flag_stops_every_engine() {
        let scores = lcg_scores(40, 2);
        let tails = Tails {
            at_least: numpy_sum(&scores[..20]),
            at_most: None,
        };
        let stop = AtomicBool::new(true);
        let quant = Quantized::new(&scores, 20);
        let rules = rules(&quant, tails);
        assert_eq!(
            meet_in_the_middle(&quant, &rules, 20, &stop),
            Err(Cancelled)
        );
        assert_eq!(direct(&quant, &rules, 20, &stop), Err(Cancelled));
        assert_eq!(
            sampled(&scores, 20, tails, 1_000_000, 1, &stop),
            Err(Cancelled)
        );
        // Set from another thread while the work runs: it stops long before its end (C(40, 20)
        // = 1.4·10^11 splits directly would take minutes).
        let stop = AtomicBool::new(false);
        let started = std::time::Instant::now();
        let result = std::thread::scope(|s| {
            let work = s.spawn(|| direct(&quant, &rules, 20, &stop));
            std::thread::sleep(std::time::Duration::from_millis(200));
            stop.store(true, Ordering::Relaxed);
            work.join().unwrap()
        });
        assert_eq!(result, Err(Cancelled));
        assert!(started.elapsed().as_secs() < 10, "{:?}", started.elapsed());
    }

    #[test]
    fn sampled_frequency_approaches_exact() {
        let scores = lcg_scores(16, 3);
        // The mean subset sum: p near 0.5, where a wrong sampler shows most.
        let obs = numpy_sum(&scores) / 2.0;
        let tails = Tails {
            at_least: obs,
            at_most: None,
        };
        let p_exact = exact(&scores, 8, tails, &GO).unwrap() as f64 / 12870.0;
        let n = 200_000;
        let p_sampled = sampled(&scores, 8, tails, n, 1, &GO).unwrap() as f64 / n as f64;
        // 4.5 binomial standard errors.
        let se = (p_exact * (1.0 - p_exact) / n as f64).sqrt();
        assert!(
            (p_sampled - p_exact).abs() < 4.5 * se,
            "{p_sampled} vs {p_exact}"
        );
        assert!(
            p_exact > 0.05 && p_exact < 0.95,
            "a test that can fail needs a middling p: {p_exact}"
        );
    }

    #[test]
    fn sampling_is_seeded_and_drawing_the_smaller_side_is_unbiased() {
        let scores = lcg_scores(20, 5);
        let nx = 14;
        let obs = numpy_sum(&scores[..nx]);
        let tails = Tails {
            at_least: obs - 0.5,
            at_most: None,
        };
        let a = sampled(&scores, nx, tails, 150_000, 9, &GO).unwrap();
        assert_eq!(a, sampled(&scores, nx, tails, 150_000, 9, &GO).unwrap());
        assert_ne!(a, sampled(&scores, nx, tails, 150_000, 10, &GO).unwrap());
        let p_exact = exact(&scores, nx, tails, &GO).unwrap() as f64 / 38760.0;
        let p = a as f64 / 150_000.0;
        let se = (p_exact * (1.0 - p_exact) / 150_000.0).sqrt();
        assert!((p - p_exact).abs() < 4.5 * se, "{p} vs {p_exact}");
    }
}
