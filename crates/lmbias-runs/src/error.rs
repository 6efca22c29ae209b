//! Why a run could not be made. Each error names its own part (a file, a flag's value)
//! and leaves its cause to `source()`, so a front-end prints the chain on one line and
//! Python finds the `io::Error` at its root for `FileNotFoundError` and its kin.

use std::path::PathBuf;

use crate::shards::{ShardFileError, ShardSetError, StampMismatch};
use lmbias_data::association::{AssociationError, Role};
use lmbias_data::corpus::CorpusError;
use lmbias_data::crows::PairsError;
use lmbias_data::embeddings::EmbeddingsError;
use lmbias_data::lexicon::LexiconError;
use lmbias_data::probe::ProbeDataError;
use lmbias_data::valence::ValenceError;
use lmbias_data::words::WordsError;
use lmbias_metrics::weat::WeatError;
use lmbias_model::ModelError;
use lmbias_model::train::TrainError;
use lmbias_static::StaticError;
use lmbias_studies::corpus_valence::CorpusValenceError;
use lmbias_studies::crows::CrowsError;
use lmbias_studies::crows::summary::CompareError;
use lmbias_studies::drawn_sentences::DrawError;
use lmbias_studies::probe::ProbeError;
use lmbias_studies::seat::SeatError;
use lmbias_studies::valence::ValenceStudyError;

/// Why a model could not be opened or a study not run on it.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A checkpoint could not be found or loaded.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A training could not start or finish.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// The word list of `--add-words FILE` could not be read or is not a list of words. (Its
    /// message is the option alone: the list's error follows as the source, once.)
    #[error("--add-words")]
    AddWords(#[source] WordsError),
    /// Static vectors could not be read.
    #[error(transparent)]
    Static(#[from] StaticError),
    /// Static vectors were asked to fill a mask.
    #[error(
        "static word vectors cannot fill a mask; this needs a masked language model \
         (a BERT checkpoint with its MLM head)"
    )]
    NotMasked,
    /// Static vectors were given where a checkpoint's files are needed.
    #[error("static word vectors are not a checkpoint; this needs a BERT checkpoint")]
    NotCheckpoint,
    /// A file could not be read for its digest.
    #[error("{}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An association test file (or folder) is not a valid battery.
    #[error(transparent)]
    Tests(#[from] AssociationError),
    /// A test given twice: its rows could not be told apart.
    #[error("{second}: test {test} is already loaded from {first}")]
    DuplicateTest {
        /// The test's name.
        test: String,
        /// Where it was loaded first ("a dict" for one built in memory).
        first: String,
        /// Where it came again.
        second: String,
    },
    /// The battery failed on a test read from `file`.
    #[error("{}", file.display())]
    SeatInFile {
        /// The test's file.
        file: PathBuf,
        /// What failed.
        #[source]
        source: Box<SeatError>,
    },
    /// The battery failed.
    #[error(transparent)]
    Seat(Box<SeatError>),
    /// A pairs file (CrowS-Pairs' CSV) is not valid.
    #[error(transparent)]
    CrowsData(#[from] PairsError),
    /// The likelihood measures failed on a pair of `file`.
    #[error("{}", file.display())]
    Crows {
        /// The pairs file.
        file: PathBuf,
        /// What failed, naming the pair's line and column.
        #[source]
        source: Box<CrowsError>,
    },
    /// Two runs that cannot be compared pair by pair.
    #[error(transparent)]
    CrowsCompare(#[from] CompareError),
    /// The valence dataset is not valid.
    #[error(transparent)]
    ValenceData(#[from] ValenceError),
    /// The lexicon file is not valid.
    #[error(transparent)]
    Lexicon(#[from] LexiconError),
    /// The valence study failed.
    #[error(transparent)]
    Valence(#[from] ValenceStudyError),
    /// A period corpus could not be read.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Period-corpus settings that cannot rate words.
    #[error(transparent)]
    CorpusSettings(CorpusValenceError),
    /// One file given as both period corpora.
    #[error("{}: given as both the Early Modern and the Modern corpus", path.display())]
    SameCorpus {
        /// The file.
        path: PathBuf,
    },
    /// Two files with the same text given as the two period corpora: no word could lean either
    /// way, and every rating would be 0.
    #[error(
        "{} and {}: the same text (sha256 {sha256}) given as the Early Modern and the Modern corpus",
        early_modern.display(),
        modern.display()
    )]
    IdenticalCorpora {
        /// The Early Modern corpus.
        early_modern: PathBuf,
        /// The Modern corpus.
        modern: PathBuf,
        /// The text's digest, the same for both.
        sha256: String,
    },
    /// Two period corpora that cannot rate words.
    #[error("{} and {}", early_modern.display(), modern.display())]
    PeriodCorpora {
        /// The Early Modern corpus.
        early_modern: PathBuf,
        /// The Modern corpus.
        modern: PathBuf,
        /// Why.
        #[source]
        source: CorpusValenceError,
    },
    /// One file given twice among the held-out and training corpora of a draw.
    #[error(
        "{}: given twice: the two held-out files and the two training corpora must be four \
         different files",
        path.display()
    )]
    RepeatedCorpus {
        /// The file.
        path: PathBuf,
    },
    /// Held-out files whose passages are not the same passages in two wordings.
    #[error(
        "{} and {}: not aligned ({detail}): line i of one must be passage i of the other",
        early_modern.display(),
        modern.display()
    )]
    Unaligned {
        /// The Early Modern held-out file.
        early_modern: PathBuf,
        /// The Modern one.
        modern: PathBuf,
        /// Where they part.
        detail: String,
    },
    /// A share of passages to hold out that is not between 0 and 1.
    #[error("share {share}: the share of passages held out must be above 0 and below 1")]
    Share {
        /// The share given.
        share: f64,
    },
    /// Sentences or pairs could not be drawn from the held-out passages of these files.
    #[error("{} and {}", early_modern.display(), modern.display())]
    Draw {
        /// The Early Modern held-out file.
        early_modern: PathBuf,
        /// The Modern one.
        modern: PathBuf,
        /// Why (a held-out passage in training, too few qualifying).
        #[source]
        source: DrawError,
    },
    /// No held-out passage's wordings differ in 1 … `max_words` words.
    #[error(
        "{} and {}: no passage's two wordings differ in 1 to {max_words} words: no minimal pair",
        early_modern.display(),
        modern.display()
    )]
    NoPairs {
        /// The Early Modern held-out file.
        early_modern: PathBuf,
        /// The Modern one.
        modern: PathBuf,
        /// The most words a pair may differ in.
        max_words: usize,
    },
    /// A probe word list or template file is not valid.
    #[error(transparent)]
    ProbeData(#[from] ProbeDataError),
    /// Precomputed embeddings could not be read.
    #[error(transparent)]
    Embeddings(#[from] EmbeddingsError),
    /// The probe failed on the words of `file`.
    #[error("{}", file.display())]
    ProbeInFile {
        /// The word list.
        file: PathBuf,
        /// What failed.
        #[source]
        source: ProbeError,
    },
    /// The probe failed.
    #[error(transparent)]
    Probe(#[from] ProbeError),
    /// A checkpoint's words need templates to be embedded in.
    #[error("a checkpoint needs templates to embed the words in (only static word vectors do not)")]
    NeedsTemplates,
    /// A probe size outside 1 … the hidden size.
    #[error("n {n}: must be between 1 and the hidden size {hidden}")]
    ProbeSize {
        /// The size asked for.
        n: usize,
        /// The model's width.
        hidden: usize,
    },
    /// A text of the test has no vector in the file.
    #[error("test {test}")]
    WeatLookup {
        /// The test's name.
        test: String,
        /// The texts missing.
        #[source]
        source: EmbeddingsError,
    },
    /// A vector of all zeros: its cosines are undefined.
    #[error("{}: the vector of {role} text {text} is all zeros: its cosine similarity is undefined", embeddings.display())]
    ZeroVector {
        /// The vectors' file.
        embeddings: PathBuf,
        /// The set it is in.
        role: Role,
        /// The text, quoted.
        text: String,
    },
    /// A vector too large for f64 cosines.
    #[error("{}: the vector of {role} text {text} is too large: its squared norm or cosines overflow f64", embeddings.display())]
    HugeVector {
        /// The vectors' file.
        embeddings: PathBuf,
        /// The set it is in.
        role: Role,
        /// The text, quoted.
        text: String,
    },
    /// The statistics refused the test's vectors.
    #[error("{}: test {test}", embeddings.display())]
    WeatTest {
        /// The vectors' file.
        embeddings: PathBuf,
        /// The test's name.
        test: String,
        /// Why.
        #[source]
        source: WeatError,
    },
    /// The statistics refused the test.
    #[error("{}", file.display())]
    WeatFile {
        /// The test's file.
        file: PathBuf,
        /// Why.
        #[source]
        source: WeatError,
    },
    /// WEFE's metrics refused the test's vectors.
    #[error("{}", file.display())]
    WefeFile {
        /// The test's file.
        file: PathBuf,
        /// Why.
        #[source]
        source: lmbias_metrics::wefe::WefeError,
    },
    /// A study failed: what a measure without a variant of its own returns
    /// ([`RunError::study`]), its error as the source.
    #[error("{study}")]
    Study {
        /// The study's name, as its command is named.
        study: &'static str,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A shard file could not be written or read.
    #[error("{}", path.display())]
    ShardFile {
        /// The shard file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ShardFileError,
    },
    /// An output that would destroy something: an input, a folder, a device, a link to nothing.
    #[error("{flag} {}: {problem}", path.display())]
    Output {
        /// The option naming it (`--out`, `out`).
        flag: String,
        /// The output.
        path: PathBuf,
        /// What writing it would do.
        problem: String,
    },
    /// An output whose place cannot be written.
    #[error("{flag} {}: cannot write here", path.display())]
    OutputPlace {
        /// The option naming it.
        flag: String,
        /// The output (or its folder).
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A result could not be written (`write_atomically`).
    #[error("{}: cannot write", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        #[source]
        source: std::io::Error,
    },
    /// A shard file could not be read.
    #[error("{}", path.display())]
    ShardIo {
        /// The shard file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The shards given are not the N shards of one run, and `path` is the one at fault.
    #[error("{}", path.display())]
    ShardSetAt {
        /// The shard file at fault.
        path: PathBuf,
        /// What is wrong with the set.
        #[source]
        source: ShardSetError,
    },
    /// The shards given are not the N shards of one run (some are missing).
    #[error(transparent)]
    ShardSet(ShardSetError),
    /// Shards of different runs (other inputs, options or lmbias).
    #[error(transparent)]
    Stamps(#[from] StampMismatch),
    /// A shard holds other items than its slice, or another run's list.
    #[error("{}: {what}", path.display())]
    ShardContent {
        /// The shard file.
        path: PathBuf,
        /// What differs.
        what: String,
    },
}

impl RunError {
    /// `source`, the error of the study `study`.
    pub fn study(
        study: &'static str,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        RunError::Study {
            study,
            source: Box::new(source),
        }
    }
}
