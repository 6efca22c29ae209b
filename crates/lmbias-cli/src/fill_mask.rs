//! `lmbias fill-mask`: the most probable tokens at the one mask of each text.

use serde_json::json;

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
    /// Texts with exactly one mask token each (e.g. `[MASK]` for BERT).
    #[arg(required = true)]
    texts: Vec<String>,
}

pub fn run(args: FillMaskArgs) -> anyhow::Result<()> {
    let model = args.model.masked_lm()?;
    let texts: Vec<&str> = args.texts.iter().map(String::as_str).collect();
    let predictions = model.fill_mask(&texts, args.top_k)?;
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
