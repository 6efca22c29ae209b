//! What a run's results add up to, worked out once: each battery combined over its models,
//! Caglidil et al.'s Figure 1 and findings on the Turkish battery, the known-answer check,
//! the valence and probe results as the tables take them. The study folders and REPORT.md
//! both render from one [`Analysis`] (`crate::render`), which [`Analysis::of`] builds from
//! the [`Results`] it consumes: the renderers receive it and work none of it out again.

use lmbias_papers::BATTERIES;
use lmbias_papers::caglidil::{self, Finding};
use lmbias_papers::known_answer::{KnownAnswer, KnownAnswerError};
use lmbias_runs::Provenance;
use lmbias_runs::crows::{self as likelihood, CrowsRun, ModelComparison, Relative};
use lmbias_runs::probe::ProbeResult;
use lmbias_runs::seat::{self, SeatRun};
use lmbias_runs::studies::corpus_valence::Agreement;
use lmbias_runs::studies::crows::Measure;
use lmbias_runs::studies::crows::summary::{Comparison, Verdict};
use lmbias_runs::studies::probe::ProbeRun;
use lmbias_runs::studies::seat::{BatteryResult, SeatRow};
use lmbias_runs::studies::valence::ModelResult;
use lmbias_runs::valence::ValenceRun;

use crate::models::Study;
use crate::period_models;
use crate::reproduce::{Failure, ModelOutcome};

/// What each study produced over all models, for the report.
#[derive(Default)]
pub struct Results {
    /// Where each model was found, in model order.
    pub locations: Vec<String>,
    pub valence: Vec<ValenceRun>,
    /// The hand-written sentences rated by the known answer's lexicon.
    pub valence_lexicon: Vec<ValenceRun>,
    /// The drawn sentences, rated by the same lexicon.
    pub valence_drawn: Vec<ValenceRun>,
    /// The play-line sentences, rated by the same lexicon.
    pub valence_plays: Vec<ValenceRun>,
    /// Per battery name, its runs over all models.
    pub seat: Vec<(String, Vec<SeatRun>)>,
    /// WEFE's metrics beside WEAT on Caliskan et al.'s WEAT 1–10, in model order.
    pub wefe: Vec<SeatRun>,
    pub probe: Vec<ProbeResult>,
    /// Models a study could not run on, and why: the run goes on without them.
    pub failures: Vec<Failure>,
    /// The period models that ran, in model order.
    pub trained: Vec<period_models::Provenance>,
    /// How the Bibles' corpus-derived valence agrees with the hand annotations.
    pub corpus_agreement: Option<Agreement>,
    /// The known answer's claims file, checked against its frozen digests.
    pub frozen: Option<crate::known_answer::Frozen>,
    /// How the hand annotations and the corpus raters agree with the lexicon.
    pub lexicon_agreement: Option<crate::known_answer::RaterAgreement>,
    /// The likelihood measures on CrowS-Pairs, in model order.
    pub crows: Vec<CrowsRun>,
    /// The same on the period pairs.
    pub period_pairs: Vec<CrowsRun>,
}

impl Results {
    /// The studies' results over all models, each outcome given with its model's position
    /// in the list, in list order (study order for the failures): the same however the
    /// models were split between runs.
    pub fn assemble(mut outcomes: Vec<(usize, ModelOutcome)>) -> Results {
        outcomes.sort_by_key(|(position, _)| *position);
        let mut results = Results::default();
        for name in BATTERIES.map(|b| b.name) {
            let runs: Vec<SeatRun> = outcomes
                .iter()
                .flat_map(|(_, o)| o.seat.iter().filter(|(b, _)| b == name))
                .map(|(_, run)| run.clone())
                .collect();
            if !runs.is_empty() {
                results.seat.push((name.to_owned(), runs));
            }
        }
        for study in Study::ALL {
            for (_, o) in &outcomes {
                let failed = o.failures.iter().filter(|f| f.study == study);
                results.failures.extend(failed.cloned());
            }
        }
        for (_, o) in outcomes {
            results.locations.push(o.location);
            results.valence.extend(o.valence);
            results.valence_lexicon.extend(o.valence_lexicon);
            results.valence_drawn.extend(o.valence_drawn);
            results.valence_plays.extend(o.valence_plays);
            results.wefe.extend(o.wefe);
            results.probe.extend(o.probe);
            results.trained.extend(o.trained);
            results.crows.extend(o.crows);
            results.period_pairs.extend(o.period_pairs);
        }
        results
    }

    /// What produced each run, labelled by its study (and battery), in report order.
    pub fn provenance(&self) -> Vec<(String, &Provenance)> {
        let valence = self
            .valence
            .iter()
            .map(|r| ("valence".to_owned(), &r.provenance))
            .chain(
                self.valence_lexicon
                    .iter()
                    .map(|r| ("valence (lexicon)".to_owned(), &r.provenance)),
            )
            .chain(
                self.valence_drawn
                    .iter()
                    .map(|r| ("valence (drawn, lexicon)".to_owned(), &r.provenance)),
            )
            .chain(
                self.valence_plays
                    .iter()
                    .map(|r| ("valence (play lines, lexicon)".to_owned(), &r.provenance)),
            );
        let seat = self.seat.iter().flat_map(|(name, runs)| {
            runs.iter()
                .map(move |r| (format!("seat ({name})"), &r.provenance))
        });
        let wefe = self
            .wefe
            .iter()
            .map(|r| ("seat (WEAT 1–10, WEFE's metrics)".to_owned(), &r.provenance));
        let probe = self
            .probe
            .iter()
            .map(|r| ("probe".to_owned(), &r.provenance));
        let likelihood = self
            .crows
            .iter()
            .map(|r| ("likelihood (CrowS-Pairs)".to_owned(), &r.provenance))
            .chain(
                self.period_pairs
                    .iter()
                    .map(|r| ("likelihood (period pairs)".to_owned(), &r.provenance)),
            );
        valence
            .chain(seat)
            .chain(wefe)
            .chain(probe)
            .chain(likelihood)
            .collect()
    }
}

/// The Turkish battery as Caglidil et al. show it: its rows in the order of their Figure 1,
/// and their findings checked on the files as given.
#[derive(Debug, Clone)]
pub struct Turkish {
    /// One row per (model, copy), the paper's models first, the lower-cased copies last.
    pub figure_1: Vec<SeatRow>,
    /// Each finding of the paper with our verdict and its evidence.
    pub findings: Vec<Finding>,
}

/// Everything the outputs show, each worked out once.
pub struct Analysis {
    /// The runs themselves, in model order.
    pub results: Results,
    /// The valence results on the hand-annotated set, in model order.
    pub valence: Vec<ModelResult>,
    /// The hand-annotated set rated by the known answer's lexicon, in model order.
    pub valence_lexicon: Vec<ModelResult>,
    /// The drawn sentences, rated by the same lexicon.
    pub valence_drawn: Vec<ModelResult>,
    /// The play-line sentences, rated by the same lexicon.
    pub valence_plays: Vec<ModelResult>,
    /// Each battery that ran, by name, combined over its models (in `results.seat`'s order).
    pub batteries: Vec<(String, BatteryResult)>,
    /// The Turkish battery in the paper's shape, when it ran.
    pub turkish: Option<Turkish>,
    /// The known-answer check on the period models; `None` when the KJV and WEB models did not
    /// both run.
    pub known_answer: Option<Result<KnownAnswer, KnownAnswerError>>,
    /// WEFE's metrics on WEAT 1–10, combined over the models.
    pub wefe: BatteryResult,
    /// The probe's runs, model by model.
    pub probe: Vec<ProbeRun>,
    /// Every two models compared on CrowS-Pairs, then on the period pairs.
    pub likelihood_comparisons: [Vec<ModelComparison>; 2],
    /// The period pairs' known answer; `None` unless the KJV and WEB models both scored them.
    pub period_answer: Option<PeriodAnswer>,
    /// On CrowS-Pairs, the WEB model's bias relative to the KJV model's (mlm-bias's relative
    /// bias, issue #50), or why it could not be computed; `None` unless both scored the pairs.
    pub relative: Option<Result<Relative, String>>,
}

/// The period pairs' known answer (ours, issue #37): scored as CrowS-Pairs scores its pairs
/// (metric.py's pseudo-log-likelihood), the KJV model prefers the King James wording of most
/// held-out verses and the WEB model the World English one, each significantly (its interval
/// clear of 50 %), and the two differ on the same verses (exact McNemar).
#[derive(Debug, Clone)]
pub struct PeriodAnswer {
    /// The KJV model's verdict on "prefers the Early Modern wording".
    pub kjv: Verdict,
    /// The WEB model's.
    pub web: Verdict,
    /// The two compared verse by verse.
    pub comparison: Comparison,
}

impl PeriodAnswer {
    /// Whether the known answer holds: KJV Early Modern, WEB Modern, and the two apart.
    pub fn holds(&self) -> bool {
        self.kjv == Verdict::Stereotypical
            && self.web == Verdict::AntiStereotypical
            && self.comparison.p_value < lmbias_runs::studies::crows::summary::ALPHA
    }

    fn of(runs: &[CrowsRun]) -> Option<PeriodAnswer> {
        let (kjv, web) = kjv_and_web(runs)?;
        let verdict = |run: &CrowsRun| {
            run.summary
                .iter()
                .find(|s| s.measure == Measure::Pll)
                .map_or(Verdict::NoData, |s| s.overall.verdict)
        };
        let comparison = likelihood::compare(&[kjv.clone(), web.clone()])
            .ok()?
            .pop()?
            .tests
            .into_iter()
            .find(|t| t.measure == Measure::Pll)?;
        Some(PeriodAnswer {
            kjv: verdict(kjv),
            web: verdict(web),
            comparison,
        })
    }
}

/// The KJV and the WEB period models' runs, when both are among `runs`.
fn kjv_and_web(runs: &[CrowsRun]) -> Option<(&CrowsRun, &CrowsRun)> {
    let of = |label: &str| runs.iter().find(|r| r.model == label);
    Some((of(period_models::LABELS[0])?, of(period_models::LABELS[1])?))
}

impl Analysis {
    /// Works out everything the outputs show from `results`, once.
    pub fn of(results: Results) -> Analysis {
        let valence: Vec<ModelResult> = results.valence.iter().map(|r| r.result.clone()).collect();
        let of = |runs: &[ValenceRun]| -> Vec<ModelResult> {
            runs.iter().map(|r| r.result.clone()).collect()
        };
        let (valence_lexicon, valence_drawn, valence_plays) = (
            of(&results.valence_lexicon),
            of(&results.valence_drawn),
            of(&results.valence_plays),
        );
        let batteries: Vec<(String, BatteryResult)> = results
            .seat
            .iter()
            .map(|(name, runs)| (name.clone(), seat::combine(runs)))
            .collect();
        let turkish = batteries
            .iter()
            .find(|(name, _)| name == "tr")
            .map(|(_, run)| Turkish {
                figure_1: caglidil::figure_1_order(&run.rows),
                findings: caglidil::findings(&run.rows),
            });
        let known_answer = results.frozen.as_ref().and_then(|frozen| {
            crate::known_answer::check(frozen, &valence_lexicon, &[&valence_drawn, &valence_plays])
        });
        let probe = results.probe.iter().map(|r| r.run.clone()).collect();
        // Runs of one set score the same pairs, so every comparison holds; one that cannot be
        // made (a run cut short) is left out rather than stopping the report.
        let likelihood_comparisons = [&results.crows, &results.period_pairs]
            .map(|runs| likelihood::compare(runs).unwrap_or_default());
        let period_answer = PeriodAnswer::of(&results.period_pairs);
        let relative = kjv_and_web(&results.crows)
            .map(|(kjv, web)| likelihood::relative(kjv, web).map_err(|e| e.to_string()));
        let wefe = seat::combine(&results.wefe);
        Analysis {
            results,
            valence,
            valence_lexicon,
            valence_drawn,
            valence_plays,
            batteries,
            turkish,
            known_answer,
            wefe,
            probe,
            likelihood_comparisons,
            period_answer,
            relative,
        }
    }

    /// Battery `name` combined over its models, if it ran.
    pub fn battery(&self, name: &str) -> Option<&BatteryResult> {
        self.batteries
            .iter()
            .find(|(battery, _)| battery == name)
            .map(|(_, run)| run)
    }
}
