//! `lmbias probe`: Dusi 2024's categorical-association probe, on precomputed
//! vectors (`--embeddings`), on a model (`--model` with `--templates`), or on static
//! word vectors (`--model glove-6b-50d`: each word's own vector, no templates).

use std::path::PathBuf;

use anyhow::Context;
use lmbias_report::probe::{
    ClassOrder, figure_file, p_text, step_markdown, sweep_markdown, sweep_table,
};
use lmbias_report::pvalue_curve::{PValueSeries, pvalue_curve};
use lmbias_runs::Ctx;
use lmbias_runs::Layer;
use lmbias_runs::inputs::Vectors;
use lmbias_runs::probe::{self, Lists, ProbeOutput, ProbeResult, ProbeSettings, Words};

use crate::model_args::ModelContext;
use crate::output::{self, Format, out, outln};

#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Precomputed vectors: JSON {word: [..]} or word2vec/GloVe text.
    #[arg(long, required_unless_present = "model", conflicts_with_all = ["model", "templates"])]
    embeddings: Option<PathBuf>,
    /// Model folder or Hugging Face id (ORG/NAME) to embed the words with, in --templates.
    /// Or static word vectors (glove-6b-50d, a *.txt/*.vec/*.bin file, a folder of vectors.npy
    /// and vocab.txt): they have no context, so each word is its own vector and --templates is
    /// not needed (ignored if given).
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    compute: crate::model_args::ComputeArgs,
    /// Templates, one per line, each with one [WORD:<descriptor>] placeholder (needed with a
    /// checkpoint --model; static word vectors ignore them).
    #[arg(long)]
    templates: Option<PathBuf>,
    /// Hidden-state layer for --model: `last` or 0 (embeddings) … number of layers.
    #[arg(long, default_value = "last")]
    layer: Layer,
    /// Protected words CSV (word,value[,descriptor]), e.g. religion terms.
    #[arg(long)]
    protected: PathBuf,
    /// Stereotyped words CSV (word,value[,descriptor]), e.g. positive/negative adjectives.
    #[arg(long)]
    stereotyped: PathBuf,
    /// Keep only the N most relevant dimensions (default: sweep 2 … hidden size).
    #[arg(long, conflicts_with = "sweep")]
    n: Option<usize>,
    /// Test every size from 2 to the hidden size (the default).
    #[arg(long)]
    sweep: bool,
    /// Write the p-against-n figure into DIR, as SVG, PNG and PDF (its name says the model and
    /// pair, as reproduce-paper's do).
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    #[command(flatten)]
    font: output::FontArgs,
    /// JSON: the run with every size's table and test; CSV: one row per size (n, table, χ²,
    /// p); Markdown (the default): the same, to read.
    #[command(flatten)]
    format: output::FormatArgs,
    /// What the tables and the figure call --model (its provenance keeps what it is).
    #[arg(long, value_name = "NAME", requires = "model")]
    label: Option<String>,
}

pub fn run(args: ProbeArgs) -> anyhow::Result<()> {
    // Checked before anything is embedded, so that an unwritable path wastes nothing.
    let mut inputs = vec![
        ("--protected", args.protected.as_path()),
        ("--stereotyped", args.stereotyped.as_path()),
    ];
    inputs.extend(args.embeddings.as_deref().map(|p| ("--embeddings", p)));
    inputs.extend(args.templates.as_deref().map(|p| ("--templates", p)));
    inputs.extend(
        args.model
            .as_deref()
            .map(|m| ("--model", std::path::Path::new(m))),
    );
    if let Some(dir) = &args.figures {
        output::check_dir("--figures", dir)?;
    }
    let format = args.format.open(&inputs)?;
    let lists = Lists::load(
        &args.protected,
        &args.stereotyped,
        args.templates.as_deref(),
    )?;
    // clap makes --n and --sweep exclusive; without either, sweep.
    let settings = ProbeSettings {
        layer: args.layer,
        n: args.n,
        pair: None,
    };
    let result: ProbeResult = match (&args.embeddings, &args.model) {
        (Some(path), _) => {
            probe::run_on_vectors(&Vectors::load(path)?, &lists, &settings, &Ctx::none())?
        }
        (None, Some(spec)) => {
            let model = crate::model_args::labelled(
                crate::model_args::open(spec, &args.compute)?,
                args.label.as_deref(),
            );
            probe::run(&model, &lists, &settings, &Ctx::none()).model_context(spec)?
        }
        (None, None) => anyhow::bail!("give --embeddings FILE, or --model M with --templates FILE"),
    };
    let steps = &result.run.sweep;
    let label = result.run.pair.clone();
    // The figure is written first, the results printed whatever became of it; a failed
    // figure is reported after them.
    let figure = args.figures.as_ref().map(|dir| {
        let series = PValueSeries {
            label: label.clone(),
            points: steps.iter().map(|s| (s.n, s.p_value())).collect(),
        };
        let title = format!("Categorical association: {label}");
        output::write_figure(
            &dir.join(figure_file(&result.run)),
            &pvalue_curve(&title, &[series]),
            args.font.font(),
        )
        .context("--figures")
    });
    // Printed whatever became of the figure; a failed figure is reported after.
    let printed = (|| -> anyhow::Result<()> {
        match format {
            Format::Json => {
                let out = ProbeOutput::of(std::slice::from_ref(&result));
                outln!("{}", serde_json::to_string(&out)?)?;
                return Ok(());
            }
            Format::Csv => {
                out!("{}", sweep_table(steps, true).to_csv())?;
                return Ok(());
            }
            Format::Default | Format::Markdown => {}
        }
        let top: Vec<String> = result
            .run
            .relevance_order
            .iter()
            .take(10)
            .map(usize::to_string)
            .collect();
        outln!(
            "{label} · {} dimensions · most relevant first: {} …",
            result.run.width(),
            top.join(", ")
        )?;
        if result.words == Words::OwnVectors {
            outln!("{}: {}.", result.run.model, result.words.note())?;
        }
        outln!()?;
        if let [step] = &steps[..] {
            let order = ClassOrder {
                protected: &lists.protected.words().classes_in_file_order(),
                stereotyped: &lists.stereotyped.words().classes_in_file_order(),
            };
            out!("{}", step_markdown(step, order))?;
            return Ok(());
        }
        out!("{}", sweep_markdown(steps))?;
        let tested: Vec<(usize, f64)> = steps
            .iter()
            .filter_map(|s| s.p_value().map(|p| (s.n, p)))
            .collect();
        let significant = tested.iter().filter(|(_, p)| *p < 0.05).count();
        outln!()?;
        outln!(
            "{significant} of {} sizes have p < 0.05; {} sizes not testable.",
            steps.len(),
            steps.len() - tested.len()
        )?;
        if let Some((n, p)) = tested.iter().min_by(|a, b| a.1.total_cmp(&b.1)) {
            outln!("Smallest p = {} at n = {n}.", p_text(*p))?;
        }
        Ok(())
    })();
    figure.transpose()?;
    printed
}
