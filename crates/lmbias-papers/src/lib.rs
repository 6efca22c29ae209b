//! What each paper lmbias reproduces says, one file per paper (as candle-transformers keeps
//! one file per model): its reported values with their quotes and sections, the checkpoints
//! it ran, its findings and the checks of them, and its tables' layouts. Someone fixing a
//! reading of a paper edits one file. Where a reading of ours was needed, the file says so.
//!
//! - [`cuscito`]: Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?" (the
//!   temporal valence study);
//! - [`known_answer`]: our known-answer check of that paper's method, on models trained here;
//! - [`caglidil`]: Caglidil, Ostendorff & Rehm (2024), Turkish SEAT and Double Bind;
//! - [`caliskan`]: Caliskan, Bryson & Narayanan (2017), WEAT's Table 1;
//! - [`may`]: May et al. (2019), the English Test 4 values the Turkish paper quotes;
//! - [`dusi`]: Dusi (2024), the categorical-association probe.
//!
//! The methods are lmbias-studies' and lmbias-metrics'; the rendering of tables and figures
//! is lmbias-report's.

pub mod caglidil;
pub mod caliskan;
pub mod cuscito;
pub mod dusi;
pub mod known_answer;
pub mod may;

/// One figure a paper reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reported {
    /// What is measured, and on what.
    pub what: &'static str,
    /// The paper's value, quoted or transcribed.
    pub value: &'static str,
    /// Where in the paper: the table, figure or section.
    pub source: &'static str,
}
