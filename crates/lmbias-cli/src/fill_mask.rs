//! `lmbias fill-mask`: the most probable tokens at the one mask of each text.

use serde_json::json;

use crate::input::{self, InputArgs};
use crate::model_args::ModelArgs;

#[derive(clap::Args, Debug)]
pub struct FillMaskArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// How many predictions per text.
    #[arg(long, default_value_t = 5)]
    top_k: usize,
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
    let owned = input::texts(&args.input, args.texts)?;
    let model = args.model.masked_lm()?;
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let predictions = input::chunked(&texts, "fill-mask", |chunk| {
        model.fill_mask(chunk, args.top_k)
    })?;
    if args.json {
        let out: Vec<_> = texts
            .iter()
            .zip(&predictions)
            .map(|(text, p)| json!({"text": text, "predictions": p}))
            .collect();
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    for (text, predictions) in texts.iter().zip(&predictions) {
        println!("{text}");
        println!(
            "  {:>4}  {:<20} {:>8}  {:>9}",
            "rank", "token", "id", "prob"
        );
        for (rank, p) in predictions.iter().enumerate() {
            println!(
                "  {:>4}  {:<20} {:>8}  {:>9.6}",
                rank + 1,
                p.token,
                p.id,
                p.prob
            );
        }
    }
    Ok(())
}
