//! The three studies (SEAT battery, temporal valence, categorical-association probe) run against lmbias-encoder's traits.
pub mod probe;
pub mod seat;
pub mod shard;
pub mod valence;
