//! Tokenization exactly like transformers, from a Hugging Face model directory:
//! `tokenizer.json` when present, else BERT WordPiece from `vocab.txt`, else a
//! Unigram from SentencePiece's `spm.model` (DeBERTa-v2/v3) or `spiece.model` (T5).
//!
//! On top of the `tokenizers` crate this adds what the studies need and
//! transformers leaves to the caller: no padding or truncation, mask lookup with
//! errors that name the text, word→piece alignment by byte range, and
//! `piece_id` for "can this annotation be one token?".
//!
//! # What "like transformers" means here (checked against transformers 5.24)
//!
//! - A BERT-family `tokenizer.json` gets its normalizer rebuilt from
//!   `tokenizer_config.json` (`do_lower_case` defaulting to true), as BertTokenizer's
//!   `__init__` does; a T5 `tokenizer.json` gets T5Tokenizer's normalizer
//!   (its Precompiled table only) and pre-tokenizer (WhitespaceSplit + Metaspace).
//!   An ALBERT `tokenizer.json` gets AlbertTokenizer's normalizer and pre-tokenizer over its
//!   Precompiled table (the hub's files were converted by transformers 4, differently).
//!   A DeBERTa-v2/v3 `tokenizer.json` keeps only its vocabulary: DebertaV2Tokenizer
//!   builds the rest from `tokenizer_config.json`, as it does over `spm.model`.
//!   A bare `tokenizer.json` with no configuration files is used as written.
//! - Special tokens come from `special_tokens_map.json` over `tokenizer_config.json`
//!   (the map is skipped when the config has `added_tokens_decoder`). Where neither
//!   names one, lmbias falls back to the conventional `[MASK]`/`<mask>`,
//!   `[PAD]`/`<pad>`, `[UNK]`/`<unk>` if in the vocabulary (transformers would have none).
//! - Not handled: `additional_special_tokens` other than T5's `<extra_id_*>`, and
//!   special tokens configured outside a `tokenizer.json` vocabulary (an error here;
//!   transformers would append them).
//!
//! # Turkish under uncased BERT
//!
//! BertNormalizer lowercases with Unicode's full (not Turkish) rules, then strips
//! accents by NFD decomposition and removal of combining marks (category Mn):
//! `İ` → `i̇` → `i`; `I` → `i` (not `ı`); `ı` stays `ı` (it has no decomposition);
//! `ğ ü ş ö ç` → `g u s o c`. So "Işık" becomes "isık" and "ağaç" "agac": an
//! uncased model cannot tell `ş` from `s` or `ğ` from `g`, a finding of the Turkish
//! study. Cased models (`do_lower_case` false) keep every letter.

mod added_words;
mod config;
mod encoding;
mod error;
mod sentencepiece;
mod tokenizer;
mod wordpiece;

pub use added_words::{SplitWord, WordProblem};
pub use encoding::Encoding;
pub use error::TextError;
pub use tokenizer::{SpecialToken, Tokenizer};

/// The files a tokenizer is built from, in the order [`Tokenizer::from_dir`] prefers them:
/// what a model folder must hold, and what pins its tokenization.
pub const TOKENIZER_FILES: [&str; 4] = ["tokenizer.json", "vocab.txt", "spm.model", "spiece.model"];

// The model shares one tokenizer across threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Tokenizer>();
};

/// The bytes of `path`, at most `cap` (lmbias-data's one capped reader); the I/O error alone,
/// for the loaders' errors that name the file themselves.
fn read(path: &std::path::Path, cap: lmbias_core::read::Cap) -> std::io::Result<Vec<u8>> {
    lmbias_core::read::read_capped(path, cap).map_err(|e| e.source)
}
