//! What the three papers report, for REPORT.md to set beside our numbers.
//! Each figure is cited where it is defined.

/// One figure a paper reports.
pub struct Reported {
    pub what: &'static str,
    pub value: &'static str,
    pub source: &'static str,
}

/// Dusi 2024, Table 1: religion × adjectives on bert-base-uncased at n = 235
/// (rows: positive, negative adjectives; columns: predicted Christian, Muslim).
pub const DUSI_TABLE_1: [[u64; 2]; 2] = [[80, 40], [39, 81]];

/// Dusi 2024, "Discrimination Bias Detection through Categorical Association in
/// Pre-trained Language Models", bert-base-uncased (Figure 1 and its text).
pub const PROBE: &[Reported] = &[
    Reported {
        what: "religion × adjectives: χ² p at n = 235 (Table 1, [[80,40],[39,81]])",
        value: "p = 1.1e-7 (χ² of the table gives 1.2e-7)",
        source: "Dusi 2024, Table 1",
    },
    Reported {
        what: "gender × job salary",
        value: "p = 6.4e-3 at n = 42",
        source: "Dusi 2024, §4",
    },
    Reported {
        what: "ethnicity × criminality",
        value: "p = 1.8e-3 at n = 10",
        source: "Dusi 2024, §4",
    },
];

/// Caglidil, Ostendorff & Rehm 2024, Turkish SEAT/Double Bind: the Double Bind
/// numbers are discussed in §4.2 (with Figure 1); the C4 result in §4 and the conclusion.
pub const SEAT: &[Reported] = &[
    Reported {
        what: "BERTurk-uncased base vs large, bleached Double Bind competent",
        value: "d = 0.74 (p ≈ 0.1) vs 1.05 (p < 0.01)",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "same, religious names",
        value: "d = 0.78 → 1.02",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "BERTurk-uncased large, unbleached Double Bind competent",
        value: "d = 0.42 (p < 0.05); religious names 0.50 (p < 0.01)",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "mT5-base, C4 (Turkish vs Kurdish names) sentence level",
        value: "d = 0.35; the paper gives p both as < 0.05 and as < 0.01; the only model with this ethnic bias",
        source: "Caglidil et al. 2024, §4 and §5",
    },
];

/// Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?" (Figures 1–2).
pub const VALENCE: &[Reported] = &[Reported {
    what: "which model fits which period",
    value: "MacBERTh fits Early Modern English best, bert-base-uncased Modern English best, BL Books lies between",
    source: "Cuscito, Ferrara & Ruskov, Figures 1–2",
}];

/// The example sentences Cuscito et al. discuss in their Tables 1–3, by our ids
/// in `datasets/valence/eme-me-60.json` (annotated as the paper annotates them).
pub const VALENCE_EXAMPLES: [(&str, &str); 2] = [
    (
        "eme-01",
        "\"Why wilt [MASK] be offended by that?\" (v = −1; thou −1, not 0)",
    ),
    (
        "neu-01",
        "\"Have you come [MASK] to torment us before the time?\" (v = 0)",
    ),
];

/// Caliskan, Bryson & Narayanan (2017), "Semantics derived automatically from language
/// corpora contain human-like biases", Science 356:183–186, Table 1: WEAT 1–10 on GloVe
/// (Common Crawl, 840B tokens): (our test, what it pairs, their d, their p).
pub const CALISKAN_TABLE_1: [(&str, &str, f64, &str); 10] = [
    (
        "weat1",
        "flowers vs insects × pleasant vs unpleasant",
        1.50,
        "10⁻⁷",
    ),
    (
        "weat2",
        "instruments vs weapons × pleasant vs unpleasant",
        1.53,
        "10⁻⁷",
    ),
    (
        "weat3",
        "European vs African American names × pleasant vs unpleasant",
        1.41,
        "10⁻⁸",
    ),
    (
        "weat4",
        "same, Bertrand & Mullainathan's names",
        1.50,
        "10⁻⁴",
    ),
    (
        "weat5",
        "same, Nosek et al.'s pleasant/unpleasant",
        1.28,
        "10⁻³",
    ),
    (
        "weat6",
        "male vs female names × career vs family",
        1.81,
        "10⁻³",
    ),
    ("weat7", "math vs arts × male vs female terms", 1.06, ".018"),
    (
        "weat8",
        "science vs arts × male vs female terms",
        1.24,
        "10⁻²",
    ),
    (
        "weat9",
        "mental vs physical disease × temporary vs permanent",
        1.38,
        "10⁻²",
    ),
    (
        "weat10",
        "young vs old people's names × pleasant vs unpleasant",
        1.21,
        "10⁻²",
    ),
];
