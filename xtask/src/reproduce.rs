//! `reproduce-paper`: run the three studies on the models that can be had, each model's
//! runs gathered into a [`ModelOutcome`]. What they add up to is `crate::analysis`'s, the
//! files written from it `crate::render`'s: apart, so that a sweep can be sharded (each
//! shard runs its slice of the models, and the merge writes from all of them what one run
//! would have written; see `crate::shards`).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use lmbias_frontend::Bar;
use lmbias_papers::{BATTERIES, caliskan, dusi};
use lmbias_runs::crows::{self, CrowsRun, CrowsSettings, Pairs};
use lmbias_runs::inputs::Tests;
use lmbias_runs::metrics::wefe::Metrics;
use lmbias_runs::probe::{self, Lists, ProbeResult, ProbeSettings};
use lmbias_runs::seat::{self, SeatRun, SeatSettings};
use lmbias_runs::studies::corpus_valence::Agreement;
use lmbias_runs::studies::crows::Measures;
use lmbias_runs::studies::seat::{Copies, Wefe};
use lmbias_runs::valence::{
    self, CorpusSettings, Dataset, Inputs, PeriodCorpora, ValenceRun, ValenceSettings,
};
use lmbias_runs::{Compute, Ctx, Layer, Model, Precision, Provenance};
use serde::{Deserialize, Serialize};

use crate::models::{Available, Source, Study};
use crate::period_models;

/// How the studies are run: what REPORT.md's header says, equal in every shard of a sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub studies: Vec<Study>,
    /// The device's name (`cpu`, `wgpu`).
    pub device: String,
    /// The precision the checkpoints ran in (written only when not f32).
    #[serde(default, skip_serializing_if = "Precision::is_f32")]
    pub precision: Precision,
    pub seed: u64,
    pub n_samples: u64,
    pub top_k: NonZeroUsize,
}

/// Everything a run needs besides the models.
pub struct Options {
    pub settings: Settings,
    pub compute: Compute,
    pub datasets: PathBuf,
    /// The minimal pairs of the likelihood study (`--crows-pairs`).
    pub crows_pairs: PathBuf,
}

/// CrowS-Pairs, under `datasets/`.
pub const CROWS_PAIRS: &str = "crows-pairs/crows_pairs_anonymized.csv";

/// The group-term list the CrowS-Pairs data checks use (ours; datasets/README.md).
pub const GROUP_TERMS: &str = "group-terms/en.csv";

impl Options {
    /// `text` with the datasets folder named as the repository names it (`datasets/…`):
    /// what goes into a file names no folder of this machine.
    /// The lmbias cache (the period corpora) likewise, as `lmbias cache: corpora/…`.
    fn portable(&self, text: &str) -> String {
        let text = text.replace(&self.datasets.display().to_string(), "datasets");
        match lmbias_runs::fetch::cache_dir() {
            Ok(cache) => text.replace(&format!("{}/", cache.display()), "lmbias cache: "),
            Err(_) => text,
        }
    }

    /// A run's provenance with its input files named as [`Options::portable`] does.
    fn portable_provenance(&self, mut provenance: Provenance) -> Provenance {
        for input in &mut provenance.inputs {
            input.file = self.portable(&input.file);
        }
        provenance
    }
}

/// What every study gave on one model, as lmbias-runs returns it (each run with its
/// provenance): the unit a shard saves and a merge reassembles.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelOutcome {
    /// Where the model was found ([`Available::location`]), worked out by the run that ran it.
    pub location: String,
    pub valence: Option<ValenceRun>,
    /// The valence study on the hand-written sentences rated by the known answer's lexicon
    /// alone (issue #46).
    #[serde(default)]
    pub valence_lexicon: Option<ValenceRun>,
    /// The valence study on the drawn sentences (datasets/valence/kjv-web-drawn.json), rated
    /// by the known answer's lexicon alone.
    #[serde(default)]
    pub valence_drawn: Option<ValenceRun>,
    /// The valence study on the play-line set (datasets/valence/plays-wordnet.json), rated by
    /// the known answer's lexicon alone.
    #[serde(default)]
    pub valence_plays: Option<ValenceRun>,
    /// Per battery that ran on the model, by name, in lmbias-papers' `BATTERIES` order.
    pub seat: Vec<(String, SeatRun)>,
    /// WEFE's five other metrics beside WEAT on Caliskan et al.'s WEAT 1–10 (issue #50).
    #[serde(default)]
    pub wefe: Option<SeatRun>,
    /// Per pair of Dusi's, in the order of lmbias-papers' `dusi::PAIRS`.
    pub probe: Vec<ProbeResult>,
    /// The studies that failed on it, in study order.
    pub failures: Vec<Failure>,
    /// For a period model the valence study ran on: how it was trained.
    #[serde(default)]
    pub trained: Option<period_models::Provenance>,
    /// The likelihood measures on CrowS-Pairs (`--crows-pairs`).
    #[serde(default)]
    pub crows: Option<CrowsRun>,
    /// The same on the period pairs (datasets/period-pairs/kjv-web.csv).
    #[serde(default)]
    pub period_pairs: Option<CrowsRun>,
}

/// A study that failed on one model (e.g. a vocabulary that cannot produce an
/// annotated token): reported, never turned into a number.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    pub study: Study,
    pub model: String,
    pub reason: String,
}

impl Failure {
    fn new(study: Study, model: &Available, err: anyhow::Error, options: &Options) -> Failure {
        let failure = Failure {
            study,
            model: model.name().to_owned(),
            reason: options.portable(&format!("{err:#}")),
        };
        eprintln!(
            "{} failed on {}: {}",
            study.as_str(),
            failure.model,
            failure.reason
        );
        failure
    }
}

/// How long each study took (stderr only: nothing time-dependent goes into a file).
pub type Timings = Vec<(Study, Duration)>;

/// Runs every study on the models that serve it, each model given with its
/// position in the full list; returns each model's outcome at that position, and each
/// study's time.
pub fn run(
    models: &[(usize, &Available)],
    options: &Options,
) -> Result<(Vec<(usize, ModelOutcome)>, Timings)> {
    let mut outcomes: Vec<(usize, ModelOutcome)> = models
        .iter()
        .map(|(position, model)| {
            let outcome = ModelOutcome {
                location: model.location()?,
                ..ModelOutcome::default()
            };
            Ok((*position, outcome))
        })
        .collect::<Result<_>>()?;
    let mut timings = Vec::new();
    for &study in &options.settings.studies {
        let on: Vec<(&Available, &mut ModelOutcome)> = models
            .iter()
            .zip(&mut outcomes)
            .filter(|((_, m), _)| m.studies.contains(&study))
            .map(|((_, m), (_, o))| (*m, o))
            .collect();
        if on.is_empty() {
            continue;
        }
        let started = Instant::now();
        match study {
            Study::Valence => valence_study(on, options)?,
            Study::Seat => seat_study(on, options)?,
            Study::Probe => probe_study(on, options)?,
            Study::Likelihood => likelihood_study(on, options)?,
        }
        timings.push((study, started.elapsed()));
    }
    Ok((outcomes, timings))
}

/// How the valence the two Bibles' training verses give agrees with the hand annotations of
/// datasets/valence/eme-me-60.json (weighted κ, Spearman's ρ; in context and word alone).
pub fn corpus_agreement(datasets: &Path) -> Result<Agreement> {
    let dataset = Dataset::load(&datasets.join(HAND_SET))?;
    let [kjv, web] = crate::corpora::period_corpora()?;
    let corpora = PeriodCorpora::load(&kjv.path, &web.path, CorpusSettings::default())?;
    Ok(corpora.agreement(&dataset))
}

/// A model's valence run on the hand set (annotations, then the corpora), and its runs rated by
/// the known answer's lexicon on the hand set, the drawn set and the play-line set, each or why
/// it failed.
type Runs = (ValenceRun, [Result<ValenceRun>; 3]);

/// The hand-annotated valence sentences, under `datasets/`.
pub const HAND_SET: &str = "valence/eme-me-60.json";

fn valence_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    // Before any model runs: a claims file, lexicon or set changed since it was frozen stops here.
    let frozen = crate::known_answer::frozen(&options.datasets)?;
    let dataset = Dataset::load(&options.datasets.join(HAND_SET))?;
    // Every proposal the hand annotations leave is rated from the Bibles' training verses (the
    // paper's procedure, our construction of its Discussion); the known answer's runs are rated
    // by the lexicon alone.
    let [kjv, web] = crate::corpora::period_corpora()?;
    let corpora = PeriodCorpora::load(&kjv.path, &web.path, CorpusSettings::default())?;
    let drawn_path = options.datasets.join(crate::drawn::FILE);
    let drawn = Dataset::load(&drawn_path)?;
    crate::drawn::check(drawn.dataset(), &drawn_path, &kjv, &web)?;
    let drawn = drawn.rated_by(&frozen.lexicon)?;
    let hand_lexicon =
        Dataset::load(&options.datasets.join(HAND_SET))?.rated_by(&frozen.lexicon)?;
    let plays = Dataset::load(&options.datasets.join(crate::play_lines::FILE))?;
    crate::play_lines::check(plays.dataset(), &options.datasets)?;
    let plays = plays.rated_by(&frozen.lexicon)?;
    let settings = ValenceSettings {
        top_k: options.settings.top_k,
        ..ValenceSettings::default()
    };
    let progress = Bar::count(Some(on.len() as u64), "valence");
    for (model, outcome) in on {
        progress.inc(1);
        // A period model trains here the first time (minutes): a line every few steps.
        let mut on_step = |p: &lmbias_runs::train::Progress| {
            if let Some(line) = period_models::progress_line(model.name(), p) {
                progress.println(&line);
            }
        };
        // The lexicon's runs fail on their own (a model too short for a long verse keeps its
        // hand-set result).
        let all = |opened: &Model| -> Result<Runs> {
            let by_lexicon = |set: &Dataset, what: &'static str| {
                valence::run(opened, &set.into(), &settings, &Ctx::none())
                    .map_err(|e| anyhow::Error::new(e).context(what))
            };
            Ok((
                valence::run(
                    opened,
                    &Inputs {
                        dataset: &dataset,
                        corpora: Some(&corpora),
                    },
                    &settings,
                    &Ctx::none(),
                )?,
                [
                    by_lexicon(
                        &hand_lexicon,
                        "the hand-written sentences rated by the lexicon",
                    ),
                    by_lexicon(&drawn, "the drawn sentences"),
                    by_lexicon(&plays, "the play-line sentences"),
                ],
            ))
        };
        let mut run = || -> Result<(Runs, Option<period_models::Provenance>)> {
            match &model.source {
                Source::Opened(opened) => {
                    let runs = all(opened);
                    opened.unload();
                    Ok((runs?, None))
                }
                Source::Trained(period) => {
                    let (checkpoint, trained) = period.obtain(&mut on_step)?;
                    let opened = Model::from_checkpoint(checkpoint, options.compute)?;
                    Ok((all(&opened)?, Some(trained)))
                }
            }
        };
        match run() {
            Ok(((hand, [hand_lexicon, drawn, plays]), trained)) => {
                let portable = |mut run: ValenceRun| {
                    run.provenance = options.portable_provenance(run.provenance);
                    run
                };
                outcome.valence = Some(portable(hand));
                for (run, slot) in [
                    (hand_lexicon, &mut outcome.valence_lexicon),
                    (drawn, &mut outcome.valence_drawn),
                    (plays, &mut outcome.valence_plays),
                ] {
                    match run {
                        Ok(run) => *slot = Some(portable(run)),
                        Err(err) => {
                            outcome
                                .failures
                                .push(Failure::new(Study::Valence, model, err, options))
                        }
                    }
                }
                outcome.trained = trained;
            }
            Err(err) => outcome
                .failures
                .push(Failure::new(Study::Valence, model, err, options)),
        }
    }
    progress.finish();
    Ok(())
}

fn seat_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    // Every model runs the files as given (Caglidil et al.'s procedure); `seat/tr` has a
    // lower-cased copy, `seat/tr-uncased`, that uncased models also run, the comparison the
    // paper suggests (§4.2), reported beside it.
    let batteries: Vec<(&str, Tests)> = BATTERIES
        .iter()
        .map(|b| Ok((b.name, Tests::load(&[options.datasets.join(b.folder)])?)))
        .collect::<Result<_>>()?;
    // Each model's own sentence vector (the pooling a sentence-transformers folder declares,
    // else [CLS] for BERT as May et al., mean for T5 and static vectors), the last layer;
    // uncased models also run the lower-cased copies.
    let settings = SeatSettings {
        pooling: None,
        layer: Layer::Last,
        n_samples: options.settings.n_samples,
        seed: options.settings.seed,
        copies: Copies::AlsoLowercased,
        ..SeatSettings::default()
    };
    // Beyond the papers (issue #50): WEFE's five other metrics beside WEAT on the ten tests of
    // Caliskan et al.'s Table 1 alone, as written, so that Holm's correction runs over the
    // ten a table shows.
    let caliskan_tests = caliskan_tests(&options.datasets)?;
    let wefe_settings = SeatSettings {
        copies: Copies::AsWritten,
        wefe: Wefe {
            metrics: Metrics::ALL,
            rnsb_holdout: false,
        },
        ..settings
    };
    let steps = batteries.len() + 1;
    let progress = Bar::count(Some((on.len() * steps) as u64), "seat");
    for (available, outcome) in on {
        // Loaded before the batteries: a model that cannot load fails once, not per battery.
        let model = match available
            .opened()
            .and_then(|model| Ok(model.embedder().map(|_| model)?))
        {
            Ok(model) => model,
            Err(err) => {
                outcome
                    .failures
                    .push(Failure::new(Study::Seat, available, err, options));
                progress.inc(steps as u64);
                continue;
            }
        };
        // A battery fails or succeeds whole on a model, so a heatmap never shows half a model.
        for (name, tests) in &batteries {
            if *name == "tr" && !available.turkish {
                progress.inc(1);
                continue;
            }
            match seat::run(model, tests, &settings, &Ctx::none()) {
                Ok(mut run) => {
                    run.provenance = options.portable_provenance(run.provenance);
                    outcome.seat.push(((*name).to_owned(), run));
                }
                Err(err) => outcome.failures.push(Failure::new(
                    Study::Seat,
                    available,
                    anyhow::Error::new(err).context(format!("battery {name}")),
                    options,
                )),
            }
            progress.inc(1);
        }
        match seat::run(model, &caliskan_tests, &wefe_settings, &Ctx::none()) {
            Ok(mut run) => {
                run.provenance = options.portable_provenance(run.provenance);
                outcome.wefe = Some(run);
            }
            Err(err) => outcome.failures.push(Failure::new(
                Study::Seat,
                available,
                anyhow::Error::new(err).context("WEFE's metrics on WEAT 1–10"),
                options,
            )),
        }
        progress.inc(1);
        model.unload();
    }
    progress.finish();
    Ok(())
}

/// Caliskan et al.'s WEAT 1–10 (their Table 1) as sent-bias's word lists give them
/// (`datasets/seat/en/weatN.jsonl`).
fn caliskan_tests(datasets: &Path) -> Result<Tests> {
    let files: Vec<PathBuf> = caliskan::TABLE_1
        .iter()
        .map(|(test, ..)| datasets.join("seat/en").join(format!("{test}.jsonl")))
        .collect();
    Ok(Tests::load(&files)?)
}

fn probe_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    let dir = options.datasets.join("probe");
    let templates = dir.join("templates.txt");
    let pairs: Vec<(&str, Lists)> = dusi::PAIRS
        .iter()
        .map(|pair| {
            let lists = Lists::load(
                &dir.join(pair.protected),
                &dir.join(pair.stereotyped),
                Some(&templates),
            )?;
            Ok((pair.name, lists))
        })
        .collect::<Result<_>>()?;
    let progress = Bar::count(Some((on.len() * pairs.len()) as u64), "probe");
    for (available, outcome) in on {
        // The model decides how words become vectors: a checkpoint embeds each word in the
        // templates, static vectors give each word its own vector.
        let run = || -> Result<Vec<ProbeResult>> {
            let model = available.opened()?;
            let results = pairs
                .iter()
                .map(|(pair, lists)| {
                    let settings = ProbeSettings {
                        pair: Some((*pair).to_owned()),
                        ..ProbeSettings::default()
                    };
                    let mut result =
                        probe::run(model, lists, &settings, &Ctx::none()).context(*pair)?;
                    result.provenance = options.portable_provenance(result.provenance);
                    progress.inc(1);
                    Ok(result)
                })
                .collect();
            model.unload();
            results
        };
        match run() {
            Ok(results) => outcome.probe = results,
            Err(err) => outcome
                .failures
                .push(Failure::new(Study::Probe, available, err, options)),
        }
    }
    progress.finish();
    Ok(())
}

/// The likelihood measures (issue #37; in none of the three papers) on every masked LM: the
/// pairs of `--crows-pairs` and the period pairs, each failing on its own (a model too short
/// for a long verse keeps its CrowS-Pairs result).
fn likelihood_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    let sets = [
        Pairs::load(
            &options.crows_pairs,
            Some(&options.datasets.join(GROUP_TERMS)),
        )?,
        Pairs::load(&options.datasets.join(crate::pairs::FILE), None)?,
    ];
    // CrowS-Pairs gets every measure, mlm-bias's too (issue #50); the period pairs the papers'
    // four, which their known answer reads.
    let settings = [
        CrowsSettings {
            measures: Measures::ALL,
            ..CrowsSettings::default()
        },
        CrowsSettings::default(),
    ];
    let total: usize = sets.iter().map(|s| s.set().pairs().len()).sum();
    let progress = Bar::count(Some((on.len() * total) as u64), "likelihood");
    for (available, outcome) in on {
        let mut on_step = |p: &lmbias_runs::train::Progress| {
            if let Some(line) = period_models::progress_line(available.name(), p) {
                progress.println(&line);
            }
        };
        let trained;
        let model: &Model = match &available.source {
            Source::Opened(opened) => opened,
            Source::Trained(period) => {
                let opened = period.obtain(&mut on_step).and_then(|(checkpoint, _)| {
                    Ok(Model::from_checkpoint(checkpoint, options.compute)?)
                });
                match opened {
                    Ok(model) => {
                        trained = model;
                        &trained
                    }
                    Err(err) => {
                        outcome.failures.push(Failure::new(
                            Study::Likelihood,
                            available,
                            err,
                            options,
                        ));
                        progress.inc(total as u64);
                        continue;
                    }
                }
            }
        };
        for (k, (pairs, settings)) in sets.iter().zip(&settings).enumerate() {
            let start = progress.position();
            let tick = |done: usize| progress.set_position(start + done as u64);
            let ctx = Ctx {
                progress: &tick,
                ..Ctx::none()
            };
            match crows::run(model, pairs, settings, &ctx) {
                Ok(mut run) => {
                    run.provenance = options.portable_provenance(run.provenance);
                    if let Some(check) = &mut run.data_checks.group_terms {
                        check.list = options.portable(&check.list);
                    }
                    if k == 0 {
                        outcome.crows = Some(run);
                    } else {
                        outcome.period_pairs = Some(run);
                    }
                }
                Err(err) => outcome.failures.push(Failure::new(
                    Study::Likelihood,
                    available,
                    anyhow::Error::new(err).context(if k == 0 {
                        "the CrowS pairs"
                    } else {
                        "the period pairs"
                    }),
                    options,
                )),
            }
            progress.set_position(start + pairs.set().pairs().len() as u64);
        }
        model.unload();
    }
    progress.finish();
    Ok(())
}
