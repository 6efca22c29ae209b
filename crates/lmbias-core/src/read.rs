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
    /// The error for `path`, for the reason `source`.
    pub fn new(path: &Path, source: io::Error) -> ReadError {
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

/// The most bytes lmbias reads from one file of a kind: checked against the file's size
/// before reading and enforced while reading, so that `/dev/zero`, a FIFO or an endless
/// file stops with an error instead of filling memory. [`MAX_FILE_MB`] raises every cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cap {
    /// What the file is, for the message ("dataset", "corpus", "shard").
    pub kind: &'static str,
    /// The cap in MiB, before [`MAX_FILE_MB`].
    pub mib: u64,
    /// What the bytes must look like, checked as they arrive: a file that cannot be of its
    /// kind is refused at its first bytes, not at the cap (`/dev/zero` as a corpus read 4 GiB
    /// before "too large"; issue #47).
    pub start: Start,
}

/// What [`read_capped`] checks of a file's bytes while it reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Text: no NUL byte anywhere (UTF-8 text has none; zeros, sparse files and binaries do).
    Text,
    /// A CBOR map (lmbias's shards): the first byte is of major type 5.
    CborMap,
    /// Anything (binary formats whose own reader checks them).
    Any,
}

/// Association tests, valence datasets, word lists, templates.
pub const DATASET: Cap = Cap {
    kind: "dataset",
    mib: 256,
    start: Start::Text,
};
/// Precomputed vectors (`--embeddings`): JSON or a whole word2vec/GloVe text file.
pub const EMBEDDINGS: Cap = Cap {
    kind: "embeddings",
    mib: 8192,
    start: Start::Text,
};
/// A model's or tokenizer's settings (config.json, tokenizer_config.json, …).
pub const CONFIG: Cap = Cap {
    kind: "config",
    mib: 16,
    start: Start::Text,
};
/// A tokenizer's vocabulary (tokenizer.json, vocab.txt, spm.model, spiece.model).
pub const TOKENIZER: Cap = Cap {
    kind: "tokenizer",
    mib: 512,
    start: Start::Any,
};
/// A training corpus.
pub const CORPUS: Cap = Cap {
    kind: "corpus",
    mib: 4096,
    start: Start::Text,
};
/// A `--save`d shard of a sweep.
pub const SHARD: Cap = Cap {
    kind: "shard",
    mib: 1024,
    start: Start::CborMap,
};

/// The environment variable that sets every cap, in MiB, for files larger than the defaults.
pub const MAX_FILE_MB: &str = "LMBIAS_MAX_FILE_MB";

impl Cap {
    /// The cap in bytes: [`MAX_FILE_MB`] when it is set to a number, else this kind's.
    pub fn bytes(self) -> u64 {
        let mib = std::env::var(MAX_FILE_MB)
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(self.mib);
        mib.saturating_mul(1 << 20)
    }

    /// Refuses `bytes` (read so far; `from` where the newest chunk starts) that cannot be a
    /// file of this kind.
    fn check_start(self, bytes: &[u8], from: usize) -> io::Result<()> {
        let refuse = |message: String| Err(io::Error::new(io::ErrorKind::InvalidData, message));
        match self.start {
            Start::Text => match bytes[from..].iter().position(|&b| b == 0) {
                Some(i) => refuse(format!(
                    "a NUL byte at byte {}: not a text file, as {} {} file must be",
                    from + i,
                    article(self.kind),
                    self.kind
                )),
                None => Ok(()),
            },
            Start::CborMap => match bytes.first() {
                Some(&b) if from == 0 && !(0xa0..=0xbf).contains(&b) => refuse(format!(
                    "first byte 0x{b:02x}: not a CBOR map, so not {} {} file",
                    article(self.kind),
                    self.kind
                )),
                _ => Ok(()),
            },
            Start::Any => Ok(()),
        }
    }

    /// The error for a file over the cap.
    pub fn exceeded(self) -> io::Error {
        let bytes = self.bytes();
        let size = if bytes.is_multiple_of(1 << 20) {
            format!("{} MiB", bytes >> 20)
        } else {
            format!("{bytes} bytes")
        };
        io::Error::new(
            io::ErrorKind::FileTooLarge,
            format!(
                "larger than {size} (the limit for {} files; set {MAX_FILE_MB} to raise it)",
                self.kind
            ),
        )
    }
}

/// A reader of text that fails at the first NUL byte it passes on: a streaming reader
/// (a corpus, word vectors) refuses `/dev/zero` or a sparse file at its first bytes, as
/// [`read_capped`] does, instead of at its line or size cap.
pub struct TextOnly<R> {
    inner: R,
    kind: &'static str,
    offset: u64,
}

impl<R> TextOnly<R> {
    /// `inner`, read as a text file of `kind` ("corpus", "word-vector").
    pub fn new(inner: R, kind: &'static str) -> Self {
        TextOnly {
            inner,
            kind,
            offset: 0,
        }
    }
}

impl<R: io::Read> io::Read for TextOnly<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(i) = buf[..n].iter().position(|&b| b == 0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "a NUL byte at byte {}: not a text file, as {} {} file must be",
                    self.offset + i as u64,
                    article(self.kind),
                    self.kind
                ),
            ));
        }
        self.offset += n as u64;
        Ok(n)
    }
}

/// "a" or "an", for `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// Opens `path` for reading without ever blocking in `open()`: every input of lmbias is opened
/// here. A FIFO opens at once whether or not a process writes it (`O_NONBLOCK`), then reads in
/// blocking mode: a pipe with a writer (`<(command)`, `mkfifo` fed by another process) is read
/// whole, one that nobody writes reads as empty at once, and the reader refuses it as empty.
pub fn open(path: &Path) -> io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(path)?;
        let fd = file.as_raw_fd();
        // SAFETY: `fd` is the open descriptor `file` owns; F_GETFL/F_SETFL read and set its
        // status flags and touch no memory.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    std::fs::File::open(path)
}

/// What a path that is not a regular file is, for a message ("a FIFO", "a device").
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        } else if t.is_fifo() {
            return "a FIFO";
        } else if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a link"
    } else {
        "not a regular file"
    }
}

/// The one error for an input that must be a regular file and is not: what it is, and why
/// this input must be one (`why`), so that no "not a regular file" comes without a reason.
pub fn not_regular(meta: &std::fs::Metadata, why: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file: {why}", kind_of(meta)),
    )
}

/// The sha256 of the bytes each pipe gave when lmbias read it, by the path as named: a pipe
/// (`<(command)`, `/dev/stdin`) cannot be read a second time for the report's digest. A
/// regular file is digested by reading it again, so a file changed since is never recorded
/// by an old digest.
static AS_READ: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::new(Vec::new());

/// Whether `path` is something read once: not a regular file, nor a folder.
fn read_once(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// The sha256 (hex) of the bytes `path` gave when this process read it, if it is a pipe (or
/// another file that cannot be read twice) that it read.
pub fn sha256_as_read(path: &Path) -> Option<String> {
    if !read_once(path) {
        return None;
    }
    let read = AS_READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    read.iter()
        .rev()
        .find(|(p, _)| p == path)
        .map(|(_, d)| d.clone())
}

/// Records the sha256 of the bytes `path` gave, if it cannot be read twice.
fn record_as_read(path: &Path, bytes: &[u8]) {
    use sha2::{Digest, Sha256};
    if read_once(path) {
        record_digest(path, &format!("{:x}", Sha256::digest(bytes)));
    }
}

/// Records `digest` as that of the bytes `path` gave, if it cannot be read twice (for a reader
/// that streams, hashing as it goes).
pub fn record_digest(path: &Path, digest: &str) {
    if !read_once(path) {
        return;
    }
    let mut read = AS_READ
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    read.retain(|(p, _)| p != path);
    read.push((path.to_path_buf(), digest.to_owned()));
}

/// The bytes of `path`, at most `cap`: a larger file is an error before anything is read
/// when its size is known, and as soon as the reading passes the cap otherwise.
pub fn read_capped(path: &Path, cap: Cap) -> Result<Vec<u8>, ReadError> {
    use io::Read;
    let fail = |e| ReadError::new(path, e);
    let file = open(path).map_err(fail)?;
    let limit = cap.bytes();
    let known = file.metadata().map_err(fail)?;
    if known.is_file() && known.len() > limit {
        return Err(fail(cap.exceeded()));
    }
    let mut bytes = Vec::new();
    let mut reader = file.take(limit.saturating_add(1));
    let mut chunk = vec![0u8; 1 << 16];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(fail(e)),
        };
        let at = bytes.len();
        bytes.extend_from_slice(&chunk[..n]);
        cap.check_start(&bytes, at).map_err(fail)?;
    }
    if bytes.len() as u64 > limit {
        return Err(fail(cap.exceeded()));
    }
    record_as_read(path, &bytes);
    Ok(bytes)
}

/// The bytes of `path`, at most `cap`, without a leading byte-order mark.
pub fn read(path: &Path, cap: Cap) -> Result<Vec<u8>, ReadError> {
    let mut bytes = read_capped(path, cap)?;
    let bom = bytes.len() - strip_bom(&bytes).len();
    bytes.drain(..bom);
    Ok(bytes)
}

/// The text of `path` (a [`DATASET`] file), without a leading byte-order mark; invalid
/// UTF-8 is an I/O error of kind `InvalidData`.
pub fn read_to_string(path: &Path) -> Result<String, ReadError> {
    String::from_utf8(read(path, DATASET)?).map_err(|e| {
        ReadError::new(
            path,
            io::Error::new(io::ErrorKind::InvalidData, e.utf8_error()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #47, failure 1: a FIFO that nothing writes opened at once and read as empty; one
    /// with a writer read whole.
    #[cfg(unix)]
    #[test]
    fn a_fifo_nobody_writes_reads_as_empty_at_once_and_a_written_one_whole() {
        let dir = std::env::temp_dir().join(format!("lmbias-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("input");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let started = std::time::Instant::now();
        assert_eq!(read_capped(&fifo, DATASET).unwrap(), b"");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        // A writer that is in before the reader and finishes after it began: the read must wait
        // for the second half instead of returning what the pipe held at first. A reader held
        // open here (`keeper`) lets the writer open without waiting and keeps the pipe's buffer
        // alive, so the outcome does not depend on which thread the scheduler runs first.
        let keeper = open(&fifo).unwrap();
        let mut writer = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(&fifo)
                .unwrap()
        };
        use std::io::Write;
        writer.write_all(b"thou ").unwrap();
        let second_half = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            writer.write_all(b"art\n").unwrap();
        });
        let bytes = read_capped(&fifo, DATASET).unwrap();
        second_half.join().unwrap();
        drop(keeper);
        assert_eq!(bytes, b"thou art\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
