//! `lmbias probe`: Dusi 2024's categorical-association probe, on precomputed
//! vectors (`--embeddings`), on a model (`--model` with `--templates`), or on static
//! word vectors (`--model glove-6b-50d`: each word's own vector, no templates).

use std::path::PathBuf;

use anyhow::{Context, bail};
use lmbias_data::embeddings::Embeddings;
use lmbias_data::probe::{WordList, load_templates, load_word_list};
use lmbias_encoder::Layer;
use lmbias_model::DeviceKind;
use lmbias_report::probe::{ClassOrder, p_text, step_markdown, sweep_markdown};
use lmbias_report::pvalue_curve::{PValueSeries, pvalue_curve};
use lmbias_studies::probe::{Probe, ProbeStep, ProbeWord, embed_words, word_vectors};
use serde_json::json;

use crate::model_args::{Model, ModelArgs};
use crate::output::{self, out, outln};

/// Said in the output when the model is static word vectors.
const STATIC_NOTE: &str = "static word vectors have no context: each word is its own vector, \
     and templates are not used";

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
    /// Where to run the model: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    device: DeviceKind,
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
    /// Write the p-against-n figure (SVG) here.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ProbeArgs) -> anyhow::Result<()> {
    // Checked before anything is embedded, so that an unwritable path wastes nothing.
    if let Some(svg) = &args.svg {
        output::check_file("--svg", svg)?;
    }
    let protected = load_word_list(&args.protected)?;
    let stereotyped = load_word_list(&args.stereotyped)?;
    let (source, protected_words, stereotyped_words) = match (&args.embeddings, &args.model) {
        (Some(path), _) => {
            let embeddings = Embeddings::from_path(path)?;
            (
                json!({ "embeddings": path }),
                lookup(&embeddings, &protected)?,
                lookup(&embeddings, &stereotyped)?,
            )
        }
        (None, Some(model)) => {
            let model_args = ModelArgs {
                model: model.clone(),
                device: args.device,
            };
            let loaded = model_args.embedder()?;
            let embedder = loaded.embedder();
            let templates = match (&loaded, &args.templates) {
                (Model::Static(_), _) => None,
                (Model::Checkpoint(..), Some(path)) => Some((path, load_templates(path)?)),
                (Model::Checkpoint(..), None) => {
                    bail!("--model {model} needs --templates (only static word vectors do not)")
                }
            };
            let embed = |list: &WordList, path: &PathBuf| {
                match &templates {
                    Some((_, templates)) => embed_words(embedder, list, templates, args.layer),
                    None => word_vectors(embedder, list, args.layer),
                }
                .with_context(|| path.display().to_string())
            };
            let source = match &templates {
                Some((path, _)) => {
                    json!({ "model": embedder.model_name(), "layer": args.layer, "templates": path })
                }
                None => json!({
                    "model": embedder.model_name(),
                    "static": true,
                    "note": STATIC_NOTE,
                }),
            };
            (
                source,
                embed(&protected, &args.protected)?,
                embed(&stereotyped, &args.stereotyped)?,
            )
        }
        (None, None) => bail!("give --embeddings FILE, or --model M with --templates FILE"),
    };
    let probe = Probe::fit(protected_words, stereotyped_words)?;
    // clap makes --n and --sweep exclusive; without either, sweep.
    let steps: Vec<ProbeStep> = match (args.n, args.sweep) {
        (Some(n), false) if n < 1 || n > probe.hidden_size() => {
            bail!(
                "--n {n}: must be between 1 and the hidden size {}",
                probe.hidden_size()
            )
        }
        (Some(n), false) => vec![probe.step(n)?],
        _ => probe.sweep()?,
    };
    let label = format!("{} × {}", stem(&args.protected), stem(&args.stereotyped));
    // The figure is written first, the results printed whatever became of it; a failed
    // figure is reported after them.
    let figure = args.svg.as_ref().map(|svg| {
        let series = PValueSeries {
            label: label.clone(),
            points: steps.iter().map(|s| (s.n, s.p_value())).collect(),
        };
        let title = format!("Categorical association: {label}");
        output::write_atomically(svg, pvalue_curve(&title, &[series]).as_bytes()).context("--svg")
    });
    // Printed whatever became of the figure; a failed figure is reported after.
    let printed = (|| -> anyhow::Result<()> {
        if args.json {
            let out = json!({
                "source": source,
                "protected": args.protected,
                "stereotyped": args.stereotyped,
                "hidden_size": probe.hidden_size(),
                "relevance_order": probe.relevance_order(),
                "sweep": steps,
            });
            outln!("{}", serde_json::to_string(&out)?)?;
            return Ok(());
        }
        let top: Vec<String> = probe
            .relevance_order()
            .iter()
            .take(10)
            .map(usize::to_string)
            .collect();
        outln!(
            "{label} · {} dimensions · most relevant first: {} …",
            probe.hidden_size(),
            top.join(", ")
        )?;
        if source.get("static").is_some() {
            outln!(
                "{}: {STATIC_NOTE}.",
                source["model"].as_str().unwrap_or_default()
            )?;
        }
        outln!()?;
        if let [step] = &steps[..] {
            let order = ClassOrder {
                protected: &protected.classes_in_file_order(),
                stereotyped: &stereotyped.classes_in_file_order(),
            };
            out!("{}", step_markdown(step, order))?;
            return Ok(());
        }
        out!("{}", sweep_markdown(&steps))?;
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

/// The vectors of a word list's words, in file order; every missing word is named.
fn lookup(embeddings: &Embeddings, list: &WordList) -> anyhow::Result<Vec<ProbeWord>> {
    let vectors = embeddings.lookup(list.entries().iter().map(|e| &e.word))?;
    Ok(list
        .entries()
        .iter()
        .zip(vectors)
        .map(|(entry, vector)| ProbeWord {
            word: entry.word.clone(),
            class: entry.class.clone(),
            vector: vector.to_vec(),
        })
        .collect())
}

fn stem(path: &std::path::Path) -> String {
    path.file_stem().map_or_else(
        || path.display().to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}
