//! The originals' percentages with what they leave out: an exact two-sided binomial test
//! against 50 %, a Clopper–Pearson interval, Holm's correction across bias types, and an
//! exact McNemar test between two models on the same pairs.
//!
//! A share's verdict, p and interval always agree. The verdict is read off the interval (it
//! excludes 50 % or it does not), and the interval is at the level of the p it is printed
//! with: 95 % for the uncorrected shares (all pairs, each direction), whose exact two-sided p
//! against 1/2 is below 0.05 exactly when that interval excludes 50 % (the binomial at 1/2 is
//! symmetric, so its two-sided p is twice the tail the Clopper–Pearson bound inverts); for the
//! bias types, whose p is Holm's, the level at which Holm's procedure stopped,
//! 1 − 0.05 / (m − R) with m types tested and R rejected (1 − 0.05 when all are), so that an
//! interval excludes 50 % exactly when the Holm-adjusted p is below 0.05. For the types Holm
//! does not reject these are Strassburger & Bretz's (2008, *Statistics in Medicine* 27)
//! Holm-compatible simultaneous intervals.
//!
//! The score is the originals' (`stereotypical / pairs`, ties among the pairs and not
//! stereotypical: metric.py's "Metric score", Kaneko & Bollegala's "Bias score"). The test and
//! the interval are over the pairs a measure decided (ties left out, the sign test's rule):
//! with no tie they are about exactly the score; metric.py's own "Stereotype score" and
//! "Anti-stereotype score" leave ties out the same way.

use std::collections::{BTreeMap, HashMap};

use lmbias_metrics::binomial::{Alternative, binomial_test, clopper_pearson, mcnemar_exact};
use lmbias_metrics::correction::holm;
use serde::{Deserialize, Serialize};

use super::{Decision, DirectionName, Measure, Measures, PairScore};

/// The uncorrected interval's confidence level.
pub const LEVEL: f64 = 0.95;
/// The level a test must reach for a verdict other than [`Verdict::NotSignificant`].
pub const ALPHA: f64 = 0.05;

/// What a share may be called: read off its interval, which is at the level of its p.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies above 50 %: its (Holm-adjusted, for a bias type) p is below 0.05.
    Stereotypical,
    /// The interval lies below 50 %: likewise.
    AntiStereotypical,
    /// The interval contains 50 %: the (adjusted) p is not below 0.05.
    NotSignificant,
    /// No pair was decided.
    NoData,
}

impl Verdict {
    /// The verdict an interval (in percent) gives.
    fn of(interval: Option<[f64; 2]>) -> Verdict {
        match interval {
            Some([lo, _]) if lo > 50.0 => Verdict::Stereotypical,
            Some([_, hi]) if hi < 50.0 => Verdict::AntiStereotypical,
            Some(_) => Verdict::NotSignificant,
            None => Verdict::NoData,
        }
    }
}

/// Which correction a share's p and interval carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    /// None: all pairs and each direction are tested on their own.
    None,
    /// Holm's, across the bias types.
    Holm {
        /// Bias types with a test (m).
        tests: usize,
        /// Those whose adjusted p is below [`ALPHA`] (R).
        rejected: usize,
    },
}

/// One share: all pairs, a direction, or a bias type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Share {
    /// Pairs the measure scored (ties included, skipped ones not).
    pub pairs: u64,
    /// Pairs where `sent_more` scored higher.
    pub stereotypical: u64,
    /// Pairs with equal scores.
    pub ties: u64,
    /// `100 · stereotypical / pairs`: the originals' percentage.
    pub score: Option<f64>,
    /// Exact two-sided binomial p of `stereotypical` of `pairs − ties` against 1/2.
    pub p_value: Option<f64>,
    /// Holm's adjustment of `p_value` across the bias types (bias-type shares only).
    pub holm_p: Option<f64>,
    /// The Clopper–Pearson interval of `stereotypical / (pairs − ties)` at `interval_level`,
    /// in percent.
    pub interval: Option<[f64; 2]>,
    /// The interval's confidence level: [`LEVEL`] uncorrected; for a bias type the level at
    /// which Holm's procedure stopped (see the module's doc).
    pub interval_level: f64,
    /// The correction the p the verdict rests on carries.
    pub correction: Correction,
    /// What the share may be called, read off the interval.
    pub verdict: Verdict,
}

impl Share {
    pub(crate) fn of(decisions: impl Iterator<Item = Decision>) -> Share {
        let (mut pairs, mut stereotypical, mut ties) = (0u64, 0u64, 0u64);
        for d in decisions {
            match d {
                Decision::Stereotypical => {
                    pairs += 1;
                    stereotypical += 1;
                }
                Decision::NotStereotypical => pairs += 1,
                Decision::Tie => {
                    pairs += 1;
                    ties += 1;
                }
                Decision::Skipped => {}
            }
        }
        let test = binomial_test(stereotypical, pairs - ties, 0.5, Alternative::TwoSided).ok();
        let mut share = Share {
            pairs,
            stereotypical,
            ties,
            score: (pairs > 0).then(|| 100.0 * stereotypical as f64 / pairs as f64),
            p_value: test.map(|t| t.p_value),
            holm_p: None,
            interval: None,
            interval_level: LEVEL,
            correction: Correction::None,
            verdict: Verdict::NoData,
        };
        share.set_interval(LEVEL);
        share
    }

    /// The interval at `level` and the verdict it gives.
    fn set_interval(&mut self, level: f64) {
        self.interval_level = level;
        self.interval = clopper_pearson(self.stereotypical, self.pairs - self.ties, level)
            .ok()
            .map(|(lo, hi)| [100.0 * lo, 100.0 * hi]);
        self.verdict = Verdict::of(self.interval);
    }
}

/// One measure over a set of pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MeasureSummary {
    /// The measure.
    pub measure: Measure,
    /// Its name with its source.
    pub label: String,
    /// Every pair.
    pub overall: Share,
    /// The `stereo` pairs.
    pub stereo: Share,
    /// The `antistereo` pairs.
    pub antistereo: Share,
    /// Each bias type, by name; their p-values Holm-adjusted together.
    pub bias_types: BTreeMap<String, Share>,
    /// Pairs the measure skipped.
    pub skipped: u64,
}

/// The summary of `pairs` by each measure of `measures`.
pub fn summarize(pairs: &[PairScore], measures: Measures) -> Vec<MeasureSummary> {
    measures
        .iter()
        .map(|m| summarize_measure(pairs, m))
        .collect()
}

fn summarize_measure(pairs: &[PairScore], measure: Measure) -> MeasureSummary {
    let decisions = |keep: &dyn Fn(&PairScore) -> bool| {
        pairs
            .iter()
            .filter(|p| keep(p))
            .map(|p| p.decisions.get(measure))
            .collect::<Vec<_>>()
    };
    let mut types: Vec<&str> = pairs.iter().map(|p| p.bias_type.as_str()).collect();
    types.sort_unstable();
    types.dedup();
    let mut bias_types: BTreeMap<String, Share> = types
        .iter()
        .map(|&t| {
            let share = Share::of(decisions(&|p| p.bias_type == t).into_iter());
            (t.to_owned(), share)
        })
        .collect();
    holm_across(bias_types.values_mut());
    let all = decisions(&|_| true);
    MeasureSummary {
        measure,
        label: measure.label().to_owned(),
        skipped: all.iter().filter(|d| **d == Decision::Skipped).count() as u64,
        overall: Share::of(all.into_iter()),
        stereo: Share::of(decisions(&|p| p.direction == DirectionName::Stereo).into_iter()),
        antistereo: Share::of(decisions(&|p| p.direction == DirectionName::Antistereo).into_iter()),
        bias_types,
    }
}

/// Holm's correction across `shares` that have a test (one with no decided pair has none),
/// each interval set at the level where the procedure stopped.
pub(crate) fn holm_across<'s>(shares: impl Iterator<Item = &'s mut Share>) {
    let mut tested: Vec<&mut Share> = shares.filter(|s| s.p_value.is_some()).collect();
    let p: Vec<f64> = tested.iter().filter_map(|s| s.p_value).collect();
    if let Ok(adjusted) = holm(&p) {
        // Holm stopped after R rejections: its next step's level, 1 − α/(m − R), is the one
        // at which an interval excludes 50 % exactly for the rejected shares.
        let (tests, rejected) = (
            adjusted.len(),
            adjusted.iter().filter(|q| **q < ALPHA).count(),
        );
        let level = 1.0 - ALPHA / (tests - rejected).max(1) as f64;
        for (share, q) in tested.iter_mut().zip(adjusted) {
            share.holm_p = Some(q);
            share.correction = Correction::Holm { tests, rejected };
            share.set_interval(level);
        }
    }
}

/// Two models on the same pairs, one measure: how often each alone found a pair
/// stereotypical, and the exact McNemar test of those discordant pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The measure.
    pub measure: Measure,
    /// Pairs both models decided (a tie or a skip on either side leaves a pair out).
    pub pairs: u64,
    /// Pairs both found stereotypical.
    pub both: u64,
    /// Pairs only the first found stereotypical.
    pub only_first: u64,
    /// Pairs only the second found stereotypical.
    pub only_second: u64,
    /// Exact two-sided McNemar p of `only_first` against `only_second`.
    pub p_value: f64,
}

/// Why two runs cannot be compared pair by pair.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompareError {
    /// Relative bias compares one reading of each sentence: two tokenizations cannot be set
    /// against each other value by value.
    #[error(
        "the two models read line {line} as different pieces ({first} and {second} pieces in \
         sent_more): relative bias needs two models of one vocabulary (e.g. a model and its \
         fine-tuned copy)"
    )]
    DifferentPieces {
        /// The first line where they differ.
        line: usize,
        /// The first model's pieces of that line's `sent_more`.
        first: usize,
        /// The second's.
        second: usize,
    },
    /// The runs gave one line of the file different pairs: they read different files.
    #[error(
        "the two runs scored different pairs: line {line} is pair {first:?} in one and {second:?} in the other"
    )]
    DifferentPairs {
        /// The line where they differ.
        line: usize,
        /// The first run's pair id there.
        first: String,
        /// The second run's.
        second: String,
    },
}

/// The exact McNemar test of two models' decisions on the same pairs, for every measure.
/// Pairs are matched by their line; a pair one model set aside (the same pieces to its
/// tokenizer) is left out, as a tie is.
pub fn compare(first: &[PairScore], second: &[PairScore]) -> Result<Vec<Comparison>, CompareError> {
    let matched = matched(first, second)?;
    // The measures both runs computed (mlm-bias's are asked for run by run).
    let computed = |m: &Measure| {
        matched
            .first()
            .is_none_or(|(a, b)| a.decisions.has(*m) && b.decisions.has(*m))
    };
    Ok(Measure::ALL
        .iter()
        .filter(|m| computed(m))
        .map(|&measure| {
            let (mut pairs, mut both, mut only_first, mut only_second) = (0, 0, 0, 0);
            for (a, b) in &matched {
                let decided = |d: Decision| match d {
                    Decision::Stereotypical => Some(true),
                    Decision::NotStereotypical => Some(false),
                    Decision::Tie | Decision::Skipped => None,
                };
                let (Some(x), Some(y)) = (
                    decided(a.decisions.get(measure)),
                    decided(b.decisions.get(measure)),
                ) else {
                    continue;
                };
                pairs += 1;
                match (x, y) {
                    (true, true) => both += 1,
                    (true, false) => only_first += 1,
                    (false, true) => only_second += 1,
                    (false, false) => {}
                }
            }
            Comparison {
                measure,
                pairs,
                both,
                only_first,
                only_second,
                p_value: mcnemar_exact(only_first, only_second),
            }
        })
        .collect())
}

/// The pairs both runs scored, matched by line (a pair one model set aside is left out).
pub(crate) fn matched<'p>(
    first: &'p [PairScore],
    second: &'p [PairScore],
) -> Result<Vec<(&'p PairScore, &'p PairScore)>, CompareError> {
    let by_line: HashMap<usize, &PairScore> = second.iter().map(|p| (p.line, p)).collect();
    let mut matched = Vec::with_capacity(first.len().min(second.len()));
    for a in first {
        if let Some(b) = by_line.get(&a.line) {
            if a.id != b.id {
                return Err(CompareError::DifferentPairs {
                    line: a.line,
                    first: a.id.clone(),
                    second: b.id.clone(),
                });
            }
            matched.push((a, *b));
        }
    }
    Ok(matched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::crows_pairs as pairs;

    fn significant(v: Verdict) -> bool {
        matches!(v, Verdict::Stereotypical | Verdict::AntiStereotypical)
    }

    /// The word, the p it rests on and the printed interval agree for every share: the
    /// verdict is significant exactly when that p is below 0.05 and exactly when the interval
    /// excludes 50 %.
    fn agree(share: &Share, p: Option<f64>) {
        let [lo, hi] = share.interval.expect("a decided share has an interval");
        let excludes = lo > 50.0 || hi < 50.0;
        assert_eq!(significant(share.verdict), excludes, "{share:?}");
        assert_eq!(significant(share.verdict), p.unwrap() < ALPHA, "{share:?}");
    }

    #[test]
    fn uncorrected_shares_agree_at_95_percent() {
        for n in 1..=80 {
            for k in 0..=n {
                let s = summarize_measure(&pairs("t", k, n), Measure::Pll);
                assert_eq!(
                    (s.overall.interval_level, s.overall.correction),
                    (LEVEL, Correction::None)
                );
                agree(&s.overall, s.overall.p_value);
            }
        }
    }

    /// Bias types of many sizes and leanings, Holm across them: each type's interval is at the
    /// level where Holm stopped, and agrees with its Holm-adjusted p (not its raw one).
    #[test]
    fn holm_shares_agree_at_the_level_where_holm_stopped() {
        let mut draws = crate::testing::Draws::new(0x2545_f491_4f6c_dd1d);
        let mut next = |bound: u64| draws.below(bound);
        let mut raw_and_adjusted_differ = 0;
        for _ in 0..400 {
            let m = 2 + next(7);
            let all: Vec<PairScore> = (0..m)
                .flat_map(|t| {
                    let n = 5 + next(120);
                    let k = next(n + 1);
                    pairs(&format!("type{t}"), k, n)
                })
                .collect();
            let s = summarize_measure(&all, Measure::Pll);
            let rejected = s
                .bias_types
                .values()
                .filter(|t| t.holm_p.unwrap() < ALPHA)
                .count();
            for t in s.bias_types.values() {
                assert_eq!(
                    t.correction,
                    Correction::Holm {
                        tests: m as usize,
                        rejected
                    }
                );
                let level = 1.0 - ALPHA / (m as usize - rejected).max(1) as f64;
                assert_eq!(t.interval_level, level);
                agree(t, t.holm_p);
                raw_and_adjusted_differ +=
                    usize::from((t.p_value.unwrap() < ALPHA) != (t.holm_p.unwrap() < ALPHA));
            }
        }
        // The draw reaches the cases where the raw 95 % interval would have disagreed.
        assert!(raw_and_adjusted_differ > 20, "{raw_and_adjusted_differ}");
    }
}
