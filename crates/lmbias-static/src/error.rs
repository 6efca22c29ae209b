use std::path::{Path, PathBuf};

/// Why vectors could not be loaded or fetched. Messages are one line and name the file and
/// the line, vector or field.
#[derive(Debug, thiserror::Error)]
pub enum StaticError {
    /// The file could not be read (or, while fetching, written). The reason is the
    /// source, so a report printing the chain (`{:#}`) shows it once.
    #[error("{}: cannot read or write", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// A line of a text file (word2vec/GloVe text, a vocabulary) is wrong. Worded as
    /// lmbias-data's errors are, so a text file's message is the same from either crate.
    #[error("{}: line {line}: {problem}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong, naming the word where there is one.
        problem: String,
    },
    /// A vector of a binary file (word2vec binary, `.npy`) is wrong.
    #[error("{}: vector {index}: {problem}", path.display())]
    Vector {
        /// The file.
        path: PathBuf,
        /// 0-based position of the vector in the file.
        index: usize,
        /// What is wrong, naming the word where there is one.
        problem: String,
    },
    /// The file as a whole is wrong: its header, its size, its structure.
    #[error("{}: {problem}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the field.
        problem: String,
    },
    /// Vectors given in memory ([`crate::StaticEmbeddings::from_vectors`]) are wrong.
    #[error("{name}: {problem}")]
    Invalid {
        /// The model name given.
        name: String,
        /// What is wrong, naming the word.
        problem: String,
    },
    /// A packaged model could not be fetched; the error names the package and the step.
    #[error(transparent)]
    Fetch(#[from] lmbias_fetch::FetchError),
}

/// The text reader's errors, in this crate's variants: a failed read is [`StaticError::Io`],
/// a bad line [`StaticError::Line`], a bad file [`StaticError::Format`].
impl From<lmbias_data::WordVectorsError> for StaticError {
    fn from(e: lmbias_data::WordVectorsError) -> Self {
        use lmbias_data::WordVectorsError as E;
        match e {
            E::Read(lmbias_data::ReadError { path, source }) => StaticError::Io { path, source },
            E::Line {
                path,
                line,
                problem,
            } => StaticError::Line {
                path,
                line,
                problem,
            },
            E::File { path, problem } => StaticError::Format {
                path,
                problem: problem.to_string(),
            },
        }
    }
}

impl StaticError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        StaticError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    pub(crate) fn line(path: &Path, line: usize, problem: impl Into<String>) -> Self {
        StaticError::Line {
            path: path.to_path_buf(),
            line,
            problem: problem.into(),
        }
    }

    pub(crate) fn vector(path: &Path, index: usize, problem: impl Into<String>) -> Self {
        StaticError::Vector {
            path: path.to_path_buf(),
            index,
            problem: problem.into(),
        }
    }

    pub(crate) fn format(path: &Path, problem: impl Into<String>) -> Self {
        StaticError::Format {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}
