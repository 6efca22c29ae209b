//! The originals' percentages with what they leave out: an exact two-sided binomial test
//! against 50 %, a 95 % Clopper–Pearson interval, Holm's correction across bias types, and an
//! exact McNemar test between two models on the same pairs.
//!
//! The score is the originals' (`stereotypical / pairs`, ties among the pairs and not
//! stereotypical: metric.py's "Metric score", Kaneko & Bollegala's "Bias score"). The test and
//! the interval are over the pairs a measure decided (ties left out, the sign test's rule):
//! with no tie they are about exactly the score; metric.py's own "Stereotype score" and
//! "Anti-stereotype score" leave ties out the same way.

use std::collections::BTreeMap;

use lmbias_metrics::binomial::{Alternative, binomial_test, clopper_pearson, mcnemar_exact};
use lmbias_metrics::correction::holm;
use serde::{Deserialize, Serialize};

use super::{Decision, DirectionName, Measure, PairScore};

/// The interval's confidence level.
pub const LEVEL: f64 = 0.95;
/// The level a test must reach for a verdict other than [`Verdict::WithinChance`].
pub const ALPHA: f64 = 0.05;

/// What a share may be called. Never "stereotypical" when its interval contains 50 %.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval lies above 50 % and the (Holm-adjusted, for a bias type) p is below 0.05.
    Stereotypical,
    /// The interval lies below 50 % and the p is below 0.05.
    AntiStereotypical,
    /// Otherwise: the data do not tell the share from 50 %.
    WithinChance,
    /// No pair was decided.
    NoData,
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
    /// The 95 % Clopper–Pearson interval of `stereotypical / (pairs − ties)`, in percent.
    pub interval: Option<[f64; 2]>,
    /// What the share may be called.
    pub verdict: Verdict,
}

impl Share {
    fn of(decisions: impl Iterator<Item = Decision>) -> Share {
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
        let decided = pairs - ties;
        let test = binomial_test(stereotypical, decided, 0.5, Alternative::TwoSided).ok();
        let interval = clopper_pearson(stereotypical, decided, LEVEL)
            .ok()
            .map(|(lo, hi)| [100.0 * lo, 100.0 * hi]);
        let mut share = Share {
            pairs,
            stereotypical,
            ties,
            score: (pairs > 0).then(|| 100.0 * stereotypical as f64 / pairs as f64),
            p_value: test.map(|t| t.p_value),
            holm_p: None,
            interval,
            verdict: Verdict::NoData,
        };
        share.verdict = share.judge(share.p_value);
        share
    }

    /// The verdict with `p` as the share's p-value.
    fn judge(&self, p: Option<f64>) -> Verdict {
        match (p, self.interval) {
            (Some(p), Some([lo, _])) if p < ALPHA && lo > 50.0 => Verdict::Stereotypical,
            (Some(p), Some([_, hi])) if p < ALPHA && hi < 50.0 => Verdict::AntiStereotypical,
            (Some(_), Some(_)) => Verdict::WithinChance,
            _ => Verdict::NoData,
        }
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

/// Every measure's summary of `pairs`.
pub fn summarize(pairs: &[PairScore]) -> Vec<MeasureSummary> {
    Measure::ALL
        .iter()
        .map(|&m| summarize_measure(pairs, m))
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
    // Holm across the types that have a test; a type with no decided pair has none.
    let tested: Vec<(&String, f64)> = bias_types
        .iter()
        .filter_map(|(t, s)| s.p_value.map(|p| (t, p)))
        .collect();
    let p: Vec<f64> = tested.iter().map(|(_, p)| *p).collect();
    let names: Vec<String> = tested.iter().map(|(t, _)| (*t).clone()).collect();
    if let Ok(adjusted) = holm(&p) {
        for (name, q) in names.iter().zip(adjusted) {
            if let Some(share) = bias_types.get_mut(name) {
                share.holm_p = Some(q);
                share.verdict = share.judge(Some(q));
            }
        }
    }
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
    /// The runs scored different pairs, or the same pairs in another order.
    #[error(
        "the two runs scored different pairs: pair {index} is {first:?} in one and {second:?} in the other"
    )]
    DifferentPairs {
        /// The first position where they differ.
        index: usize,
        /// The first run's pair id there (`None`: it has fewer pairs).
        first: Option<String>,
        /// The second run's.
        second: Option<String>,
    },
}

/// The exact McNemar test of two models' decisions on the same pairs, for every measure.
pub fn compare(first: &[PairScore], second: &[PairScore]) -> Result<Vec<Comparison>, CompareError> {
    let n = first.len().max(second.len());
    for index in 0..n {
        let (a, b) = (first.get(index), second.get(index));
        if a.map(|p| &p.id) != b.map(|p| &p.id) {
            return Err(CompareError::DifferentPairs {
                index,
                first: a.map(|p| p.id.clone()),
                second: b.map(|p| p.id.clone()),
            });
        }
    }
    Ok(Measure::ALL
        .iter()
        .map(|&measure| {
            let (mut pairs, mut both, mut only_first, mut only_second) = (0, 0, 0, 0);
            for (a, b) in first.iter().zip(second) {
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
