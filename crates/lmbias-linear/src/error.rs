/// Why a linear SVM could not be trained or applied. One line each, naming the sample.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SvmError {
    #[error("no training samples")]
    Empty,
    #[error("{samples} samples but {labels} labels")]
    LabelCount { samples: usize, labels: usize },
    #[error("sample {index} has {found} features, expected {expected}")]
    Width {
        index: usize,
        expected: usize,
        found: usize,
    },
    #[error("sample {index} feature {feature} is not finite")]
    NonFinite { index: usize, feature: usize },
    #[error("training needs at least two classes, found one")]
    OneClass,
    #[error("C must be positive and finite, got {0}")]
    Cost(f64),
    #[error("the Newton solver did not converge in {0} iterations")]
    NotConverged(usize),
    #[error(
        "the Newton solver stalled (float rounding) with the gradient still {0:.1e} of its initial size"
    )]
    Stalled(f64),
}
