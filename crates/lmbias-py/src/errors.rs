//! Library errors as Python exceptions: the message is the CLI's (`{:#}`: every cause once,
//! on one line), the class says what went wrong so a notebook can catch it.
//!
//! - an I/O error anywhere in the chain: its kind (`FileNotFoundError`, `PermissionError`,
//!   `IsADirectoryError`, else `OSError`); a model that is neither a folder nor in the
//!   Hugging Face cache is `FileNotFoundError` too (so is a folder without `config.json`),
//!   and a model path that is a file of no known format `NotADirectoryError`;
//! - bad input (a test file, a vector, a text, a layer, an option): `ValueError`;
//! - anything else (a checkpoint that cannot be loaded, a failed download): `RuntimeError`.

use std::error::Error;
use std::io;

use lmbias_data::probe::ProbeDataError;
use lmbias_data::valence::ValenceError;
use lmbias_data::{AssociationError, EmbeddingsError};
use lmbias_encoder::EncoderError;
use lmbias_metrics::weat::WeatError;
use lmbias_model::ModelError;
use lmbias_static::StaticError;
use lmbias_studies::probe::ProbeError;
use lmbias_studies::seat::SeatError;
use lmbias_studies::valence::ValenceStudyError;
use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyNotADirectoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};

/// The Python exception for `err`, with the CLI's one-line message.
pub(crate) fn to_py(err: anyhow::Error) -> PyErr {
    let message = format!("{err:#}");
    let io_kind = err.chain().find_map(|e| {
        e.downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| match e.downcast_ref() {
                Some(ModelError::Io { kind, .. }) => Some(*kind),
                _ => None,
            })
    });
    if let Some(kind) = io_kind {
        return match kind {
            io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
            io::ErrorKind::NotADirectory => PyNotADirectoryError::new_err(message),
            _ => PyOSError::new_err(message),
        };
    }
    for e in err.chain() {
        match e.downcast_ref() {
            Some(ModelError::NotFound { .. } | ModelError::Incomplete { .. }) => {
                return PyFileNotFoundError::new_err(message);
            }
            Some(ModelError::NotAFolder { .. }) => return PyNotADirectoryError::new_err(message),
            _ => {}
        }
    }
    if err.chain().any(is_bad_input) {
        return PyValueError::new_err(message);
    }
    PyRuntimeError::new_err(message)
}

/// A `ValueError` from one of our own argument checks.
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// Whether `e` is about what the caller passed (I/O errors are classified before this).
fn is_bad_input(e: &(dyn Error + 'static)) -> bool {
    e.is::<AssociationError>()
        || e.is::<EmbeddingsError>()
        || e.is::<ValenceError>()
        || e.is::<ProbeDataError>()
        || e.is::<WeatError>()
        || e.is::<EncoderError>()
        || e.is::<SeatError>()
        || e.is::<ValenceStudyError>()
        || e.is::<ProbeError>()
        || matches!(
            e.downcast_ref(),
            Some(
                StaticError::Line { .. }
                    | StaticError::Vector { .. }
                    | StaticError::Format { .. }
                    | StaticError::Invalid { .. }
            )
        )
        || matches!(
            e.downcast_ref(),
            Some(ModelError::NoMlmHead { .. } | ModelError::UnknownDevice(_))
        )
}
