//! Why a tokenizer could not be loaded or could not answer.

use std::path::PathBuf;

/// Every message is one line and names the file and field, or the text, at fault.
#[derive(Debug, thiserror::Error)]
pub enum TextError {
    #[error(
        "{}: no tokenizer found: looked for tokenizer.json, vocab.txt (BERT WordPiece) and spiece.model (SentencePiece)",
        dir.display()
    )]
    NoTokenizer { dir: PathBuf },

    #[error("{}: {message}", path.display())]
    File { path: PathBuf, message: String },

    #[error("{}: field {field}: {message}", path.display())]
    Field {
        path: PathBuf,
        field: String,
        message: String,
    },

    #[error("text {index}: cannot tokenize: {message}")]
    Encode { index: usize, message: String },

    #[error("{tokenizer}: the tokenizer has no mask token")]
    NoMaskToken { tokenizer: String },

    #[error("text {index} must contain exactly one {mask}, found {found}: {text:?}")]
    MaskCount {
        index: usize,
        mask: String,
        found: usize,
        text: String,
    },

    #[error("byte range {start}..{end} {reason}")]
    WordRange {
        start: usize,
        end: usize,
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
