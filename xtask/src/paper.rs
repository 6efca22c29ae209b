//! What the three papers report, for REPORT.md to set beside our numbers.
//! Each figure is cited where it is defined.

/// One figure a paper reports.
pub struct Reported {
    pub what: &'static str,
    pub value: &'static str,
    pub source: &'static str,
}

/// Dusi 2024, Table 1: religion × adjectives at n = 235, in the paper's layout: rows
/// the protected classifier's predictions (christian, muslim), columns the adjectives'
/// actual values (positive, negative); column totals 119 / 121.
pub const DUSI_TABLE_1: [[u64; 2]; 2] = [[80, 40], [39, 81]];

/// Dusi 2024, "Discrimination Bias Detection through Categorical Association in
/// Pre-trained Language Models", on "BERT … the base English version" (the paper's
/// words; bert-base-uncased is our reading of them).
pub const PROBE: &[Reported] = &[
    Reported {
        what: "religion × adjectives: χ² p at n = 235 (Table 1: predicted christian 80 positive / 40 negative, predicted muslim 39 / 81)",
        value: "p = 1.1e-7; the table's χ² test of independence (df = 1) gives 1.2e-7, the fit to the null the paper states (df = 2) 8.2e-7 (see below)",
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

/// Caglidil, Ostendorff & Rehm 2024, Turkish SEAT/Double Bind: the Double Bind
/// numbers are discussed in §4.2; the C4 result, at sentence level, in the
/// Figure 1 caption and §4.1.
pub const SEAT: &[Reported] = &[
    Reported {
        what: "BERTurk-uncased \"base\" vs \"large\" (Table 2: mono 32k vs mono 128k; on the hub both are base size, dbmdz/bert-base-turkish-uncased and -128k-uncased), bleached Double Bind competent",
        value: "d = 0.74 (p ≈ 0.1) vs 1.05 (p < 0.01)",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "same, religious names",
        value: "d = 0.78 → 1.02",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "BERTurk-uncased \"large\" (128k vocabulary), unbleached Double Bind competent",
        value: "d = 0.42 (p < 0.05); religious names 0.50 (p < 0.01)",
        source: "Caglidil et al. 2024, §4.2",
    },
    Reported {
        what: "mT5-base, C4 (Turkish vs Kurdish names) sentence level",
        value: "d = 0.35; the paper gives p both as < 0.05 and as < 0.01; the only model with this ethnic bias",
        source: "Caglidil et al. 2024, Figure 1 caption and §4.1",
    },
];

/// Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?": what its Discussion
/// concludes from its Figures 1–2 (distributions of B and A per group, the models side by
/// side), quoted where the paper words it, and its ordering of the models on the Modern
/// sentences (issue #34: the direction, not a figure's numbers, is what it reports).
pub const VALENCE: &[Reported] = &[
    Reported {
        what: "Early Modern English sentences: the models compared",
        value: "\"MacBERTh is better at representing the EME historical context than BL Books\"",
        source: "Cuscito, Ferrara & Ruskov, Discussion",
    },
    Reported {
        what: "Modern English sentences: the three models in order",
        value: "BERT Base (bert-base-uncased) > BL Books > MacBERTh",
        source: "Cuscito, Ferrara & Ruskov, Discussion",
    },
];

/// The example tables, one per group as in Cuscito et al.'s Tables 1–3, by our ids
/// in `datasets/valence/eme-me-60.json`: the paper's two sentences we have (annotated
/// as the paper annotates them) and, for Modern English, one of ours.
pub const VALENCE_EXAMPLES: [(&str, &str); 3] = [
    (
        "eme-01",
        "The paper's Early Modern example, \"Why wilt [MASK] be offended by that?\" (v = −1; \
         thou −1, not 0)",
    ),
    (
        "neu-01",
        "The paper's neutral example, \"Have you come [MASK] to torment us before the time?\" \
         (v = 0)",
    ),
    (
        "me-05",
        "Ours, not the paper's (its Modern English example is not among the sentences we \
         have): \"Can you [MASK] me the report by Friday?\" (v = 1; email, text 1; mail 0.5; \
         send 0)",
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
