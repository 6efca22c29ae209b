//! Errors of the association-test and embeddings loaders: one line each, naming the file (or
//! test) and the field, set, line or text at fault.

use std::path::PathBuf;

use crate::association::Role;

#[derive(Debug, thiserror::Error)]
pub enum DataError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not valid UTF-8 text", path.display())]
    NotUtf8 { path: PathBuf },
    #[error("{}: empty file", path.display())]
    EmptyFile { path: PathBuf },
    /// Bad JSON, or JSON that does not fit the schema; serde's message names the field.
    #[error("{}: {message}", path.display())]
    Json { path: PathBuf, message: String },
    /// `origin` is the file, or the test's name when it was built in memory.
    #[error("{origin}: {role} ({category:?}): {problem}")]
    Set {
        origin: String,
        role: Role,
        category: String,
        problem: SetProblem,
    },
    #[error(
        "{origin}: targ1 ({category1:?}) has {size1} examples but targ2 ({category2:?}) has {size2}: sent-bias requires equal target sizes (allow unequal sizes to run it anyway)"
    )]
    UnequalTargets {
        origin: String,
        category1: String,
        size1: usize,
        category2: String,
        size2: usize,
    },
    #[error("{}: no association tests (*.jsonl or *.json files) in this directory", path.display())]
    NoTests { path: PathBuf },
    #[error("{}: line {line}: {problem}", path.display())]
    EmbeddingLine {
        path: PathBuf,
        line: usize,
        problem: String,
    },
    #[error("{}: header announces {announced} vectors but the file has {found}", path.display())]
    EmbeddingCount {
        path: PathBuf,
        announced: usize,
        found: usize,
    },
    #[error("{}: {} text(s) have no vector: {}", path.display(), texts.len(), quoted(texts))]
    MissingTexts { path: PathBuf, texts: Vec<String> },
}

/// What is wrong with one set of an association test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetProblem {
    #[error("has no examples")]
    Empty,
    #[error("example {index} is blank")]
    BlankExample { index: usize },
    #[error(
        "example {text:?} appears more than once (sent-bias silently merges duplicates; lmbias merges only when asked)"
    )]
    Duplicate { text: String },
}

fn quoted(texts: &[String]) -> String {
    texts
        .iter()
        .map(|t| format!("{t:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}
