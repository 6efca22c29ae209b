//! Tokenization exactly like transformers, from a Hugging Face model directory:
//! `tokenizer.json` when present, else BERT WordPiece from `vocab.txt`, else T5
//! Unigram from SentencePiece's `spiece.model`.
//!
//! On top of the `tokenizers` crate this adds what the studies need and
//! transformers leaves to the caller: no padding or truncation, mask lookup with
//! errors that name the text, word→piece alignment by byte range, and
//! `piece_id` for "can this annotation be one token?".
//!
//! # Turkish under uncased BERT
//!
//! BertNormalizer lowercases with Unicode's full (not Turkish) rules, then strips
//! accents by NFD decomposition and removal of combining marks (category Mn):
//! `İ` → `i̇` → `i`; `I` → `i` (not `ı`); `ı` stays `ı` (it has no decomposition);
//! `ğ ü ş ö ç` → `g u s o c`. So "Işık" becomes "isık" and "ağaç" "agac": an
//! uncased model cannot tell `ş` from `s` or `ğ` from `g`, a finding of the Turkish
//! study. Cased models (`do_lower_case` false) keep every letter.

mod config;
mod encoding;
mod error;
mod sentencepiece;
mod tokenizer;
mod wordpiece;

pub use encoding::Encoding;
pub use error::TextError;
pub use tokenizer::{SpecialToken, Tokenizer};

// The model shares one tokenizer across threads.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Tokenizer>();
};
