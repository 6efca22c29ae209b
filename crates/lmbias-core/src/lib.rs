//! The two capabilities every lmbias study needs from a language model, as traits.
//!
//! Like `grep-matcher` in ripgrep, this crate is small on purpose: the studies
//! (`lmbias-studies`) depend on these traits, the Burn models (`lmbias-model`)
//! implement them, and tests substitute a fake without touching Burn.
//!
//! Implementations batch internally: pass every text of a study in one call, and
//! an error names the failing text by its index in that call
//! ([`EncoderError::index`]), so a caller never re-runs texts one at a time to
//! find it.

use std::fmt;
use std::ops::Range;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub mod read;
mod role;
#[cfg(feature = "testing")]
pub mod testing;

pub use role::Role;

/// Texts per call when a front-end feeds a long list to a model chunk by chunk (the
/// CLI's `--input`, the Python package's `embed` and `fill_mask`): large enough for the
/// model's own batching (which sorts a call's texts by length) to work, small enough for
/// memory to stay bounded and for an interrupt to be honoured between calls. A text's
/// vector can differ in its last bit with the batch it runs in, so every front-end uses
/// this one size, and they give the same vectors.
pub const TEXTS_PER_CALL: usize = 512;

/// How a sequence of hidden states becomes one vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Pooling {
    /// The hidden state of the first token of the encoded input (`[CLS]` for BERT).
    Cls,
    /// Attention-masked mean over all tokens, special tokens included
    /// (what sentence-transformers' mean pooling computes).
    Mean,
    /// Position 0 of the text encoded *without* special tokens: sent-bias's
    /// own BERT convention (May et al. 2019), needed to compare with their numbers.
    First,
}

impl Pooling {
    /// The name used on the command line and in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Pooling::Cls => "cls",
            Pooling::Mean => "mean",
            Pooling::First => "first",
        }
    }
}

impl FromStr for Pooling {
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

impl fmt::Display for Pooling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which hidden states to read. Layer 0 is the embedding output, layer L the
/// output of the L-th transformer block (Hugging Face's `hidden_states[L]`).
///
/// Written `last` or a number, on the command line (`FromStr`), in text
/// (`Display`) and in JSON (`"last"` or an integer), so reports and the CLI agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Layer {
    /// The last block's output (`last_hidden_state`).
    #[default]
    Last,
    /// `hidden_states[i]`: 0 is the embedding output, valid up to
    /// [`Embedder::num_layers`].
    Index(usize),
}

impl Layer {
    /// The number of blocks to run for this layer in a model of `available` layers, or the
    /// error naming the layers it has: checked before any output, not at the first text.
    pub fn blocks(self, available: usize) -> Result<usize, EncoderError> {
        match self {
            Layer::Last => Ok(available),
            Layer::Index(i) if i <= available => Ok(i),
            Layer::Index(requested) => Err(EncoderError::Layer {
                requested,
                available,
            }),
        }
    }
}

impl FromStr for Layer {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "last" => Ok(Layer::Last),
            n => n
                .parse()
                .map(Layer::Index)
                .map_err(|_| format!("expected `last` or a layer number, got {n:?}")),
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::Last => f.write_str("last"),
            Layer::Index(i) => write!(f, "{i}"),
        }
    }
}

impl Serialize for Layer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Layer::Last => s.serialize_str("last"),
            Layer::Index(i) => s.serialize_u64(*i as u64),
        }
    }
}

impl<'de> Deserialize<'de> for Layer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Layer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"last\" or a non-negative layer number")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Layer, E> {
                usize::try_from(v)
                    .map(Layer::Index)
                    .map_err(|_| E::custom(format!("layer {v} is too large")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Layer, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("expected `last` or a layer number, got {v}")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Layer, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// One piece of a tokenized text, for vocabulary-coverage reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    /// The piece's vocabulary id.
    pub id: u32,
    /// The piece as the vocabulary writes it (`##ing`, `▁the`).
    pub token: String,
    /// True when this piece is the tokenizer's unknown token.
    pub unknown: bool,
}

/// A model that turns texts into vectors.
///
/// No method panics or returns NaN on any input: a text the model cannot
/// embed (empty, too long, unknown layer) is an [`EncoderError`].
pub trait Embedder {
    /// The name the model was resolved from (a path or `org/name`), for reports.
    fn model_name(&self) -> &str;

    /// Width of the vectors returned.
    fn hidden_size(&self) -> usize;

    /// Number of transformer blocks (valid `Layer::Index` values are `0..=num_layers`).
    fn num_layers(&self) -> usize;

    /// The model's sentence vector: the pooling a sentence-transformers folder
    /// declares (its model was trained for it), else [`Pooling::Cls`] for BERT
    /// (May et al. read `[CLS]`) and [`Pooling::Mean`] for T5, which has no `[CLS]`.
    /// The one place this policy lives, so the CLI and the reproduction agree.
    fn default_pooling(&self) -> Pooling;

    /// The pooling [`embed`](Embedder::embed) applies when asked for `requested`, for a
    /// result to report: `requested`, unless the model has one way only to make a text's
    /// vector (static word vectors: the mean of its words' vectors, whatever is asked).
    fn pooling_applied(&self, requested: Pooling) -> Pooling {
        requested
    }

    /// One vector per text, in order. Pass all texts in one call: the model
    /// batches them itself, and batched and one-at-a-time calls agree within
    /// float noise. An empty text reads as the model's special tokens alone, as
    /// transformers reads it; with none to read ([`Pooling::First`]) it is
    /// [`EncoderError::EmptyText`].
    fn embed(
        &self,
        texts: &[&str],
        pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError>;

    /// The vector of one word in context: the mean over the pieces of the word
    /// that occupies byte range `word` of `text` (the probe's word embedding).
    /// A text with no pieces is [`EncoderError::EmptyText`], a range that is not
    /// whole pieces [`EncoderError::WordRange`].
    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError>;

    /// The pieces a text becomes, special tokens excluded (none for an empty text).
    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError>;

    /// Whether the tokenizer lower-cases its input (an uncased model). A battery
    /// with a lower-cased copy (`datasets/seat/tr-uncased`) can also run that copy
    /// on such a model: Turkish dotted/dotless I must be lowered the Turkish way first.
    fn lowercases(&self) -> bool;
}

/// A word located in a text by its byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordInContext<'a> {
    /// The sentence the word is read in.
    pub text: &'a str,
    /// Byte range of the word in `text`; it must start and end on piece boundaries.
    pub word: Range<usize>,
}

/// One proposal for a masked position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The proposed piece as the vocabulary writes it (`Ġthou` in RoBERTa).
    pub token: String,
    /// The piece as text, without the space a word-initial marker stands for (`thou`):
    /// what a reader is shown and what valence annotations are matched against.
    pub text: String,
    /// Its vocabulary id.
    pub id: u32,
    /// Its softmax probability at the mask.
    pub prob: f32,
}

/// A text as a masked language model reads it: every piece, special tokens included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoded {
    /// The pieces' vocabulary ids, in order.
    pub ids: Vec<u32>,
    /// The pieces as the vocabulary writes them.
    pub tokens: Vec<String>,
    /// True where the piece is a special token the tokenizer added (`[CLS]`, `</s>`).
    pub special: Vec<bool>,
}

/// One piece of an encoded text to score with the piece hidden: `ids` with `position`
/// replaced by the mask token, read at `position` for the probability of `ids[position]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HiddenPiece<'a> {
    /// The text's ids (see [`MaskedLm::encode`]).
    pub ids: &'a [u32],
    /// The position masked and read.
    pub position: usize,
}

/// What one hidden piece's forward pass tells: its log-probability, and where it stands
/// against the model's best guess there (mlm-bias's CRR and ΔP, Zalkikar & Chandra 2025).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HiddenScore {
    /// The log-probability (natural log) of the hidden piece's own id.
    pub log_prob: f64,
    /// The largest log-probability of any id at the position.
    pub top_log_prob: f64,
    /// 1 + the ids with a strictly larger logit: 1 when the model's guess is the piece.
    pub rank: u32,
    /// The attention each position of the masked input receives, averaged over every layer,
    /// head and query position (as [`PieceScores::attention`]); empty unless asked for.
    pub attention: Vec<f64>,
}

/// Several positions of one id sequence hidden at once (mlm-bias's SSS): `ids` with every
/// position of `positions` replaced by the mask token, one forward pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HiddenSpan<'a> {
    /// The text's ids (see [`MaskedLm::encode`]).
    pub ids: &'a [u32],
    /// The positions masked and read.
    pub positions: &'a [usize],
}

/// What an unmasked text tells of each of its pieces: the likelihood-based measures that
/// need no mask (AUL/AULA, Kaneko & Bollegala 2022).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PieceScores {
    /// The log-probability (natural log) of each position's own id, read at that position.
    pub log_probs: Vec<f64>,
    /// The attention each position receives, averaged over every layer, head and query
    /// position (what transformers' `output_attentions` gives, averaged the same way).
    pub attention: Vec<f64>,
}

/// A model with a masked-language-modelling head.
pub trait MaskedLm {
    /// The name the model was resolved from, for reports.
    fn model_name(&self) -> &str;

    /// The mask token as it must appear in input text (e.g. `[MASK]`).
    fn mask_token(&self) -> &str;

    /// The `top_k` most probable tokens at the single mask of each text, most
    /// probable first. A text without exactly one mask is an error; pass all
    /// texts in one call, the model batches them.
    fn fill_mask(&self, texts: &[&str], top_k: usize)
    -> Result<Vec<Vec<Prediction>>, EncoderError>;

    /// The `top_k` most probable tokens at each mask of each text, as transformers'
    /// fill-mask pipeline answers a text with several masks: one list per mask, in the
    /// order of the masks, each read from the one forward pass of its text (the other masks
    /// stay masked). A text without a mask is an error. The default answers texts of one mask.
    fn fill_masks(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Vec<Prediction>>>, EncoderError> {
        Ok(self
            .fill_mask(texts, top_k)?
            .into_iter()
            .map(|one| vec![one])
            .collect())
    }

    /// The vocabulary id of `token` if the tokenizer can produce it as one piece.
    fn piece_id(&self, token: &str) -> Option<u32>;

    /// Probability at the mask of `text` of each vocabulary id in `ids`.
    fn token_probs(&self, text: &str, ids: &[u32]) -> Result<Vec<f32>, EncoderError>;

    /// Each text as the model reads it, special tokens added (what `tokenizer.encode(text)`
    /// gives in transformers): a text with no pieces or more than the model's positions is
    /// an error naming it.
    fn encode(&self, texts: &[&str]) -> Result<Vec<Encoded>, EncoderError>;

    /// Each item's hidden piece scored, one forward pass per item: pseudo-log-likelihood's
    /// unit, with the piece's rank and the best log-probability there; with `attention`, the
    /// attention each position of the masked input receives. Pass every item of a study in
    /// one call, the model batches them; an error names the item by its index.
    fn hidden_scores(
        &self,
        items: &[HiddenPiece<'_>],
        attention: bool,
    ) -> Result<Vec<HiddenScore>, EncoderError>;

    /// For each span, one forward pass with all its positions hidden: at each position `i`
    /// of `positions`, the log-probability of the id at each position `j` of `positions`
    /// (`[i][j]`; the diagonal is each piece's own). An error names the span by its index.
    fn hidden_span_log_probs(
        &self,
        spans: &[HiddenSpan<'_>],
    ) -> Result<Vec<Vec<Vec<f64>>>, EncoderError>;

    /// Each id sequence read whole, one forward pass each: every position's log-probability
    /// of its own id and the attention it receives.
    fn piece_scores(&self, sequences: &[&[u32]]) -> Result<Vec<PieceScores>, EncoderError>;
}

/// Characters of an input that an error message quotes; the rest is counted, not echoed.
pub const QUOTED_CHARS: usize = 80;

/// `text` quoted for an error message: whole when it has at most [`QUOTED_CHARS`]
/// characters, else its first ones, `…` and its length. An input can be megabytes long
/// (a file of one huge line): a message that echoed it would bury the error.
pub fn quote(text: &str) -> String {
    match cut(text) {
        (whole, None) => format!("{whole:?}"),
        (start, Some(length)) => format!("{start:?}… ({length} characters)"),
    }
}

/// `text` as [`quote`] cuts it, without the quotes: for a name the message shows bare (a
/// sentence id, a mask token), which a file can still make 100 KB long.
pub fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match cut(text) {
        (whole, None) => whole.into(),
        (start, Some(length)) => format!("{start}… ({length} characters)").into(),
    }
}

/// `text`'s first [`QUOTED_CHARS`] characters, and its length when that is more.
fn cut(text: &str) -> (&str, Option<usize>) {
    match text.char_indices().nth(QUOTED_CHARS) {
        None => (text, None),
        Some((end, _)) => (&text[..end], Some(text.chars().count())),
    }
}

/// Why an encoder could not answer. Messages are one line and name the input;
/// errors about one text carry its index in the call ([`EncoderError::index`]).
#[derive(Debug, thiserror::Error)]
pub enum EncoderError {
    /// A fill-mask text has no mask, or several.
    #[error(
        "text {index} must contain exactly one {mask}, found {found}: {}",
        quote(text)
    )]
    MaskCount {
        /// Index of the text in the call.
        index: usize,
        /// The model's mask token.
        mask: String,
        /// How many masks the text has.
        found: usize,
        /// The text.
        text: String,
    },
    /// A fill-mask text without any mask ([`MaskedLm::fill_masks`]).
    #[error("text {index} must contain at least one {mask}: {}", quote(text))]
    NoMask {
        /// Index of the text in the call.
        index: usize,
        /// The model's mask token.
        mask: String,
        /// The text.
        text: String,
    },
    /// A word range that does not cover whole pieces of its text.
    #[error("text {index}: word range {start}..{end} {reason}: {}", quote(text))]
    WordRange {
        /// Index of the item in the call.
        index: usize,
        /// Start of the range, in bytes.
        start: usize,
        /// End of the range, in bytes.
        end: usize,
        /// What is wrong with it (e.g. it starts inside a piece).
        reason: String,
        /// The text.
        text: String,
    },
    /// A text longer than the model's learned positions.
    #[error(
        "text {index} has {tokens} tokens, more than the model's {max} positions: {}",
        quote(text)
    )]
    TooLong {
        /// Index of the text in the call.
        index: usize,
        /// Its length in tokens, special tokens included.
        tokens: usize,
        /// The model's number of positions.
        max: usize,
        /// The text.
        text: String,
    },
    /// A text with nothing to read: empty or blank, and no special tokens added
    /// (or no word to find in it). Averaging nothing would give NaN.
    #[error("text {index} has no tokens: it is empty or blank")]
    EmptyText {
        /// Index of the text in the call.
        index: usize,
    },
    /// A layer the model does not have.
    #[error("layer {requested} does not exist: the model has layers 0..={available}")]
    Layer {
        /// The layer asked for.
        requested: usize,
        /// The model's last layer.
        available: usize,
    },
    /// The tokenizer failed on a text, or made a piece the model cannot read.
    #[error("text {index} cannot be tokenized: {message}")]
    Tokenizer {
        /// Index of the text in the call.
        index: usize,
        /// What went wrong.
        message: String,
    },
    /// A position to hide outside its sequence.
    #[error("item {index}: position {position} is outside its {len} pieces")]
    Position {
        /// Index of the item in the call.
        index: usize,
        /// The position asked for.
        position: usize,
        /// The sequence's length.
        len: usize,
    },
    /// A vocabulary id outside the model's vocabulary.
    #[error("id {id} is outside the vocabulary of {vocab} ids")]
    UnknownId {
        /// The id asked for.
        id: u32,
        /// The model's vocabulary size.
        vocab: usize,
    },
    /// The model itself failed (a backend or model/tokenizer mismatch).
    #[error("model: {0}")]
    Backend(String),
    /// The model's output for a text holds a NaN or an infinity (an overflow, or
    /// damaged weights): never passed on as a number.
    #[error("text {index}: the model's output value {position} is {value}, not a finite number")]
    NonFinite {
        /// Index of the text in the call.
        index: usize,
        /// The value's position in the text's output (a vector, or a distribution).
        position: usize,
        /// The value.
        value: f32,
    },
}

/// `outputs` (one row per text of a call) unchanged, or [`EncoderError::NonFinite`] naming
/// the first text whose row holds a NaN or an infinity: what every implementation and
/// study checks before a number goes further.
pub fn check_finite(outputs: Vec<Vec<f32>>) -> Result<Vec<Vec<f32>>, EncoderError> {
    for (index, row) in outputs.iter().enumerate() {
        if let Some(position) = row.iter().position(|v| !v.is_finite()) {
            return Err(EncoderError::NonFinite {
                index,
                position,
                value: row[position],
            });
        }
    }
    Ok(outputs)
}

impl EncoderError {
    /// The index in the call of the text this error is about; `None` for errors
    /// about the call as a whole (a layer, an id, the backend).
    pub fn index(&self) -> Option<usize> {
        match self {
            EncoderError::MaskCount { index, .. }
            | EncoderError::NoMask { index, .. }
            | EncoderError::WordRange { index, .. }
            | EncoderError::TooLong { index, .. }
            | EncoderError::EmptyText { index }
            | EncoderError::Tokenizer { index, .. }
            | EncoderError::Position { index, .. }
            | EncoderError::NonFinite { index, .. } => Some(*index),
            EncoderError::Layer { .. }
            | EncoderError::UnknownId { .. }
            | EncoderError::Backend(_) => None,
        }
    }

    /// This error with its text index counted from `start`: for a caller that splits one
    /// call into chunks, so that the index names the text in the whole input.
    pub fn offset(mut self, start: usize) -> Self {
        match &mut self {
            EncoderError::MaskCount { index, .. }
            | EncoderError::NoMask { index, .. }
            | EncoderError::WordRange { index, .. }
            | EncoderError::TooLong { index, .. }
            | EncoderError::EmptyText { index }
            | EncoderError::Tokenizer { index, .. }
            | EncoderError::Position { index, .. }
            | EncoderError::NonFinite { index, .. } => *index += start,
            EncoderError::Layer { .. }
            | EncoderError::UnknownId { .. }
            | EncoderError::Backend(_) => {}
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_reads_and_writes_last_or_a_number() {
        assert_eq!("last".parse::<Layer>(), Ok(Layer::Last));
        assert_eq!("3".parse::<Layer>(), Ok(Layer::Index(3)));
        assert_eq!(
            "-1".parse::<Layer>(),
            Err("expected `last` or a layer number, got \"-1\"".to_owned())
        );
        assert_eq!(Layer::Last.to_string(), "last");
        assert_eq!(Layer::Index(3).to_string(), "3");
        let json = serde_json::to_string(&[Layer::Last, Layer::Index(3)]).unwrap();
        assert_eq!(json, r#"["last",3]"#);
        let back: Vec<Layer> = serde_json::from_str(r#"["last", 3, "2"]"#).unwrap();
        assert_eq!(back, [Layer::Last, Layer::Index(3), Layer::Index(2)]);
        assert!(serde_json::from_str::<Layer>("-1").is_err());
        assert!(serde_json::from_str::<Layer>("\"first\"").is_err());
    }

    #[test]
    fn long_texts_are_quoted_by_a_prefix_and_their_length() {
        assert_eq!(quote("a \"b\""), r#""a \"b\"""#);
        let long = "é".repeat(1 << 20);
        let quoted = quote(&long);
        assert_eq!(
            quoted,
            format!("{:?}… (1048576 characters)", "é".repeat(QUOTED_CHARS))
        );
        let err = EncoderError::TooLong {
            index: 0,
            tokens: 9000,
            max: 512,
            text: long,
        };
        assert!(err.to_string().len() < 300, "{err}");
    }

    #[test]
    fn non_finite_outputs_name_their_text_and_value() {
        let ok = vec![vec![0.5, -1.0], vec![2.0, 3.0]];
        assert_eq!(check_finite(ok.clone()).unwrap(), ok);
        let err = check_finite(vec![vec![0.5], vec![1.0, f32::NAN]]).unwrap_err();
        assert_eq!(err.index(), Some(1));
        assert_eq!(
            err.to_string(),
            "text 1: the model's output value 1 is NaN, not a finite number"
        );
        let err = check_finite(vec![vec![f32::NEG_INFINITY]]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "text 0: the model's output value 0 is -inf, not a finite number"
        );
    }

    #[test]
    fn per_text_errors_carry_their_index() {
        assert_eq!(EncoderError::EmptyText { index: 4 }.index(), Some(4));
        let layer = EncoderError::Layer {
            requested: 9,
            available: 2,
        };
        assert_eq!(layer.index(), None);
    }
}
