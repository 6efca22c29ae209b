//! Dataset schemas for lmbias: association tests (sent-bias format), valence sentences, probe word lists, embedding files. Loading with validation; no Burn.
pub mod probe;
pub mod valence;
