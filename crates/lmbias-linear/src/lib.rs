//! Linear models that solve exactly scikit-learn's liblinear problems: the logistic
//! regression WEFE's RNSB fits ([`LogisticRegression`], see `logistic.rs`), and a linear SVM
//! that solves exactly the problem of scikit-learn's
//! `LinearSVC(dual=False)` (liblinear's `L2R_L2LOSS_SVC` primal solver), so the
//! categorical-association probe (Dusi 2024) gets the same weights, the same
//! relevance order and the same predictions as the Python original.
//!
//! The problem, per binary sub-problem with labels `y_i ∈ {-1, +1}`:
//!
//! ```text
//! min_w  ½‖w‖² + C Σ_i max(0, 1 − y_i w·x̃_i)²      x̃_i = [x_i, 1]
//! ```
//!
//! The intercept is the weight of a constant feature (`intercept_scaling = 1`)
//! and is regularised like the others, as in liblinear. The objective is strictly
//! convex, so any exact solver reaches the same `w`: we use Newton's method with a
//! conjugate-gradient inner solve on the generalised Hessian and a backtracking
//! line search, in `f64`, to a gradient far below scikit-learn's tolerance.
//! Features may outnumber samples (384 dimensions, ~100 words).
//!
//! Multiclass is one-vs-rest like liblinear: classes in sorted order, one weight
//! vector per class; with two classes there is one weight vector whose positive
//! class is the second sorted label (scikit-learn's `coef_` convention).
//!
//! Why not smartcore: smartcore 0.7's `SVC` panics when features outnumber
//! samples (its linear-kernel path takes the sample count as the feature count)
//! and minimises the plain hinge loss, a different problem with a different `w`.

mod classifier;
mod error;
mod logistic;
mod newton;

pub use classifier::{LinearSvc, LinearSvcModel};
pub use error::FitError;
pub use logistic::{LogisticModel, LogisticRegression};
