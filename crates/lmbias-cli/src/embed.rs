//! `lmbias embed`: sentence vectors from any supported checkpoint (BERT, T5/mT5 encoder).

use lmbias_encoder::{Layer, Pooling};
use lmbias_model::load_embedder;
use lmbias_text::Tokenizer;
use serde_json::json;

use crate::model_args::ModelArgs;

#[derive(clap::Args, Debug)]
pub struct EmbedArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// cls (position 0), mean (masked mean, as sentence-transformers) or
    /// first (position 0 without special tokens, as sent-bias). Default: the model's
    /// own convention, cls for BERT, mean for T5.
    #[arg(long)]
    pooling: Option<Pooling>,
    /// Hidden-state layer: `last` or 0 (embeddings) … number of layers.
    #[arg(long, default_value = "last")]
    layer: Layer,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Texts to embed.
    #[arg(required = true)]
    texts: Vec<String>,
}

pub fn run(args: EmbedArgs) -> anyhow::Result<()> {
    let checkpoint = args.model.checkpoint()?;
    let model = load_embedder(&checkpoint, args.model.device)?;
    // The pieces the model saw, special tokens included (the Embedder trait reports them without).
    let tokenizer = Tokenizer::from_dir(checkpoint.dir())?;
    let texts: Vec<&str> = args.texts.iter().map(String::as_str).collect();
    let pooling = args.pooling.unwrap_or_else(|| model.default_pooling());
    let vectors = model.embed(&texts, pooling, args.layer)?;
    let add_special = pooling != Pooling::First;
    let tokens = texts
        .iter()
        .map(|t| Ok(tokenizer.encode(t, add_special)?.tokens().to_vec()))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if args.json {
        let out = json!({
            "model": model.model_name(),
            "pooling": pooling,
            "layer": args.layer,
            "vectors": vectors,
            "tokens": tokens,
        });
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!(
        "{} · pooling {} · layer {} · {} dimensions",
        model.model_name(),
        pooling,
        args.layer,
        model.hidden_size()
    );
    for ((text, vector), tokens) in texts.iter().zip(&vectors).zip(&tokens) {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let head: Vec<String> = vector.iter().take(6).map(|x| format!("{x:+.4}")).collect();
        println!("{text}");
        println!("  tokens: {}", tokens.join(" "));
        println!("  vector: [{}, …]  norm {norm:.4}", head.join(", "));
    }
    Ok(())
}
