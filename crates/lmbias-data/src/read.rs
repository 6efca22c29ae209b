//! Reading a whole file, the one I/O error every loader shares, and the one place a UTF-8
//! byte-order mark is dropped (Windows editors write one; read as text it would become part
//! of the first word, test or JSON value).
//!
//! Each loader's error wraps [`ReadError`] transparently, so a failed read prints the same way
//! wherever it happens ("FILE: cannot read", then the operating system's reason as the error's
//! source) and a caller can still match on the [`std::io::ErrorKind`].

use std::io::{self, BufRead};
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

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Consumes a UTF-8 byte-order mark at the start of `reader`, if there is one: for readers
/// that stream a file line by line instead of reading it whole.
pub fn skip_bom(reader: &mut impl BufRead) -> io::Result<()> {
    // A pipe may deliver fewer than three bytes at a time: look again until the prefix
    // is either the whole mark, or not a prefix of it.
    let mut seen = Vec::with_capacity(BOM.len());
    while seen.len() < BOM.len() {
        let buf = reader.fill_buf()?;
        let Some(&byte) = buf.first() else { break };
        if byte != BOM[seen.len()] {
            break;
        }
        seen.push(byte);
        reader.consume(1);
    }
    if seen.len() == BOM.len() || seen.is_empty() {
        return Ok(());
    }
    // A partial mark is text (invalid UTF-8 as it stands): hand it back to the caller's
    // reading by failing loudly rather than dropping bytes.
    Err(io::Error::new(
        io::ErrorKind::InvalidData,
        "stream starts with an incomplete UTF-8 byte-order mark",
    ))
}

/// The bytes of `path`, without a leading byte-order mark.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, ReadError> {
    let mut bytes = std::fs::read(path).map_err(|e| ReadError::new(path, e))?;
    let bom = bytes.len() - strip_bom(&bytes).len();
    bytes.drain(..bom);
    Ok(bytes)
}

/// The text of `path`, without a leading byte-order mark; invalid UTF-8 is an I/O error of
/// kind `InvalidData`.
pub(crate) fn read_to_string(path: &Path) -> Result<String, ReadError> {
    let mut text = std::fs::read_to_string(path).map_err(|e| ReadError::new(path, e))?;
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leading_mark_is_dropped_once_and_only_there() {
        assert_eq!(strip_bom(b"\xEF\xBB\xBFab"), b"ab");
        assert_eq!(strip_bom(b"a\xEF\xBB\xBF"), b"a\xEF\xBB\xBF");
        let mut reader = io::Cursor::new(b"\xEF\xBB\xBF\xEF\xBB\xBFx".to_vec());
        skip_bom(&mut reader).unwrap();
        let mut rest = String::new();
        io::Read::read_to_string(&mut reader, &mut rest).unwrap();
        assert_eq!(rest, "\u{feff}x");
        // One byte at a time, as a slow pipe delivers it.
        let mut slow = io::BufReader::with_capacity(1, &b"\xEF\xBB\xBFx"[..]);
        skip_bom(&mut slow).unwrap();
        assert_eq!(slow.fill_buf().unwrap(), b"x");
        let mut plain = io::Cursor::new(b"plain".to_vec());
        skip_bom(&mut plain).unwrap();
        assert_eq!(plain.position(), 0);
        let err = skip_bom(&mut io::Cursor::new(b"\xEF\xBBx".to_vec())).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
