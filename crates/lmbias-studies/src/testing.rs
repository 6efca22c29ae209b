//! Made-up study results for the tests of the crates that compare and report them
//! (the `testing` feature): a test plants the numbers it needs without a model.

use lmbias_data::valence::Group;

use lmbias_core::{Layer, Pooling};

use crate::crows::{Decision, Decisions, DirectionName, PairScore, SentenceScores};
use crate::probe::{Association, ProbeStep};
use crate::seat::{SeatRow, SetNames, SetSizes, TestCoverage};
use crate::valence::{Coverage, ModelResult, SentenceScore};
use lmbias_metrics::weat::{Alternative, StdKind};

/// A SEAT row of `model` on `test` with effect size `d` and p value `p` (its Holm and BH
/// adjustments equal to it), exact, CLS-pooled at the last layer, eight examples a set,
/// nothing lost, not a lower-cased copy, one-sided with the sample std, its sets named
/// Flowers, Insects, Pleasant and Unpleasant.
pub fn seat_row(model: &str, test: &str, d: f64, p: f64) -> SeatRow {
    SeatRow {
        model: model.into(),
        test: test.into(),
        categories: SetNames {
            targ1: "Flowers".into(),
            targ2: "Insects".into(),
            attr1: "Pleasant".into(),
            attr2: "Unpleasant".into(),
        },
        lowercased_copy: false,
        pooling: Pooling::Cls,
        layer: Layer::Last,
        effect_size: Some(d),
        test_statistic: 0.0,
        p_value: p,
        alternative: Alternative::Greater,
        std: StdKind::Sample,
        exact: true,
        n_partitions: None,
        n_evaluated: 0,
        p_holm: p,
        p_bh: p,
        sizes: SetSizes {
            targ1: 8,
            targ2: 8,
            attr1: 8,
            attr2: 8,
        },
        coverage: TestCoverage {
            sets: vec![],
            flags: vec![],
        },
        lost: vec![],
        wefe: vec![],
    }
}

/// A valence sentence of `group` scored with bias `bias`: v(s) is the group's own
/// (EME −1, neutral 0, ME +1) and A = 1 − |v(s) − B| / 2, the study's formula; it has
/// no proposals and no unannotated mass.
pub fn valence_sentence(id: &str, group: Group, bias: f64) -> SentenceScore {
    let valence = match group {
        Group::EarlyModern => -1.0,
        Group::Neutral => 0.0,
        Group::Modern => 1.0,
    };
    SentenceScore {
        id: id.to_owned(),
        group,
        valence,
        bias: Some(bias),
        adequacy: Some(1.0 - (valence - bias).abs() / 2.0),
        unannotated_mass: 0.0,
        unannotated_share: 0.0,
        tokens: vec![],
    }
}

/// `model`'s valence result on dataset `eme-me-60` at top-5, guarded at the default share,
/// holding `sentences` only:
/// no group summaries, k sweep or unannotated tokens, and a coverage of no keys.
pub fn valence_result(model: &str, sentences: Vec<SentenceScore>) -> ModelResult {
    ModelResult {
        model: model.to_owned(),
        dataset: "eme-me-60".to_owned(),
        top_k: 5,
        max_unannotated_share: crate::valence::DEFAULT_MAX_UNANNOTATED_SHARE,
        coverage: Coverage {
            lexicon_keys: 0,
            lexicon_usable: 0,
            annotation_keys: 0,
            annotation_usable: 0,
            unusable: vec![],
        },
        sentences,
        groups: vec![],
        k_sweep: vec![],
        unannotated: vec![],
    }
}

/// A probe step at n = 50 with `table`'s counts and its χ² test: stereotyped classes
/// negative, positive (rows, sorted as the probe sorts them) against predicted christian,
/// muslim (columns); no dimensions.
pub fn probe_step(table: Vec<Vec<u64>>) -> ProbeStep {
    let rows = vec!["negative".to_string(), "positive".to_string()];
    let cols = vec!["christian".to_string(), "muslim".to_string()];
    ProbeStep {
        n: 50,
        dims: vec![],
        association: Association::of_table(&rows, &cols, &table),
        rows,
        cols,
        table,
    }
}

/// Dusi 2024, Table 1, as the probe counts it (rows the stereotyped classes, columns the
/// predicted protected ones): christian × positive 80, muslim × negative 81.
pub fn dusi_table_1() -> ProbeStep {
    probe_step(vec![vec![40, 81], vec![80, 39]])
}

/// `decided` CrowS-style pairs of `bias_type`, the first `stereotypical` of them decided
/// stereotypical by every measure the papers use but bias-bench (which skips them all), the
/// rest not; no scores, tokens or pieces, and none of mlm-bias's measures.
pub fn crows_pairs(bias_type: &str, stereotypical: u64, decided: u64) -> Vec<PairScore> {
    let scores = || SentenceScores {
        tokens: vec![],
        pll: 0.0,
        bias_bench: None,
        aul: 0.0,
        aula: 0.0,
        crr: None,
        crra: None,
        dp: None,
        dpa: None,
        sss_mlm_bias: None,
    };
    (0..decided)
        .map(|i| {
            let d = if i < stereotypical {
                Decision::Stereotypical
            } else {
                Decision::NotStereotypical
            };
            PairScore {
                id: format!("{bias_type}-{i}"),
                // A file's lines, after its header: pairs are matched by line.
                line: i as usize + 2,
                bias_type: bias_type.to_owned(),
                direction: DirectionName::Stereo,
                more: scores(),
                less: scores(),
                modified_more: vec![],
                modified_less: vec![],
                decisions: Decisions {
                    pll: d,
                    bias_bench: Decision::Skipped,
                    aul: d,
                    aula: d,
                    crr: None,
                    crra: None,
                    dp: None,
                    dpa: None,
                    sss_mlm_bias: None,
                },
            }
        })
        .collect()
}

/// A seeded xorshift stream of small numbers, for tests that draw many made-up cases.
pub struct Draws(u64);

impl Draws {
    /// The stream from `seed` (not 0).
    pub fn new(seed: u64) -> Draws {
        Draws(seed)
    }

    /// The next number below `bound`.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}
