//! Dataset schemas for lmbias: association tests (sent-bias format), valence sentences, probe
//! word lists, embedding files, training corpora. Loading with validation; no Burn.
//!
//! Each module owns its loader's error (one line, naming the file and the field, set, line or
//! sentence at fault); a failed read is the shared [`ReadError`] in every one of them.

pub mod association;
pub mod corpus;
pub mod embeddings;
pub mod probe;
mod read;
pub mod valence;

pub use association::{
    AssociationError, AssociationTest, Duplicates, LoadOptions, Role, Set, SetProblem, SetSpec,
    TargetSizes, TestSpec, load_dir,
};
pub use embeddings::{Embeddings, EmbeddingsError};
pub use read::{ReadError, skip_bom, strip_bom};
