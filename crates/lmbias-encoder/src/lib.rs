//! The two capabilities every lmbias study needs from a language model, as traits.
//!
//! Like `grep-matcher` in ripgrep, this crate is small on purpose: the studies
//! (`lmbias-studies`) depend on these traits, the Burn models (`lmbias-model`)
//! implement them, and tests substitute a fake without touching Burn.

use std::ops::Range;

use serde::{Deserialize, Serialize};

/// How a sequence of hidden states becomes one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The hidden state of the first token of the encoded input ([CLS] for BERT).
    Cls,
    /// Attention-masked mean over all tokens, special tokens included
    /// (what sentence-transformers' mean pooling computes).
    Mean,
    /// Position 0 of the text encoded *without* special tokens: sent-bias's
    /// own BERT convention (May et al. 2019), needed to compare with their numbers.
    First,
}

impl Pooling {
    pub const ALL: [Pooling; 3] = [Pooling::Cls, Pooling::Mean, Pooling::First];

    pub fn as_str(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
            Pooling::First => "first",
        }
    }
}

impl std::str::FromStr for Pooling {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cls" => Ok(Pooling::Cls),
            "mean" => Ok(Pooling::Mean),
            "first" => Ok(Pooling::First),
            other => Err(format!(
                "unknown pooling {other:?}: expected cls, mean or first"
            )),
        }
    }
}

impl std::fmt::Display for Pooling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which hidden states to read. Layer 0 is the embedding output, layer L the
/// output of the L-th transformer block (Hugging Face's `hidden_states[L]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Layer {
    /// The last block's output (`last_hidden_state`).
    #[default]
    Last,
    Index(usize),
}

/// One piece of a tokenized text, for vocabulary-coverage reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub id: u32,
    pub token: String,
    /// True when this piece is the tokenizer's unknown token.
    pub unknown: bool,
}

/// A model that turns texts into vectors.
pub trait Embedder {
    /// The name the model was resolved from (a path or `org/name`), for reports.
    fn model_name(&self) -> &str;

    /// Width of the vectors returned.
    fn hidden_size(&self) -> usize;

    /// Number of transformer blocks (valid `Layer::Index` values are `0..=num_layers`).
    fn num_layers(&self) -> usize;

    /// One vector per text. Batched and one-at-a-time calls agree within float noise.
    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError>;

    /// The vector of one word in context: the mean over the pieces of the word
    /// that occupies byte range `word` of `text` (the probe's word embedding).
    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError>;

    /// The pieces a text becomes, special tokens excluded.
    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError>;

    /// Whether the tokenizer lower-cases its input (an uncased model). A battery
    /// with a lower-cased copy (`datasets/seat/tr-uncased`) runs that copy on such
    /// a model: Turkish dotted/dotless I must be lowered the Turkish way first.
    fn lowercases(&self) -> bool;
}

/// A word located in a text by its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordInContext<'a> {
    pub text: &'a str,
    pub word: Range<usize>,
}

/// One proposal for a masked position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub token: String,
    pub id: u32,
    pub prob: f32,
}

/// A model with a masked-language-modelling head.
pub trait MaskedLm {
    fn model_name(&self) -> &str;

    /// The mask token as it must appear in input text (e.g. `[MASK]`).
    fn mask_token(&self) -> &str;

    /// The `top_k` most probable tokens at the single mask of each text, most
    /// probable first. A text without exactly one mask is an error.
    fn fill_mask(&self, texts: &[&str], top_k: usize)
    -> Result<Vec<Vec<Prediction>>, EncoderError>;

    /// The vocabulary id of `token` if the tokenizer can produce it as one piece.
    fn piece_id(&self, token: &str) -> Option<u32>;

    /// Probability at the mask of `text` of each vocabulary id in `ids`.
    fn token_probs(&self, text: &str, ids: &[u32]) -> Result<Vec<f32>, EncoderError>;
}

/// Why an encoder could not answer. Messages are one line and name the input.
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    #[error("text {index} must contain exactly one {mask}, found {found}: {text:?}")]
    MaskCount {
        index: usize,
        mask: String,
        found: usize,
        text: String,
    },
    #[error("word range {start}..{end} is not a word of {text:?}")]
    WordRange {
        start: usize,
        end: usize,
        text: String,
    },
    #[error("text {index} has {tokens} tokens, more than the model's {max} positions: {text:?}")]
    TooLong {
        index: usize,
        tokens: usize,
        max: usize,
        text: String,
    },
    #[error("layer {requested} does not exist: the model has layers 0..={available}")]
    Layer { requested: usize, available: usize },
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    #[error("model: {0}")]
    Backend(String),
}
