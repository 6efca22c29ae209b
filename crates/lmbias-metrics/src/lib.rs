//! Statistics for bias measurement: WEAT/SEAT effect sizes and permutation tests with sent-bias
//! semantics, bootstrap intervals, multiple-test correction, chi-squared tests. No Burn.
//!
//! Every number that sent-bias (May et al. 2019, `sentbias/weat.py`) also computes is computed
//! the way it does — including numpy's summation order — so that p-values and ties agree exactly.

pub mod bootstrap;
pub mod chi2;
pub mod correction;
mod numpy_sum;
mod permutation;
pub mod weat;
