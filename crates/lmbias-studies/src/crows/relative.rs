//! Relative bias between two models on the same pairs (e.g. a base model and its fine-tuned
//! or adapted copy), per measure: each pair's difference of differences
//!
//! d = (m2(sent_more) − m1(sent_more)) − (m2(sent_less) − m1(sent_less)),
//!
//! the change from the base (m1) to the other model (m2) in how much more likely `sent_more` is
//! than `sent_less`; an exact two-sided sign test over the pairs that moved; and the share that
//! moved toward the stereotype (d > 0; d < 0 for the error-like CRR, CRRA, ΔP, ΔPA).
//!
//! Beside it, mlm-bias 0.1.7's own percentage (`RelativeBiasMLMs.evaluate`), whose code
//! computes `(m2_S1 − m1_S1) − (m2_S2 − m2_S1)`: the second difference subtracts m2's S1 where
//! m1's S2 belongs, which reads as a typo for the difference of differences. It is reported
//! under a name that says so (`mlm_bias_formula`), as mlm-bias computes it: the share of all
//! pairs with a value above 0, for every measure alike (a NaN, or a value lmbias skips,
//! counts as not above 0).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::summary::{CompareError, Share, holm_across, matched};
use super::{Decision, Measure, PairScore};

/// One measure's relative bias.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelativeMeasure {
    /// The measure.
    pub measure: Measure,
    /// Its name with its source.
    pub label: String,
    /// The pairs that moved toward the stereotype (`stereotypical`) against those that moved
    /// away, `ties` the pairs with d = 0: the sign test's p, its Clopper–Pearson interval, and
    /// Holm across the measures of this comparison.
    pub toward: Share,
    /// Pairs a model did not score under this measure (bias-bench's and SSS's skips).
    pub skipped: u64,
    /// The mean of d over the pairs scored.
    pub mean_difference: Option<f64>,
    /// mlm-bias 0.1.7's percentage with its formula as written (see the module).
    pub mlm_bias_formula: f64,
}

/// One pair's d under each measure both models scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelativePair {
    /// The pair's id.
    pub id: String,
    /// Its line.
    pub line: usize,
    /// Its bias type.
    pub bias_type: String,
    /// d per measure, by its JSON name.
    pub differences: BTreeMap<String, f64>,
}

/// Relative bias of `other` against `base` on the pairs both scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RelativeBias {
    /// One entry per measure both runs computed, in report order.
    pub measures: Vec<RelativeMeasure>,
    /// Every pair both scored, in the base's order.
    pub pairs: Vec<RelativePair>,
}

/// The relative bias of `other` against `base`. The two must have read every pair as the same
/// pieces (one vocabulary), else values of different tokenizations would be subtracted.
pub fn relative(base: &[PairScore], other: &[PairScore]) -> Result<RelativeBias, CompareError> {
    let matched = matched(base, other)?;
    if let Some((a, b)) = matched
        .iter()
        .find(|(a, b)| a.more.tokens != b.more.tokens || a.less.tokens != b.less.tokens)
    {
        return Err(CompareError::DifferentPieces {
            line: a.line,
            first: a.more.tokens.len(),
            second: b.more.tokens.len(),
        });
    }
    let measures: Vec<Measure> = Measure::ALL
        .into_iter()
        .filter(|&m| {
            matched
                .first()
                .is_none_or(|(a, b)| a.decisions.has(m) && b.decisions.has(m))
        })
        .collect();
    let difference = |m: Measure, a: &PairScore, b: &PairScore| -> Option<f64> {
        let (m1s1, m1s2) = (a.more.get(m)?, a.less.get(m)?);
        let (m2s1, m2s2) = (b.more.get(m)?, b.less.get(m)?);
        Some((m2s1 - m1s1) - (m2s2 - m1s2))
    };
    let mut out: Vec<RelativeMeasure> = measures
        .iter()
        .map(|&m| {
            let d: Vec<Option<f64>> = matched.iter().map(|(a, b)| difference(m, a, b)).collect();
            let toward = |d: f64| if m.lower_is_likelier() { -d } else { d };
            let decisions = d.iter().map(|d| match d.map(toward) {
                None => Decision::Skipped,
                Some(x) if x > 0.0 => Decision::Stereotypical,
                Some(x) if x < 0.0 => Decision::NotStereotypical,
                Some(_) => Decision::Tie,
            });
            let scored: Vec<f64> = d.iter().flatten().copied().collect();
            // mlm-bias: (m21 − m11) − (m22 − m21) > 0, np.mean over every pair.
            let formula = matched
                .iter()
                .filter(|(a, b)| {
                    let values = (a.more.get(m), b.more.get(m), b.less.get(m));
                    matches!(values, (Some(m11), Some(m21), Some(m22)) if (m21 - m11) - (m22 - m21) > 0.0)
                })
                .count();
            RelativeMeasure {
                measure: m,
                label: m.label().to_owned(),
                toward: Share::of(decisions),
                skipped: (d.len() - scored.len()) as u64,
                mean_difference: (!scored.is_empty())
                    .then(|| scored.iter().sum::<f64>() / scored.len() as f64),
                mlm_bias_formula: if matched.is_empty() {
                    0.0
                } else {
                    100.0 * formula as f64 / matched.len() as f64
                },
            }
        })
        .collect();
    holm_across(out.iter_mut().map(|r| &mut r.toward));
    let pairs = matched
        .iter()
        .map(|(a, b)| RelativePair {
            id: a.id.clone(),
            line: a.line,
            bias_type: a.bias_type.clone(),
            differences: measures
                .iter()
                .filter_map(|&m| Some((m.as_str().to_owned(), difference(m, a, b)?)))
                .collect(),
        })
        .collect();
    Ok(RelativeBias {
        measures: out,
        pairs,
    })
}
