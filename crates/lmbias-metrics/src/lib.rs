//! Statistics for bias measurement: WEAT/SEAT effect sizes and permutation tests with sent-bias
//! semantics, a paired sign-flip test, bootstrap intervals, multiple-test correction, chi-squared
//! tests, Fisher's exact test, exact binomial and McNemar tests with Clopper–Pearson intervals, the log-odds of words
//! between two corpora, agreement between raters, and WEFE's association metrics (RND, RNSB,
//! MAC, ECT, RIPA) with the tests WEFE lacks. No Burn.
//!
//! Every number that sent-bias (May et al. 2019, `sentbias/weat.py`) also computes is computed
//! the way it does — including numpy's summation order — so that p-values and ties agree exactly.
//!
//! Scoring a WEAT on your own vectors (static embeddings, any encoder) needs only this crate:
//!
//! ```
//! use lmbias_metrics::weat::{weat, Associations, Options};
//!
//! // Targets X, Y and attributes A, B: one vector per word or sentence.
//! let x = [[1.0f32, 0.1], [0.9, 0.2], [1.0, 0.0]];
//! let y = [[0.1f32, 1.0], [0.2, 0.9], [0.0, 1.0]];
//! let a = [[1.0f32, 0.0], [0.8, 0.1]];
//! let b = [[0.0f32, 1.0], [0.1, 0.8]];
//! let assoc = Associations::from_vectors(&x, &y, &a, &b)?;
//! let result = weat(&assoc, &Options::default())?; // sent-bias: sample std, 100000 samples
//! assert!(result.effect_size.unwrap() > 1.5);
//! assert!(result.permutation.exact); // C(6, 3) = 20 splits, all enumerated
//! assert_eq!(result.permutation.p_value, 0.05); // only the observed split is as extreme
//! # Ok::<(), lmbias_metrics::weat::WeatError>(())
//! ```

pub mod agreement;
pub mod binomial;
pub mod bootstrap;
pub mod chi2;
pub mod correction;
pub mod fisher;
pub mod log_odds;
mod numpy_sum;
pub mod page;
mod permutation;
pub mod sign_flip;
pub mod weat;
pub mod wefe;
