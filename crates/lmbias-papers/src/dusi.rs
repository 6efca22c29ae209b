//! Dusi (2024), "Discrimination Bias Detection through Categorical Association in Pre-trained
//! Language Models": its three pairs of word lists with the n at which it reports each, its
//! Table 1 and the p values it gives (lmbias-report's `papers::dusi` sets our runs beside them). The
//! probe itself (the two SVMs, the sweep over n, the χ² test) is lmbias-studies'.

use lmbias_studies::probe::{ProbeRun, ProbeStep};

use crate::Reported;

/// The model the paper probes, by hub id, with what the paper calls it.
pub const CHECKPOINT: (&str, &str) = (
    "bert-base-uncased",
    "the probed model, our reading of its \"BERT … the base English version\"",
);

/// Dusi 2024, Table 1: religion × adjectives at n = 235, in the paper's layout: rows
/// the protected classifier's predictions (christian, muslim), columns the adjectives'
/// actual values (positive, negative); column totals 119 / 121.
pub const TABLE_1: [[u64; 2]; 2] = [[80, 40], [39, 81]];

/// The p Dusi 2024 prints for Table 1 (1.1·10⁻⁷).
pub const TABLE_1_P: f64 = 1.1e-7;

/// One reading of the paper's "χ² test" of Table 1, and what it gives on the table's counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The test, as the report names it.
    pub name: &'static str,
    /// Its degrees of freedom and statistic; `None` for Fisher's exact test, which has neither.
    pub statistic: Option<(usize, f64)>,
    /// Its p on Table 1.
    pub p_value: f64,
}

/// The test of independence without correction: the reading we headline, by name.
pub const INDEPENDENCE: &str = "χ² test of independence (Pearson, no correction)";

/// Every common reading of "a χ² test" of Table 1, computed on the paper's counts: the test
/// of independence (Pearson, as `scipy.stats.chi2_contingency(correction=False)`), with
/// Yates's correction (scipy's default), the G-test, Fisher's exact test (not a χ² test, but
/// what a 2×2 table is often tested with), and the fit to the null the paper states ("equal
/// probabilities for each predicted class", within each adjective value). None gives
/// [`TABLE_1_P`]; [`closest_reading`] says which comes nearest.
pub fn table_1_readings() -> Vec<Reading> {
    use lmbias_metrics::chi2::{
        Chi2Result, chi2_equal_within_rows, chi2_independence, chi2_independence_yates,
        g_test_independence,
    };
    let table: Vec<Vec<u64>> = TABLE_1.iter().map(|r| r.to_vec()).collect();
    // The stated null, on the paper's layout: within each adjective value (a column), the two
    // predicted classes equally likely.
    let columns: Vec<Vec<u64>> = (0..2)
        .map(|c| table.iter().map(|r| r[c]).collect())
        .collect();
    let chi2 = |name, result: Result<Chi2Result, _>| {
        let r = result.expect("Table 1 has no empty row or column");
        Reading {
            name,
            statistic: Some((r.df, r.chi2)),
            p_value: r.p_value,
        }
    };
    vec![
        chi2(INDEPENDENCE, chi2_independence(&table)),
        chi2(
            "χ² test of independence with Yates's continuity correction",
            chi2_independence_yates(&table),
        ),
        chi2(
            "G-test of independence (log-likelihood ratio)",
            g_test_independence(&table),
        ),
        Reading {
            name: "Fisher's exact test (two-sided)",
            statistic: None,
            p_value: lmbias_metrics::fisher::fisher_exact_2x2(TABLE_1).expect("Table 1 is small"),
        },
        chi2(
            "χ² fit to equal predicted classes within each adjective value (the null the paper \
             states)",
            chi2_equal_within_rows(&columns),
        ),
    ]
}

/// The reading whose p is nearest the paper's on a log scale (p values are compared by
/// their ratio).
pub fn closest_reading(readings: &[Reading]) -> Option<&Reading> {
    let distance = |r: &Reading| (r.p_value / TABLE_1_P).ln().abs();
    readings
        .iter()
        .min_by(|a, b| distance(a).total_cmp(&distance(b)))
}

/// Dusi 2024, "Discrimination Bias Detection through Categorical Association in
/// Pre-trained Language Models", on "BERT … the base English version" (the paper's
/// words; bert-base-uncased is our reading of them).
pub const REPORTED: &[Reported] = &[
    Reported {
        what: "religion × adjectives: χ² p at n = 235 (Table 1: predicted christian 80 positive / 40 negative, predicted muslim 39 / 81)",
        value: "p = 1.1e-7 (printed 1.1·10⁻⁷); no common reading of a χ² test gives it on the table's own counts: each reading's p, and the closest, below",
        source: "Dusi 2024, Table 1",
    },
    Reported {
        what: "gender × job salary",
        value: "p = 6.4e-3 at n = 42",
        source: "Dusi 2024, the paragraph after Table 1",
    },
    Reported {
        what: "ethnicity × criminality",
        value: "p = 1.8e-3 at n = 10",
        source: "Dusi 2024, the paragraph after Table 1",
    },
    Reported {
        what: "p against n (one plot per pair)",
        value: "\"higher values of n includes noise … obfuscating the underlying bias … Lower values of n … give a clean representation\"",
        source: "Dusi 2024, Figure 1 and its discussion",
    },
];

/// One of the pairs of word lists Dusi 2024 probes, with the size n at which
/// the paper reports its table, so our run can be set beside the paper's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProbePair {
    /// How reports name the pair, e.g. "religion × adjectives".
    pub name: &'static str,
    /// File name of the protected word list in the probe datasets' folder.
    pub protected: &'static str,
    /// File name of the stereotyped word list in the same folder.
    pub stereotyped: &'static str,
    /// The n of the most relevant dimensions at which the paper reports this pair.
    pub paper_n: usize,
    /// The protected classes in the order Dusi's Table 1 prints them, as its rows
    /// (the classes the second SVM predicts); for the pairs the paper reports
    /// without a table, the order of our lists.
    pub protected_classes: [&'static str; 2],
    /// The stereotyped classes in the order Table 1 prints them, as its columns
    /// (the words' actual classes).
    pub stereotyped_classes: [&'static str; 2],
}

/// The hidden size of the model Dusi 2024 probes ("BERT … the base English
/// version"; bert-base-uncased is our reading of it): 768.
pub const PAPER_WIDTH: usize = 768;

impl ProbePair {
    /// The paper's n as the same share of another model's width: n = 235 keeps
    /// 31 % of bert-base's 768 dimensions, 118 of MiniLM's 384. Rounded, at least 2
    /// (the smallest size the sweep tests), at most `width`.
    pub fn n_at_paper_share(&self, width: usize) -> usize {
        let n = (self.paper_n * width + PAPER_WIDTH / 2) / PAPER_WIDTH;
        n.clamp(2, width.max(2))
    }
}

/// The pair's name, as reports print it.
impl std::fmt::Display for ProbePair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Dusi 2024's three pairs: Table 1 is religion × adjectives at n = 235 (rows
/// christian, muslim as predicted; columns positive, negative); the paragraph
/// after Table 1 reports gender × job salary at n = 42 and ethnicity ×
/// criminality at n = 10.
pub const PAIRS: [ProbePair; 3] = [
    ProbePair {
        name: "religion × adjectives",
        protected: "religion.csv",
        stereotyped: "adjectives.csv",
        paper_n: 235,
        protected_classes: ["christian", "muslim"],
        stereotyped_classes: ["positive", "negative"],
    },
    ProbePair {
        name: "gender × salary",
        protected: "gender.csv",
        stereotyped: "salary.csv",
        paper_n: 42,
        protected_classes: ["male", "female"],
        stereotyped_classes: ["high", "low"],
    },
    ProbePair {
        name: "ethnicity × criminality",
        protected: "ethnicity.csv",
        stereotyped: "criminality.csv",
        paper_n: 10,
        protected_classes: ["european", "african"],
        stereotyped_classes: ["criminal", "lawful"],
    },
];

/// The paper's pair a run probes, with the n the paper reports; `None` for other lists.
pub fn pair_of(run: &ProbeRun) -> Option<&'static ProbePair> {
    PAIRS.iter().find(|p| p.name == run.pair)
}

/// The run's step at the n the paper reports, or `None` when the model is narrower or the
/// lists are not the paper's.
pub fn at_paper_n(run: &ProbeRun) -> Option<&ProbeStep> {
    run.at(pair_of(run)?.paper_n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Item 1 of the fifth fidelity pass: no common reading gives the paper's 1.1e-7; the
    /// test of independence comes closest (1.20e-7), and every reading is what scipy 1.17
    /// computes on the table (chi2_contingency, fisher_exact).
    #[test]
    fn no_reading_gives_the_papers_p_and_independence_is_closest() {
        let readings = table_1_readings();
        let want = [
            (INDEPENDENCE, 1.201542175540059e-07),
            (
                "χ² test of independence with Yates's continuity correction",
                2.4152477645763265e-07,
            ),
            (
                "G-test of independence (log-likelihood ratio)",
                8.939060506903409e-08,
            ),
            ("Fisher's exact test (two-sided)", 1.8670665335695879e-07),
        ];
        for (name, p) in want {
            let r = readings.iter().find(|r| r.name == name).unwrap();
            assert!((r.p_value - p).abs() < 1e-9 * p, "{name}: {}", r.p_value);
        }
        let fit = readings.last().unwrap();
        assert_eq!(fit.statistic.map(|s| s.0), Some(2));
        assert!((fit.p_value - 8.2383e-7).abs() < 5e-11, "{fit:?}");
        // None rounds to the printed 1.1e-7 at two significant digits.
        for r in &readings {
            assert_ne!(format!("{:.1e}", r.p_value), "1.1e-7", "{r:?}");
        }
        assert_eq!(closest_reading(&readings).unwrap().name, INDEPENDENCE);
    }

    #[test]
    fn the_papers_share_of_the_width() {
        let religion = PAIRS[0];
        // 235 of 768 is 30.6 %: 117.5 of MiniLM's 384 rounds to 118, 15.3 of GloVe's 50 to 15.
        assert_eq!(religion.n_at_paper_share(384), 118);
        assert_eq!(religion.n_at_paper_share(50), 15);
        assert_eq!(religion.n_at_paper_share(768), 235);
        assert_eq!(PAIRS[2].n_at_paper_share(50), 2);
    }
}
