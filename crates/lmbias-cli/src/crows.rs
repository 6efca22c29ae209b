//! `lmbias crows`: likelihood-based bias measures on minimal pairs (CrowS-Pairs' CSV) — the
//! CrowS-Pairs metric, bias-bench's score, AUL and AULA, and mlm-bias's CRR, CRRA, ΔP, ΔPA and
//! SSS where asked — with exact tests, on one or more masked language models.

use std::path::PathBuf;
use std::time::Instant;

use lmbias_report::crows as report;
use lmbias_runs::Ctx;
use lmbias_runs::crows::{self, CrowsOutput, CrowsRun, CrowsSettings, Pairs};
use lmbias_runs::studies::crows::Measures;

use crate::model_args::ModelContext;
use crate::output::{Format, out};

#[derive(clap::Args, Debug)]
#[command(group = clap::ArgGroup::new("which").required(true).args(["models", "relative"]))]
pub struct CrowsArgs {
    /// Model folders or Hugging Face ids (ORG/NAME); several are scored on the same pairs and
    /// compared pair by pair (exact McNemar tests). Masked language models only.
    #[arg(long = "model", num_args = 1.., value_name = "MODEL")]
    models: Vec<String>,
    /// Score two models of one vocabulary (e.g. a base model and its fine-tuned copy) and
    /// give OTHER's bias relative to BASE: per pair and measure the difference of differences
    /// (OTHER − BASE on sent_more, less the same on sent_less), an exact sign test of the pairs
    /// that moved toward the stereotype against those that moved away (Holm across measures),
    /// and beside it mlm-bias 0.1.7's RelativeBiasMLMs percentage with its formula as written.
    #[arg(long, num_args = 2, value_names = ["BASE", "OTHER"])]
    relative: Vec<String>,
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
    /// Measures beside the four always computed (pll, bias_bench, aul, aula): mlm-bias 0.1.7's
    /// crr, crra, dp, dpa and sss_mlm_bias, comma-separated, or all. CRR and ΔP read a
    /// punctuation-stripped copy of each sentence, every token masked, as mlm-bias does: about
    /// twice the masked passes.
    #[arg(long, value_delimiter = ',', value_name = "MEASURE,...")]
    measures: Vec<String>,
    /// JSON: {"results": [per model: provenance, summary, data_checks, pairs (raw scores,
    /// modified pieces, decisions)], "comparisons": [...], with --relative "relative": {base,
    /// other, measures, pairs}}. CSV: one row per model and pair:
    /// model, id, line, bias_type, direction, sent_more, sent_less, and for each measure computed
    /// (pll, bias_bench, aul, aula, then those --measures adds) the raw score of sent_more and of sent_less and the decision (in
    /// an antistereo row sent_more is still the file's sent_more, the sentence its writers
    /// judged more stereotypical). Markdown: the summary (the default), then with --markdown
    /// the same per-pair table.
    #[command(flatten)]
    format: crate::output::FormatArgs,
    #[command(flatten)]
    label: crate::model_args::LabelArgs,
}

pub fn run(mut args: CrowsArgs) -> anyhow::Result<()> {
    let relative = !args.relative.is_empty();
    if relative {
        args.models = std::mem::take(&mut args.relative);
    }
    let mut inputs = vec![("--pairs", args.pairs.as_path())];
    inputs.extend(args.group_terms.as_deref().map(|g| ("--group-terms", g)));
    args.label.check(&args.models)?;
    let format = args.format.open(&inputs)?;
    let pairs = Pairs::load(&args.pairs, args.group_terms.as_deref())?;
    let settings = CrowsSettings {
        exclude_flagged: args.exclude_flagged,
        max_span_gap: args.max_span_gap,
        measures: Measures::parse(args.measures.iter().map(String::as_str))
            .map_err(|e| anyhow::anyhow!("--measures: {e}"))?,
    };
    let total = pairs.set().pairs().len() as u64;
    let mut runs: Vec<CrowsRun> = Vec::with_capacity(args.models.len());
    for (position, name) in args.models.iter().enumerate() {
        let model = crate::model_args::labelled(
            crate::model_args::open_masked(name, &args.compute)?,
            args.label.of(&args.models, position)?,
        );
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
    let relative = if relative {
        Some(crows::relative(&runs[0], &runs[1]).map_err(|e| anyhow::anyhow!("--relative: {e}"))?)
    } else {
        None
    };
    let scored = || -> Vec<report::ScoredPairs<'_>> {
        runs.iter()
            .map(|run| report::ScoredPairs {
                set: None,
                model: &run.model,
                pairs: &run.pairs,
                sentences: Some(pairs.set().pairs()),
            })
            .collect()
    };
    let summary = || {
        let models: Vec<_> = runs.iter().map(CrowsRun::row).collect();
        let compared: Vec<_> = comparisons.iter().map(|c| c.row()).collect();
        let mut md = report::markdown(None, &models, &compared, report::STEREOTYPES);
        if let Some(r) = &relative {
            md.push_str(&report::relative_section(&r.base, &r.other, &r.bias));
        }
        md
    };
    let text = match format {
        Format::Json => {
            serde_json::to_string_pretty(&CrowsOutput {
                results: &runs,
                comparisons: comparisons.clone(),
                relative: relative.clone(),
            })? + "\n"
        }
        Format::Csv => report::pairs_table(&scored()).to_csv(),
        Format::Default => summary(),
        Format::Markdown => format!(
            "{}\n## Every pair\n\n{}",
            summary(),
            report::pairs_table(&scored()).to_markdown()
        ),
    };
    out!("{text}")?;
    Ok(())
}
