//! Why a tokenizer could not be loaded or could not answer.

use std::path::PathBuf;

/// Every message is one line and names the file and field, or the text, at fault.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    /// The folder has none of the files a tokenizer is built from.
    #[error(
        "{}: no tokenizer found: looked for tokenizer.json, vocab.txt (BERT WordPiece), spm.model (DeBERTa SentencePiece) and spiece.model (T5 SentencePiece)",
        dir.display()
    )]
    NoTokenizer {
        /// The model folder.
        dir: PathBuf,
    },

    /// A tokenizer file could not be read or parsed.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// Why, on one line.
        message: String,
    },

    /// A field of a tokenizer file has a value lmbias cannot use.
    #[error("{}: field {field}: {message}", path.display())]
    Field {
        /// The file.
        path: PathBuf,
        /// The field, dotted for nested ones (`pieces.type`).
        field: String,
        /// Why, on one line.
        message: String,
    },

    /// The tokenizer failed on a text.
    #[error("text {index}: cannot tokenize: {message}")]
    Encode {
        /// Index of the text in the call (0 for single-text methods).
        index: usize,
        /// The tokenizers crate's reason, on one line.
        message: String,
    },

    /// Fill-mask on a tokenizer without a mask token.
    #[error("{tokenizer}: the tokenizer has no mask token")]
    NoMaskToken {
        /// The tokenizer's folder.
        tokenizer: String,
    },

    /// A fill-mask text without exactly one mask.
    #[error("text {index} must contain exactly one {mask}, found {found}: {text:?}")]
    MaskCount {
        /// Index of the text in the call.
        index: usize,
        /// The mask token.
        mask: String,
        /// How many the text has.
        found: usize,
        /// The text.
        text: String,
    },

    /// A fill-mask text without any mask.
    #[error("text {index} must contain at least one {mask}: {text:?}")]
    NoMask {
        /// Index of the text in the call.
        index: usize,
        /// The mask token.
        mask: String,
        /// The text.
        text: String,
    },

    /// Words can be added only to a WordPiece vocabulary.
    #[error(
        "{}: words can be added to a WordPiece vocabulary (BERT's) only: this tokenizer is {model}",
        dir.display()
    )]
    NotWordPiece {
        /// The tokenizer's folder.
        dir: PathBuf,
        /// Its model's kind.
        model: &'static str,
    },

    /// A byte range that does not cover whole pieces of a text.
    #[error("byte range {start}..{end} {reason}")]
    WordRange {
        /// Start of the range.
        start: usize,
        /// End of the range.
        end: usize,
        /// What is wrong with it ("starts inside a token: …").
        reason: String,
    },
}

impl TextError {
    pub(crate) fn file(path: impl Into<PathBuf>, message: impl std::fmt::Display) -> Self {
        TextError::File {
            path: path.into(),
            message: message.to_string(),
        }
    }

    pub(crate) fn field(
        path: impl Into<PathBuf>,
        field: impl Into<String>,
        message: impl std::fmt::Display,
    ) -> Self {
        TextError::Field {
            path: path.into(),
            field: field.into(),
            message: message.to_string(),
        }
    }
}
