//! The studies (SEAT battery, temporal valence, categorical-association probe, likelihood measures on minimal pairs) run against lmbias-core's traits.
pub mod corpus_valence;
pub mod crows;
pub mod drawn_sentences;
pub mod lexicon_sentences;
pub mod probe;
pub mod seat;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod valence;
