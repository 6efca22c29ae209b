//! `lmbias weat`: one association test (WEAT/SEAT) on precomputed vectors, with sent-bias's
//! semantics (May et al. 2019): Cohen's d and a one-sided permutation p-value.

use std::path::PathBuf;

use lmbias_runs::Ctx;
use lmbias_runs::data::{AssociationTest, Role};
use lmbias_runs::inputs::{Test, Vectors};
use lmbias_runs::metrics::weat::{
    Alternative, DEFAULT_N_SAMPLES, DEFAULT_SEED, Options, StdKind, WeatResult,
};
use lmbias_runs::weat::{WeatRun, WeatSettings};
use serde_json::json;

use crate::output::{Format, out, outln};
use anyhow::Context;
use lmbias_report::table::Table;
use lmbias_report::wefe;
use lmbias_runs::metrics::wefe::Metrics;
use lmbias_runs::studies::seat::Wefe;

#[derive(clap::Args, Debug)]
pub struct WeatArgs {
    /// Vectors: a JSON object {text: [numbers]}, `lmbias embed --json`'s output, or
    /// word2vec/GloVe text (optional "count dim" header). To run a test on a model, embedding
    /// its texts there, use `lmbias seat --model M --test FILE` (the same statistics).
    #[arg(long, required_unless_present = "model")]
    embeddings: Option<PathBuf>,
    /// Not an option of weat: `lmbias seat --model M --test FILE` runs a test on a model.
    #[arg(long, hide = true, num_args = 0..)]
    model: Vec<String>,
    /// The association test: sent-bias's format {"targ1", "targ2", "attr1", "attr2"}.
    #[arg(long)]
    test: PathBuf,
    /// Enumerate every split when there are at most this many; otherwise sample this many.
    #[arg(long, default_value_t = DEFAULT_N_SAMPLES)]
    n_samples: u64,
    /// Seed of the sampled splits (ChaCha8).
    #[arg(long, default_value_t = DEFAULT_SEED)]
    seed: u64,
    /// Standard deviation of the effect size: 1 = sample (sent-bias, Caliskan), 0 = population (WEFE).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=1))]
    ddof: u8,
    /// Two-sided p-value (|difference of means| at least as large) instead of sent-bias's one-sided one.
    #[arg(long)]
    two_sided: bool,
    /// Run even when targ1 and targ2 differ in size (sent-bias refuses).
    #[arg(long)]
    allow_unequal_sizes: bool,
    /// Keep the first of repeated examples in a set, as sent-bias silently does, instead of failing.
    #[arg(long)]
    merge_duplicates: bool,
    /// Also WEFE 1.0.1's metrics on the same vectors: rnd, rnsb, mac, ect, ripa (comma-separated)
    /// or all, as `lmbias seat --metric` (docs/results-format.md, "WEFE's metrics").
    #[arg(long, value_name = "METRICS")]
    metric: Option<String>,
    /// RNSB's classifier on a seeded, stratified 80 % of the attribute words, as `seat`'s.
    #[arg(long, requires = "metric")]
    rnsb_holdout: bool,
    /// JSON: one object; CSV and Markdown: one row with the sets' names and sizes, d, p and how
    /// they were computed; plain text by default.
    #[command(flatten)]
    format: crate::output::FormatArgs,
}

pub fn run(args: WeatArgs) -> anyhow::Result<()> {
    // A user who has a model, not vectors, is shown the command that embeds the test there.
    let embeddings = match (&args.embeddings, args.model.is_empty()) {
        (_, false) => anyhow::bail!(
            "weat reads precomputed vectors (--embeddings FILE); to run the test on a model, \
             run `lmbias seat --model {} --test {}` (the same statistics, each text embedded by \
             the model), or `lmbias embed --json` and give its output as --embeddings",
            args.model.first().map_or("M", String::as_str),
            args.test.display()
        ),
        // clap requires --embeddings when --model is absent.
        (path, true) => path.clone().unwrap_or_default(),
    };
    let settings = WeatSettings {
        options: Options {
            n_samples: args.n_samples,
            seed: args.seed,
            std: std_kind(args.ddof),
            alternative: alternative(args.two_sided),
            allow_unequal_sizes: args.allow_unequal_sizes,
        },
        merge_duplicates: args.merge_duplicates,
        // Parsed here, not by clap, so an unknown name is one line like every other error.
        wefe: Wefe {
            metrics: match &args.metric {
                Some(list) => Metrics::parse(list).context("--metric")?,
                None => Metrics::NONE,
            },
            rnsb_holdout: args.rnsb_holdout,
        },
    };
    let format = args.format.open(&[
        ("--test", args.test.as_path()),
        ("--embeddings", embeddings.as_path()),
    ])?;
    let test = Test::load(&args.test, &settings.load_options())?;
    let vectors = Vectors::load(&embeddings)?;
    let run = lmbias_runs::weat::run(&vectors, &test, &settings, &Ctx::none())?;
    match format {
        Format::Json => outln!(
            "{}",
            serde_json::to_string_pretty(&as_json(&run, &args, &settings.options))?
        )?,
        Format::Csv => out!("{}", as_table(&run).to_csv())?,
        Format::Markdown => out!("{}", as_table(&run).to_markdown())?,
        Format::Default => out!(
            "{}{}",
            as_text(&run.test, &settings.options, &run.result),
            wefe::text_lines(&run.wefe, |r| run.test.set(r).category().to_owned())
        )?,
    }
    Ok(())
}

/// `--ddof` (0 or 1, clap checks) as the standard deviation that divides d.
pub(crate) fn std_kind(ddof: u8) -> StdKind {
    if ddof == 0 {
        StdKind::Population
    } else {
        StdKind::Sample
    }
}

/// `--two-sided` as the tails of the permutation p.
pub(crate) fn alternative(two_sided: bool) -> Alternative {
    if two_sided {
        Alternative::TwoSided
    } else {
        Alternative::Greater
    }
}

fn as_json(run: &WeatRun, args: &WeatArgs, options: &Options) -> serde_json::Value {
    let (test, result) = (&run.test, &run.result);
    let p = &result.permutation;
    let mut json = json!({
        "test": test.name(),
        "test_file": args.test.display().to_string(),
        "embeddings": run.provenance.model.id,
        "categories": per_set(|r| json!(test.set(r).category())),
        "sizes": per_set(|r| json!(test.set(r).len())),
        "effect_size": result.effect_size,
        "std": result.std,
        "test_statistic": result.test_statistic,
        "p_value": p.p_value,
        "alternative": p.alternative,
        "exact": p.exact,
        "n_partitions": serde_json::to_value(p).expect("serialisable")["n_partitions"],
        "n_evaluated": p.n_evaluated,
        "n_extreme": p.n_extreme,
        "n_samples": options.n_samples,
        "seed": options.seed,
        "provenance": run.provenance,
    });
    if !run.wefe.is_empty() {
        json["wefe"] = json!(run.wefe);
    }
    json
}

/// One row: the test, its sets' names and sizes, d and its std, p and how it was computed, and
/// WEFE's metrics when asked for.
fn as_table(run: &WeatRun) -> Table {
    let (test, result) = (&run.test, &run.result);
    let p = &result.permutation;
    let mut header = vec!["test".to_owned()];
    header.extend(Role::ALL.iter().map(|r| format!("category_{}", r.key())));
    header.extend(Role::ALL.iter().map(|r| format!("size_{}", r.key())));
    header.extend(
        [
            "effect_size",
            "ddof",
            "p_value",
            "alternative",
            "exact",
            "n_evaluated",
        ]
        .map(String::from),
    );
    let columns = wefe::columns(&run.wefe);
    header.extend(wefe::csv_header(&columns));
    let mut table = Table::new(header);
    let mut row = vec![test.name().to_owned()];
    row.extend(Role::ALL.iter().map(|&r| test.set(r).category().to_owned()));
    row.extend(Role::ALL.iter().map(|&r| test.set(r).len().to_string()));
    row.extend([
        result
            .effect_size
            .map_or_else(|| "undefined".to_owned(), |d| d.to_string()),
        result.std.ddof().to_string(),
        p.p_value.to_string(),
        match p.alternative {
            Alternative::Greater => "one-sided",
            Alternative::TwoSided => "two-sided",
        }
        .to_owned(),
        p.exact.to_string(),
        p.n_evaluated.to_string(),
    ]);
    row.extend(wefe::csv_cells(&run.wefe, &columns));
    table.push(row);
    table
}

/// `{"targ1": f(targ1), …, "attr2": f(attr2)}`.
fn per_set(f: impl Fn(Role) -> serde_json::Value) -> serde_json::Value {
    Role::ALL
        .iter()
        .map(|&r| (r.key().to_string(), f(r)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

fn as_text(test: &AssociationTest, options: &Options, result: &WeatResult) -> String {
    let (x, y, a, b) = (test.targ1(), test.targ2(), test.attr1(), test.attr2());
    let p = &result.permutation;
    let effect = result.effect_size.map_or_else(
        || "undefined (every s(w, A, B) is equal)".to_string(),
        |d| format!("{d:.4}"),
    );
    let std = match result.std {
        StdKind::Sample => "sample std, ddof=1",
        StdKind::Population => "population std, ddof=0",
    };
    let side = match p.alternative {
        Alternative::Greater => "one-sided",
        Alternative::TwoSided => "two-sided",
    };
    let how = if p.exact {
        format!("exact, all {} splits", p.n_evaluated)
    } else {
        format!(
            "{} sampled splits incl. one imagined hit, seed {}",
            options.n_samples, options.seed
        )
    };
    format!(
        "{}: {} vs {} × {} vs {} (sizes {}, {} × {}, {})\neffect size (Cohen's d, {std}): {effect}\np-value ({side}, {how}): {:.6}\n",
        test.name(),
        x.category(),
        y.category(),
        a.category(),
        b.category(),
        x.len(),
        y.len(),
        a.len(),
        b.len(),
        p.p_value
    )
}
