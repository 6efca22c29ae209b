//! `lmbias fill-mask`: the most probable tokens at the one mask of each text.

use std::fmt::Write as _;
use std::num::NonZeroUsize;

use serde_json::json;

use crate::input::{self, InputArgs};
use crate::model_args::ModelArgs;
use crate::output::{out, outln};

#[derive(clap::Args, Debug)]
pub struct FillMaskArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// How many predictions per text (at least 1).
    #[arg(long, default_value_t = NonZeroUsize::new(5).expect("5 is not 0"))]
    top_k: NonZeroUsize,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
    /// Texts with exactly one mask token each (e.g. `[MASK]` for BERT), or --input.
    #[arg(required_unless_present = "input")]
    texts: Vec<String>,
}

pub fn run(args: FillMaskArgs) -> anyhow::Result<()> {
    let texts = input::Texts::open(&args.input, args.texts)?;
    let model = args.model.masked_lm()?;
    // --json: one array of {"predictions", "text"}, written as the chunks come.
    let mut first = true;
    if args.json {
        out!("[")?;
    }
    input::chunked(texts, "fill-mask", |chunk| {
        let predictions = model.fill_mask(chunk, args.top_k.get())?;
        // One write per chunk, not per line.
        let mut out = String::new();
        for (text, predictions) in chunk.iter().zip(&predictions) {
            if args.json {
                let item = json!({"text": text, "predictions": predictions});
                if !std::mem::take(&mut first) {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(&item)?);
                continue;
            }
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
    if args.json {
        outln!("]")?;
    }
    Ok(())
}
