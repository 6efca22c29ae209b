//! Why a metric cannot be computed.

use lmbias_core::Role;

/// Why a metric cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WefeError {
    /// A set without vectors leaves a mean, a classifier or a pairing undefined.
    #[error("set {0} is empty")]
    EmptySet(Role),
    /// Vectors of different lengths, or a non-finite value.
    #[error("set {set}: vector {index} {problem}")]
    BadVector {
        /// The set.
        set: Role,
        /// Its position in the set.
        index: usize,
        /// What is wrong.
        problem: String,
    },
    /// RNSB's classifier could not be fitted.
    #[error("RNSB's logistic regression: {0}")]
    Fit(#[from] lmbias_linear::FitError),
    /// RNSB's held-out split needs at least two words of each attribute set.
    #[error("RNSB with a held-out split needs at least 2 words in {0}")]
    HoldoutTooSmall(Role),
    /// The sampled tests need the observed split at least.
    #[error("n_samples must be at least 1")]
    NoSamples,
}
