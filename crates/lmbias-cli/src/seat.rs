//! `lmbias seat`: a battery of association tests (SEAT, May et al. 2019) on one
//! or more models, with Holm/BH correction, vocabulary coverage and figures.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_data::association::{self, AssociationTest, LoadOptions};
use lmbias_encoder::{Embedder, Layer, Pooling};
use lmbias_metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED, Options};
use lmbias_model::{Checkpoint, DeviceKind, load_embedder};
use lmbias_report::seat::{heatmaps, layer_label, markdown, table};
use lmbias_studies::seat::{self, SeatOptions};

use crate::model_args::parse_layer;

#[derive(clap::Args, Debug)]
pub struct SeatArgs {
    /// Model folders or Hugging Face ids (ORG/NAME, found in the HF cache); several make one table.
    #[arg(long = "model", required = true, num_args = 1..)]
    models: Vec<String>,
    /// A sent-bias-format test file, or a directory of them (*.jsonl and *.json, sorted by name).
    #[arg(long = "test", required = true, num_args = 1..)]
    tests: Vec<PathBuf>,
    /// cls (position 0), mean (masked mean) or first (position 0 without special tokens, as sent-bias).
    #[arg(long, default_value = "cls")]
    pooling: Pooling,
    /// Hidden-state layer: `last` or 0 (embeddings) … number of layers.
    #[arg(long, default_value = "last", value_parser = parse_layer)]
    layer: Layer,
    /// Exact p when X ∪ Y has at most this many equal splits, else this many sampled ones (sent-bias).
    #[arg(long, default_value_t = DEFAULT_N_SAMPLES)]
    n_samples: u64,
    /// Seed of the sampled permutation tests.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Where to run the models: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    device: DeviceKind,
    /// Print a JSON list, one object per (model, test).
    #[arg(long, group = "format")]
    json: bool,
    /// Print CSV, one row per (model, test).
    #[arg(long, group = "format")]
    csv: bool,
    /// Print a Markdown table (the default).
    #[arg(long, group = "format")]
    markdown: bool,
    /// Write seat-heatmap.svg (raw p) and seat-heatmap-holm.svg (Holm-adjusted p), each with effect sizes, here.
    #[arg(long)]
    figures: Option<PathBuf>,
}

pub fn run(args: SeatArgs) -> Result<()> {
    let loaded = load_tests(&args.tests)?;
    let mut embedders = Vec::with_capacity(args.models.len());
    for name in &args.models {
        let checkpoint = Checkpoint::resolve(name).with_context(|| format!("--model {name}"))?;
        embedders.push(
            load_embedder(&checkpoint, args.device).with_context(|| format!("--model {name}"))?,
        );
    }
    let models: Vec<&dyn Embedder> = embedders
        .iter()
        .map(|e| e.as_ref() as &dyn Embedder)
        .collect();
    let options = SeatOptions {
        pooling: args.pooling,
        layer: args.layer,
        weat: Options {
            n_samples: args.n_samples,
            seed: args.seed,
            ..Options::default()
        },
    };
    let tests: Vec<AssociationTest> = loaded.iter().map(|l| l.test.clone()).collect();
    let rows = seat::run(&models, &tests, &options).map_err(|e| {
        // The study names the test; the file it came from is ours to add.
        match e
            .test()
            .and_then(|name| loaded.iter().find(|l| l.test.name() == name))
        {
            Some(l) => anyhow::Error::new(e).context(l.file.display().to_string()),
            None => anyhow::Error::new(e),
        }
    })?;
    if let Some(dir) = &args.figures {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let title = format!(
            "SEAT, {} pooling, {}",
            options.pooling,
            layer_label(options.layer)
        );
        for (file, svg) in heatmaps(&rows, &title) {
            let path = dir.join(file);
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    } else if args.csv {
        print!("{}", table(&rows).to_csv());
    } else {
        print!("{}", markdown(&rows));
    }
    Ok(())
}

/// A loaded test and the file it came from.
struct Loaded {
    test: AssociationTest,
    file: PathBuf,
}

/// Every `--test`, in the order given; two tests with one name would make an ambiguous table.
fn load_tests(paths: &[PathBuf]) -> Result<Vec<Loaded>> {
    let options = LoadOptions::default();
    let mut out: Vec<Loaded> = Vec::new();
    for path in paths {
        let loaded: Vec<Loaded> = if path.is_dir() {
            association::load_dir(path, &options)?
                .into_iter()
                .map(|test| Loaded {
                    file: file_in(path, test.name()),
                    test,
                })
                .collect()
        } else {
            let test = AssociationTest::from_path(path, &options)?;
            vec![Loaded {
                test,
                file: path.clone(),
            }]
        };
        for l in loaded {
            if let Some(other) = out.iter().find(|o| o.test.name() == l.test.name()) {
                bail!(
                    "{}: test {} is already loaded from {}",
                    l.file.display(),
                    l.test.name(),
                    other.file.display()
                );
            }
            out.push(l);
        }
    }
    Ok(out)
}

/// The file of test `name` in `dir` (the loader names a test by its file stem).
fn file_in(dir: &Path, name: &str) -> PathBuf {
    ["jsonl", "json"]
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .find(|p| p.is_file())
        .unwrap_or_else(|| dir.to_path_buf())
}
