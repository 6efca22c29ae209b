//! Reading a whole file, and the one I/O error every loader shares.
//!
//! Each loader's error wraps [`ReadError`] transparently, so a failed read prints the same way
//! wherever it happens ("FILE: cannot read", then the operating system's reason as the error's
//! source) and a caller can still match on the [`std::io::ErrorKind`].

use std::io;
use std::path::{Path, PathBuf};

/// A file (or directory) could not be read.
///
/// The message names the file only; the reason is the [`source`](std::error::Error::source),
/// so that a report printing the whole chain (`{:#}` in anyhow) shows it once.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot read", path.display())]
pub struct ReadError {
    /// The path as the caller gave it, so the message points where the user looked.
    pub path: PathBuf,
    /// Why: kept typed so that a caller can tell a missing file from a permission problem.
    #[source]
    pub source: io::Error,
}

impl ReadError {
    pub(crate) fn new(path: &Path, source: io::Error) -> ReadError {
        ReadError {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The bytes of `path`.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    std::fs::read(path).map_err(|e| ReadError::new(path, e))
}

/// The text of `path`; invalid UTF-8 is an I/O error of kind `InvalidData`.
pub(crate) fn read_to_string(path: &Path) -> Result<String, ReadError> {
    std::fs::read_to_string(path).map_err(|e| ReadError::new(path, e))
}
