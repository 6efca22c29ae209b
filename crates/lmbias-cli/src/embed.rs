//! `lmbias embed`: sentence vectors from any supported checkpoint (BERT, T5/mT5 encoder)
//! or static word vectors (GloVe, word2vec).

use lmbias_runs::encoder::EncoderError;
use lmbias_runs::text::Tokenizer;
use lmbias_runs::{Layer, Pooling};
use serde_json::json;

use crate::input::{self, InputArgs};
use crate::model_args::ModelArgs;
use crate::model_args::ModelContext;
use crate::output::{self, Format, FormatArgs, Spool, out, outln};
use lmbias_report::table::Table;

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
    /// Keep the pooled vectors as they are although the folder ends in a sentence-transformers
    /// Normalize module (all-MiniLM-L6-v2 does); by default such a folder's vectors are scaled
    /// to unit length, as `SentenceTransformer.encode` returns them.
    #[arg(long)]
    no_normalize: bool,
    /// JSON: {"model", "pooling", "layer", "normalized", "texts", "vectors", "tokens",
    /// "no_vector"} (what `weat --embeddings` reads); CSV: one row per text, its vector's values
    /// in columns v0, v1, …; Markdown: one row per text with its tokens, norm and first values;
    /// plain text by default.
    #[command(flatten)]
    format: FormatArgs,
    #[command(flatten)]
    input: InputArgs,
    /// Texts to embed (or --input).
    #[arg(required_unless_present = "input")]
    texts: Vec<String>,
}

pub fn run(args: EmbedArgs) -> anyhow::Result<()> {
    let format = args.format.open(&args.input.files())?;
    let texts = input::Texts::open(&args.input, args.texts)?;
    let loaded = args.model.open()?;
    let model = loaded.embedder().model_context(&args.model.model)?;
    let model = model.as_ref();
    let pooling = args.pooling.unwrap_or_else(|| model.default_pooling());
    let normalized = loaded.normalizes() && !args.no_normalize;
    // Checked before the header: a layer the model lacks printed one, then failed.
    args.layer.blocks(model.num_layers())?;
    // The pieces a checkpoint saw, special tokens included (the Embedder trait reports them without).
    let tokenizer = loaded
        .checkpoint()
        .map(|checkpoint| Tokenizer::from_dir(checkpoint.dir()))
        .transpose()?;
    let mut json = if format == Format::Json {
        let mut head = json!({
            "model": model.model_name(),
            "static": loaded.is_static(),
            // What was done: static vectors take the mean of their words, whatever is asked.
            "pooling": model.pooling_applied(pooling),
            "layer": args.layer,
            // The folder's Normalize module applied: unit vectors, as sentence-transformers'.
            "normalized": normalized,
        });
        // As in every provenance: named only when not f32, not the CPU.
        if !loaded.precision().is_f32() {
            head["precision"] = json!(loaded.precision());
        }
        if !loaded.device().is_cpu() {
            head["device"] = json!(loaded.device());
        }
        Some(JsonOut::start(&head)?)
    } else if format == Format::Csv {
        let mut header = vec!["text".to_owned()];
        header.extend((0..model.hidden_size()).map(|i| format!("v{i}")));
        out!("{}", Table::new(header).to_csv())?;
        None
    } else if format == Format::Markdown {
        let header = [
            "text",
            "tokens",
            "no vector",
            "norm",
            "vector (first 6 values)",
        ];
        out!("{}", Table::new(header).to_markdown())?;
        None
    } else {
        if loaded.is_static() {
            outln!(
                "{} · static word vectors: a word is its own vector, a text the mean of its words' · {} dimensions",
                model.model_name(),
                model.hidden_size()
            )?;
        } else {
            outln!(
                "{} · pooling {} · layer {} · {} dimensions · {}{}",
                model.model_name(),
                pooling,
                args.layer,
                model.hidden_size(),
                loaded.precision(),
                if normalized {
                    " · normalized (the folder's Normalize module; --no-normalize keeps the raw vectors)"
                } else {
                    ""
                }
            )?;
        }
        None
    };
    // Static vectors: a text none of whose words has a vector cannot be embedded. As SEAT
    // drops such an example, it is left out here, said on stderr, and the others go on.
    let mut lost_count = 0usize;
    let mut embedded = 0usize;
    input::chunked(texts, "embed", |whole| {
        let mut kept: Vec<&str> = Vec::with_capacity(whole.len());
        let mut at: Vec<usize> = Vec::with_capacity(whole.len());
        let mut lost: Vec<&str> = Vec::new();
        for (index, text) in whole.iter().enumerate() {
            let none_known = loaded.is_static()
                && model
                    .tokenize(text)
                    .map_err(|e| e.offset(index))?
                    .iter()
                    .all(|p| p.unknown);
            if none_known {
                lost.push(text);
            } else {
                kept.push(text);
                at.push(index);
            }
        }
        for text in &lost {
            eprintln!(
                "warning: {}: left out, none of its words has a vector in {}",
                lmbias_runs::encoder::quote(text),
                model.model_name()
            );
        }
        lost_count += lost.len();
        embedded += kept.len();
        if let Some(out) = &mut json {
            out.lose(&lost)?;
        }
        let chunk = kept.as_slice();
        // An error about the i-th kept text names it by its place in the input.
        let mut vectors = model
            .embed(chunk, pooling, args.layer)
            .map_err(|e| match e.index() {
                Some(i) => e.offset(at[i] - i),
                None => e,
            })?;
        if normalized {
            lmbias_runs::normalize(&mut vectors);
        }
        // Each text's tokens, and those of them that have no vector (static vectors only).
        let mut tokens = Vec::with_capacity(chunk.len());
        let mut unknown = Vec::with_capacity(chunk.len());
        for (index, text) in chunk.iter().enumerate() {
            match &tokenizer {
                Some(tokenizer) => {
                    let encoding =
                        tokenizer
                            .encode(text, pooling != Pooling::First)
                            .map_err(|e| EncoderError::Tokenizer {
                                index,
                                message: e.to_string(),
                            })?;
                    tokens.push(encoding.tokens().to_vec());
                    unknown.push(Vec::new());
                }
                // The words looked up; one without a vector is left out of the mean.
                None => {
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
            }
        }
        match (&mut json, format) {
            (Some(out), _) => out.push(chunk, &vectors, &tokens, &unknown),
            (None, Format::Csv | Format::Markdown) => {
                table_rows(format, chunk, &vectors, &tokens, &unknown)
            }
            (None, _) => print_chunk(chunk, &vectors, &tokens, &unknown),
        }
    })?;
    if let Some(out) = json {
        out.finish()?;
    }
    if embedded == 0 && lost_count > 0 {
        anyhow::bail!(
            "no text could be embedded: none of their words has a vector in {}",
            model.model_name()
        );
    }
    Ok(())
}

/// A chunk's rows of the CSV or Markdown table, without the header (printed once, first).
fn table_rows(
    format: Format,
    texts: &[&str],
    vectors: &[Vec<f32>],
    tokens: &[Vec<String>],
    unknown: &[Vec<String>],
) -> anyhow::Result<()> {
    let mut table = Table::new(if format == Format::Csv {
        vec!["text"; 1 + vectors.first().map_or(0, Vec::len)]
    } else {
        vec!["text"; 5]
    });
    for (((text, vector), tokens), unknown) in texts.iter().zip(vectors).zip(tokens).zip(unknown) {
        let mut row = vec![text.to_string()];
        if format == Format::Csv {
            row.extend(vector.iter().map(f32::to_string));
        } else {
            let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
            let head: Vec<String> = vector.iter().take(6).map(|x| format!("{x:+.4}")).collect();
            row.extend([
                tokens.join(" "),
                unknown.join(" "),
                format!("{norm:.4}"),
                head.join(", "),
            ]);
        }
        table.push(row);
    }
    out!("{}", output::rows_only(&table, format))?;
    Ok(())
}

fn print_chunk(
    texts: &[&str],
    vectors: &[Vec<f32>],
    tokens: &[Vec<String>],
    unknown: &[Vec<String>],
) -> anyhow::Result<()> {
    use std::fmt::Write as _;
    // One write per chunk, not per line.
    let mut out = String::new();
    for (((text, vector), tokens), unknown) in texts.iter().zip(vectors).zip(tokens).zip(unknown) {
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        let head: Vec<String> = vector.iter().take(6).map(|x| format!("{x:+.4}")).collect();
        writeln!(out, "{text}")?;
        writeln!(out, "  tokens: {}", tokens.join(" "))?;
        if !unknown.is_empty() {
            writeln!(
                out,
                "  no vector (left out of the mean): {}",
                unknown.join(" ")
            )?;
        }
        writeln!(out, "  vector: [{}, …]  norm {norm:.4}", head.join(", "))?;
    }
    out!("{out}")?;
    Ok(())
}

/// `--json`: one object, `{"layer", "model", "pooling", "static", ("precision": "bf16",)
/// ("device": "wgpu",)
/// "texts": […], "vectors": […], "tokens": […], "no_vector": […], "lost": […]}`, which `lmbias
/// weat --embeddings` reads back; `lost` lists the texts left out (static vectors that know
/// none of their words). The chunks' texts, vectors, tokens and words without a vector go
/// to unnamed temporary files as they come, so memory holds a chunk and not the input, and
/// stdout gets the object only once every text is embedded: an error on the last text leaves
/// no half document there.
struct JsonOut {
    head: String,
    texts: Spool,
    lost: Spool,
    vectors: Spool,
    tokens: Spool,
    unknown: Spool,
}

impl JsonOut {
    fn start(head: &serde_json::Value) -> anyhow::Result<JsonOut> {
        Ok(JsonOut {
            head: serde_json::to_string(head)?,
            texts: Spool::new()?,
            lost: Spool::new()?,
            vectors: Spool::new()?,
            tokens: Spool::new()?,
            unknown: Spool::new()?,
        })
    }

    fn lose(&mut self, texts: &[&str]) -> anyhow::Result<()> {
        self.lost.push(texts)
    }

    fn push(
        &mut self,
        texts: &[&str],
        vectors: &[Vec<f32>],
        tokens: &[Vec<String>],
        unknown: &[Vec<String>],
    ) -> anyhow::Result<()> {
        self.texts.push(texts)?;
        self.vectors.push(vectors)?;
        self.tokens.push(tokens)?;
        self.unknown.push(unknown)
    }

    fn finish(self) -> anyhow::Result<()> {
        let open = self.head.strip_suffix('}').expect("an object");
        out!("{open},\"texts\":[")?;
        self.texts.copy_out()?;
        out!("],\"vectors\":[")?;
        self.vectors.copy_out()?;
        out!("],\"tokens\":[")?;
        self.tokens.copy_out()?;
        out!("],\"no_vector\":[")?;
        self.unknown.copy_out()?;
        out!("],\"lost\":[")?;
        self.lost.copy_out()?;
        outln!("]}}")?;
        Ok(())
    }
}
