//! `lmbias embed`: sentence vectors from any supported checkpoint (BERT, T5/mT5 encoder)
//! or static word vectors (GloVe, word2vec).

use lmbias_encoder::{Layer, Pooling};
use lmbias_text::Tokenizer;
use serde_json::json;

use crate::input::{self, InputArgs};
use crate::model_args::{Model, ModelArgs};

#[derive(clap::Args, Debug)]
pub struct EmbedArgs {
    #[command(flatten)]
    model: ModelArgs,
    /// cls (position 0), mean (masked mean, as sentence-transformers) or
    /// first (position 0 without special tokens, as sent-bias). Default: the model's
    /// own convention: the pooling a sentence-transformers folder declares, else cls for BERT,
    /// mean for T5. Static word vectors have no pooling: a text
    /// that is a vocabulary entry is its vector, any other the mean of its words' vectors.
    #[arg(long)]
    pooling: Option<Pooling>,
    /// Hidden-state layer: `last` or 0 (embeddings) … number of layers.
    #[arg(long, default_value = "last")]
    layer: Layer,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
    /// Texts to embed (or --input).
    #[arg(required_unless_present = "input")]
    texts: Vec<String>,
}

pub fn run(args: EmbedArgs) -> anyhow::Result<()> {
    let owned = input::texts(&args.input, args.texts)?;
    let loaded = args.model.embedder()?;
    let model = loaded.embedder();
    let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
    let pooling = args.pooling.unwrap_or_else(|| model.default_pooling());
    let vectors = input::chunked(&texts, "embed", |chunk| {
        model.embed(chunk, pooling, args.layer)
    })?;
    // Each text's tokens, and those of them that have no vector (static vectors only).
    let (tokens, unknown): (Vec<Vec<String>>, Vec<Vec<String>>) = match &loaded {
        // The pieces the model saw, special tokens included (the Embedder trait reports them without).
        Model::Checkpoint(checkpoint, _) => {
            let tokenizer = Tokenizer::from_dir(checkpoint.dir())?;
            let add_special = pooling != Pooling::First;
            let tokens = texts
                .iter()
                .map(|t| Ok(tokenizer.encode(t, add_special)?.tokens().to_vec()))
                .collect::<anyhow::Result<Vec<_>>>()?;
            (tokens, vec![Vec::new(); texts.len()])
        }
        // The words looked up; one without a vector is left out of the mean.
        Model::Static(_) => {
            let (mut tokens, mut unknown) = (Vec::new(), Vec::new());
            for text in &texts {
                let pieces = model.tokenize(text)?;
                unknown.push(
                    pieces
                        .iter()
                        .filter(|p| p.unknown)
                        .map(|p| p.token.clone())
                        .collect(),
                );
                tokens.push(pieces.into_iter().map(|p| p.token).collect());
            }
            (tokens, unknown)
        }
    };
    if args.json {
        let out = json!({
            "model": model.model_name(),
            "static": loaded.is_static(),
            "pooling": pooling,
            "layer": args.layer,
            "vectors": vectors,
            "tokens": tokens,
            "no_vector": unknown,
        });
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    if loaded.is_static() {
        println!(
            "{} · static word vectors: a word is its own vector, a text the mean of its words' · {} dimensions",
            model.model_name(),
            model.hidden_size()
        );
    } else {
        println!(
            "{} · pooling {} · layer {} · {} dimensions",
            model.model_name(),
            pooling,
            args.layer,
            model.hidden_size()
        );
    }
    for (((text, vector), tokens), unknown) in texts.iter().zip(&vectors).zip(&tokens).zip(&unknown)
    {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let head: Vec<String> = vector.iter().take(6).map(|x| format!("{x:+.4}")).collect();
        println!("{text}");
        println!("  tokens: {}", tokens.join(" "));
        if !unknown.is_empty() {
            println!("  no vector (left out of the mean): {}", unknown.join(" "));
        }
        println!("  vector: [{}, …]  norm {norm:.4}", head.join(", "));
    }
    Ok(())
}
