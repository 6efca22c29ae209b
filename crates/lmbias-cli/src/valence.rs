//! `lmbias valence`: the temporal valence study (Cuscito, Ferrara, Ruskov) on
//! one or more masked language models.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use anyhow::Context;
use lmbias_report::valence::{self as report, Measure};
use lmbias_runs::Ctx;
use lmbias_runs::metrics::log_odds::Thresholds;
use lmbias_runs::studies::valence::{DEFAULT_MAX_UNANNOTATED_SHARE, DEFAULT_TOP_K, ModelResult};
use lmbias_runs::valence::{
    self, CorpusSettings, Dataset, PeriodCorpora, ValenceOutput, ValenceRun, ValenceSettings,
};

use crate::model_args::ModelContext;
use crate::output::{self, Format, out};

#[derive(clap::Args, Debug)]
pub struct ValenceArgs {
    /// Model folders or Hugging Face ids (ORG/NAME, from the Hugging Face cache or the hub);
    /// several models are compared side by side. Masked language models only: static word
    /// vectors (glove-6b-50d) cannot fill a mask.
    #[arg(long = "model", required = true, num_args = 1.., value_name = "MODEL")]
    models: Vec<String>,
    #[command(flatten)]
    compute: crate::model_args::ComputeArgs,
    /// The valence dataset (JSON; see datasets/README.md), e.g. datasets/valence/eme-me-60.json.
    #[arg(long)]
    dataset: PathBuf,
    /// Proposals scored per sentence (default 5, the transformers fill-mask pipeline's).
    #[arg(long, default_value_t = DEFAULT_TOP_K)]
    top_k: NonZeroUsize,
    /// A sentence whose unannotated share (the part of its top-k probability that no
    /// annotation, lexicon or corpus rated) exceeds this gets no B and no A ("–", null in
    /// JSON) and is left out of the group means and figures, with a count; 1 scores every
    /// sentence, unrated proposals as 0. Our rule, not the paper's.
    #[arg(long, default_value_t = DEFAULT_MAX_UNANNOTATED_SHARE, value_parser = share, value_name = "SHARE")]
    max_unannotated_share: f64,
    /// Rate every proposal by this lexicon alone (word<TAB>valence<TAB>rule, a word it does not
    /// list 0; e.g. datasets/valence/lexicon-v1.tsv): the dataset's annotations are set aside,
    /// so that every model is rated by one list fixed beforehand.
    #[arg(long, value_name = "FILE", conflicts_with = "valence_from")]
    lexicon: Option<PathBuf>,
    /// Rate every proposal the dataset's annotations leave from two period corpora, an Early
    /// Modern and a Modern one (text or JSONL, as train-mlm --corpus): each word's log-odds
    /// between them with an informative Dirichlet prior (Monroe, Colaresi & Quinn 2008),
    /// z-scored, with its neighbour in the sentence where the corpora have seen the pair 5
    /// times; |z| ≥ 1.96 is ±0.5, ≥ 3.29 ±1 (our construction of the paper's proposal,
    /// docs/results-format.md). Annotations keep precedence.
    #[arg(long, num_args = 2, value_names = ["EARLY_MODERN", "MODERN"])]
    valence_from: Option<Vec<PathBuf>>,
    /// With --valence-from: the |z| from which a word is rated ±0.5 and ±1.
    #[arg(long, num_args = 2, value_names = ["HALF", "FULL"], requires = "valence_from",
          default_values_t = [CorpusSettings::default().thresholds.half, CorpusSettings::default().thresholds.full])]
    valence_thresholds: Vec<f64>,
    /// With --valence-from: the prior's total pseudo-count α0.
    #[arg(long, requires = "valence_from", default_value_t = CorpusSettings::default().alpha0)]
    valence_alpha0: f64,
    /// With --valence-from: the occurrences of a word pair from which a word is rated with its
    /// neighbour.
    #[arg(long, requires = "valence_from", default_value_t = CorpusSettings::default().min_context)]
    valence_min_context: u64,
    /// With --valence-from: the effect-size floor, a |log-odds ratio| between the corpora below
    /// which a word is 0 whatever its z (default ln 2: odds at least doubled), so that a small
    /// difference of rate is not taken for a period.
    #[arg(long, requires = "valence_from", default_value_t = CorpusSettings::default().min_log_odds)]
    valence_min_log_odds: f64,
    /// JSON: {"provenance": [one per model], "results": [per model: per sentence, per group,
    /// the k sweep, unannotated tokens]}; CSV: one row per model and sentence; Markdown (the
    /// default): model comparison, per-group summary, the k sweep, every sentence's scores.
    #[command(flatten)]
    format: output::FormatArgs,
    #[command(flatten)]
    label: crate::model_args::LabelArgs,
    /// Print instead the proposed tokens that have no annotation (token, how often,
    /// total probability, sentence ids), to annotate them and rerun.
    #[arg(long)]
    unannotated: bool,
    /// Write box plots of B and A per group, every model side by side (the paper's Figures 1 and 2), as SVG into DIR: bias-kK.svg, adequacy-kK.svg, each also as .png and .pdf.
    #[arg(long, value_name = "DIR")]
    figures: Option<PathBuf>,
    #[command(flatten)]
    font: output::FontArgs,
}

/// A share: a number from 0 to 1.
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("expected a share from 0 to 1".to_owned()),
    }
}

/// Digits of the numbers in Markdown tables; CSV keeps six.
const MARKDOWN_DIGITS: usize = 3;
const CSV_DIGITS: usize = 6;

pub fn run(args: ValenceArgs) -> anyhow::Result<()> {
    // Checked before any model runs, so that an unwritable folder wastes nothing.
    if let Some(dir) = &args.figures {
        output::check_dir("--figures", dir)?;
    }
    let mut inputs = vec![("--dataset", args.dataset.as_path())];
    inputs.extend(args.lexicon.as_deref().map(|l| ("--lexicon", l)));
    inputs.extend(
        args.valence_from
            .iter()
            .flatten()
            .map(|c| ("--valence-from", c.as_path())),
    );
    args.label.check(&args.models)?;
    let format = args.format.open(&inputs)?;
    let dataset = Dataset::load(&args.dataset)?;
    let dataset = match &args.lexicon {
        Some(lexicon) => dataset.rated_by(lexicon).context("--lexicon")?,
        None => dataset,
    };
    let corpora = match args.valence_from.as_deref() {
        Some([eme, me]) => {
            let settings = CorpusSettings {
                alpha0: args.valence_alpha0,
                thresholds: Thresholds {
                    half: args.valence_thresholds[0],
                    full: args.valence_thresholds[1],
                },
                min_context: args.valence_min_context,
                min_log_odds: args.valence_min_log_odds,
            };
            Some(PeriodCorpora::load(eme, me, settings).context("--valence-from")?)
        }
        _ => None,
    };
    let mut runs: Vec<ValenceRun> = Vec::with_capacity(args.models.len());
    for (position, name) in args.models.iter().enumerate() {
        let model = crate::model_args::labelled(
            crate::model_args::open_masked(name, &args.compute)?,
            args.label.of(&args.models, position)?,
        );
        runs.push(
            valence::run(
                &model,
                &valence::Inputs {
                    dataset: &dataset,
                    corpora: corpora.as_ref(),
                },
                &ValenceSettings {
                    top_k: args.top_k,
                    max_unannotated_share: args.max_unannotated_share,
                },
                &Ctx::none(),
            )
            .model_context(name)?,
        );
    }
    let results: Vec<ModelResult> = runs.iter().map(|r| r.result.clone()).collect();
    let agreement = corpora.as_ref().map(|c| c.agreement(&dataset));
    // The figures are written first, the tables printed whatever became of them; a failed
    // figure is reported after them.
    let figures = args.figures.as_ref().map(|dir| {
        Measure::ALL
            .into_iter()
            .try_for_each(|measure| -> anyhow::Result<()> {
                let path = dir.join(report::figure_file_name(measure, args.top_k.get()));
                output::write_figure(&path, &report::figure(&results, measure), args.font.font())
            })
            .context("--figures")
    });
    let out = match (format, args.unannotated) {
        (Format::Json, false) => {
            serde_json::to_string_pretty(&ValenceOutput::of(&runs, agreement))? + "\n"
        }
        (Format::Json, true) => {
            let lists: Vec<_> = results
                .iter()
                .map(|r| {
                    serde_json::json!({"model": r.model, "top_k": r.top_k, "unannotated": r.unannotated})
                })
                .collect();
            serde_json::to_string_pretty(&lists)? + "\n"
        }
        (Format::Csv, false) => report::sentence_table(&results, CSV_DIGITS).to_csv(),
        (Format::Csv, true) => report::unannotated_table(&results, CSV_DIGITS).to_csv(),
        (Format::Default | Format::Markdown, false) => {
            let mut out = report::markdown(&results, MARKDOWN_DIGITS);
            if let Some(a) = &agreement {
                out.push_str(&report::corpus_agreement(a, MARKDOWN_DIGITS));
            }
            out
        }
        (Format::Default | Format::Markdown, true) => {
            report::unannotated_table(&results, MARKDOWN_DIGITS).to_markdown()
        }
    };
    out!("{out}")?;
    figures.transpose()?;
    Ok(())
}
