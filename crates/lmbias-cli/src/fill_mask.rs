//! `lmbias fill-mask`: the most probable tokens at each mask of each text, in the shape of
//! transformers' fill-mask pipeline.

use std::fmt::Write as _;
use std::num::NonZeroUsize;

use lmbias_runs::fill_mask;
use serde_json::json;

use crate::input::{self, InputArgs};
use crate::model_args::ModelArgs;
use crate::output::{self, Format, FormatArgs, Spool, out, outln};
use lmbias_report::table::Table;

#[derive(clap::Args, Debug)]
pub struct FillMaskArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// How many predictions per text (at least 1).
    #[arg(long, default_value_t = NonZeroUsize::new(5).expect("5 is not 0"))]
    top_k: NonZeroUsize,
    /// JSON: [{"text", "predictions"}, …], the predictions as transformers' fill-mask pipeline
    /// gives them: [{"score", "token" (id), "token_str", "sequence"}, …], one such list per
    /// mask for a text of several; CSV and Markdown: one row per text, mask and rank (text,
    /// mask, rank, token, id, prob); a table per text and mask by default.
    #[command(flatten)]
    format: FormatArgs,
    #[command(flatten)]
    input: InputArgs,
    /// Texts with one or more mask tokens each (e.g. `[MASK]` for BERT), or --input.
    #[arg(required_unless_present = "input")]
    texts: Vec<String>,
}

pub fn run(args: FillMaskArgs) -> anyhow::Result<()> {
    let format = args.format.open(&args.input.files())?;
    let texts = input::Texts::open(&args.input, args.texts)?;
    let model = args.model.masked_lm()?;
    // --json: one array of {"predictions", "text"}, kept in a spool until the last text is
    // done, so that an error leaves no half array on stdout.
    let mut spool = if format == Format::Json {
        Some(Spool::new()?)
    } else {
        None
    };
    let header = ["text", "mask", "rank", "token", "id", "prob"];
    match format {
        Format::Csv => out!("{}", Table::new(header).to_csv())?,
        Format::Markdown => out!("{}", Table::new(header).to_markdown())?,
        _ => {}
    }
    input::chunked(texts, "fill-mask", |chunk| {
        let answers = model.fill_masks(chunk, args.top_k.get())?;
        if let Some(spool) = &mut spool {
            let items: Vec<_> = chunk
                .iter()
                .zip(answers)
                .map(|(text, per_mask)| {
                    let predictions = fill_mask::answer(text, model.mask_token(), per_mask);
                    json!({"text": text, "predictions": predictions})
                })
                .collect();
            return spool.push(&items);
        }
        if matches!(format, Format::Csv | Format::Markdown) {
            // Rows only: the header went out once, before the first chunk.
            let mut table = Table::new(header);
            for (text, per_mask) in chunk.iter().zip(&answers) {
                for (mask, predictions) in per_mask.iter().enumerate() {
                    for (rank, p) in predictions.iter().enumerate() {
                        table.push([
                            text.to_string(),
                            (mask + 1).to_string(),
                            (rank + 1).to_string(),
                            p.text.clone(),
                            p.id.to_string(),
                            p.prob.to_string(),
                        ]);
                    }
                }
            }
            out!("{}", output::rows_only(&table, format))?;
            return Ok(());
        }
        // One write per chunk, not per line.
        let mut out = String::new();
        for (text, per_mask) in chunk.iter().zip(&answers) {
            writeln!(out, "{text}")?;
            for (mask, predictions) in per_mask.iter().enumerate() {
                if per_mask.len() > 1 {
                    writeln!(out, "  mask {} of {}", mask + 1, per_mask.len())?;
                }
                writeln!(
                    out,
                    "  {:>4}  {:<20} {:>8}  {:>9}",
                    "rank", "token", "id", "prob"
                )?;
                for (rank, p) in predictions.iter().enumerate() {
                    writeln!(
                        out,
                        "  {:>4}  {:<20} {:>8}  {:>9.6}",
                        rank + 1,
                        p.text,
                        p.id,
                        p.prob
                    )?;
                }
            }
        }
        out!("{out}")?;
        Ok(())
    })?;
    if let Some(spool) = spool {
        out!("[")?;
        spool.copy_out()?;
        outln!("]")?;
    }
    Ok(())
}
