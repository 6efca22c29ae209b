//! A known-answer check of the valence method (issues #24, #34). Models are trained here from
//! all-MiniLM-L6-v2 with identical settings, vocabulary, seed and step budget: one on the King
//! James Bible (1611, Early Modern English), one on the World English Bible (Modern English),
//! one on Shakespeare's plays. Between the Bible models period is the only difference, so B and
//! A must tell an Early Modern model from a Modern one, in the directions of [`CLAIMS`]; each
//! claim is tested over the sentences of its group, paired by sentence id, and its mean
//! difference given with a bootstrap interval over sentences.

use std::collections::BTreeMap;

use lmbias_data::valence::Group;
use lmbias_metrics::bootstrap::{BootstrapOptions, ConfidenceInterval, mean_interval};
use lmbias_metrics::sign_flip::{
    Alternative, MAX_EXACT_PAIRS, SignFlipOptions, SignFlipTest, sign_flip_test,
};
use lmbias_studies::valence::{ModelResult, SentenceScore};
use serde::Serialize;

use lmbias_report::table::Table;
use lmbias_report::valence::Measure;

/// A claim holds when its one-sided p is below this (and its mean difference points the
/// expected way).
pub(crate) const ALPHA: f64 = 0.05;

/// One thing the method must show: the sign of mean(Early Modern model − Modern model) of
/// `measure` over `group`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expectation {
    /// What must hold, in words.
    pub statement: &'static str,
    /// The sentences it is about.
    pub group: Group,
    /// B or A.
    pub measure: Measure,
    /// Whether Early Modern − Modern is expected above 0 ([`Alternative::Greater`]) or below it.
    pub direction: Alternative,
}

/// What the method must show (issue #24): on Early Modern sentences the Early Modern model's
/// proposals are more Early Modern (B lower, so nearer v = −1, and A higher); on Modern
/// sentences the Modern model fits better (A higher). The Shakespeare model against the WEB
/// model is held to the first two (issue #34).
pub const CLAIMS: [Expectation; 3] = [
    Expectation {
        statement: "mean B over the EME sentences is lower for the Early Modern model",
        group: Group::EarlyModern,
        measure: Measure::Bias,
        direction: Alternative::Less,
    },
    Expectation {
        statement: "mean A over the EME sentences is higher for the Early Modern model",
        group: Group::EarlyModern,
        measure: Measure::Adequacy,
        direction: Alternative::Greater,
    },
    Expectation {
        statement: "mean A over the ME sentences is higher for the Modern model",
        group: Group::Modern,
        measure: Measure::Adequacy,
        direction: Alternative::Less,
    },
];

/// Whether our numbers bear a claim out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The mean difference points the expected way and p < [`ALPHA`].
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
    /// What must hold.
    pub statement: &'static str,
    /// The sentences tested.
    pub group: Group,
    /// B or A.
    #[serde(serialize_with = "measure_name")]
    pub measure: Measure,
    /// The measure's mean over the group for the Early Modern model.
    pub mean_early: f64,
    /// The same for the Modern model.
    pub mean_modern: f64,
    /// The paired test of the per-sentence differences Early Modern − Modern, one-sided in the
    /// expected direction: n, the mean difference, p and how p was found.
    pub test: SignFlipTest,
    /// The mean difference's 95 % percentile bootstrap interval over sentences (10,000
    /// resamples, lmbias-metrics' default seed).
    pub interval: ConfidenceInterval,
    /// From the test and [`ALPHA`], never given.
    pub verdict: Verdict,
}

fn measure_name<S: serde::Serializer>(measure: &Measure, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(measure.as_str())
}

/// The check on one pair of period models, complete: every claim asked, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KnownAnswer {
    /// The model continued on Early Modern text (the KJV, Shakespeare).
    pub early_model: String,
    /// The model continued on Modern text (the WEB).
    pub modern_model: String,
    /// The dataset both were scored on.
    pub dataset: String,
    /// Proposals scored per sentence, the same for both.
    pub top_k: usize,
    /// [`ALPHA`], so the JSON states its own rule.
    pub alpha: f64,
    /// One per claim asked.
    pub claims: Vec<Claim>,
}

/// Why the two results cannot be compared. One line, naming the models and the sentence.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KnownAnswerError {
    /// Pairing by id needs one dataset.
    #[error(
        "{kjv_model} was scored on dataset {kjv}, {web_model} on {web}: the known-answer check \
         pairs the sentences of one dataset"
    )]
    Dataset {
        /// The KJV model.
        kjv_model: String,
        /// Its dataset.
        kjv: String,
        /// The WEB model.
        web_model: String,
        /// Its dataset.
        web: String,
    },
    /// B sums over the top k: two k are two different measures.
    #[error(
        "{kjv_model} was scored at top-{kjv}, {web_model} at top-{web}: the known-answer check \
         needs one k"
    )]
    TopK {
        /// The KJV model.
        kjv_model: String,
        /// Its k.
        kjv: usize,
        /// The WEB model.
        web_model: String,
        /// Its k.
        web: usize,
    },
    /// An id twice in one result pairs ambiguously.
    #[error("{model}: sentence {id} appears more than once, so it cannot be paired by id")]
    Duplicate {
        /// The model whose result has it twice.
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
    /// The same id in two groups: not the same sentence.
    #[error("sentence {id} is {kjv_group} for {kjv_model} but {web_group} for {web_model}")]
    GroupMismatch {
        /// The sentence id.
        id: String,
        /// The KJV model.
        kjv_model: String,
        /// The sentence's group in its result.
        kjv_group: Group,
        /// The WEB model.
        web_model: String,
        /// The sentence's group in its result.
        web_group: Group,
    },
    /// A claim about a group with no sentences cannot be tested.
    #[error("no {group} sentences: the known-answer claim \"{statement}\" needs them")]
    EmptyGroup {
        /// The group.
        group: Group,
        /// The claim.
        statement: &'static str,
    },
    /// A NaN or infinite B or A has no sign to test.
    #[error(
        "sentence {id}: {measure} is {kjv} for {kjv_model}, {web} for {web_model}, not a finite difference"
    )]
    NonFinite {
        /// The sentence id.
        id: String,
        /// `bias` or `adequacy`.
        measure: &'static str,
        /// The KJV model.
        kjv_model: String,
        /// Its value.
        kjv: f64,
        /// The WEB model.
        web_model: String,
        /// Its value.
        web: f64,
    },
}

fn value(s: &SentenceScore, measure: Measure) -> f64 {
    match measure {
        Measure::Bias => s.bias,
        Measure::Adequacy => s.adequacy,
    }
}

/// A mean from +0.0, so that a mean of zeros does not print as "−0".
fn mean(values: impl ExactSizeIterator<Item = f64>) -> f64 {
    let n = values.len();
    values.fold(0.0, |a, b| a + b) / n as f64
}

/// Every sentence of `kjv` with its namesake in `web`, in `kjv`'s order.
fn pairs<'r>(
    kjv: &'r ModelResult,
    web: &'r ModelResult,
) -> Result<Vec<(&'r SentenceScore, &'r SentenceScore)>, KnownAnswerError> {
    let by_id = |r: &'r ModelResult| -> Result<BTreeMap<&'r str, &'r SentenceScore>, _> {
        let mut map = BTreeMap::new();
        for s in &r.sentences {
            if map.insert(s.id.as_str(), s).is_some() {
                return Err(KnownAnswerError::Duplicate {
                    model: r.model.clone(),
                    id: s.id.clone(),
                });
            }
        }
        Ok(map)
    };
    let (kjv_ids, web_ids) = (by_id(kjv)?, by_id(web)?);
    let unpaired =
        |id: &str, present: &ModelResult, missing: &ModelResult| KnownAnswerError::Unpaired {
            id: id.to_owned(),
            present: present.model.clone(),
            missing: missing.model.clone(),
        };
    if let Some(id) = web_ids.keys().find(|id| !kjv_ids.contains_key(*id)) {
        return Err(unpaired(id, web, kjv));
    }
    kjv.sentences
        .iter()
        .map(|k| {
            let w = web_ids
                .get(k.id.as_str())
                .ok_or_else(|| unpaired(&k.id, kjv, web))?;
            if k.group != w.group {
                return Err(KnownAnswerError::GroupMismatch {
                    id: k.id.clone(),
                    kjv_model: kjv.model.clone(),
                    kjv_group: k.group,
                    web_model: web.model.clone(),
                    web_group: w.group,
                });
            }
            Ok((k, *w))
        })
        .collect()
}

/// Checks every claim of [`CLAIMS`] on the valence results of an Early Modern and a Modern
/// model (the KJV and the WEB one).
pub fn check(kjv: &ModelResult, web: &ModelResult) -> Result<KnownAnswer, KnownAnswerError> {
    check_claims(kjv, web, &CLAIMS)
}

/// Checks `claims` on the valence results of an Early Modern model (`kjv`) and a Modern one
/// (`web`).
///
/// Each claim's sentences are paired by id (a sentence missing from either result is an
/// error, never dropped) and their differences Early Modern − Modern tested with a one-sided
/// paired sign-flip test ([`sign_flip_test`], sent-bias's sampling defaults beyond
/// [`MAX_EXACT_PAIRS`] sentences).
pub fn check_claims(
    kjv: &ModelResult,
    web: &ModelResult,
    claims: &[Expectation],
) -> Result<KnownAnswer, KnownAnswerError> {
    if kjv.dataset != web.dataset {
        return Err(KnownAnswerError::Dataset {
            kjv_model: kjv.model.clone(),
            kjv: kjv.dataset.clone(),
            web_model: web.model.clone(),
            web: web.dataset.clone(),
        });
    }
    if kjv.top_k != web.top_k {
        return Err(KnownAnswerError::TopK {
            kjv_model: kjv.model.clone(),
            kjv: kjv.top_k,
            web_model: web.model.clone(),
            web: web.top_k,
        });
    }
    let pairs = pairs(kjv, web)?;
    let claims = claims
        .iter()
        .map(|claim| {
            let group: Vec<_> = pairs
                .iter()
                .filter(|(k, _)| k.group == claim.group)
                .collect();
            if group.is_empty() {
                return Err(KnownAnswerError::EmptyGroup {
                    group: claim.group,
                    statement: claim.statement,
                });
            }
            let differences = group
                .iter()
                .map(|(k, w)| {
                    let (a, b) = (value(k, claim.measure), value(w, claim.measure));
                    let d = a - b;
                    d.is_finite()
                        .then_some(d)
                        .ok_or_else(|| KnownAnswerError::NonFinite {
                            id: k.id.clone(),
                            measure: claim.measure.as_str(),
                            kjv_model: kjv.model.clone(),
                            kjv: a,
                            web_model: web.model.clone(),
                            web: b,
                        })
                })
                .collect::<Result<Vec<f64>, _>>()?;
            let test = sign_flip_test(&differences, claim.direction, &SignFlipOptions::default())
                .expect("differences are non-empty and finite, and the default n_samples is ≥ 1");
            let expected_sign = match claim.direction {
                Alternative::Greater => test.mean_difference > 0.0,
                Alternative::Less => test.mean_difference < 0.0,
            };
            let interval = mean_interval(&differences, &BootstrapOptions::default())
                .expect("differences are non-empty and the default options are valid");
            Ok(Claim {
                statement: claim.statement,
                group: claim.group,
                measure: claim.measure,
                mean_early: mean(group.iter().map(|(k, _)| value(k, claim.measure))),
                mean_modern: mean(group.iter().map(|(_, w)| value(w, claim.measure))),
                test,
                interval,
                verdict: if expected_sign && test.p_value < ALPHA {
                    Verdict::Holds
                } else {
                    Verdict::DoesNotHold
                },
            })
        })
        .collect::<Result<Vec<Claim>, _>>()?;
    Ok(KnownAnswer {
        early_model: kjv.model.clone(),
        modern_model: web.model.clone(),
        dataset: kjv.dataset.clone(),
        top_k: kjv.top_k,
        alpha: ALPHA,
        claims,
    })
}

/// Three decimals, or two significant digits below 0.001 (an exact p over 2²⁰ patterns can be
/// 10⁻⁶, which three decimals would print as 0).
fn format_p(p: f64) -> String {
    if p >= 0.001 {
        format!("{p:.3}")
    } else {
        format!("{p:.1e}")
    }
}

/// How p was found, in a table cell.
fn method(test: &SignFlipTest) -> String {
    match test.seed {
        None => format!("exact, all 2^{} sign patterns", test.n),
        Some(seed) => format!("{} sampled sign patterns, seed {seed}", test.n_evaluated),
    }
}

/// The claims as a table.
pub fn table(answer: &KnownAnswer) -> Table {
    let mut table = Table::new([
        "the method must show",
        "n",
        "mean, Early Modern model",
        "mean, Modern model",
        "mean difference",
        "95 % CI (bootstrap)",
        "expected",
        "p (one-sided)",
        "test",
        "ours",
    ]);
    for c in &answer.claims {
        table.push([
            c.statement.to_owned(),
            c.test.n.to_string(),
            format!("{:.3}", c.mean_early),
            format!("{:.3}", c.mean_modern),
            format!("{:.3}", c.test.mean_difference),
            format!("[{:.3}, {:.3}]", c.interval.lower, c.interval.upper),
            match c.test.alternative {
                Alternative::Greater => "> 0",
                Alternative::Less => "< 0",
            }
            .to_owned(),
            format_p(c.test.p_value),
            method(&c.test),
            c.verdict.as_str().to_owned(),
        ]);
    }
    table
}

/// The known-answer section of REPORT.md: what the method must show, then each comparison
/// (`answers`: a pair of models on a dataset) with its claims, then the rule.
pub fn markdown(answers: &[KnownAnswer]) -> String {
    let defaults = SignFlipOptions::default();
    let mut md = String::from(
        "### Known answer: models trained here on the KJV, the WEB and Shakespeare\n\n\
         The paper's claim is that B and A separate an Early Modern model from a Modern one. To \
         see that they do, lmbias trains models here: all-MiniLM-L6-v2 continued on the King \
         James Bible (Early Modern English of 1611, in a later edition's modern spelling: \
         grammar and vocabulary differ, not spelling), separately on the World English Bible \
         (Modern English), and on Shakespeare's plays, with identical settings, vocabulary, \
         seed and step budget; between the two Bibles period is the only difference. They are \
         a known-answer experiment, not the paper's models. If the method measures period, an \
         Early Modern model's proposals for the Early Modern sentences are more Early Modern \
         (B lower, A higher), and the Modern model fits the Modern sentences better (A \
         higher).\n",
    );
    for answer in answers {
        let holding = answer
            .claims
            .iter()
            .filter(|c| c.verdict == Verdict::Holds)
            .count();
        md.push_str(&format!(
            "\n#### `{early}` (Early Modern) against `{modern}` (Modern), dataset `{dataset}`\n\n\
             Top-{k}. {holding} of {total} claims hold.\n\n{table}",
            early = answer.early_model,
            modern = answer.modern_model,
            dataset = answer.dataset,
            k = answer.top_k,
            total = answer.claims.len(),
            table = table(answer).to_markdown(),
        ));
    }
    md.push_str(&format!(
        "\nEach claim is tested over the sentences of its group, paired by sentence id (both \
         models scored the same sentences): a one-sided paired sign-flip permutation test of \
         the per-sentence differences Early Modern model − Modern model (Fisher 1935, *The \
         Design of Experiments*), in the expected direction. Up to {max_exact} pairs p is exact \
         over all 2^n sign patterns (ties count as extreme); beyond, {samples} patterns are \
         sampled (seed {seed}), the observed one included, so p ≥ 1/{samples} (sent-bias's \
         convention). The interval is the mean difference's 95 % percentile bootstrap interval \
         over sentences (10,000 resamples). **Rule:** a claim holds when its mean difference has \
         the expected sign and p < {alpha}; otherwise it does not hold. With n sentences p \
         cannot fall below 2^−n (1/16 for n = 4): a group too small cannot show the answer.\n",
        max_exact = MAX_EXACT_PAIRS,
        samples = defaults.n_samples,
        seed = defaults.seed,
        alpha = ALPHA,
    ));
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::testing::{valence_result, valence_sentence};

    const KJV: &str = "trained/minilm-kjv";
    const WEB: &str = "trained/minilm-web";

    /// 20 sentences per group; the KJV model's B is `eme_shift` lower than WEB's on EME
    /// sentences and `me_shift` lower on ME ones (neutral: equal), with a little spread.
    fn models(eme_shift: f64, me_shift: f64) -> (ModelResult, ModelResult) {
        let (mut kjv, mut web) = (Vec::new(), Vec::new());
        for (group, prefix, shift) in [
            (Group::EarlyModern, "eme", eme_shift),
            (Group::Neutral, "neu", 0.0),
            (Group::Modern, "me", me_shift),
        ] {
            for i in 0..20 {
                let id = format!("{prefix}-{i:02}");
                let web_b = 0.3 * (i as f64 * 0.7).sin();
                let jitter = 0.01 * (i as f64 * 1.3).cos();
                web.push(valence_sentence(&id, group, web_b));
                kjv.push(valence_sentence(&id, group, web_b - shift + jitter));
            }
        }
        (valence_result(KJV, kjv), valence_result(WEB, web))
    }

    #[test]
    fn every_claim_holds_when_kjv_is_more_archaic_throughout() {
        let (kjv, web) = models(0.2, 0.2);
        let answer = check(&kjv, &web).unwrap();
        assert_eq!(answer.claims.len(), 3);
        for c in &answer.claims {
            assert_eq!(c.verdict, Verdict::Holds, "{c:?}");
            // Every difference points the expected way: only the observed pattern is extreme.
            assert_eq!((c.test.n, c.test.n_extreme, c.test.exact), (20, 1, true));
            assert_eq!(c.test.p_value, 1.0 / 1_048_576.0);
            assert!((c.mean_early - c.mean_modern - c.test.mean_difference).abs() < 1e-12);
            let (lo, hi) = (c.interval.lower, c.interval.upper);
            assert!(
                lo <= c.test.mean_difference && c.test.mean_difference <= hi,
                "{c:?}"
            );
            // Every difference is the shift (0.2 in B, 0.1 in A) ± 0.01: the interval is narrow
            // and leaves out 0.
            assert!(hi - lo < 0.01 && lo * hi > 0.0, "{c:?}");
        }
        // The Shakespeare model is held to the Early Modern claims only.
        let early = check_claims(&kjv, &web, &CLAIMS[..2]).unwrap();
        assert_eq!(early.claims, answer.claims[..2]);
        // B on EME: KJV lower by the shift, less the jitter's mean.
        let b = &answer.claims[0];
        assert!((b.test.mean_difference + 0.2).abs() < 0.01, "{b:?}");
        assert_eq!((b.group, b.measure), (Group::EarlyModern, Measure::Bias));
    }

    #[test]
    fn claims_fail_when_the_models_swap_or_do_not_differ() {
        // WEB more archaic on EME: claims 1 and 2 fail, with p near 1; ME still fits WEB.
        let (kjv, web) = models(-0.2, 0.2);
        let verdicts: Vec<Verdict> = check(&kjv, &web)
            .unwrap()
            .claims
            .iter()
            .map(|c| c.verdict)
            .collect();
        use Verdict::*;
        assert_eq!(verdicts, [DoesNotHold, DoesNotHold, Holds]);
        // The KJV model fits ME better (B higher on ME, nearer +1): claim 3 fails alone.
        let (kjv, web) = models(0.2, -0.2);
        let answer = check(&kjv, &web).unwrap();
        assert_eq!(answer.claims[2].verdict, DoesNotHold);
        assert!(
            answer.claims[2].test.p_value > 0.99,
            "{:?}",
            answer.claims[2]
        );
        assert_eq!(answer.claims[0].verdict, Holds);
        // No shift: the jitter alone, half up and half down, is nowhere near significant.
        let (kjv, web) = models(0.0, 0.0);
        let answer = check(&kjv, &web).unwrap();
        for c in &answer.claims {
            assert_eq!(c.verdict, DoesNotHold, "{c:?}");
            assert!(c.test.p_value > ALPHA, "{c:?}");
        }
    }

    #[test]
    fn four_eme_sentences_counted_by_hand() {
        // WEB B = 0 throughout; KJV B = −0.3, −0.2, −0.1, 0.1 on EME, so d = KJV − WEB is that.
        // The observed sum is −0.5; of the 16 sign patterns those with sum ≤ −0.5 are
        // (+ + + +) = −0.5, (+ + + −) = −0.7 and (+ + − −) = −0.3 − 0.2 + 0.1 − 0.1 = −0.5 (a tie,
        // counted): p = 3/16 = 0.1875. The mean is in the expected direction (−0.125), yet p ≥
        // 0.05: the claim does not hold.
        let ids = ["eme-01", "eme-02", "eme-03", "eme-04"];
        let eme = |bs: [f64; 4]| {
            ids.iter()
                .zip(bs)
                .map(|(id, b)| valence_sentence(id, Group::EarlyModern, b))
                .chain([valence_sentence("me-01", Group::Modern, 0.5)])
                .collect()
        };
        let kjv = valence_result(KJV, eme([-0.3, -0.2, -0.1, 0.1]));
        let web = valence_result(WEB, eme([0.0; 4]));
        let claim = &check(&kjv, &web).unwrap().claims[0];
        assert_eq!(
            (claim.test.n, claim.test.n_extreme, claim.test.p_value),
            (4, 3, 0.1875)
        );
        assert!((claim.test.mean_difference + 0.125).abs() < 1e-15);
        assert!((claim.mean_early + 0.125).abs() < 1e-15 && claim.mean_modern == 0.0);
        assert_eq!(claim.verdict, Verdict::DoesNotHold);
        // Four sentences all the expected way reach only 1/16 = 0.0625: still does not hold.
        let kjv = valence_result(KJV, eme([-0.3, -0.2, -0.1, -0.4]));
        let claim = &check(&kjv, &web).unwrap().claims[0];
        assert_eq!(
            (claim.test.p_value, claim.verdict),
            (0.0625, Verdict::DoesNotHold)
        );
    }

    #[test]
    fn sentences_pair_by_id_not_by_position() {
        let (kjv, web) = models(0.2, 0.2);
        let mut shuffled = web.clone();
        shuffled.sentences.reverse();
        assert_eq!(check(&kjv, &shuffled), check(&kjv, &web));
    }

    #[test]
    fn a_sentence_without_its_pair_is_an_error_naming_it() {
        let (kjv, web) = models(0.2, 0.2);
        let mut short = web.clone();
        short.sentences.retain(|s| s.id != "eme-07");
        let err = check(&kjv, &short).unwrap_err();
        assert_eq!(
            err.to_string(),
            "sentence eme-07 of trained/minilm-kjv is missing from trained/minilm-web: sentences \
             are paired by id"
        );
        // The other way round: a sentence only WEB's result has.
        let mut kjv_short = kjv.clone();
        kjv_short.sentences.retain(|s| s.id != "eme-07");
        let err = check(&kjv_short, &web).unwrap_err();
        assert_eq!(
            err,
            KnownAnswerError::Unpaired {
                id: "eme-07".into(),
                present: WEB.into(),
                missing: KJV.into(),
            }
        );
        let mut twice = kjv.clone();
        twice.sentences.push(twice.sentences[3].clone());
        assert_eq!(
            check(&twice, &web).unwrap_err().to_string(),
            "trained/minilm-kjv: sentence eme-03 appears more than once, so it cannot be paired \
             by id"
        );
        let mut moved = web.clone();
        moved.sentences[0].group = Group::Neutral;
        assert_eq!(
            check(&kjv, &moved).unwrap_err().to_string(),
            "sentence eme-00 is EME for trained/minilm-kjv but neutral for trained/minilm-web"
        );
    }

    #[test]
    fn results_that_cannot_be_compared_are_refused() {
        let (kjv, web) = models(0.2, 0.2);
        let mut other = web.clone();
        other.dataset = "other".into();
        assert!(matches!(
            check(&kjv, &other),
            Err(KnownAnswerError::Dataset { .. })
        ));
        let mut k10 = web.clone();
        k10.top_k = 10;
        assert_eq!(
            check(&kjv, &k10).unwrap_err().to_string(),
            "trained/minilm-kjv was scored at top-5, trained/minilm-web at top-10: the \
             known-answer check needs one k"
        );
        let no_me = |r: &ModelResult| {
            let mut r = r.clone();
            r.sentences.retain(|s| s.group != Group::Modern);
            r
        };
        assert_eq!(
            check(&no_me(&kjv), &no_me(&web)).unwrap_err().to_string(),
            "no ME sentences: the known-answer claim \"mean A over the ME sentences is higher for \
             the Modern model\" needs them"
        );
        let mut nan = kjv.clone();
        nan.sentences[2].bias = f64::NAN;
        assert_eq!(
            check(&nan, &web).unwrap_err().to_string(),
            format!(
                "sentence eme-02: bias is NaN for {KJV}, {} for {WEB}, not a finite difference",
                web.sentences[2].bias
            )
        );
    }

    #[test]
    fn numbers_serialise_for_the_json_file() {
        let (kjv, web) = models(0.2, 0.2);
        let json = serde_json::to_value(check(&kjv, &web).unwrap()).unwrap();
        let claim = &json["claims"][1];
        assert_eq!(claim["group"], "EME");
        assert_eq!(claim["measure"], "adequacy");
        assert_eq!(claim["verdict"], "holds");
        assert_eq!(claim["test"]["alternative"], "greater");
        assert_eq!(claim["test"]["n"], 20);
        assert_eq!(json["alpha"], 0.05);
    }

    #[test]
    fn markdown_snapshot() {
        // The KJV model more archaic on EME (claims 1 and 2 hold) and more modern on ME, where
        // its A is then higher than WEB's (claim 3 does not hold).
        let (kjv, web) = models(0.2, -0.1);
        insta::assert_snapshot!(markdown(&[check(&kjv, &web).unwrap()]));
    }
}
