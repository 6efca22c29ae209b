/// Why a linear model (SVM or logistic regression) could not be trained or applied. One line
/// each, naming the sample.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitError {
    /// Nothing to learn from.
    #[error("no training samples")]
    Empty,
    /// Samples and labels pair up by position, so their counts must agree.
    #[error("{samples} samples but {labels} labels")]
    LabelCount {
        /// Samples given.
        samples: usize,
        /// Labels given.
        labels: usize,
    },
    /// Samples without features leave only the intercept: almost surely a bug upstream.
    #[error("samples have no features")]
    NoFeatures,
    /// A sample of another width than the first (in training) or than the model (in use).
    #[error("sample {index} has {found} features, expected {expected}")]
    Width {
        /// The sample, counting from 0 (0 for the single sample of a prediction).
        index: usize,
        /// The first sample's width, or the model's.
        expected: usize,
        /// This sample's width.
        found: usize,
    },
    /// A NaN or infinite feature would make every margin, and so the weights, NaN.
    #[error("sample {index} feature {feature} is not finite")]
    NonFinite {
        /// The sample, counting from 0 (0 for the single sample of a prediction).
        index: usize,
        /// The feature, counting from 0.
        feature: usize,
    },
    /// One class has nothing to be separated from.
    #[error("training needs at least two classes, found one")]
    OneClass,
    /// C ≤ 0 (or NaN) removes the loss from the objective.
    #[error("C must be positive and finite, got {0}")]
    Cost(f64),
    /// Never seen on real data (Newton converges in a few dozen steps); reported, not hidden.
    #[error("the Newton solver did not converge in {0} iterations")]
    NotConverged(usize),
    /// Rounding stopped the line search while the gradient was still far from 0 (e.g. features
    /// so large that their products overflow).
    #[error(
        "the Newton solver stalled (float rounding) with the gradient still {0:.1e} of its initial size"
    )]
    Stalled(f64),
}
