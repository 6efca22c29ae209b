//! Dataset schemas for lmbias: association tests (sent-bias format), valence sentences, probe word lists, embedding files. Loading with validation; no Burn.
pub mod association;
pub mod embeddings;
pub mod error;
pub mod probe;
pub mod valence;

pub use association::{
    AssociationTest, Duplicates, LoadOptions, Role, Set, SetSpec, TargetSizes, TestSpec, load_dir,
};
pub use embeddings::Embeddings;
pub use error::{DataError, SetProblem};
