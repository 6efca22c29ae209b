//! Precomputed embeddings: text → vector, for `lmbias weat` on vectors from elsewhere.
//!
//! Two formats, told apart by the first non-blank character:
//! - JSON: one object mapping each word or sentence to an array of numbers,
//!   `{"This is an aster.": [0.1, -0.2, …], …}`;
//! - word2vec/GloVe text: an optional `count dim` header line, then `word v1 v2 …` per line
//!   (single words only: the text is the first whitespace-separated token).
//!
//! Every vector must have the same non-zero dimension and only finite values; a text may appear
//! once. Values are kept as f64 (JSON written from numpy float64 keeps its precision).
//!
//! Both formats read a number the same way, with Rust's correctly rounded `str::parse`, so the
//! same digits give the same vector and the same effect size to the last digit (see
//! [`numbers`]). A leading UTF-8 byte-order mark is dropped in both.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use lmbias_encoder::quote;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::read::{ReadError, read, strip_bom};

/// Vectors keyed by the exact text they embed, all of one dimension and finite, so that a
/// WEAT on them cannot fail halfway through for a bad vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    path: PathBuf,
    dim: usize,
    vectors: HashMap<String, Vec<f64>>,
}

impl Embeddings {
    /// Reads and validates an embeddings file in either format.
    pub fn from_path(path: &Path) -> Result<Self, EmbeddingsError> {
        Self::from_slice(path, &read(path)?)
    }

    /// Parses a file's contents; `path` names it in errors.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<Self, EmbeddingsError> {
        let bytes = strip_bom(bytes);
        let text = std::str::from_utf8(bytes).map_err(|source| EmbeddingsError::NotUtf8 {
            path: path.to_path_buf(),
            source,
        })?;
        let (dim, vectors) = match text.trim_start().chars().next() {
            None => {
                return Err(EmbeddingsError::EmptyFile {
                    path: path.to_path_buf(),
                });
            }
            Some('{') => parse_json(text).map_err(|source| EmbeddingsError::Json {
                path: path.to_path_buf(),
                source,
            })?,
            Some(_) => parse_text(path, text)?,
        };
        Ok(Embeddings {
            path: path.to_path_buf(),
            dim,
            vectors,
        })
    }

    /// The file the vectors came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The dimension every vector has.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// How many texts have a vector.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Always false: a file without vectors is rejected.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The vector of `text`, matched exactly (case and whitespace included).
    pub fn get(&self, text: &str) -> Option<&[f64]> {
        self.vectors.get(text).map(Vec::as_slice)
    }

    /// The vectors of `texts`, in order; an error lists every text that has none.
    pub fn lookup<'a, S: AsRef<str> + 'a>(
        &self,
        texts: impl IntoIterator<Item = &'a S>,
    ) -> Result<Vec<&[f64]>, EmbeddingsError> {
        let mut found = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        for text in texts {
            match self.get(text.as_ref()) {
                Some(v) => found.push(v),
                None if !missing.iter().any(|m| m == text.as_ref()) => {
                    missing.push(text.as_ref().to_owned())
                }
                None => {}
            }
        }
        if missing.is_empty() {
            Ok(found)
        } else {
            Err(EmbeddingsError::MissingTexts {
                path: self.path.clone(),
                texts: missing,
            })
        }
    }
}

type Parsed = (usize, HashMap<String, Vec<f64>>);

fn parse_json(text: &str) -> Result<Parsed, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = de.deserialize_map(VectorsVisitor {
        exact: numbers(text),
    })?;
    de.end()?;
    Ok(parsed)
}

/// Every number of a JSON text in order, each read by `str::parse` as the text format reads
/// it. serde_json's default parser is only within one ulp (one in six 17-digit numbers, as
/// numpy writes float64, lands one off; its exact `float_roundtrip` feature would rebuild
/// Burn), so the same digits as JSON and as text gave different vectors, and an effect size
/// different in its last digit. Strings are skipped whole, so a digit in a text is no number.
fn numbers(text: &str) -> std::vec::IntoIter<f64> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                {
                    i += 1;
                }
                // Not a number serde_json accepts either: it fails the whole file.
                out.extend(text[start..i].parse::<f64>().ok());
            }
            _ => i += 1,
        }
    }
    out.into_iter()
}

/// Reads the object entry by entry so that repeated keys and bad vectors are caught where they
/// are (a plain `HashMap` would keep the last of two equal keys silently).
struct VectorsVisitor {
    /// The file's numbers read exactly, in order: each vector's values in turn.
    exact: std::vec::IntoIter<f64>,
}

impl<'de> Visitor<'de> for VectorsVisitor {
    type Value = Parsed;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object mapping each text to an array of numbers")
    }

    fn visit_map<M: MapAccess<'de>>(mut self, mut map: M) -> Result<Parsed, M::Error> {
        let mut vectors = HashMap::new();
        let mut dim = None;
        while let Some(text) = map.next_key::<String>()? {
            let vector: Vec<f64> = map.next_value()?;
            // serde_json's value within an ulp is the check that the two readings agree on
            // which number this is; the exact one is kept.
            let vector: Vec<f64> = vector
                .into_iter()
                .map(|near| match self.exact.next() {
                    Some(exact) if (exact - near).abs() <= near.abs() * 1e-15 => exact,
                    _ => near,
                })
                .collect();
            if let Some(problem) = check_vector(&vector, &mut dim) {
                return Err(de::Error::custom(format!("{}: {problem}", quote(&text))));
            }
            if vectors.contains_key(&text) {
                return Err(de::Error::custom(format!("{} appears twice", quote(&text))));
            }
            vectors.insert(text, vector);
        }
        match dim {
            Some(dim) => Ok((dim, vectors)),
            None => Err(de::Error::custom("no vectors")),
        }
    }
}

/// What is wrong with a vector, given the dimension of the ones before it.
fn check_vector(vector: &[f64], dim: &mut Option<usize>) -> Option<String> {
    if vector.is_empty() {
        return Some("empty vector".into());
    }
    if let Some(i) = vector.iter().position(|v| !v.is_finite()) {
        return Some(format!("value {i} is {}, not a finite number", vector[i]));
    }
    match *dim {
        Some(d) if d != vector.len() => Some(format!(
            "{} values, but earlier vectors have {d}",
            vector.len()
        )),
        _ => {
            *dim = Some(vector.len());
            None
        }
    }
}

fn parse_text(path: &Path, text: &str) -> Result<Parsed, EmbeddingsError> {
    let line_error = |line: usize, problem: String| EmbeddingsError::Line {
        path: path.to_path_buf(),
        line,
        problem,
    };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).peekable();
    // word2vec's optional header: exactly two integers, "count dim".
    let mut header = None;
    if let Some((_, first)) = lines.peek() {
        let tokens: Vec<&str> = first.split_whitespace().collect();
        if let [count, dim] = tokens[..]
            && let (Ok(count), Ok(dim)) = (count.parse::<usize>(), dim.parse::<usize>())
        {
            header = Some((count, dim));
            lines.next();
        }
    }
    let mut dim = header.map(|(_, d)| d);
    let mut vectors = HashMap::new();
    for (number, line) in lines {
        let mut tokens = line.split_whitespace();
        let Some(word) = tokens.next() else { continue };
        let vector = tokens
            .enumerate()
            .map(|(i, t)| {
                t.parse::<f64>().map_err(|_| {
                    line_error(
                        number,
                        format!("{}: value {i} ({}) is not a number", quote(word), quote(t)),
                    )
                })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        if let Some(problem) = check_vector(&vector, &mut dim) {
            return Err(line_error(number, format!("{}: {problem}", quote(word))));
        }
        if vectors.insert(word.to_owned(), vector).is_some() {
            return Err(line_error(number, format!("{} appears twice", quote(word))));
        }
    }
    if let Some((announced, _)) = header
        && announced != vectors.len()
    {
        return Err(EmbeddingsError::Count {
            path: path.to_path_buf(),
            announced,
            found: vectors.len(),
        });
    }
    match dim {
        Some(dim) if !vectors.is_empty() => Ok((dim, vectors)),
        _ => Err(EmbeddingsError::Line {
            path: path.to_path_buf(),
            line: 1,
            problem: "no vectors".into(),
        }),
    }
}

/// Why an embeddings file was rejected, or a lookup failed: one line, naming the file and the
/// line or text at fault.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddingsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Both formats are text; binary word2vec files are not supported.
    #[error("{}: not valid UTF-8 text", path.display())]
    NotUtf8 {
        /// The embeddings file.
        path: PathBuf,
        /// Where the text stops being UTF-8.
        source: std::str::Utf8Error,
    },
    /// Nothing but whitespace: named apart because it is usually a failed export.
    #[error("{}: empty file", path.display())]
    EmptyFile {
        /// The embeddings file.
        path: PathBuf,
    },
    /// A JSON file that is malformed, or whose vectors break a rule; the source says which
    /// text, and where.
    #[error("{}: invalid embeddings JSON", path.display())]
    Json {
        /// The embeddings file.
        path: PathBuf,
        /// serde's reason (our rules included), typed so a caller can take its line and column.
        source: serde_json::Error,
    },
    /// A line of a word2vec/GloVe text file that breaks a rule.
    #[error("{}: line {line}: {problem}", path.display())]
    Line {
        /// The embeddings file.
        path: PathBuf,
        /// Counting from 1, as editors do.
        line: usize,
        /// What is wrong, naming the word.
        problem: String,
    },
    /// The word2vec header's count disagrees with the lines: a truncated or concatenated file.
    #[error("{}: header announces {announced} vectors but the file has {found}", path.display())]
    Count {
        /// The embeddings file.
        path: PathBuf,
        /// The header's count.
        announced: usize,
        /// Vectors actually read.
        found: usize,
    },
    /// Texts a test needs that the file has no vector for; all of them, so one run finds them all.
    #[error("{}: {} text(s) have no vector: {}", path.display(), texts.len(), quoted(texts))]
    MissingTexts {
        /// The embeddings file.
        path: PathBuf,
        /// Each missing text once, in the order asked for.
        texts: Vec<String>,
    },
}

fn quoted(texts: &[String]) -> String {
    texts
        .iter()
        .map(|t| quote(t))
        .collect::<Vec<_>>()
        .join(", ")
}
