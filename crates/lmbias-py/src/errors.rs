//! Library errors as Python exceptions: the message is the CLI's (`{:#}`: every cause once,
//! on one line), the class says what went wrong so a notebook can catch it.
//!
//! - a file problem, anywhere (a checkpoint's config.json or weights, a dataset, a vectors
//!   file): the kind of the `io::Error` at the root of its chain, as lmbias-model classifies
//!   it for checkpoints ([`ModelError::io_kind`]): `FileNotFoundError`, `PermissionError`,
//!   `IsADirectoryError`, `NotADirectoryError`, else `OSError`. A model that is neither a
//!   folder nor in the Hugging Face cache, or a folder without weights, is
//!   `FileNotFoundError` too; a model path that is a file of no known format
//!   `NotADirectoryError`. A failed download is no file problem (`RuntimeError`);
//! - bad input (a test file, a vector, a text, a layer, an option): `ValueError`;
//! - anything else (a checkpoint that cannot be loaded, a failed download): `RuntimeError`.

use std::error::Error;
use std::io;

use lmbias_runs::data::corpus::CorpusError;
use lmbias_runs::data::lexicon::LexiconError;
use lmbias_runs::data::probe::ProbeDataError;
use lmbias_runs::data::valence::ValenceError;
use lmbias_runs::data::{AssociationError, EmbeddingsError};
use lmbias_runs::encoder::EncoderError;
use lmbias_runs::metrics::weat::WeatError;
use lmbias_runs::studies::probe::ProbeError;
use lmbias_runs::studies::seat::SeatError;
use lmbias_runs::studies::valence::ValenceStudyError;
use lmbias_runs::train::TrainError;
use lmbias_runs::{ModelError, RunError, StaticError};
use pyo3::PyErr;
use pyo3::exceptions::{
    PyFileNotFoundError, PyIsADirectoryError, PyNotADirectoryError, PyOSError, PyPermissionError,
    PyRuntimeError, PyValueError,
};

/// The Python exception for `err`, with the CLI's one-line message.
pub(crate) fn to_py(err: anyhow::Error) -> PyErr {
    let message = format!("{err:#}");
    if let Some(kind) = io_kind(&err) {
        return match kind {
            io::ErrorKind::NotFound => PyFileNotFoundError::new_err(message),
            io::ErrorKind::PermissionDenied => PyPermissionError::new_err(message),
            io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(message),
            io::ErrorKind::NotADirectory => PyNotADirectoryError::new_err(message),
            _ => PyOSError::new_err(message),
        };
    }
    if err.chain().any(is_bad_input) {
        return PyValueError::new_err(message);
    }
    PyRuntimeError::new_err(message)
}

/// The file problem `err` is: lmbias-model's answer for the first model error of the chain
/// (also one a [`RunError`] shows transparently, which hides it from the chain), else the
/// kind of the first `io::Error`.
fn io_kind(err: &anyhow::Error) -> Option<io::ErrorKind> {
    for e in err.chain() {
        let model = e.downcast_ref::<ModelError>().or(match e.downcast_ref() {
            Some(RunError::Model(model)) => Some(model),
            _ => None,
        });
        if let Some(model) = model {
            return model.io_kind();
        }
        if let Some(io) = e.downcast_ref::<io::Error>() {
            return Some(io.kind());
        }
    }
    None
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
        || e.is::<LexiconError>()
        || e.is::<ProbeDataError>()
        || e.is::<WeatError>()
        || e.is::<EncoderError>()
        || e.is::<SeatError>()
        || e.is::<ValenceStudyError>()
        || e.is::<ProbeError>()
        || e.downcast_ref().is_some_and(is_bad_static)
        || e.downcast_ref().is_some_and(is_bad_input_run)
        || matches!(
            e.downcast_ref(),
            Some(TrainError::Setting { .. } | TrainError::Corpus { .. })
        )
        || e.downcast_ref::<CorpusError>()
            .is_some_and(|c| !matches!(c, CorpusError::Read(_)))
        || matches!(
            e.downcast_ref(),
            Some(
                ModelError::NoMlmHead { .. }
                    | ModelError::UnknownDevice(_)
                    | ModelError::UnknownPrecision(_)
                    | ModelError::PrecisionUnavailable { .. }
            )
        )
}

/// Static vectors whose content is wrong (not those that cannot be read).
fn is_bad_static(e: &StaticError) -> bool {
    matches!(
        e,
        StaticError::Line { .. }
            | StaticError::Vector { .. }
            | StaticError::Format { .. }
            | StaticError::Invalid { .. }
    )
}

/// The facade's own checks of what was passed, and the library errors it shows
/// transparently (which hides them from the chain).
fn is_bad_input_run(e: &RunError) -> bool {
    match e {
        RunError::NotMasked
        | RunError::NotCheckpoint
        | RunError::NeedsTemplates
        | RunError::ProbeSize { .. }
        | RunError::DuplicateTest { .. }
        | RunError::Tests(_)
        | RunError::Seat(_)
        | RunError::ValenceData(_)
        | RunError::Lexicon(_)
        | RunError::Valence(_)
        | RunError::ProbeData(_)
        | RunError::Embeddings(_)
        | RunError::Probe(_)
        | RunError::WeatLookup { .. }
        | RunError::ZeroVector { .. }
        | RunError::HugeVector { .. }
        | RunError::WeatTest { .. }
        | RunError::SameCorpus { .. }
        | RunError::IdenticalCorpora { .. }
        | RunError::CorpusSettings(_)
        | RunError::PeriodCorpora { .. }
        | RunError::Crows { .. }
        | RunError::CrowsCompare(_)
        | RunError::Unaligned { .. }
        | RunError::Draw { .. }
        | RunError::NoPairs { .. }
        | RunError::Share { .. }
        | RunError::Output { .. }
        | RunError::RepeatedCorpus { .. } => true,
        // A pairs file that could not be read is the system's error; one that was read is bad input.
        RunError::CrowsData(inner) => {
            !matches!(inner, lmbias_runs::data::crows::PairsError::Read(_))
        }
        // A corpus that could not be read is the system's error; one that was read is bad input.
        RunError::Corpus(inner) => {
            !matches!(inner, lmbias_runs::data::corpus::CorpusError::Read(_))
        }
        RunError::Static(inner) => is_bad_static(inner),
        RunError::Model(inner) => matches!(
            inner,
            ModelError::NoMlmHead { .. } | ModelError::UnknownDevice(_)
        ),
        _ => false,
    }
}
