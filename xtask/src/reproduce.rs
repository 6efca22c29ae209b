//! `reproduce-paper`: run the three studies on the models that can be had and
//! write every table, figure and the comparison report under one folder.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use lmbias_data::association::{self, LoadOptions};
use lmbias_data::probe::{Template, WordList, load_templates, load_word_list};
use lmbias_data::valence::ValenceDataset;
use lmbias_encoder::Layer;
use lmbias_metrics::weat::Options as WeatOptions;
use lmbias_model::DeviceKind;
use lmbias_report::heatmap::Marks;
use lmbias_report::table::Table;
use lmbias_studies::probe::{DUSI_PAIRS, Probe, ProbePair, ProbeRun, embed_words};
use lmbias_studies::seat::{self, Battery, BatteryResult, Lost, SeatOptions, SeatRow};
use lmbias_studies::valence::{self, ModelResult};
use serde::Serialize;

use crate::models::{Available, Study};

/// Everything a run needs besides the models.
pub struct Options {
    pub studies: Vec<Study>,
    pub device: DeviceKind,
    pub out: PathBuf,
    pub datasets: PathBuf,
    pub seed: u64,
    pub n_samples: u64,
    pub top_k: NonZeroUsize,
}

/// The SEAT batteries: English (May et al. 2019) and our Turkish one, each with
/// the significance marks its paper reads (the Turkish paper's: 0.1, 0.05, 0.01).
/// `seat/tr` has a lower-cased copy, `seat/tr-uncased`, that uncased models run.
const BATTERIES: [(&str, &str, Marks); 2] = [
    ("en", "seat/en", Marks::Stars),
    ("tr", "seat/tr", Marks::Caglidil),
];

/// What each study produced, for the report.
#[derive(Default)]
pub struct Results {
    pub valence: Vec<ModelResult>,
    /// Per battery name, its rows over all models.
    pub seat: Vec<(String, BatteryResult)>,
    pub probe: Vec<ProbeRun>,
    /// Models a study could not run on, and why: the run goes on without them.
    pub failures: Vec<Failure>,
    pub timings: Vec<(Study, Duration)>,
}

/// A study that failed on one model (e.g. a vocabulary that cannot produce an
/// annotated token): reported, never turned into a number.
pub struct Failure {
    pub study: Study,
    pub model: String,
    pub reason: String,
}

impl Failure {
    fn new(study: Study, model: &Available, err: anyhow::Error) -> Failure {
        let failure = Failure {
            study,
            model: model.name().to_owned(),
            reason: format!("{err:#}"),
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

/// Runs every study on the models that serve it; the report is written from the result.
pub fn run(models: &[Available], options: &Options) -> Result<Results> {
    let mut results = Results::default();
    for &study in &options.studies {
        let on: Vec<&Available> = models
            .iter()
            .filter(|m| m.studies.contains(&study))
            .collect();
        if on.is_empty() {
            continue;
        }
        let dir = options.out.join(study.as_str());
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let started = Instant::now();
        match study {
            Study::Valence => {
                results.valence = valence_study(&on, options, &dir, &mut results.failures)?
            }
            Study::Seat => results.seat = seat_study(&on, options, &dir, &mut results.failures)?,
            Study::Probe => results.probe = probe_study(&on, options, &dir, &mut results.failures)?,
        }
        // A study that produced nothing leaves no empty folder behind.
        let _ = std::fs::remove_dir(&dir);
        results.timings.push((study, started.elapsed()));
    }
    Ok(results)
}

fn bar(len: usize, what: &str) -> ProgressBar {
    let bar = ProgressBar::new(len as u64).with_message(what.to_owned());
    bar.set_style(
        ProgressStyle::with_template("{msg:>10} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

fn write(path: &Path, contents: impl AsRef<[u8]>) -> Result<()> {
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}

fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    write(path, serde_json::to_string_pretty(value)? + "\n")
}

fn valence_study(
    models: &[&Available],
    options: &Options,
    dir: &Path,
    failures: &mut Vec<Failure>,
) -> Result<Vec<ModelResult>> {
    use lmbias_report::valence::{
        Measure, comparison_table, figure, figure_file_name, group_table, sentence_table,
        sweep_table,
    };
    let path = options.datasets.join("valence/eme-me-60.json");
    let dataset = ValenceDataset::load(&path)?;
    let progress = bar(models.len(), "valence");
    let mut results = Vec::new();
    for model in models {
        progress.inc(1);
        let run = || -> Result<ModelResult> {
            let lm = model.masked_lm(options.device)?;
            Ok(valence::run(lm.as_ref(), &dataset, options.top_k)?)
        };
        let result = match run() {
            Ok(result) => result,
            Err(err) => {
                failures.push(Failure::new(Study::Valence, model, err));
                continue;
            }
        };
        for measure in Measure::ALL {
            write(
                &dir.join(figure_file_name(&result, measure)),
                figure(&result, measure),
            )?;
        }
        results.push(result);
    }
    progress.finish_and_clear();
    if results.is_empty() {
        return Ok(results);
    }
    write_json(&dir.join("results.json"), &results)?;
    write(
        &dir.join("examples.md"),
        crate::shapes::valence_examples(&results),
    )?;
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
    Ok(results)
}

fn seat_study(
    models: &[&Available],
    options: &Options,
    dir: &Path,
    failures: &mut Vec<Failure>,
) -> Result<Vec<(String, BatteryResult)>> {
    let batteries: Vec<(&str, Marks, Battery)> = BATTERIES
        .iter()
        .map(|(name, sub, marks)| {
            let tests = association::load_dir_with_copies(
                &options.datasets.join(sub),
                &LoadOptions::default(),
            )?;
            Ok((*name, *marks, Battery::new(tests)?))
        })
        .collect::<Result<_>>()?;
    let mut runs: Vec<BatteryResult> = vec![BatteryResult::default(); batteries.len()];
    let progress = bar(models.len() * batteries.len(), "seat");
    for model in models {
        let embedder = match model.embedder(options.device) {
            Ok(embedder) => embedder,
            Err(err) => {
                failures.push(Failure::new(Study::Seat, model, err));
                progress.inc(batteries.len() as u64);
                continue;
            }
        };
        // Each architecture's own sentence vector: [CLS] for BERT (as May et al.), mean for T5.
        let seat_options = SeatOptions {
            pooling: embedder.default_pooling(),
            layer: Layer::Last,
            weat: WeatOptions {
                n_samples: options.n_samples,
                seed: options.seed,
                ..WeatOptions::default()
            },
            lost: if model.is_static() {
                Lost::Drop
            } else {
                Lost::Keep
            },
        };
        // A battery fails or succeeds whole on a model, so a heatmap never shows half a model.
        for ((name, _, battery), all) in batteries.iter().zip(&mut runs) {
            if *name == "tr" && !model.turkish {
                progress.inc(1);
                continue;
            }
            match seat::run_battery(embedder.as_ref(), battery, &seat_options) {
                Ok(r) => all.append(r),
                Err(err) => failures.push(Failure::new(
                    Study::Seat,
                    model,
                    anyhow::Error::new(err).context(format!("battery {name}")),
                )),
            }
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    let mut results = Vec::new();
    for ((name, marks, _), run) in batteries.into_iter().zip(runs) {
        let rows = &run.rows;
        if rows.is_empty() && run.refused.is_empty() {
            continue;
        }
        let sub = dir.join(name);
        std::fs::create_dir_all(&sub).with_context(|| format!("creating {}", sub.display()))?;
        write_json(&sub.join("results.json"), &run)?;
        write(
            &sub.join("results.csv"),
            lmbias_report::seat::table(rows).to_csv(),
        )?;
        write(
            &sub.join("results.md"),
            lmbias_report::seat::battery_markdown(&run, marks),
        )?;
        let title = format!(
            "SEAT ({name}), [CLS] for BERT, mean for T5, word mean for static vectors; last layer"
        );
        for (file, svg) in lmbias_report::seat::heatmaps(rows, &title, marks) {
            write(&sub.join(file), svg)?;
        }
        if name == "tr" {
            caglidil_outputs(&sub, rows)?;
        }
        results.push((name.to_owned(), run));
    }
    Ok(results)
}

/// The Turkish battery in the shape of Caglidil et al.'s Figure 1 (models as
/// rows, the paper's selected tests as columns) and its findings as a checklist.
fn caglidil_outputs(dir: &Path, rows: &[SeatRow]) -> Result<()> {
    use lmbias_report::caglidil::{FIGURE_1, findings, findings_table};
    use lmbias_report::heatmap::HeatmapLabels;
    let labels = HeatmapLabels {
        title: "Caglidil et al. 2024, Figure 1 tests: p (left) and d (right), models as rows"
            .to_owned(),
        p_label: "p".to_owned(),
        marks: Marks::Caglidil,
    };
    if let Some(svg) = lmbias_report::seat::selected_heatmap(rows, &FIGURE_1, &labels) {
        write(&dir.join("figure-1.svg"), svg)?;
    }
    let table = findings_table(&findings(rows));
    write(&dir.join("findings.md"), table.to_markdown())?;
    write(&dir.join("findings.csv"), table.to_csv())
}

fn probe_study(
    models: &[&Available],
    options: &Options,
    dir: &Path,
    failures: &mut Vec<Failure>,
) -> Result<Vec<ProbeRun>> {
    let lists = options.datasets.join("probe");
    let templates: Vec<Template> = load_templates(&lists.join("templates.txt"))?;
    let pairs: Vec<(&ProbePair, WordList, WordList)> = DUSI_PAIRS
        .iter()
        .map(|pair| {
            Ok((
                pair,
                load_word_list(&lists.join(pair.protected))?,
                load_word_list(&lists.join(pair.stereotyped))?,
            ))
        })
        .collect::<Result<_>>()?;
    let progress = bar(models.len() * pairs.len(), "probe");
    let mut runs = Vec::new();
    for model in models {
        let name = model.name().to_owned();
        let run = || -> Result<Vec<ProbeRun>> {
            let embedder = model.embedder(options.device)?;
            let mut model_runs = Vec::new();
            for (pair, protected, stereotyped) in &pairs {
                let context = || format!("{pair}");
                let protected = embed_words(embedder.as_ref(), protected, &templates, Layer::Last)
                    .with_context(context)?;
                let stereotyped =
                    embed_words(embedder.as_ref(), stereotyped, &templates, Layer::Last)
                        .with_context(context)?;
                let probe = Probe::fit(protected, stereotyped).with_context(context)?;
                model_runs.push(ProbeRun {
                    model: name.clone(),
                    pair: **pair,
                    relevance_order: probe.relevance_order().to_vec(),
                    sweep: probe.sweep().with_context(context)?,
                });
                progress.inc(1);
            }
            Ok(model_runs)
        };
        let model_runs = match run() {
            Ok(model_runs) => model_runs,
            Err(err) => {
                failures.push(Failure::new(Study::Probe, model, err));
                continue;
            }
        };
        let series: Vec<_> = model_runs
            .iter()
            .map(|r| lmbias_report::pvalue_curve::PValueSeries {
                label: r.pair.to_string(),
                points: r.sweep.iter().map(|s| (s.n, s.p_value())).collect(),
            })
            .collect();
        runs.extend(model_runs);
        let title = format!("Categorical association, {name}: χ² p against n");
        write(
            &dir.join(format!("{}-p-vs-n.svg", lmbias_report::file_stem(&name))),
            lmbias_report::pvalue_curve::pvalue_curve(&title, &series),
        )?;
    }
    progress.finish_and_clear();
    write_json(&dir.join("results.json"), &runs)?;
    let summary = lmbias_report::probe::summary_table(&runs);
    write(&dir.join("summary.md"), summary.to_markdown())?;
    write(&dir.join("summary.csv"), summary.to_csv())?;
    write(
        &dir.join("table-1.md"),
        lmbias_report::probe::table_1_markdown(&runs),
    )?;
    Ok(runs)
}
