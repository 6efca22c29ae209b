//! Caglidil, Ostendorff & Rehm (2024), *Investigating Gender Bias in Turkish
//! Language Models*: its Figure 1 and its qualitative findings, shaped from a
//! Turkish battery's rows (`datasets/seat/tr`, test names as in
//! `datasets/seat/tr/PROVENANCE.md`).

use lmbias_studies::seat::SeatRow;

use crate::table::Table;

/// The columns of the paper's Figure 1, as `(our label, our test)`. §4.1: "Figure 1
/// shows the statistical significance (p-value) for a subset of our word-level and
/// sentence-level Caliskan tests (WEAT and SEAT)": Tests 6 and 8 (with the
/// "religious" and "b" variations) at both levels, each word-level column beside
/// its sentence-level one; then C4 at sentence level (the figure's caption and
/// §4.1) and the Double Bind tests (§4.2). Which of our files stands for each
/// label is documented in `datasets/seat/tr/PROVENANCE.md`.
pub const FIGURE_1: [(&str, &str); 19] = [
    ("C6 word", "weat6_tr"),
    ("C6 sentence", "sent-weat6_tr"),
    ("C6 religious word", "weat6_religious_tr"),
    ("C6 religious sentence", "sent-weat6_religious_tr"),
    ("C8 word", "weat8_tr"),
    ("C8 sentence", "sent-weat8_tr"),
    ("C8b word", "weat8b_tr"),
    ("C8b sentence", "sent-weat8b_tr"),
    ("C4 sentence", "sent-weat4_tr"),
    (
        "DB competent word",
        "heilman_double_bind_competent_one_word_tr",
    ),
    (
        "DB competent bleached",
        "sent-heilman_double_bind_competent_one_word_tr",
    ),
    (
        "DB competent unbleached",
        "heilman_double_bind_competent_one_sentence_tr",
    ),
    (
        "DB competent word religious",
        "heilman_double_bind_competent_religious_one_word_tr",
    ),
    (
        "DB competent bleached religious",
        "sent-heilman_double_bind_competent_religious_one_word_tr",
    ),
    (
        "DB competent unbleached religious",
        "heilman_double_bind_competent_religious_one_sentence_tr",
    ),
    ("DB likable 1", "heilman_double_bind_likable_1_tr"),
    ("DB likable 1+3", "heilman_double_bind_likable_1+3_tr"),
    (
        "DB likable 1 religious",
        "heilman_double_bind_likable_religious_1_tr",
    ),
    (
        "DB likable 1+3 religious",
        "heilman_double_bind_likable_religious_1+3_tr",
    ),
];

/// Whether a finding of the paper holds in our numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Our numbers agree with the paper.
    Holds,
    /// Our numbers contradict the paper.
    DoesNotHold,
    /// The models or tests the comparison needs did not run.
    CannotTell,
}

impl Verdict {
    /// The verdict as the findings table prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::DoesNotHold => "does not hold",
            Verdict::CannotTell => "cannot tell",
        }
    }
}

/// One of the paper's qualitative findings, checked against our rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The paper's claim: its words in quotation marks where we have them, ours otherwise.
    pub claim: &'static str,
    /// Where the paper makes it.
    pub section: &'static str,
    /// Whether our numbers bear it out.
    pub verdict: Verdict,
    /// The comparison behind the verdict, or what was missing.
    pub evidence: String,
}

/// The Caliskan tests, whose main, `b` and `religious` variants exist at word
/// level (`weatN…_tr`) and sentence level (`sent-weatN…_tr`).
const CALISKAN: [&str; 4] = ["weat4", "weat6", "weat7", "weat8"];

/// Below this p a test counts as significant (the paper's * mark).
const SIGNIFICANT: f64 = 0.05;

fn row<'r>(rows: &'r [SeatRow], model: &str, test: &str) -> Option<&'r SeatRow> {
    rows.iter().find(|r| r.model == model && r.test == test)
}

fn models(rows: &[SeatRow]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for r in rows {
        if !out.contains(&r.model.as_str()) {
            out.push(&r.model);
        }
    }
    out
}

fn abs_d(r: &SeatRow) -> f64 {
    r.effect_size.map_or(0.0, f64::abs)
}

/// Language coverage of the paper's models, read from their Hugging Face ids
/// (BERTurk is monolingual; mBERT and mT5 multilingual); other models have none.
fn multilingual(model: &str) -> Option<bool> {
    let id = model.to_ascii_lowercase();
    if id.contains("turkish") {
        Some(false)
    } else if id.contains("multilingual") || id.contains("mt5") {
        Some(true)
    } else {
        None
    }
}

fn is_mt5(model: &str) -> bool {
    model.to_ascii_lowercase().contains("mt5")
}

/// Counts of a comparison over pairs: how many favour the claim, of how many.
struct Tally {
    agree: usize,
    pairs: usize,
}

impl Tally {
    fn of(pairs: impl IntoIterator<Item = bool>) -> Tally {
        let mut t = Tally { agree: 0, pairs: 0 };
        for agrees in pairs {
            t.pairs += 1;
            t.agree += usize::from(agrees);
        }
        t
    }

    /// Holds when strictly more than half of the pairs agree.
    fn verdict(&self) -> Verdict {
        match self.pairs {
            0 => Verdict::CannotTell,
            n if 2 * self.agree > n => Verdict::Holds,
            _ => Verdict::DoesNotHold,
        }
    }
}

fn finding(
    claim: &'static str,
    section: &'static str,
    tally: &Tally,
    what: &str,
    missing: &str,
) -> Finding {
    Finding {
        claim,
        section,
        verdict: tally.verdict(),
        evidence: if tally.pairs == 0 {
            missing.to_owned()
        } else {
            format!("{} of {} {what}", tally.agree, tally.pairs)
        },
    }
}

/// Variant suffixes of the Caliskan tests: (main, `b`, `religious`).
fn variants(base: &str) -> [String; 3] {
    [
        base.to_owned(),
        format!("{base}b"),
        format!("{base}_religious"),
    ]
}

/// Every (model, word-level row, sentence-level row) of a test that ran at both
/// levels: the Caliskan tests and the word-level Double Bind tests with their
/// bleached twins.
fn level_pairs(rows: &[SeatRow]) -> Vec<(&SeatRow, &SeatRow)> {
    let mut word_tests: Vec<String> = CALISKAN
        .iter()
        .flat_map(|b| variants(b))
        .map(|t| format!("{t}_tr"))
        .collect();
    for kind in ["competent", "likable"] {
        for rel in ["", "_religious"] {
            word_tests.push(format!("heilman_double_bind_{kind}{rel}_one_word_tr"));
        }
    }
    models(rows)
        .into_iter()
        .flat_map(|m| {
            word_tests
                .iter()
                .filter_map(move |t| Some((row(rows, m, t)?, row(rows, m, &format!("sent-{t}"))?)))
        })
        .collect()
}

const LEVELS_MISSING: &str = "no test ran at both levels";

/// §4.1, first half: sentence level more significant than word level, by p.
fn sentence_beats_word(rows: &[SeatRow]) -> Finding {
    finding(
        "\"sentence-level tests tend to elicit more significant associations … than word-level \
         tests\"",
        "§4.1",
        &Tally::of(
            level_pairs(rows)
                .into_iter()
                .map(|(word, sentence)| sentence.p_value < word.p_value),
        ),
        "(model, test) pairs have a smaller p at sentence level",
        LEVELS_MISSING,
    )
}

/// §4.1, second half: word level larger effects, by |d|, on the same pairs.
fn word_has_larger_effects(rows: &[SeatRow]) -> Finding {
    finding(
        "\"… while the latter [word-level tests] tend to have larger effect sizes\"",
        "§4.1",
        &Tally::of(
            level_pairs(rows)
                .into_iter()
                .map(|(word, sentence)| abs_d(word) > abs_d(sentence)),
        ),
        "(model, test) pairs have a larger |d| at word level",
        LEVELS_MISSING,
    )
}

/// Given names vs group terms (main vs `b`), by |d|: names ahead for monolingual
/// models, terms ahead for multilingual ones.
fn names_vs_terms(rows: &[SeatRow]) -> Finding {
    let claim = "given-name tests are more biased than group-term tests for monolingual models, \
                 and the reverse for multilingual ones";
    let tally = |want_multilingual: bool| {
        Tally::of(
            models(rows)
                .into_iter()
                .filter(|m| multilingual(m) == Some(want_multilingual))
                .flat_map(|m| {
                    CALISKAN.iter().flat_map(move |base| {
                        ["", "sent-"].into_iter().filter_map(move |level| {
                            let names = row(rows, m, &format!("{level}{base}_tr"))?;
                            let terms = row(rows, m, &format!("{level}{base}b_tr"))?;
                            Some(if want_multilingual {
                                abs_d(terms) > abs_d(names)
                            } else {
                                abs_d(names) > abs_d(terms)
                            })
                        })
                    })
                }),
        )
    };
    let (mono, multi) = (tally(false), tally(true));
    let verdict = match (mono.verdict(), multi.verdict()) {
        (Verdict::CannotTell, _) | (_, Verdict::CannotTell) => Verdict::CannotTell,
        (Verdict::Holds, Verdict::Holds) => Verdict::Holds,
        _ => Verdict::DoesNotHold,
    };
    let evidence = if verdict == Verdict::CannotTell {
        "needs a monolingual (BERTurk) and a multilingual (mBERT, mT5) model".to_owned()
    } else {
        format!(
            "monolingual: names ahead in {} of {} (test, level) pairs; multilingual: terms ahead in {} of {}",
            mono.agree, mono.pairs, multi.agree, multi.pairs
        )
    };
    Finding {
        claim,
        section: "§4.1 (our placement: the section on the Caliskan tests)",
        verdict,
        evidence,
    }
}

fn significant<'r>(rows: impl IntoIterator<Item = &'r SeatRow>) -> usize {
    rows.into_iter().filter(|r| r.p_value < SIGNIFICANT).count()
}

fn of_model<'r>(rows: &'r [SeatRow], model: &'r str) -> impl Iterator<Item = &'r SeatRow> {
    rows.iter().filter(move |r| r.model == model)
}

fn mean_abs_d(rows: &[SeatRow], model: &str) -> f64 {
    let ds: Vec<f64> = of_model(rows, model).map(abs_d).collect();
    ds.iter().sum::<f64>() / ds.len().max(1) as f64
}

/// Pairs of models whose ids differ only by `from` → `to` (e.g. "uncased" for "cased").
fn model_pairs<'r>(rows: &'r [SeatRow], from: &str, to: &str) -> Vec<(&'r str, &'r str)> {
    let all = models(rows);
    all.iter()
        .filter(|m| m.contains(from))
        .filter_map(|m| {
            let other = m.replace(from, to);
            all.iter().find(|o| **o == other).map(|o| (*m, *o))
        })
        .collect()
}

/// Uncased BERTurk more significant than cased: per cased/uncased pair of
/// BERTurk models (mBERT is not part of this claim), more tests with p < 0.05.
fn uncased_beats_cased(rows: &[SeatRow]) -> Finding {
    let pairs: Vec<(&str, &str)> = model_pairs(rows, "uncased", "cased")
        .into_iter()
        .filter(|(uncased, _)| multilingual(uncased) == Some(false))
        .collect();
    let tally = Tally::of(pairs.iter().map(|(uncased, cased)| {
        significant(of_model(rows, uncased)) > significant(of_model(rows, cased))
    }));
    finding(
        "the uncased BERTurk models (\"the second and the fourth rows\") are more significant \
         than the cased ones (\"the first and third rows\")",
        "§4.2",
        &tally,
        "BERTurk cased/uncased pairs have more tests with p < 0.05 when uncased",
        "needs a cased and an uncased BERTurk of one size (e.g. dbmdz/bert-base-turkish-cased \
         and -uncased)",
    )
}

/// Larger BERTurk more biased than base: mean |d| over the battery.
fn large_beats_base(rows: &[SeatRow]) -> Finding {
    let pairs: Vec<(&str, &str)> = model_pairs(rows, "-large-", "-base-")
        .into_iter()
        .filter(|(large, _)| multilingual(large) == Some(false))
        .collect();
    let tally = Tally::of(
        pairs
            .iter()
            .map(|(large, base)| mean_abs_d(rows, large) > mean_abs_d(rows, base)),
    );
    finding(
        "the larger BERTurk is more biased than the base one",
        "§4.2",
        &tally,
        "base/large pairs have a larger mean |d| when large",
        "needs BERTurk base and large of the same casing",
    )
}

/// Religious names more significant than mixed names, over every (religious,
/// mixed) pair of tests, on the models "that demonstrated a statistically
/// significant bias": ours are those with p < 0.05 in at least one of those pairs.
fn religious_beats_mixed(rows: &[SeatRow]) -> Finding {
    let pairs: Vec<(&SeatRow, &SeatRow)> = rows
        .iter()
        .filter_map(|r| {
            let mixed = r.test.replace("_religious", "");
            (mixed != r.test).then_some(())?;
            Some((r, row(rows, &r.model, &mixed)?))
        })
        .collect();
    let all = models(rows);
    let (biased, unbiased): (Vec<&str>, Vec<&str>) = all
        .iter()
        .filter(|m| pairs.iter().any(|(r, _)| r.model == **m))
        .partition(|m| {
            pairs
                .iter()
                .filter(|(r, _)| r.model == **m)
                .any(|(religious, mixed)| significant([*religious, *mixed]) > 0)
        });
    let tally = Tally::of(
        pairs
            .iter()
            .filter(|(r, _)| biased.contains(&r.model.as_str()))
            .map(|(religious, mixed)| religious.p_value < mixed.p_value),
    );
    let mut f = finding(
        "tests with religious names are more significant than with mixed names, \"for the models \
         that demonstrated a statistically significant bias\"",
        "§4.2, §5",
        &tally,
        "(model, test) pairs have a smaller p with religious names",
        if unbiased.is_empty() {
            "no test ran with both religious and mixed names"
        } else {
            "no model has p < 0.05 in a (religious, mixed) pair of tests"
        },
    );
    if tally.pairs > 0 {
        let models = |n: usize| format!("{n} model{}", if n == 1 { "" } else { "s" });
        f.evidence.push_str(&format!(
            ", on the {} with p < 0.05 in such a pair",
            models(biased.len())
        ));
        if !unbiased.is_empty() {
            f.evidence.push_str(&format!(
                " ({} without one left out)",
                models(unbiased.len())
            ));
        }
    }
    f
}

/// C4 at sentence level: significant for mT5 only.
fn c4_only_mt5(rows: &[SeatRow]) -> Finding {
    let claim =
        "C4 (Turkish vs Kurdish names, sentence level) is insignificant for every model but mT5";
    let section = "Figure 1 caption, §4.1";
    let c4: Vec<&SeatRow> = rows.iter().filter(|r| r.test == "sent-weat4_tr").collect();
    let (mt5, others): (Vec<&SeatRow>, Vec<&SeatRow>) =
        c4.into_iter().partition(|r| is_mt5(&r.model));
    if mt5.is_empty() || others.is_empty() {
        return Finding {
            claim,
            section,
            verdict: Verdict::CannotTell,
            evidence: "needs mT5 and at least one other model on sent-weat4_tr".to_owned(),
        };
    }
    let mt5_significant = mt5.iter().all(|r| r.p_value < SIGNIFICANT);
    let others_significant = significant(others.iter().copied());
    Finding {
        claim,
        section,
        verdict: if mt5_significant && others_significant == 0 {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
        evidence: format!(
            "mT5 p = {}; {others_significant} of {} other models with p < 0.05",
            mt5.iter()
                .map(|r| format!("{:.3}", r.p_value))
                .collect::<Vec<_>>()
                .join(", "),
            others.len()
        ),
    }
}

/// The likable vignette tests "1" and "1+3", with mixed names and with religious names.
const LIKABLE_MIXED: [&str; 2] = [
    "heilman_double_bind_likable_1_tr",
    "heilman_double_bind_likable_1+3_tr",
];
const LIKABLE_RELIGIOUS: [&str; 2] = [
    "heilman_double_bind_likable_religious_1_tr",
    "heilman_double_bind_likable_religious_1+3_tr",
];

/// Cased mBERT: the likable "1" and "1+3" tests significant at 0.01 with d > 1.0
/// for mixed names and not for religious ones; uncased mBERT the other way round.
/// Holds when each of the eight (model, test) rows is as the claim says.
fn mbert_likable(rows: &[SeatRow]) -> Finding {
    let claim = "cased mBERT: likable \"1\"/\"1+3\" significant at 0.01 with d > 1.0 for mixed \
                 names but not religious ones; uncased mBERT the opposite";
    let section = "§4.2";
    let strong = |r: &SeatRow| r.p_value < 0.01 && r.effect_size.is_some_and(|d| d > 1.0);
    let mbert = |casing: &str| {
        models(rows).into_iter().find(|m| {
            m.to_ascii_lowercase()
                .contains(&format!("multilingual-{casing}"))
        })
    };
    // Per casing: how many of the mixed and of the religious tests are strong.
    let count = |model: &str, tests: &[&str]| -> Option<usize> {
        let found: Vec<&SeatRow> = tests
            .iter()
            .map(|t| row(rows, model, t))
            .collect::<Option<_>>()?;
        Some(found.into_iter().filter(|r| strong(r)).count())
    };
    let tell = |casing: &str| -> Option<(usize, usize)> {
        let model = mbert(casing)?;
        Some((
            count(model, &LIKABLE_MIXED)?,
            count(model, &LIKABLE_RELIGIOUS)?,
        ))
    };
    let (Some(cased), Some(uncased)) = (tell("cased"), tell("uncased")) else {
        return Finding {
            claim,
            section,
            verdict: Verdict::CannotTell,
            evidence: "needs cased and uncased mBERT on the four likable vignette tests".to_owned(),
        };
    };
    Finding {
        claim,
        section,
        verdict: if cased == (2, 0) && uncased == (0, 2) {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
        evidence: format!(
            "p < 0.01 and d > 1.0: cased mBERT mixed {} of 2, religious {} of 2; uncased mBERT \
             mixed {} of 2, religious {} of 2",
            cased.0, cased.1, uncased.0, uncased.1
        ),
    }
}

/// mT5 and the Double Bind tests. "Not many" is our reading: fewer than half of
/// mT5's Double Bind tests with p < 0.05.
fn mt5_double_bind(rows: &[SeatRow]) -> Finding {
    let db: Vec<&SeatRow> = rows
        .iter()
        .filter(|r| is_mt5(&r.model) && r.test.contains("heilman_double_bind"))
        .collect();
    let n = db.len();
    let k = significant(db.iter().copied());
    Finding {
        claim: "\"mT5 did not deliver many significant results for the double bind tests\" \
                (our reading of \"not many\": fewer than half with p < 0.05)",
        section: "§4.2",
        verdict: match n {
            0 => Verdict::CannotTell,
            _ if 2 * k < n => Verdict::Holds,
            _ => Verdict::DoesNotHold,
        },
        evidence: if n == 0 {
            "needs mT5 on the Double Bind tests".to_owned()
        } else {
            format!("{k} of mT5's {n} Double Bind tests with p < 0.05")
        },
    }
}

/// The paper's qualitative findings (its §4.1, §4.2 and §5), each checked on the
/// rows of the paper's procedure: the files as given, on every model. Rows of a
/// lower-cased copy ([`SeatRow::lowercased_copy`]), the comparison the paper only
/// suggests (§4.2), are left out.
pub fn findings(rows: &[SeatRow]) -> Vec<Finding> {
    let rows: Vec<SeatRow> = rows
        .iter()
        .filter(|r| !r.lowercased_copy)
        .cloned()
        .collect();
    let rows = rows.as_slice();
    vec![
        sentence_beats_word(rows),
        word_has_larger_effects(rows),
        names_vs_terms(rows),
        c4_only_mt5(rows),
        uncased_beats_cased(rows),
        large_beats_base(rows),
        religious_beats_mixed(rows),
        mbert_likable(rows),
        mt5_double_bind(rows),
    ]
}

/// The findings as a checklist table.
pub fn findings_table(findings: &[Finding]) -> Table {
    let mut table = Table::new(["the paper finds", "where", "ours", "evidence"]);
    for f in findings {
        table.push([f.claim, f.section, f.verdict.as_str(), f.evidence.as_str()]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_encoder::{Layer, Pooling};
    use lmbias_studies::seat::{SetSizes, TestCoverage};

    fn r(model: &str, test: &str, d: f64, p: f64) -> SeatRow {
        SeatRow {
            model: model.into(),
            test: test.into(),
            lowercased_copy: false,
            pooling: Pooling::Cls,
            layer: Layer::Last,
            effect_size: Some(d),
            test_statistic: 0.0,
            p_value: p,
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
        }
    }

    fn copy(mut row: SeatRow) -> SeatRow {
        row.lowercased_copy = true;
        row
    }

    const TC: &str = "dbmdz/bert-base-turkish-cased";
    const TU: &str = "dbmdz/bert-base-turkish-uncased";
    const LU: &str = "dbmdz/bert-large-turkish-uncased";
    const MC: &str = "bert-base-multilingual-cased";
    const MU: &str = "bert-base-multilingual-uncased";
    const MT5: &str = "google/mt5-base";

    use Verdict::*;

    #[test]
    fn nothing_to_compare_means_cannot_tell() {
        let f = findings(&[]);
        assert_eq!(f.len(), 9);
        assert!(f.iter().all(|f| f.verdict == CannotTell), "{f:?}");
    }

    /// Word-level vs sentence-level rows of C6 and C6b on two models.
    fn levels(word_d: f64, sentence_d: f64) -> Vec<SeatRow> {
        vec![
            r(TC, "weat6_tr", word_d, 0.20),
            r(TC, "sent-weat6_tr", sentence_d, 0.01),
            r(TC, "weat6b_tr", word_d, 0.30),
            r(TC, "sent-weat6b_tr", sentence_d, 0.02),
            r(MT5, "weat6_tr", word_d, 0.01),
            r(MT5, "sent-weat6_tr", sentence_d, 0.04),
            // No sentence-level twin: not a pair.
            r(MT5, "weat6b_tr", 5.0, 0.5),
        ]
    }

    #[test]
    fn the_two_levels_compare_by_p_and_by_d() {
        let rows = levels(0.9, 0.5);
        let f = sentence_beats_word(&rows);
        assert_eq!((f.verdict, f.section), (Holds, "§4.1"));
        assert_eq!(
            f.evidence,
            "2 of 3 (model, test) pairs have a smaller p at sentence level"
        );
        let f = word_has_larger_effects(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "3 of 3 (model, test) pairs have a larger |d| at word level"
        );
        // Larger effects at sentence level: the second half fails, the first stands.
        let rows = levels(0.2, -0.5);
        assert_eq!(word_has_larger_effects(&rows).verdict, DoesNotHold);
        assert_eq!(sentence_beats_word(&rows).verdict, Holds);
        // Significance the other way round.
        let mut flipped = rows.clone();
        for row in &mut flipped {
            row.p_value = if row.test.starts_with("sent-") {
                0.6
            } else {
                0.001
            };
        }
        assert_eq!(sentence_beats_word(&flipped).verdict, DoesNotHold);
    }

    #[test]
    fn names_and_terms_by_language_coverage() {
        let rows = vec![
            r(TC, "weat6_tr", 0.9, 0.2),
            r(TC, "weat6b_tr", 0.2, 0.3),
            r(MT5, "weat6_tr", 0.1, 0.01),
            r(MT5, "weat6b_tr", 0.3, 0.5),
        ];
        assert_eq!(names_vs_terms(&rows).verdict, Holds);
        let mut terms_ahead = rows.clone();
        terms_ahead[1].effect_size = Some(1.2);
        assert_eq!(names_vs_terms(&terms_ahead).verdict, DoesNotHold);
        assert_eq!(names_vs_terms(&rows[..2]).verdict, CannotTell);
    }

    #[test]
    fn c4_is_significant_for_mt5_alone() {
        let rows = vec![
            r(MT5, "sent-weat4_tr", 0.35, 0.01),
            r(TC, "sent-weat4_tr", 0.1, 0.40),
        ];
        let f = c4_only_mt5(&rows);
        assert_eq!((f.verdict, f.section), (Holds, "Figure 1 caption, §4.1"));
        assert_eq!(
            f.evidence,
            "mT5 p = 0.010; 0 of 1 other models with p < 0.05"
        );
        let mut flipped = rows.clone();
        flipped.push(r(TU, "sent-weat4_tr", 0.3, 0.03));
        assert_eq!(c4_only_mt5(&flipped).verdict, DoesNotHold);
    }

    #[test]
    fn cased_and_uncased_pairs_only_berturk() {
        // BERTurk: uncased 2 significant tests, cased 1.
        let mut rows = vec![
            r(TU, "weat6_tr", 0.1, 0.01),
            r(TU, "weat7_tr", 0.9, 0.01),
            r(TC, "weat6_tr", 0.1, 0.01),
            r(TC, "weat7_tr", 0.9, 0.2),
        ];
        let f = uncased_beats_cased(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "1 of 1 BERTurk cased/uncased pairs have more tests with p < 0.05 when uncased"
        );
        // mBERT the other way round is not part of the claim: nothing changes.
        rows.extend([
            r(MC, "weat6_tr", 0.1, 0.01),
            r(MC, "weat7_tr", 0.1, 0.01),
            r(MU, "weat6_tr", 0.1, 0.5),
        ]);
        assert_eq!(uncased_beats_cased(&rows), f);
        // Equal counts: not more significant.
        rows[3].p_value = 0.01;
        assert_eq!(uncased_beats_cased(&rows).verdict, DoesNotHold);
        // mBERT alone cannot tell.
        assert_eq!(uncased_beats_cased(&rows[4..]).verdict, CannotTell);
    }

    #[test]
    fn large_and_base_berturk_by_mean_d() {
        let rows = vec![r(TU, "weat6_tr", 0.5, 0.5), r(LU, "weat6_tr", 1.0, 0.5)];
        assert_eq!(large_beats_base(&rows).verdict, Holds);
        let rows = vec![r(TU, "weat6_tr", 1.5, 0.5), r(LU, "weat6_tr", 1.0, 0.5)];
        assert_eq!(large_beats_base(&rows).verdict, DoesNotHold);
        assert_eq!(large_beats_base(&rows[..1]).verdict, CannotTell);
    }

    #[test]
    fn religious_names_count_on_the_models_with_a_significant_bias() {
        let rows = vec![
            // TC: significant, religious smaller p in both pairs.
            r(TC, "weat6_tr", 0.5, 0.04),
            r(TC, "weat6_religious_tr", 0.8, 0.01),
            r(TC, "weat8_tr", 0.5, 0.30),
            r(TC, "weat8_religious_tr", 0.8, 0.20),
            // MT5: nothing significant, religious larger p: left out.
            r(MT5, "weat6_tr", 0.1, 0.10),
            r(MT5, "weat6_religious_tr", 0.1, 0.60),
            r(MT5, "weat8_tr", 0.1, 0.20),
            r(MT5, "weat8_religious_tr", 0.1, 0.90),
        ];
        let f = religious_beats_mixed(&rows);
        assert_eq!((f.verdict, f.section), (Holds, "§4.2, §5"));
        assert_eq!(
            f.evidence,
            "2 of 2 (model, test) pairs have a smaller p with religious names, on the 1 model \
             with p < 0.05 in such a pair (1 model without one left out)"
        );
        // Once mT5 shows a significant result it counts: 2 of 4 is not more than half.
        let mut biased = rows.clone();
        biased[6].p_value = 0.03;
        let f = religious_beats_mixed(&biased);
        assert_eq!(f.verdict, DoesNotHold, "{f:?}");
        assert!(f.evidence.starts_with("2 of 4 "), "{}", f.evidence);
        // No model significant: cannot tell, and says why.
        let f = religious_beats_mixed(&rows[4..]);
        assert_eq!(f.verdict, CannotTell);
        assert_eq!(
            f.evidence,
            "no model has p < 0.05 in a (religious, mixed) pair of tests"
        );
    }

    fn mbert(cased_mixed: (f64, f64), uncased_mixed: (f64, f64)) -> Vec<SeatRow> {
        // (d, p) of the mixed-name tests; the religious ones get the other model's.
        let mut rows = Vec::new();
        for (model, mixed, religious) in [
            (MC, cased_mixed, uncased_mixed),
            (MU, uncased_mixed, cased_mixed),
        ] {
            for t in LIKABLE_MIXED {
                rows.push(r(model, t, mixed.0, mixed.1));
            }
            for t in LIKABLE_RELIGIOUS {
                rows.push(r(model, t, religious.0, religious.1));
            }
        }
        rows
    }

    #[test]
    fn mbert_likable_vignettes_by_casing() {
        let rows = mbert((1.2, 0.005), (0.4, 0.2));
        let f = mbert_likable(&rows);
        assert_eq!((f.verdict, f.section), (Holds, "§4.2"));
        assert_eq!(
            f.evidence,
            "p < 0.01 and d > 1.0: cased mBERT mixed 2 of 2, religious 0 of 2; uncased mBERT \
             mixed 0 of 2, religious 2 of 2"
        );
        // Significant at 0.01 but d ≤ 1.0: not as the paper says.
        assert_eq!(
            mbert_likable(&mbert((0.9, 0.005), (0.4, 0.2))).verdict,
            DoesNotHold
        );
        // p < 0.05 but not < 0.01.
        assert_eq!(
            mbert_likable(&mbert((1.2, 0.03), (0.4, 0.2))).verdict,
            DoesNotHold
        );
        // The casings swapped.
        assert_eq!(
            mbert_likable(&mbert((0.4, 0.2), (1.2, 0.005))).verdict,
            DoesNotHold
        );
        // One casing missing.
        assert_eq!(mbert_likable(&rows[..4]).verdict, CannotTell);
    }

    #[test]
    fn mt5_double_bind_fewer_than_half_significant() {
        let mut rows = vec![
            r(MT5, "heilman_double_bind_competent_one_word_tr", 0.2, 0.3),
            r(MT5, "heilman_double_bind_likable_1_tr", 0.9, 0.01),
            r(MT5, "heilman_double_bind_likable_1+3_tr", 0.2, 0.4),
            // Not a Double Bind test, and not mT5: not counted.
            r(MT5, "weat6_tr", 0.9, 0.01),
            r(TC, "heilman_double_bind_likable_1_tr", 0.9, 0.01),
        ];
        let f = mt5_double_bind(&rows);
        assert_eq!((f.verdict, f.section), (Holds, "§4.2"));
        assert_eq!(f.evidence, "1 of mT5's 3 Double Bind tests with p < 0.05");
        rows[0].p_value = 0.02;
        assert_eq!(mt5_double_bind(&rows).verdict, DoesNotHold);
        assert_eq!(mt5_double_bind(&rows[4..]).verdict, CannotTell);
    }

    /// The checklist reads the paper's procedure: a lower-cased copy's rows, which
    /// would turn the cased/uncased verdict, are left out.
    #[test]
    fn findings_leave_the_lowercased_copy_out() {
        let rows = vec![
            r(TU, "weat6_tr", 0.1, 0.01),
            r(TC, "weat6_tr", 0.1, 0.01),
            copy(r(TU, "weat7_tr", 0.9, 0.01)),
        ];
        assert_eq!(findings(&rows)[4].verdict, DoesNotHold);
        assert_eq!(uncased_beats_cased(&rows).verdict, Holds);
    }

    #[test]
    fn findings_table_snapshot() {
        let mut rows = levels(0.9, 0.5);
        rows.extend(mbert((1.2, 0.005), (0.4, 0.2)));
        rows.extend([
            r(MT5, "sent-weat4_tr", 0.35, 0.01),
            r(TC, "sent-weat4_tr", 0.1, 0.40),
            r(TU, "weat6_tr", 0.1, 0.01),
            r(TU, "weat7_tr", 0.9, 0.01),
            r(LU, "weat6_tr", 1.0, 0.5),
            r(TC, "weat6_religious_tr", 0.8, 0.10),
            r(MT5, "heilman_double_bind_likable_1_tr", 0.2, 0.3),
        ]);
        insta::assert_snapshot!(findings_table(&findings(&rows)).to_markdown());
    }

    #[test]
    fn figure_1_has_both_levels_side_by_side() {
        let mut tests: Vec<&str> = FIGURE_1.iter().map(|(_, t)| *t).collect();
        tests.sort_unstable();
        tests.dedup();
        assert_eq!(tests.len(), 19);
        for pair in FIGURE_1[..8].chunks(2) {
            let ((word_label, word), (sentence_label, sentence)) = (pair[0], pair[1]);
            assert_eq!(format!("sent-{word}"), sentence);
            assert_eq!(
                word_label.replace(" word", " sentence"),
                sentence_label,
                "{pair:?}"
            );
        }
    }
}
