//! What each paper lmbias reproduces says, one file per paper (as candle-transformers keeps
//! one file per model): its reported values with their quotes and sections, the checkpoints
//! it ran, its findings and the checks of them. Someone fixing a
//! reading of a paper edits one file. Where a reading of ours was needed, the file says so.
//!
//! - [`cuscito`]: Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?" (the
//!   temporal valence study);
//! - [`known_answer`]: our known-answer check of that paper's method, on models trained here;
//! - [`caglidil`]: Caglidil, Ostendorff & Rehm (2024), Turkish SEAT and Double Bind;
//! - [`caliskan`]: Caliskan, Bryson & Narayanan (2017), WEAT's Table 1;
//! - [`may`]: May et al. (2019), the English Test 4 values the Turkish paper quotes;
//! - [`dusi`]: Dusi (2024), the categorical-association probe;
//! - [`BATTERIES`]: the SEAT batteries of the papers, each with the [`Marks`] its paper
//!   reads p with.
//!
//! The crate returns data: the methods are lmbias-studies' and lmbias-metrics', the tables
//! and figures (the papers' layouts among them) lmbias-report's `papers`.

pub mod caglidil;
pub mod caliskan;
pub mod cuscito;
pub mod dusi;
pub mod known_answer;
mod marks;
pub mod may;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

pub use marks::Marks;

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

/// A SEAT battery of a paper: its name in reports, its folder under `datasets/`, and how its
/// paper marks p.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Battery {
    /// `en`, `tr`.
    pub name: &'static str,
    /// Its folder under `datasets/`.
    pub folder: &'static str,
    /// The marks its paper reads p with.
    pub marks: Marks,
}

/// The batteries `reproduce-paper` runs: May et al.'s English one (sent-bias's tests, the
/// common stars) and Caglidil et al.'s Turkish one (their thresholds, [`Marks::Caglidil`]).
pub const BATTERIES: [Battery; 2] = [
    Battery {
        name: "en",
        folder: "seat/en",
        marks: Marks::Stars,
    },
    Battery {
        name: "tr",
        folder: "seat/tr",
        marks: Marks::Caglidil,
    },
];

/// The marks battery `name`'s paper reads p with (stars for any other).
pub fn marks(name: &str) -> Marks {
    BATTERIES
        .iter()
        .find(|b| b.name == name)
        .map_or(Marks::Stars, |b| b.marks)
}
