//! Precomputed embeddings: text → vector, for `lmbias weat` on vectors from elsewhere.
//!
//! Two formats, told apart by the first non-blank character:
//! - JSON: one object mapping each word or sentence to an array of numbers,
//!   `{"This is an aster.": [0.1, -0.2, …], …}`; a text may appear once; or what `lmbias
//!   embed --json` prints, `{"texts": [...], "vectors": [[...], ...], …}`, each text paired with
//!   the vector at its position (a text embedded twice keeps one vector; two different
//!   vectors for one text are refused);
//! - word2vec/GloVe text, read by the one reader of that format, whose rules
//!   [`crate::word_vectors`] lists (an optional `COUNT DIM` header, a word may hold spaces, a
//!   repeated word keeps its first vector): `lmbias --model g.txt` reads the same file alike.
//!
//! Every vector must have the same non-zero dimension and only finite values. Values are kept
//! as f64 (JSON written from numpy float64 keeps its precision).
//!
//! Both formats read a number the same way, with Rust's correctly rounded `str::parse`, so the
//! same digits give the same vector and the same effect size to the last digit (see
//! `numbers` below). A leading UTF-8 byte-order mark is dropped in both.

use std::fmt;
use std::path::{Path, PathBuf};

use lmbias_core::quote;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::read::{EMBEDDINGS, ReadError, read, strip_bom};
use crate::word_vectors::{WordVectors, WordVectorsError};

/// Vectors keyed by the exact text they embed, all of one dimension and finite, so that a
/// WEAT on them cannot fail halfway through for a bad vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    path: PathBuf,
    vectors: WordVectors<f64>,
}

impl Embeddings {
    /// Reads and validates an embeddings file in either format.
    pub fn from_path(path: &Path) -> Result<Self, EmbeddingsError> {
        Self::from_slice(path, &read(path, EMBEDDINGS)?)
    }

    /// Parses a file's contents; `path` names it in errors.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<Self, EmbeddingsError> {
        let unmarked = strip_bom(bytes);
        let vectors = match unmarked.iter().find(|b| !b.is_ascii_whitespace()) {
            None => {
                return Err(EmbeddingsError::EmptyFile {
                    path: path.to_path_buf(),
                });
            }
            Some(b'{') => {
                let text =
                    std::str::from_utf8(unmarked).map_err(|source| EmbeddingsError::NotUtf8 {
                        path: path.to_path_buf(),
                        source,
                    })?;
                let json = |source| EmbeddingsError::Json {
                    path: path.to_path_buf(),
                    source,
                };
                match serde_json::from_str::<EmbedOutput>(text) {
                    Ok(output) => output.vectors().map_err(json)?,
                    Err(_) => parse_json(text).map_err(json)?,
                }
            }
            Some(_) => WordVectors::read_text_from(path, bytes)?,
        };
        Ok(Embeddings {
            path: path.to_path_buf(),
            vectors,
        })
    }

    /// The file the vectors came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The dimension every vector has.
    pub fn dim(&self) -> usize {
        self.vectors.dim()
    }

    /// How many texts have a vector.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Always false: a file without vectors is rejected.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// How many repeated words a text file had (each kept its first vector); 0 for JSON,
    /// where a repeated text is an error.
    pub fn duplicates(&self) -> usize {
        self.vectors.duplicates()
    }

    /// The vector of `text`, matched exactly (case and whitespace included).
    pub fn get(&self, text: &str) -> Option<&[f64]> {
        self.vectors.get(text)
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

/// What `lmbias embed --json` prints, less what the vectors do not need (model, pooling,
/// tokens). A file of `{text: vector}` fails to read as this and is read as that.
#[derive(serde::Deserialize)]
struct EmbedOutput {
    texts: Vec<String>,
    vectors: Vec<Vec<f64>>,
}

impl EmbedOutput {
    /// Each text with the vector at its position. serde_json reads the up to 9 significant
    /// digits that embed writes of an f32 exactly (its fast path), so no exact re-reading is
    /// needed here.
    fn vectors(self) -> Result<WordVectors<f64>, serde_json::Error> {
        if self.texts.len() != self.vectors.len() {
            return Err(de::Error::custom(format!(
                "{} texts but {} vectors",
                self.texts.len(),
                self.vectors.len()
            )));
        }
        if self.texts.is_empty() {
            return Err(de::Error::custom("no vectors"));
        }
        let mut vectors = WordVectors::new();
        for (text, vector) in self.texts.into_iter().zip(self.vectors) {
            if let Some(row) = vectors.row(&text) {
                // A text embedded twice by one model has one vector; two differ only if the
                // file was put together by hand.
                if vectors.row_vector(row) != vector.as_slice() {
                    return Err(de::Error::custom(format!(
                        "{} has two different vectors",
                        quote(&text)
                    )));
                }
                continue;
            }
            let shown = quote(&text);
            vectors
                .push(text, &vector)
                .map_err(|problem| de::Error::custom(format!("{shown}: {problem}")))?;
        }
        Ok(vectors)
    }
}

fn parse_json(text: &str) -> Result<WordVectors<f64>, serde_json::Error> {
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
    type Value = WordVectors<f64>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object mapping each text to an array of numbers")
    }

    fn visit_map<M: MapAccess<'de>>(mut self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut vectors = WordVectors::new();
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
            // Worded for JSON, whose vectors have no line of their own: "earlier vectors".
            let problem = match vectors.dim() {
                _ if vector.is_empty() => Some("empty vector".to_owned()),
                0 => None,
                dim if dim != vector.len() => Some(format!(
                    "{} values, but earlier vectors have {dim}",
                    vector.len()
                )),
                _ => None,
            };
            if let Some(problem) = problem {
                return Err(de::Error::custom(format!("{}: {problem}", quote(&text))));
            }
            if vectors.row(&text).is_some() {
                return Err(de::Error::custom(format!("{} appears twice", quote(&text))));
            }
            let shown = quote(&text);
            vectors
                .push(text, &vector)
                .map_err(|problem| de::Error::custom(format!("{shown}: {problem}")))?;
        }
        if vectors.is_empty() {
            return Err(de::Error::custom("no vectors"));
        }
        Ok(vectors)
    }
}

/// Why an embeddings file was rejected, or a lookup failed: one line, naming the file and the
/// line or text at fault.
#[derive(Debug, thiserror::Error)]
pub enum EmbeddingsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A JSON file that is not UTF-8 (a text file says which line is not).
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
    /// A word2vec/GloVe text file that breaks a rule of the format.
    #[error(transparent)]
    Text(#[from] WordVectorsError),
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
