//! `reproduce-paper`: run the three studies on the models that can be had, then
//! write every table, figure and the comparison report under one folder. The two
//! halves are apart so that a sweep can be sharded: each shard runs its slice of
//! the models into [`ModelOutcome`]s, and the merge writes from all of them what
//! one run would have written (see `crate::shards`).

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use lmbias_frontend::Bar;
use lmbias_papers::dusi;
use lmbias_report::heatmap::Marks;
use lmbias_report::table::Table;
use lmbias_runs::probe::{self, Lists, ProbeOutput, ProbeResult, ProbeSettings};
use lmbias_runs::seat::{self, SeatOutput, SeatRun, SeatSettings, Tests};
use lmbias_runs::studies::corpus_valence::Agreement;
use lmbias_runs::studies::probe::ProbeRun;
use lmbias_runs::studies::seat::{BatteryResult, Copies, SeatRow};
use lmbias_runs::studies::valence::ModelResult;
use lmbias_runs::valence::{
    self, CorpusSettings, Dataset, PeriodCorpora, ValenceOutput, ValenceRun,
};
use lmbias_runs::{Compute, Layer, Model, Precision, Provenance};
use serde::{Deserialize, Serialize};

use crate::models::{Available, ModelInfo, Source, Study};
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
}

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

/// The SEAT batteries: English (May et al. 2019) and our Turkish one, each with
/// the significance marks its paper reads (the Turkish paper's: 0.1, 0.05, 0.01).
/// Every model runs the files as given (Caglidil et al.'s procedure); `seat/tr`
/// has a lower-cased copy, `seat/tr-uncased`, that uncased models also run, the
/// comparison the paper suggests (§4.2), reported beside it.
const BATTERIES: [(&str, &str, Marks); 2] = [
    ("en", "seat/en", Marks::Stars),
    ("tr", "seat/tr", Marks::Caglidil),
];

/// What every study gave on one model, as lmbias-runs returns it (each run with its
/// provenance): the unit a shard saves and a merge reassembles.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ModelOutcome {
    /// Where the model was found ([`Available::location`]), worked out by the run that ran it.
    pub location: String,
    pub valence: Option<ValenceRun>,
    /// The valence study on the drawn sentences (datasets/valence/kjv-web-drawn.json).
    #[serde(default)]
    pub valence_drawn: Option<ValenceRun>,
    /// Per battery that ran on the model, by name, in [`BATTERIES`] order.
    pub seat: Vec<(String, SeatRun)>,
    /// Per pair of Dusi's, in [`DUSI_PAIRS`] order.
    pub probe: Vec<ProbeResult>,
    /// The studies that failed on it, in study order.
    pub failures: Vec<Failure>,
    /// For a period model the valence study ran on: how it was trained.
    #[serde(default)]
    pub trained: Option<period_models::Provenance>,
}

/// What each study produced over all models, for the report.
#[derive(Default)]
pub struct Results {
    /// Where each model was found, in model order.
    pub locations: Vec<String>,
    pub valence: Vec<ValenceRun>,
    /// The same on the drawn sentences.
    pub valence_drawn: Vec<ValenceRun>,
    /// Per battery name, its runs over all models.
    pub seat: Vec<(String, Vec<SeatRun>)>,
    pub probe: Vec<ProbeResult>,
    /// Models a study could not run on, and why: the run goes on without them.
    pub failures: Vec<Failure>,
    /// The period models that ran, in model order.
    pub trained: Vec<period_models::Provenance>,
    /// How the Bibles' corpus-derived valence agrees with the hand annotations.
    pub corpus_agreement: Option<Agreement>,
}

impl Results {
    /// The studies' results over all models, each outcome given with its model's position
    /// in the list, in list order (study order for the failures): the same however the
    /// models were split between runs.
    pub fn assemble(mut outcomes: Vec<(usize, ModelOutcome)>) -> Results {
        outcomes.sort_by_key(|(position, _)| *position);
        let mut results = Results::default();
        for (name, _, _) in BATTERIES {
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
            results.valence_drawn.extend(o.valence_drawn);
            results.probe.extend(o.probe);
            results.trained.extend(o.trained);
        }
        results
    }

    /// The valence results, in model order, as lmbias-report's tables take them.
    pub fn valence_results(&self) -> Vec<ModelResult> {
        self.valence.iter().map(|r| r.result.clone()).collect()
    }

    /// The same on the drawn sentences.
    pub fn valence_drawn_results(&self) -> Vec<ModelResult> {
        self.valence_drawn
            .iter()
            .map(|r| r.result.clone())
            .collect()
    }

    /// Each battery's rows and refusals over all models, as the tables take them.
    pub fn seat_batteries(&self) -> Vec<(&str, BatteryResult)> {
        self.seat
            .iter()
            .map(|(name, runs)| (name.as_str(), seat::combine(runs)))
            .collect()
    }

    /// The probe's runs, model by model, as the tables take them.
    pub fn probe_runs(&self) -> Vec<ProbeRun> {
        self.probe.iter().map(|r| r.run.clone()).collect()
    }

    /// What produced each run, labelled by its study (and battery), in report order.
    pub fn provenance(&self) -> Vec<(String, &Provenance)> {
        let valence = self
            .valence
            .iter()
            .map(|r| ("valence".to_owned(), &r.provenance))
            .chain(
                self.valence_drawn
                    .iter()
                    .map(|r| ("valence (drawn)".to_owned(), &r.provenance)),
            );
        let seat = self.seat.iter().flat_map(|(name, runs)| {
            runs.iter()
                .map(move |r| (format!("seat ({name})"), &r.provenance))
        });
        let probe = self
            .probe
            .iter()
            .map(|r| ("probe".to_owned(), &r.provenance));
        valence.chain(seat).chain(probe).collect()
    }
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
        }
        timings.push((study, started.elapsed()));
    }
    Ok((outcomes, timings))
}

/// Writes every study's tables and figures under `out`; `models` is the full list
/// (a study with no model to serve it writes nothing).
pub fn write_studies(out: &Path, results: &Results, models: &[ModelInfo]) -> Result<()> {
    let served = |study: Study| models.iter().any(|m| m.studies.contains(&study));
    for study in Study::ALL.into_iter().filter(|s| served(*s)) {
        let dir = out.join(study.as_str());
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        match study {
            Study::Valence => write_valence(&dir, results)?,
            Study::Seat => write_seat(&dir, &results.seat)?,
            Study::Probe => write_probe(&dir, &results.probe)?,
        }
        // A study that produced nothing leaves no empty folder behind.
        let _ = std::fs::remove_dir(&dir);
    }
    Ok(())
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    crate::write_atomically(path, contents)
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    write(path, serde_json::to_string_pretty(value)? + "\n")
}

/// How the valence the two Bibles' training verses give agrees with the hand annotations of
/// datasets/valence/eme-me-60.json (weighted κ, Spearman's ρ; in context and word alone).
pub fn corpus_agreement(datasets: &Path) -> Result<Agreement> {
    let dataset = Dataset::load(&datasets.join(HAND_SET))?;
    let [kjv, web] = crate::corpora::period_corpora()?;
    let corpora = PeriodCorpora::load(&kjv.path, &web.path, CorpusSettings::default())?;
    Ok(corpora.agreement(&dataset))
}

/// A model's valence run on the hand set, and on the drawn set or why that one failed.
type BothSets = (ValenceRun, Result<ValenceRun>);

/// The hand-annotated valence sentences, under `datasets/`.
const HAND_SET: &str = "valence/eme-me-60.json";

fn valence_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    let dataset = Dataset::load(&options.datasets.join(HAND_SET))?;
    // Every proposal the hand annotations leave is rated from the Bibles' training verses, and
    // the drawn sentences (from the verses held out of them) are rated from them alone.
    let [kjv, web] = crate::corpora::period_corpora()?;
    let corpora = PeriodCorpora::load(&kjv.path, &web.path, CorpusSettings::default())?;
    let drawn_path = options.datasets.join(crate::drawn::FILE);
    let drawn = Dataset::load(&drawn_path)?;
    crate::drawn::check(drawn.dataset(), &drawn_path, &kjv, &web)?;
    let top_k = options.settings.top_k;
    let progress = Bar::count(Some(on.len() as u64), "valence");
    for (model, outcome) in on {
        progress.inc(1);
        // A period model trains here the first time (minutes): a line every few steps.
        let mut on_step = |p: &lmbias_runs::train::Progress| {
            if let Some(line) = period_models::progress_line(model.name(), p) {
                progress.println(&line);
            }
        };
        // The drawn set fails on its own (a model too short for a long verse keeps its
        // hand-set result).
        let both = |opened: &Model| -> Result<BothSets> {
            Ok((
                valence::run(opened, &dataset, top_k, Some(&corpora))?,
                valence::run(opened, &drawn, top_k, Some(&corpora))
                    .map_err(|e| anyhow::Error::new(e).context("the drawn sentences")),
            ))
        };
        let mut run = || -> Result<(BothSets, Option<period_models::Provenance>)> {
            match &model.source {
                Source::Opened(opened) => {
                    let runs = both(opened);
                    opened.unload();
                    Ok((runs?, None))
                }
                Source::Trained(period) => {
                    let (checkpoint, trained) = period.obtain(&mut on_step)?;
                    let opened = Model::from_checkpoint(checkpoint, options.compute)?;
                    Ok((both(&opened)?, Some(trained)))
                }
            }
        };
        match run() {
            Ok(((hand, drawn), trained)) => {
                let portable = |mut run: ValenceRun| {
                    run.provenance = options.portable_provenance(run.provenance);
                    run
                };
                outcome.valence = Some(portable(hand));
                match drawn {
                    Ok(drawn) => outcome.valence_drawn = Some(portable(drawn)),
                    Err(err) => {
                        outcome
                            .failures
                            .push(Failure::new(Study::Valence, model, err, options))
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

fn write_valence(dir: &Path, results: &Results) -> Result<()> {
    if results.valence.is_empty() {
        return Ok(());
    }
    let hand = results.valence_results();
    let drawn = results.valence_drawn_results();
    write_period_models(dir, &hand, &drawn, &results.trained)?;
    write_valence_set(
        dir,
        &results.valence,
        results.corpus_agreement,
        Layout::Pretty,
    )?;
    write(
        &dir.join("examples.md"),
        crate::shapes::valence_examples(&hand),
    )?;
    if !results.valence_drawn.is_empty() {
        let sub = dir.join("drawn");
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        write_valence_set(&sub, &results.valence_drawn, None, Layout::Compact)?;
    }
    Ok(())
}

/// How results.json is laid out: indented, or on one line for the drawn set, whose every
/// proposal of 900 sentences would make an indented file of megabytes.
#[derive(Clone, Copy)]
enum Layout {
    Pretty,
    Compact,
}

/// One valence set's figures, results.json and tables into `dir`.
fn write_valence_set(
    dir: &Path,
    runs: &[ValenceRun],
    agreement: Option<Agreement>,
    layout: Layout,
) -> Result<()> {
    use lmbias_report::valence::{
        Measure, comparison_table, figure, figure_file_name, group_table, sentence_table,
        sweep_table,
    };
    let results: Vec<ModelResult> = runs.iter().map(|r| r.result.clone()).collect();
    if let Some(first) = results.first() {
        for measure in Measure::ALL {
            write(
                &dir.join(figure_file_name(measure, first.top_k)),
                figure(&results, measure),
            )?;
        }
    }
    let output = ValenceOutput::of(runs, agreement);
    match layout {
        Layout::Pretty => write_json(&dir.join("results.json"), &output)?,
        Layout::Compact => write(
            &dir.join("results.json"),
            serde_json::to_string(&output)? + "\n",
        )?,
    }
    let tables: [(&str, Table); 4] = [
        ("comparison", comparison_table(&results, 3)),
        ("groups", group_table(&results, 3)),
        ("k-sweep", sweep_table(&results, 3)),
        ("sentences", sentence_table(&results, 3)),
    ];
    for (name, table) in tables {
        write(&dir.join(format!("{name}.md")), table.to_markdown())?;
        write(&dir.join(format!("{name}.csv")), table.to_csv())?;
    }
    Ok(())
}

/// The period models' training reports and provenance (`period-models/`), and the
/// known-answer check on them (`known-answer.json`) when both ran and can be compared;
/// REPORT.md says why when they cannot.
fn write_period_models(
    dir: &Path,
    hand: &[ModelResult],
    drawn: &[ModelResult],
    trained: &[period_models::Provenance],
) -> Result<()> {
    if !trained.is_empty() {
        let sub = dir.join("period-models");
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        for p in trained {
            write_json(&sub.join(format!("{}-training.json", p.short)), &p.report)?;
            write(
                &sub.join(format!("{}-training.md", p.short)),
                p.report.markdown(),
            )?;
        }
        write(
            &sub.join("PROVENANCE.md"),
            period_models::provenance_markdown(trained),
        )?;
    }
    if let Some(Ok(answers)) = period_models::known_answer(hand, drawn) {
        write_json(&dir.join("known-answer.json"), &answers)?;
    }
    Ok(())
}

/// xtask is never cancelled mid-battery (an interrupt ends the process).
static NOT_CANCELLED: AtomicBool = AtomicBool::new(false);

fn seat_study(on: Vec<(&Available, &mut ModelOutcome)>, options: &Options) -> Result<()> {
    let batteries: Vec<(&str, Tests)> = BATTERIES
        .iter()
        .map(|(name, sub, _)| Ok((*name, Tests::load(&[options.datasets.join(sub)])?)))
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
    };
    let progress = Bar::count(Some((on.len() * batteries.len()) as u64), "seat");
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
                progress.inc(batteries.len() as u64);
                continue;
            }
        };
        // A battery fails or succeeds whole on a model, so a heatmap never shows half a model.
        for (name, tests) in &batteries {
            if *name == "tr" && !available.turkish {
                progress.inc(1);
                continue;
            }
            match seat::run(model, tests, &settings, &NOT_CANCELLED) {
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
        model.unload();
    }
    progress.finish();
    Ok(())
}

fn write_seat(dir: &Path, batteries: &[(String, Vec<SeatRun>)]) -> Result<()> {
    for (name, runs) in batteries {
        let marks = BATTERIES
            .iter()
            .find(|(battery, _, _)| battery == name)
            .map_or(Marks::Stars, |(_, _, marks)| *marks);
        let run = seat::combine(runs);
        let rows = &run.rows;
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        write_json(&sub.join("results.json"), &SeatOutput::of(runs))?;
        write(
            &sub.join("results.csv"),
            lmbias_report::seat::table(rows).to_csv(),
        )?;
        write(
            &sub.join("results.md"),
            lmbias_report::seat::battery_markdown(&run, marks),
        )?;
        // Each model's own sentence vector: its sentence-transformers pooling where the
        // folder declares one, else [CLS] for BERT, mean for T5, word mean for static vectors.
        let title = format!(
            "SEAT ({name}), last layer; {}",
            lmbias_report::seat::pooling_label(rows)
        );
        for (file, svg) in lmbias_report::seat::heatmaps(rows, &title, marks) {
            write(&sub.join(file), svg)?;
        }
        if name == "tr" {
            caglidil_outputs(&sub, rows)?;
        }
    }
    Ok(())
}

/// The Turkish battery in the shape of Caglidil et al.'s Figure 1 (models as
/// rows, an uncased model's lower-cased copy as a row of its own; the paper's
/// selected tests as columns) and its findings as a checklist, on the files as given.
fn caglidil_outputs(dir: &Path, rows: &[SeatRow]) -> Result<()> {
    use lmbias_papers::caglidil::{FIGURE_1, figure_1_order, findings, findings_table};
    use lmbias_report::heatmap::HeatmapLabels;
    let labels = HeatmapLabels {
        title: "Caglidil et al. 2024, Figure 1 tests: p (left) and d (right), models as rows \
                in the paper's order (\"lower-cased copy\": datasets/seat/tr-uncased, last)"
            .to_owned(),
        p_label: "p".to_owned(),
        marks: Marks::Caglidil,
    };
    let ordered = figure_1_order(rows);
    if let Some(svg) = lmbias_report::seat::selected_heatmap(&ordered, &FIGURE_1, &labels) {
        write(&dir.join("figure-1.svg"), svg)?;
    }
    let table = findings_table(&findings(rows));
    write(&dir.join("findings.md"), table.to_markdown())?;
    write(&dir.join("findings.csv"), table.to_csv())
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
                    let mut result = probe::run(model, lists, &settings).context(*pair)?;
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

/// Writes the probe's files; unlike the other studies, also when every model failed
/// (empty tables say that it ran on none).
fn write_probe(dir: &Path, results: &[ProbeResult]) -> Result<()> {
    let runs: Vec<ProbeRun> = results.iter().map(|r| r.run.clone()).collect();
    // One figure per model and pair, as Dusi's Figure 1 draws each pair, n up to the width.
    for run in &runs {
        let series = lmbias_report::pvalue_curve::PValueSeries {
            label: run.pair.clone(),
            points: run.sweep.iter().map(|s| (s.n, s.p_value())).collect(),
        };
        let title = format!(
            "{}: χ² p against n (2 … {})\n{}",
            run.pair,
            run.width(),
            run.model
        );
        write(
            &dir.join(lmbias_report::probe::figure_file(run)),
            lmbias_report::pvalue_curve::pvalue_curve(&title, &[series]),
        )?;
    }
    write_json(&dir.join("results.json"), &ProbeOutput::of(results))?;
    let summary = lmbias_report::probe::summary_table(&runs);
    write(&dir.join("summary.md"), summary.to_markdown())?;
    write(&dir.join("summary.csv"), summary.to_csv())?;
    write(&dir.join("table-1.md"), dusi::table_1_markdown(&runs))
}
