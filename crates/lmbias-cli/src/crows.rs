//! `lmbias crows`: likelihood-based bias measures on minimal pairs (CrowS-Pairs' CSV) — the
//! CrowS-Pairs metric, bias-bench's score, AUL and AULA — with exact tests, on one or more
//! masked language models.

use std::path::PathBuf;
use std::time::Instant;

use lmbias_report::crows as report;
use lmbias_runs::Ctx;
use lmbias_runs::crows::{self, CrowsOutput, CrowsRun, CrowsSettings, Pairs};

use crate::model_args::ModelContext;
use crate::output::out;

#[derive(clap::Args, Debug)]
pub struct CrowsArgs {
    /// Model folders or Hugging Face ids (ORG/NAME); several are scored on the same pairs and
    /// compared pair by pair (exact McNemar tests). Masked language models only.
    #[arg(long = "model", required = true, num_args = 1.., value_name = "MODEL")]
    models: Vec<String>,
    #[command(flatten)]
    compute: crate::model_args::ComputeArgs,
    /// The pairs: CrowS-Pairs' CSV layout (sent_more, sent_less, stereo_antistereo,
    /// bias_type), e.g. datasets/crows-pairs/crows_pairs_anonymized.csv.
    #[arg(long)]
    pairs: PathBuf,
    /// A list of group terms by bias type (bias_type,term), e.g. datasets/group-terms/en.csv:
    /// the data checks then flag a pair whose modified words name a group of another bias type
    /// and none of the pair's own.
    #[arg(long, value_name = "FILE")]
    group_terms: Option<PathBuf>,
    /// Leave out the pairs the data checks flag (several modified spans, spans of unequal
    /// length, duplicates, another type's group); by default they are scored and counted.
    #[arg(long)]
    exclude_flagged: bool,
    /// The data check's limit: a modified span more than this many words longer than its
    /// counterpart is flagged.
    #[arg(long, default_value_t = CrowsSettings::default().max_span_gap)]
    max_span_gap: usize,
    /// Print everything as JSON: {"results": [per model: provenance, summary, data_checks,
    /// pairs (raw scores, modified pieces, decisions)], "comparisons": [...]}.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print one CSV row per model and pair: model, id, line, bias_type, direction, sent_more,
    /// sent_less, and for each measure (pll, bias_bench, aul, aula) the raw score of sent_more
    /// and of sent_less and the decision. In an antistereo row sent_more is still the file's
    /// sent_more, the sentence its writers judged more stereotypical.
    #[arg(long)]
    csv: bool,
}

pub fn run(args: CrowsArgs) -> anyhow::Result<()> {
    let pairs = Pairs::load(&args.pairs, args.group_terms.as_deref())?;
    let settings = CrowsSettings {
        exclude_flagged: args.exclude_flagged,
        max_span_gap: args.max_span_gap,
    };
    let total = pairs.set().pairs().len() as u64;
    let mut runs: Vec<CrowsRun> = Vec::with_capacity(args.models.len());
    for name in &args.models {
        let model = crate::model_args::open_masked(name, &args.compute)?;
        let bar = lmbias_frontend::Bar::count(Some(total), "crows");
        let start = Instant::now();
        let progress = |done: usize| {
            bar.set_position(done as u64);
            let rate = done as f64 / start.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("{rate:.1} pairs/s"));
        };
        let run = crows::run(
            &model,
            &pairs,
            &settings,
            &Ctx {
                progress: &progress,
                ..Ctx::none()
            },
        )
        .model_context(name)?;
        bar.finish();
        runs.push(run);
    }
    let comparisons = crows::compare(&runs)?;
    let text = if args.json {
        serde_json::to_string_pretty(&CrowsOutput {
            results: &runs,
            comparisons,
        })? + "\n"
    } else if args.csv {
        let scored: Vec<report::ScoredPairs<'_>> = runs
            .iter()
            .map(|run| report::ScoredPairs {
                set: None,
                model: &run.model,
                pairs: &run.pairs,
                sentences: Some(pairs.set().pairs()),
            })
            .collect();
        report::pairs_table(&scored).to_csv()
    } else {
        let models: Vec<_> = runs.iter().map(CrowsRun::row).collect();
        let compared: Vec<_> = comparisons.iter().map(|c| c.row()).collect();
        report::markdown(None, &models, &compared, report::STEREOTYPES)
    };
    out!("{text}")?;
    Ok(())
}
