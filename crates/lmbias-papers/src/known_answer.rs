//! Our known-answer check of the valence method (issues #24, #34, #46), not a paper's: models
//! trained here from all-MiniLM-L6-v2 with one set of settings, vocabulary, seed and step budget
//! on the King James Bible (Early Modern English of 1611), the World English Bible (Modern
//! English), Shakespeare's plays, and mixtures of the two Bibles' verses. Between the two Bibles
//! translation and period both differ.
//!
//! What the check must show is fixed before the run in a claims file
//! (`datasets/valence/known-answer-v2.json`, lmbias-data's [`ClaimsFile`]) whose digest is
//! [`FROZEN_SHA256`]: every claim is about mean B, since A = 1 − |v − B| / 2 is a function of B
//! and v(s) (A is reported, never tested); every proposal is rated by the claims file's lexicon
//! alone, a list that no model's training text or output made; each claim is a one-sided paired
//! sign-flip test over its sentences, the dose-response a Page test over sentences, and all of
//! them share one Holm correction. A claim holds when its mean difference has the expected sign
//! and its Holm-adjusted p is below the file's alpha.

use std::collections::BTreeMap;

use lmbias_data::claims::{ClaimsFile, Pinned};
use lmbias_data::valence::{AnnotationSource, Group};
use lmbias_metrics::bootstrap::{
    BootstrapOptions, ConfidenceInterval, mean_difference_interval, mean_interval,
};
use lmbias_metrics::correction::holm;
use lmbias_metrics::page::{PageTest, page_test};
use lmbias_metrics::sign_flip::{Alternative, SignFlipOptions, SignFlipTest, sign_flip_test};
use lmbias_studies::valence::{ModelResult, SentenceScore};
use serde::Serialize;

/// Where the claims file lives under `datasets/`.
pub const CLAIMS_FILE: &str = "valence/known-answer-v2.json";

/// The sha256 the claims file (v2) was frozen with on 2026-12-06: reproduce-paper refuses any
/// other, so that no claim, set, rater or threshold changes once results are seen. A new claims
/// file is a new version (`known-answer-v3.json`) with its own digest here, and the report says
/// why.
pub const FROZEN_SHA256: &str = "050e959c6d5acce8773465a0a677392ea4860429a3e4cb832dcfef7f4f2335f3";

/// Whether our numbers bear a claim out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The effect points the expected way and the Holm-adjusted p is below alpha.
    Holds,
    /// Either fails.
    DoesNotHold,
}

impl Verdict {
    /// The verdict as the table prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
        }
    }
}

/// One claim, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The claims file's id (C1 …).
    pub id: String,
    /// What must hold.
    pub statement: String,
    /// The model expected to lean Early Modern, by label.
    pub early_model: String,
    /// The model expected to lean Modern, by label.
    pub modern_model: String,
    /// The sentence set.
    pub set: String,
    /// The sentences tested.
    pub group: Group,
    /// Mean B over the group, Early Modern model.
    pub mean_early: f64,
    /// Mean B over the group, Modern model.
    pub mean_modern: f64,
    /// Sentences whose two B differ: the only ones that carry evidence (p ≥ 2^−non_tied).
    pub non_tied: usize,
    /// The one-sided paired sign-flip test of B(early) − B(modern) < 0.
    pub test: SignFlipTest,
    /// The mean difference's 95 % percentile bootstrap interval over sentences.
    pub interval: ConfidenceInterval,
    /// The p-value after Holm's correction over every claim and the dose-response test.
    pub p_holm: f64,
    /// From the test, the correction and alpha, never given.
    pub verdict: Verdict,
}

/// One model's mean B over one group of a set, at one dose.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dose {
    /// The model, by label.
    pub model: String,
    /// Its dose (% Early Modern training verses).
    pub dose: u32,
    /// Mean B over the group.
    pub mean_bias: f64,
    /// Its 95 % bootstrap interval.
    pub interval: ConfidenceInterval,
}

/// The dose-response test, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoseResponse {
    /// The claims file's id (D1).
    pub id: String,
    /// What must hold.
    pub statement: String,
    /// The sentence set.
    pub set: String,
    /// The sentences tested.
    pub group: Group,
    /// The models, lowest dose first.
    pub doses: Vec<Dose>,
    /// Page's test of B falling with the dose (run on −B, so that L is large when B falls).
    pub test: PageTest,
    /// The p-value after Holm's correction.
    pub p_holm: f64,
    /// Holds when the Holm-adjusted p is below alpha.
    pub verdict: Verdict,
}

/// Mean B and A of one model over one group of one set, with intervals: the absolute numbers
/// behind the differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Absolute {
    /// The model, by label.
    pub model: String,
    /// The sentence set.
    pub set: String,
    /// The group.
    pub group: Group,
    /// Sentences.
    pub n: usize,
    /// Mean B.
    pub mean_bias: f64,
    /// Its 95 % bootstrap interval.
    pub bias_interval: ConfidenceInterval,
    /// Mean A.
    pub mean_adequacy: f64,
    /// Its 95 % bootstrap interval.
    pub adequacy_interval: ConfidenceInterval,
}

/// One model's separation of a set's Early Modern from its Modern sentences, B_EME − B_ME: the
/// paper's question (how a model fits each period's sentences), negative when it proposes more
/// Early Modern words for the Early Modern sentences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Separation {
    /// The model, by label.
    pub model: String,
    /// The sentence set.
    pub set: String,
    /// Mean B over the EME sentences minus mean B over the ME ones.
    pub difference: f64,
    /// Its 95 % bootstrap interval (each group resampled within itself).
    pub interval: ConfidenceInterval,
}

/// The check, complete: the claims file it read, every claim, the dose-response test, and the
/// absolute numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnownAnswer {
    /// The claims file's name.
    pub name: String,
    /// The day it was frozen.
    pub frozen: String,
    /// Its sha256 ([`FROZEN_SHA256`]).
    pub sha256: String,
    /// The lexicon that rated every proposal.
    pub lexicon: Pinned,
    /// The sets, as the claims file gives them.
    pub sets: Vec<lmbias_data::claims::SentenceSet>,
    /// Proposals scored per sentence, the same for every result.
    pub top_k: usize,
    /// The family-wise error rate.
    pub alpha: f64,
    /// In the claims file's order.
    pub claims: Vec<Claim>,
    /// The dose-response tests, in the claims file's order.
    pub dose_response: Vec<DoseResponse>,
    /// Every model that has a result, on every set and group.
    pub absolute: Vec<Absolute>,
    /// Every model on every set.
    pub separation: Vec<Separation>,
}

/// Why the check cannot run. One line, naming the model, set or sentence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnownAnswerError {
    /// A claim's model has no result on its set.
    #[error("{id}: no result of model {model} on set {set}")]
    Missing {
        /// The claim.
        id: String,
        /// The model (the claims file's name for it).
        model: String,
        /// The set.
        set: String,
    },
    /// A model name the claims file uses and the caller does not know.
    #[error("{id}: the claims file names model {model}, which is not a model of this run")]
    UnknownModel {
        /// The claim.
        id: String,
        /// The name.
        model: String,
    },
    /// A result whose proposals something else rated.
    #[error(
        "{model} on {set}: a proposal rated by {rater:?}, not by the lexicon alone: the known \
         answer rates every proposal by the claims file's lexicon"
    )]
    NotLexicon {
        /// The model.
        model: String,
        /// The set.
        set: String,
        /// What rated it.
        rater: AnnotationSource,
    },
    /// B sums over the top k: two k are two different measures.
    #[error("{model} on {set} was scored at top-{got}, the others at top-{expected}")]
    TopK {
        /// The model.
        model: String,
        /// The set.
        set: String,
        /// Its k.
        got: usize,
        /// The first result's.
        expected: usize,
    },
    /// An id twice in one result pairs ambiguously.
    #[error("{model}: sentence {id} appears more than once, so it cannot be paired by id")]
    Duplicate {
        /// The model.
        model: String,
        /// The sentence id.
        id: String,
    },
    /// A sentence one model was scored on and the other was not.
    #[error("sentence {id} of {present} is missing from {missing}: sentences are paired by id")]
    Unpaired {
        /// The sentence id.
        id: String,
        /// The model that has it.
        present: String,
        /// The model that lacks it.
        missing: String,
    },
    /// A claim about a group with no sentences cannot be tested.
    #[error("{id}: set {set} has no {group} sentences")]
    EmptyGroup {
        /// The claim.
        id: String,
        /// The set.
        set: String,
        /// The group.
        group: Group,
    },
    /// A sentence the guard left without B (too much of its mass unrated) cannot be paired.
    #[error(
        "{model}: sentence {id} has no B: its unannotated share exceeds the guard \
         (max_unannotated_share); the check needs every sentence rated"
    )]
    Unscored {
        /// The model.
        model: String,
        /// The sentence.
        id: String,
    },
    /// A NaN or infinite B has no sign to test.
    #[error("{model}: sentence {id} has B = {bias}, not a finite number")]
    NonFinite {
        /// The model.
        model: String,
        /// The sentence.
        id: String,
        /// Its B.
        bias: f64,
    },
}

/// A mean from +0.0, so that a mean of zeros does not print as "−0".
fn mean(values: &[f64]) -> f64 {
    values.iter().fold(0.0, |a, b| a + b) / values.len() as f64
}

/// The results of the run: each model's (by label) result on each set (by dataset name), rated
/// by the lexicon, and the claims file's model names with their labels.
pub struct Results<'r> {
    results: BTreeMap<(&'r str, &'r str), &'r ModelResult>,
    labels: &'r BTreeMap<String, String>,
}

impl<'r> Results<'r> {
    /// `results` by model and dataset; `labels` maps the claims file's names (kjv, web …) to
    /// the results' model labels.
    pub fn new(results: &'r [ModelResult], labels: &'r BTreeMap<String, String>) -> Self {
        Results {
            results: results
                .iter()
                .map(|r| ((r.model.as_str(), r.dataset.as_str()), r))
                .collect(),
            labels,
        }
    }

    fn label(&self, id: &str, name: &str) -> Result<&'r str, KnownAnswerError> {
        self.labels
            .get(name)
            .map(String::as_str)
            .ok_or_else(|| KnownAnswerError::UnknownModel {
                id: id.to_owned(),
                model: name.to_owned(),
            })
    }

    /// The sentences of `group` of model `name`'s result on `set`, by id.
    fn group(
        &self,
        id: &str,
        name: &str,
        set: &str,
        group: Group,
    ) -> Result<(&'r str, BTreeMap<&'r str, f64>), KnownAnswerError> {
        let label = self.label(id, name)?;
        let result = self
            .results
            .get(&(label, set))
            .ok_or_else(|| KnownAnswerError::Missing {
                id: id.to_owned(),
                model: name.to_owned(),
                set: set.to_owned(),
            })?;
        let mut by_id = BTreeMap::new();
        for s in result.sentences.iter().filter(|s| s.group == group) {
            let Some(bias) = s.bias else {
                return Err(KnownAnswerError::Unscored {
                    model: label.to_owned(),
                    id: s.id.clone(),
                });
            };
            if !bias.is_finite() {
                return Err(KnownAnswerError::NonFinite {
                    model: label.to_owned(),
                    id: s.id.clone(),
                    bias,
                });
            }
            if by_id.insert(s.id.as_str(), bias).is_some() {
                return Err(KnownAnswerError::Duplicate {
                    model: label.to_owned(),
                    id: s.id.clone(),
                });
            }
        }
        if by_id.is_empty() {
            return Err(KnownAnswerError::EmptyGroup {
                id: id.to_owned(),
                set: set.to_owned(),
                group,
            });
        }
        Ok((label, by_id))
    }
}

/// B of every model of `models` on the same sentences, paired by id: one row per sentence (in
/// id order), one column per model.
fn paired(models: &[(&str, BTreeMap<&str, f64>)]) -> Result<Vec<Vec<f64>>, KnownAnswerError> {
    let (first, ids) = &models[0];
    for (label, sentences) in &models[1..] {
        for (a, b, present, missing) in [
            (ids, sentences, first, label),
            (sentences, ids, label, first),
        ] {
            if let Some(sentence) = a.keys().find(|k| !b.contains_key(*k)) {
                return Err(KnownAnswerError::Unpaired {
                    id: (*sentence).to_owned(),
                    present: (*present).to_owned(),
                    missing: (*missing).to_owned(),
                });
            }
        }
    }
    Ok(ids
        .keys()
        .map(|sentence| models.iter().map(|(_, s)| s[sentence]).collect())
        .collect())
}

fn bootstrap() -> BootstrapOptions {
    BootstrapOptions::default()
}

/// Checks every claim and the dose-response test of `claims` (whose sha256 is `sha256`) on
/// `results`, each rated by the lexicon alone.
pub fn check(
    claims: &ClaimsFile,
    sha256: &str,
    results: &[ModelResult],
    labels: &BTreeMap<String, String>,
) -> Result<KnownAnswer, KnownAnswerError> {
    let top_k = results.first().map_or(0, |r| r.top_k);
    for r in results {
        if r.top_k != top_k {
            return Err(KnownAnswerError::TopK {
                model: r.model.clone(),
                set: r.dataset.clone(),
                got: r.top_k,
                expected: top_k,
            });
        }
        if let Some(t) = r
            .sentences
            .iter()
            .flat_map(|s| &s.tokens)
            .find(|t| t.annotation != AnnotationSource::Lexicon)
        {
            return Err(KnownAnswerError::NotLexicon {
                model: r.model.clone(),
                set: r.dataset.clone(),
                rater: t.annotation,
            });
        }
    }
    let found = Results::new(results, labels);
    let mut tested = Vec::with_capacity(claims.claims.len());
    for c in &claims.claims {
        let early = found.group(&c.id, &c.early, &c.set, c.group)?;
        let modern = found.group(&c.id, &c.modern, &c.set, c.group)?;
        let rows = paired(&[early.clone(), modern.clone()])?;
        let differences: Vec<f64> = rows.iter().map(|r| r[0] - r[1]).collect();
        let test = sign_flip_test(&differences, Alternative::Less, &SignFlipOptions::default())
            .expect("differences are non-empty and finite, and the default n_samples is ≥ 1");
        let interval = mean_interval(&differences, &bootstrap())
            .expect("differences are non-empty and the default options are valid");
        let column = |j: usize| rows.iter().map(|r| r[j]).collect::<Vec<f64>>();
        tested.push((
            c,
            early.0,
            modern.0,
            mean(&column(0)),
            mean(&column(1)),
            differences.iter().filter(|d| **d != 0.0).count(),
            test,
            interval,
        ));
    }
    let mut trends = Vec::with_capacity(claims.dose_response.len());
    for d in &claims.dose_response {
        let mut models = Vec::with_capacity(d.models.len());
        for name in &d.models {
            models.push(found.group(&d.id, name, &d.set, d.group)?);
        }
        let rows = paired(&models)?;
        // Page's L grows when values rise along the order: B is to fall with the dose, so −B
        // rises.
        let negated: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| r.iter().map(|b| -b).collect())
            .collect();
        let page = page_test(&negated, d.n_samples, d.seed)
            .expect("the claims file has ≥ 3 models and n_samples ≥ 1; B is finite");
        let doses = models
            .iter()
            .zip(&d.doses)
            .enumerate()
            .map(|(j, ((label, _), &dose))| {
                let column: Vec<f64> = rows.iter().map(|r| r[j]).collect();
                Dose {
                    model: (*label).to_owned(),
                    dose,
                    mean_bias: mean(&column),
                    interval: mean_interval(&column, &bootstrap()).expect("a non-empty group"),
                }
            })
            .collect::<Vec<Dose>>();
        trends.push((d, doses, page));
    }
    let mut p: Vec<f64> = tested.iter().map(|t| t.6.p_value).collect();
    p.extend(trends.iter().map(|t| t.2.p_value));
    let adjusted = holm(&p).expect("p-values in [0, 1]");
    let claims_out = tested
        .into_iter()
        .zip(&adjusted)
        .map(
            |((c, early, modern, mean_early, mean_modern, non_tied, test, interval), &p_holm)| {
                Claim {
                    id: c.id.clone(),
                    statement: c.statement.clone(),
                    early_model: early.to_owned(),
                    modern_model: modern.to_owned(),
                    set: c.set.clone(),
                    group: c.group,
                    mean_early,
                    mean_modern,
                    non_tied,
                    verdict: if test.mean_difference < 0.0 && p_holm < claims.alpha {
                        Verdict::Holds
                    } else {
                        Verdict::DoesNotHold
                    },
                    test,
                    interval,
                    p_holm,
                }
            },
        )
        .collect();
    let dose_response = trends
        .into_iter()
        .zip(&adjusted[claims.claims.len()..])
        .map(|((d, doses, page), &p_holm)| DoseResponse {
            id: d.id.clone(),
            statement: d.statement.clone(),
            set: d.set.clone(),
            group: d.group,
            doses,
            verdict: if p_holm < claims.alpha {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            },
            test: page,
            p_holm,
        })
        .collect();
    Ok(KnownAnswer {
        name: claims.name.clone(),
        frozen: claims.frozen.clone(),
        sha256: sha256.to_owned(),
        lexicon: claims.lexicon.clone(),
        sets: claims.sets.clone(),
        top_k,
        alpha: claims.alpha,
        claims: claims_out,
        dose_response,
        absolute: absolute(results),
        separation: separation(results),
    })
}

fn of_group(r: &ModelResult, group: Group) -> Vec<&SentenceScore> {
    r.sentences.iter().filter(|s| s.group == group).collect()
}

/// Mean B and A with intervals, every result and group that has scored sentences (the
/// check's runs rate every proposal, so the guard leaves none out there).
fn absolute(results: &[ModelResult]) -> Vec<Absolute> {
    let mut out = Vec::new();
    for r in results {
        for group in Group::ALL {
            let sentences = of_group(r, group);
            let b: Vec<f64> = sentences.iter().filter_map(|s| s.bias).collect();
            let a: Vec<f64> = sentences.iter().filter_map(|s| s.adequacy).collect();
            if b.is_empty() {
                continue;
            }
            out.push(Absolute {
                model: r.model.clone(),
                set: r.dataset.clone(),
                group,
                n: b.len(),
                mean_bias: mean(&b),
                bias_interval: mean_interval(&b, &bootstrap()).expect("non-empty"),
                mean_adequacy: mean(&a),
                adequacy_interval: mean_interval(&a, &bootstrap()).expect("non-empty"),
            });
        }
    }
    out
}

/// B_EME − B_ME with its interval, every result with both groups.
fn separation(results: &[ModelResult]) -> Vec<Separation> {
    results
        .iter()
        .filter_map(|r| {
            let b = |g| -> Vec<f64> { of_group(r, g).iter().filter_map(|s| s.bias).collect() };
            let (eme, me) = (b(Group::EarlyModern), b(Group::Modern));
            let interval = mean_difference_interval(&eme, &me, &bootstrap()).ok()?;
            Some(Separation {
                model: r.model.clone(),
                set: r.dataset.clone(),
                difference: mean(&eme) - mean(&me),
                interval,
            })
        })
        .collect()
}

/// What came before this check, disclosed (issue #46, item 3).
pub const HISTORY: &str = "**History of this check, disclosed.** Issue #24's first version rated \
    proposals by the hand annotations of `eme-me-60` and 0 of its 3 claims held. Issue #34 then \
    added the period vocabulary, retrained the models for 1,000 steps, annotated 306 more \
    proposals *after seeing the three period models' proposals*, and changed an annotation rule \
    after the old rule had scored the KJV model's *thee* and *ye* 0; it also added the drawn \
    set, whose sentences, valence and ratings all came from the same log-odds over the models' \
    own training verses (circular: any model that learned its corpus's word frequencies \
    passes). Those checks reported \"holds\" at p < 0.05 each, without correction. Issue #46 \
    replaced them with this one: the claims, sets, rater and thresholds were written into the \
    claims file and the lexicon on 2026-12-06 before any model was scored with the lexicon, and \
    are not changed after; the lexicon takes the README's word lists as they stood that day \
    (some of their words were added in issue #34 after the proposals were seen) and adds the \
    -est/-eth verb forms by a spelling rule. **Version 2**, written the same day *after v1's \
    outcome had been seen* (5 of its 6 claims and its dose-response test held; C6, Shakespeare on \
    the hand-written sentences, did not, on 4 non-tied sentences), keeps v1's claims, sets, \
    lexicon and α unchanged and adds what issue #46 asked for and v1 lacked: a set that is no \
    Bible and no model's training text (`plays-wordnet`), four claims on it and a second \
    dose-response test. To hold speeches out for that set the Shakespeare model was retrained \
    without them (same settings, vocabulary and seed), so its numbers on v1's sets are the \
    retrained model's. The earlier results stay in the repository's history.";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{KJV, WEB, claims, labels, run};

    #[test]
    fn the_frozen_file_is_the_committed_one() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../datasets/valence/known-answer-v2.json"
        );
        let bytes = std::fs::read(path).unwrap();
        use sha2::Digest;
        assert_eq!(format!("{:x}", sha2::Sha256::digest(&bytes)), FROZEN_SHA256);
    }

    #[test]
    fn claims_hold_after_holm_when_the_early_models_lean_early() {
        let answer = check(&claims(), FROZEN_SHA256, &run(-0.2), &labels()).unwrap();
        assert_eq!(answer.claims.len(), 10);
        for c in &answer.claims {
            assert_eq!(c.verdict, Verdict::Holds, "{c:?}");
            assert_eq!(c.non_tied, 30);
            // 30 sentences: sampled sign patterns, p at its floor, Holm × 12 at most.
            assert_eq!(c.test.p_value, 1e-5);
            assert!(
                c.p_holm <= 12e-5 + 1e-12 && c.p_holm >= c.test.p_value,
                "{c:?}"
            );
        }
        let c1 = &answer.claims[0];
        assert_eq!(
            (c1.early_model.as_str(), c1.modern_model.as_str()),
            (KJV, WEB)
        );
        assert!((c1.test.mean_difference + 0.4).abs() < 1e-9, "{c1:?}");
        assert!((c1.mean_early + 0.3).abs() < 0.01 && (c1.mean_modern - 0.1).abs() < 0.01);
        // The dose-response tests: B falls strictly with the dose in every sentence.
        assert_eq!(answer.dose_response.len(), 2);
        for d in &answer.dose_response {
            assert_eq!(d.verdict, Verdict::Holds);
            assert_eq!(d.test.mean_ranks, [1.0, 2.0, 3.0, 4.0, 5.0]);
            assert_eq!(d.test.p_value, 1e-5);
            let doses: Vec<u32> = d.doses.iter().map(|x| x.dose).collect();
            assert_eq!(doses, [0, 25, 50, 75, 100]);
        }
        // Absolute numbers: 6 models × 3 sets × 3 groups; separations 6 × 3.
        assert_eq!((answer.absolute.len(), answer.separation.len()), (54, 18));
        let kjv_drawn = answer
            .separation
            .iter()
            .find(|s| s.model == KJV && s.set == "kjv-web-drawn")
            .unwrap();
        assert!((kjv_drawn.difference + 0.2).abs() < 1e-9 && kjv_drawn.interval.upper < 0.0);
    }

    #[test]
    fn a_claim_fails_when_the_model_does_not_lean_and_holm_counts_all_tests() {
        // Shakespeare exactly as WEB on EME: its three claims there have no non-tied sentence,
        // p = 1.
        let mut results = run(0.1);
        let web: Vec<ModelResult> = results.iter().filter(|r| r.model == WEB).cloned().collect();
        for r in results
            .iter_mut()
            .filter(|r| r.model == labels()["shakespeare"])
        {
            let same = web.iter().find(|w| w.dataset == r.dataset).unwrap();
            for (s, w) in r.sentences.iter_mut().zip(&same.sentences) {
                if s.group == Group::EarlyModern {
                    s.bias = w.bias;
                }
            }
        }
        let answer = check(&claims(), FROZEN_SHA256, &results, &labels()).unwrap();
        let shakespeare = labels()["shakespeare"].clone();
        let its: Vec<&Claim> = answer
            .claims
            .iter()
            .filter(|c| c.early_model == shakespeare && c.group == Group::EarlyModern)
            .collect();
        assert_eq!(its.len(), 3);
        for c in its {
            assert_eq!(
                (c.non_tied, c.test.p_value, c.verdict),
                (0, 1.0, Verdict::DoesNotHold)
            );
        }
        assert_eq!(answer.claims[0].verdict, Verdict::Holds);
        // Holm: the smallest p is multiplied by the number of tests, 12.
        assert!(
            (answer.claims[0].p_holm - 12e-5).abs() < 1e-12,
            "{:?}",
            answer.claims[0]
        );
    }

    #[test]
    fn results_not_rated_by_the_lexicon_alone_or_unpaired_are_refused() {
        let mut results = run(-0.2);
        results[0].sentences[0]
            .tokens
            .push(lmbias_studies::valence::TokenScore {
                token: "thou".into(),
                id: 1,
                prob: 0.5,
                valence: -1.0,
                annotation: AnnotationSource::Corpus,
            });
        assert_eq!(
            check(&claims(), FROZEN_SHA256, &results, &labels())
                .unwrap_err()
                .to_string(),
            "trained/minilm-kjv on kjv-web-drawn: a proposal rated by Corpus, not by the lexicon \
             alone: the known answer rates every proposal by the claims file's lexicon"
        );
        let mut results = run(-0.2);
        // The WEB model's result on the drawn set (each model has three, one a set).
        results[3].sentences.retain(|s| s.id != "eme-07");
        assert_eq!(
            check(&claims(), FROZEN_SHA256, &results, &labels())
                .unwrap_err()
                .to_string(),
            "sentence eme-07 of trained/minilm-kjv is missing from trained/minilm-web: sentences \
             are paired by id"
        );
        let results: Vec<ModelResult> = run(-0.2)
            .into_iter()
            .filter(|r| r.model != "trained/k50")
            .collect();
        assert_eq!(
            check(&claims(), FROZEN_SHA256, &results, &labels())
                .unwrap_err()
                .to_string(),
            "D1: no result of model kjv50 on set kjv-web-drawn"
        );
    }
}
