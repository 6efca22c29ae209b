//! A table of word vectors, and the one reader of word2vec/GloVe text in lmbias.
//!
//! `lmbias weat --embeddings g.txt` and `lmbias probe --embeddings g.txt` (through
//! [`Embeddings`](crate::Embeddings), as f64) and `--model g.txt` (lmbias-static, as f32) read
//! a file by these same rules, so the two see the same words and the same vectors, rounded
//! to their type:
//!
//! - UTF-8 text; a leading byte-order mark is dropped, lines end in `\n` or `\r\n`, blank
//!   lines are skipped. Fields are separated by runs of ASCII white space (a word may hold
//!   other white space, such as U+00A0).
//! - An optional header line `COUNT DIM`, two integers alone on the first non-blank line,
//!   as word2vec writes it (GloVe writes none). `DIM` must not be 0, and `COUNT` must equal
//!   the number of vector lines.
//! - Every other line is a word and `DIM` values; without a header, `DIM` is the first
//!   line's field count minus one. The vector is the last `DIM` fields, so a word may hold
//!   spaces (Common Crawl GloVe 840B has `. . .` and `at name@domain.com`): it is the fields
//!   before them, joined by one space. A line whose extra fields include a number is an
//!   error instead: a vector with too many values. (So the first line of a file without a
//!   header, which sets `DIM`, cannot hold a word with spaces.)
//! - Values are read by Rust's correctly rounded `str::parse` into the table's type ([`f32`]
//!   or [`f64`]: the same digits give the nearest value of that type), and must be finite.
//! - A repeated word keeps its first vector, as gensim's `load_word2vec_format` does; the
//!   later ones are counted ([`WordVectors::duplicates`]) and dropped.
//! - A file without vectors is an error. Every error is one line naming the file and the line.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use lmbias_core::quote;

use crate::read::{ReadError, skip_bom};

/// The value types a table holds: `f32` (what encoders return, half the memory) or `f64`
/// (vectors imported for statistics, kept as written).
pub trait Float:
    Copy + PartialEq + std::fmt::Debug + std::str::FromStr + Into<f64> + sealed::Sealed + 'static
{
}

impl Float for f32 {}
impl Float for f64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The longest line of a word-vector text file: a 300-dimensional vector takes about
/// 3 KB; a longer line is not a vector.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The most values [`WordVectors::with_capacity`] reserves up front (64 MiB of `f32`):
/// a file's header is a hint, never a licence to allocate.
pub const RESERVE_LIMIT: usize = 1 << 24;

/// Vectors by word, all of one dimension and finite, each distinct word once.
///
/// Rows are numbered from 0 in the order words were first added (file order), which is
/// what a vocabulary id is in lmbias-static.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WordVectors<T> {
    dim: usize,
    /// Row-major, `dim` values a row.
    values: Vec<T>,
    rows: HashMap<String, u32>,
    duplicates: usize,
}

/// What is wrong with one vector given to [`WordVectors::push`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum VectorProblem {
    /// A vector needs at least one value.
    #[error("no values")]
    Empty,
    /// Not the dimension of the vectors before it.
    #[error("{found} values, expected {expected}")]
    Width {
        /// Values given.
        found: usize,
        /// The table's dimension.
        expected: usize,
    },
    /// NaN or infinite: a cosine with it is undefined.
    #[error("value {index} is {value}, not a finite number")]
    NotFinite {
        /// Position in the vector, from 0.
        index: usize,
        /// The value, widened to f64.
        value: f64,
    },
    /// Rows are numbered with `u32` (the last value is kept for "no row").
    #[error("more than {} vectors", u32::MAX - 1)]
    TooMany,
}

impl<T: Float> WordVectors<T> {
    /// An empty table whose dimension the first vector sets.
    pub fn new() -> Self {
        WordVectors {
            dim: 0,
            values: Vec::new(),
            rows: HashMap::new(),
            duplicates: 0,
        }
    }

    /// An empty table with room for `rows` vectors of `dim` values (a file's header says
    /// how many), up to [`RESERVE_LIMIT`] values: a large file then loads with little
    /// regrowing, and a header claiming absurd sizes reserves no more than that (its
    /// vectors then fail the width check line by line).
    pub fn with_capacity(rows: usize, dim: usize) -> Self {
        let mut table = Self::new();
        table
            .values
            .reserve_exact(rows.saturating_mul(dim).min(RESERVE_LIMIT));
        table.rows.reserve(rows);
        table
    }

    /// Adds `word`'s vector: true when the word is new; false when it is already there,
    /// which keeps its first vector and counts a duplicate. The first vector sets the
    /// dimension.
    pub fn push(&mut self, word: impl Into<String>, vector: &[T]) -> Result<bool, VectorProblem> {
        if vector.is_empty() {
            return Err(VectorProblem::Empty);
        }
        if self.dim != 0 && vector.len() != self.dim {
            return Err(VectorProblem::Width {
                found: vector.len(),
                expected: self.dim,
            });
        }
        if let Some(index) = vector
            .iter()
            .position(|&v| !Into::<f64>::into(v).is_finite())
        {
            return Err(VectorProblem::NotFinite {
                index,
                value: vector[index].into(),
            });
        }
        let row = u32::try_from(self.rows.len())
            .ok()
            .filter(|&r| r != u32::MAX)
            .ok_or(VectorProblem::TooMany)?;
        match self.rows.entry(word.into()) {
            Entry::Occupied(_) => {
                self.duplicates += 1;
                Ok(false)
            }
            Entry::Vacant(slot) => {
                slot.insert(row);
                self.dim = vector.len();
                self.values.extend_from_slice(vector);
                Ok(true)
            }
        }
    }

    /// Reads word2vec/GloVe text by the rules of this module.
    pub fn read_text(path: &Path) -> Result<Self, WordVectorsError> {
        let file = crate::read::open(path).map_err(|e| ReadError::new(path, e))?;
        // Streamed a line at a time, and refused at the first NUL byte (`/dev/zero` read a
        // 16 MiB line before).
        let text = crate::read::TextOnly::new(file, "word-vector");
        Self::read_text_from(path, BufReader::with_capacity(1 << 16, text))
    }

    /// [`read_text`](Self::read_text) from any reader; `path` names it in errors.
    pub fn read_text_from(path: &Path, mut reader: impl BufRead) -> Result<Self, WordVectorsError> {
        let read_error = |e| WordVectorsError::Read(ReadError::new(path, e));
        let at_line = |line: usize, problem: String| WordVectorsError::Line {
            path: path.to_path_buf(),
            line,
            problem,
        };
        skip_bom(&mut reader).map_err(read_error)?;
        let mut table = Self::new();
        let mut header: Option<(usize, usize)> = None;
        let mut vector_lines = 0usize;
        let (mut buf, mut number, mut values) = (Vec::new(), 0usize, Vec::<T>::new());
        loop {
            buf.clear();
            // At most MAX_LINE_BYTES and one more: a line without end (/dev/zero) stops there.
            let limit = MAX_LINE_BYTES as u64 + 1;
            if std::io::Read::take(&mut reader, limit)
                .read_until(b'\n', &mut buf)
                .map_err(read_error)?
                == 0
            {
                break;
            }
            number += 1;
            if buf.len() > MAX_LINE_BYTES {
                return Err(at_line(
                    number,
                    format!(
                        "longer than {} MiB: not a vector line",
                        MAX_LINE_BYTES >> 20
                    ),
                ));
            }
            let line = std::str::from_utf8(&buf).map_err(|e| {
                let column = e.valid_up_to() + 1;
                at_line(number, format!("not UTF-8 (bad byte at column {column})"))
            })?;
            let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
            if tokens.is_empty() {
                continue;
            }
            if vector_lines == 0
                && header.is_none()
                && let [count, dim] = tokens[..]
                && let (Ok(count), Ok(dim)) = (count.parse::<usize>(), dim.parse::<usize>())
            {
                if dim == 0 {
                    return Err(at_line(number, "header: dimension 0".into()));
                }
                header = Some((count, dim));
                // The count is only a hint: a wrong one must not reserve what the file lacks.
                table = Self::with_capacity(count.min(1 << 20), dim);
                continue;
            }
            let dim = match (table.dim, header) {
                (0, Some((_, dim))) => dim,
                (0, None) => tokens.len() - 1,
                (dim, _) => dim,
            };
            let word_tokens = tokens.len().saturating_sub(dim).max(1);
            let word = tokens[..word_tokens].join(" ");
            if dim == 0 {
                return Err(at_line(number, format!("{}: no values", quote(&word))));
            }
            let found = tokens.len() - word_tokens;
            // Extra fields that are numbers make a vector too long, not a word with spaces.
            if found != dim
                || tokens[1..word_tokens]
                    .iter()
                    .any(|t| t.parse::<f64>().is_ok())
            {
                let problem = VectorProblem::Width {
                    found: tokens.len() - 1,
                    expected: dim,
                };
                return Err(at_line(number, format!("{}: {problem}", quote(tokens[0]))));
            }
            values.clear();
            for (i, token) in tokens[word_tokens..].iter().enumerate() {
                let value = token.parse::<T>().map_err(|_| {
                    at_line(
                        number,
                        format!(
                            "{}: value {i} ({}) is not a number",
                            quote(&word),
                            quote(token)
                        ),
                    )
                })?;
                values.push(value);
            }
            let shown = quote(&word);
            table
                .push(word, &values)
                .map_err(|problem| at_line(number, format!("{shown}: {problem}")))?;
            vector_lines += 1;
        }
        if let Some((announced, _)) = header
            && announced != vector_lines
        {
            return Err(WordVectorsError::File {
                path: path.to_path_buf(),
                problem: FileProblem::Count {
                    announced,
                    found: vector_lines,
                },
            });
        }
        if table.is_empty() {
            return Err(WordVectorsError::File {
                path: path.to_path_buf(),
                problem: FileProblem::NoVectors,
            });
        }
        Ok(table)
    }

    /// Vector width; 0 while the table is empty.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of distinct words.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no vector has been added.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many repeated words were added (each kept its first vector).
    pub fn duplicates(&self) -> usize {
        self.duplicates
    }

    /// The row of `word`, matched exactly.
    pub fn row(&self, word: &str) -> Option<u32> {
        self.rows.get(word).copied()
    }

    /// The vector of a row [`row`](Self::row) returned.
    ///
    /// # Panics
    /// When `row` is not below [`len`](Self::len).
    pub fn row_vector(&self, row: u32) -> &[T] {
        let start = row as usize * self.dim;
        &self.values[start..start + self.dim]
    }

    /// The vector of `word`, matched exactly (case and white space included).
    pub fn get(&self, word: &str) -> Option<&[T]> {
        self.row(word).map(|row| self.row_vector(row))
    }
}

/// Why a word2vec/GloVe text file was rejected: one line naming the file and the line.
#[derive(Debug, thiserror::Error)]
pub enum WordVectorsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line breaks a rule of the format.
    #[error("{}: line {line}: {problem}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// Counting from 1, as editors do.
        line: usize,
        /// What is wrong, naming the word where there is one.
        problem: String,
    },
    /// The file as a whole is wrong.
    #[error("{}: {problem}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: FileProblem,
    },
}

/// What is wrong with a word2vec/GloVe text file as a whole.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileProblem {
    /// The header's count disagrees with the lines: a truncated or concatenated file.
    #[error("the header announces {announced} vectors, the file has {found}")]
    Count {
        /// The header's `COUNT`.
        announced: usize,
        /// Vector lines read, repeated words included.
        found: usize,
    },
    /// Blank, or a header alone.
    #[error("no vectors")]
    NoVectors,
}
