//! Dataset schemas for lmbias: association tests (sent-bias format), valence sentences, probe
//! word lists, plain word lists, minimal pairs (CrowS-Pairs' CSV), embedding files (and the one
//! word2vec/GloVe text reader), training corpora.
//! Loading with validation; no Burn.
//!
//! Each module owns its loader's error (one line, naming the file and the field, set, line or
//! sentence at fault); a failed read is the shared [`ReadError`] in every one of them.

pub mod association;
pub mod claims;
pub mod corpus;
pub mod crows;
mod csv_lines;
pub mod embeddings;
pub mod lexicon;
pub mod probe;
pub use lmbias_core::read;
pub mod valence;
pub mod word_vectors;
pub mod words;

pub use association::{
    AssociationError, AssociationTest, BatteryFile, Duplicates, LoadOptions, Role, Set, SetProblem,
    SetSpec, TargetSizes, TestFile, TestSpec, load_battery,
};
pub use embeddings::{Embeddings, EmbeddingsError};
pub use read::{ReadError, skip_bom, strip_bom};
pub use word_vectors::{Float, WordVectors, WordVectorsError};
pub use words::{WordsError, WordsFile};
