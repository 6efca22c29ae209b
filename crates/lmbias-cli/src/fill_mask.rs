//! `lmbias fill-mask`: the most probable tokens at the one mask of each text.

use std::fmt::Write as _;
use std::num::NonZeroUsize;

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
    /// JSON: [{"text", "predictions": [{"token", "text", "id", "prob"}, …]}, …]; CSV and
    /// Markdown: one row per text and rank (text, rank, token, id, prob); a table per text by
    /// default.
    #[command(flatten)]
    format: FormatArgs,
    #[command(flatten)]
    input: InputArgs,
    /// Texts with exactly one mask token each (e.g. `[MASK]` for BERT), or --input.
    #[arg(required_unless_present = "input")]
    texts: Vec<String>,
}

pub fn run(args: FillMaskArgs) -> anyhow::Result<()> {
    let inputs: Vec<(&str, &std::path::Path)> = args
        .input
        .input
        .iter()
        .map(|f| ("--input", f.as_path()))
        .collect();
    let format = args.format.open(&inputs)?;
    let texts = input::Texts::open(&args.input, args.texts)?;
    let model = args.model.masked_lm()?;
    // --json: one array of {"predictions", "text"}, kept in a spool until the last text is
    // done, so that an error leaves no half array on stdout.
    let mut spool = if format == Format::Json {
        Some(Spool::new()?)
    } else {
        None
    };
    let header = ["text", "rank", "token", "id", "prob"];
    match format {
        Format::Csv => out!("{}", Table::new(header).to_csv())?,
        Format::Markdown => out!("{}", Table::new(header).to_markdown())?,
        _ => {}
    }
    input::chunked(texts, "fill-mask", |chunk| {
        let predictions = model.fill_mask(chunk, args.top_k.get())?;
        if let Some(spool) = &mut spool {
            let items: Vec<_> = chunk
                .iter()
                .zip(&predictions)
                .map(|(text, predictions)| json!({"text": text, "predictions": predictions}))
                .collect();
            return spool.push(&items);
        }
        if matches!(format, Format::Csv | Format::Markdown) {
            // Rows only: the header went out once, before the first chunk.
            let mut table = Table::new(header);
            for (text, predictions) in chunk.iter().zip(&predictions) {
                for (rank, p) in predictions.iter().enumerate() {
                    table.push([
                        text.to_string(),
                        (rank + 1).to_string(),
                        p.text.clone(),
                        p.id.to_string(),
                        p.prob.to_string(),
                    ]);
                }
            }
            out!("{}", output::rows_only(&table, format))?;
            return Ok(());
        }
        // One write per chunk, not per line.
        let mut out = String::new();
        for (text, predictions) in chunk.iter().zip(&predictions) {
            writeln!(out, "{text}")?;
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
