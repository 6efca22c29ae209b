//! Caglidil, Ostendorff & Rehm (2024), *Investigating Gender Bias in Turkish
//! Language Models*: its Figure 1 and its qualitative findings, shaped from a
//! Turkish battery's rows (`datasets/seat/tr`, test names as in
//! `datasets/seat/tr/PROVENANCE.md`).

use lmbias_studies::seat::SeatRow;

use crate::table::Table;

/// The columns of the paper's Figure 1, as `(the paper's label, our test)`.
/// Which of our files stands for each label is documented in PROVENANCE.md.
pub const FIGURE_1: [(&str, &str); 15] = [
    ("C6", "weat6_tr"),
    ("C6 religious", "weat6_religious_tr"),
    ("C8", "weat8_tr"),
    ("C8b", "weat8b_tr"),
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
    /// The paper's claim, in our words.
    pub claim: &'static str,
    /// Whether our numbers bear it out.
    pub verdict: Verdict,
    /// The comparison behind the verdict, or what was missing.
    pub evidence: String,
}

/// The Caliskan tests, whose main, `b` and `religious` variants exist at word
/// level (`weatN…_tr`) and sentence level (`sent-weatN…_tr`).
const CALISKAN: [&str; 4] = ["weat4", "weat6", "weat7", "weat8"];

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

fn finding(claim: &'static str, tally: &Tally, what: &str, missing: &str) -> Finding {
    Finding {
        claim,
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

/// Sentence-level tests more significant than word-level: every (model, test)
/// that exists at both levels, compared by p.
fn sentence_beats_word(rows: &[SeatRow]) -> Finding {
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
    let pairs = models(rows).into_iter().flat_map(|m| {
        word_tests.iter().filter_map(move |t| {
            let word = row(rows, m, t)?;
            let sentence = row(rows, m, &format!("sent-{t}"))?;
            Some(sentence.p_value < word.p_value)
        })
    });
    finding(
        "sentence-level tests are more significant than word-level ones",
        &Tally::of(pairs),
        "(model, test) pairs have a smaller p at sentence level",
        "no test ran at both levels",
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
        verdict,
        evidence,
    }
}

fn significant(rows: &[SeatRow], model: &str) -> usize {
    rows.iter()
        .filter(|r| r.model == model && r.p_value < 0.05)
        .count()
}

fn mean_abs_d(rows: &[SeatRow], model: &str) -> f64 {
    let ds: Vec<f64> = rows
        .iter()
        .filter(|r| r.model == model)
        .map(abs_d)
        .collect();
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

/// Uncased more significant than cased: per cased/uncased pair of one family,
/// more tests with p < 0.05.
fn uncased_beats_cased(rows: &[SeatRow]) -> Finding {
    let pairs = model_pairs(rows, "uncased", "cased");
    let tally = Tally::of(
        pairs
            .iter()
            .map(|(uncased, cased)| significant(rows, uncased) > significant(rows, cased)),
    );
    finding(
        "uncased models are more significant than cased ones",
        &tally,
        "cased/uncased pairs have more tests with p < 0.05 when uncased",
        "needs a cased and an uncased model of one family (e.g. BERTurk base cased and uncased)",
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
        &tally,
        "base/large pairs have a larger mean |d| when large",
        "needs BERTurk base and large of the same casing",
    )
}

/// Religious names more significant than mixed names: every test with both.
fn religious_beats_mixed(rows: &[SeatRow]) -> Finding {
    let pairs = rows.iter().filter_map(|r| {
        let mixed = r.test.replace("_religious", "");
        if mixed == r.test {
            return None;
        }
        let mixed = row(rows, &r.model, &mixed)?;
        Some(r.p_value < mixed.p_value)
    });
    finding(
        "tests with religious names are more significant than with mixed names",
        &Tally::of(pairs),
        "(model, test) pairs have a smaller p with religious names",
        "no test ran with both religious and mixed names",
    )
}

/// C4 at sentence level: significant for mT5 only.
fn c4_only_mt5(rows: &[SeatRow]) -> Finding {
    let claim =
        "C4 (Turkish vs Kurdish names, sentence level) is insignificant for every model but mT5";
    let c4: Vec<&SeatRow> = rows.iter().filter(|r| r.test == "sent-weat4_tr").collect();
    let (mt5, others): (Vec<&SeatRow>, Vec<&SeatRow>) = c4
        .into_iter()
        .partition(|r| r.model.to_ascii_lowercase().contains("mt5"));
    if mt5.is_empty() || others.is_empty() {
        return Finding {
            claim,
            verdict: Verdict::CannotTell,
            evidence: "needs mT5 and at least one other model on sent-weat4_tr".to_owned(),
        };
    }
    let mt5_significant = mt5.iter().all(|r| r.p_value < 0.05);
    let others_significant = others.iter().filter(|r| r.p_value < 0.05).count();
    Finding {
        claim,
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

/// The paper's qualitative findings (its §4 and §5), each checked on `rows`.
pub fn findings(rows: &[SeatRow]) -> Vec<Finding> {
    vec![
        sentence_beats_word(rows),
        names_vs_terms(rows),
        uncased_beats_cased(rows),
        large_beats_base(rows),
        religious_beats_mixed(rows),
        c4_only_mt5(rows),
    ]
}

/// The findings as a checklist table.
pub fn findings_table(findings: &[Finding]) -> Table {
    let mut table = Table::new(["the paper finds", "ours", "evidence"]);
    for f in findings {
        table.push([f.claim, f.verdict.as_str(), f.evidence.as_str()]);
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

    const TC: &str = "dbmdz/bert-base-turkish-cased";
    const TU: &str = "dbmdz/bert-base-turkish-uncased";
    const LU: &str = "dbmdz/bert-large-turkish-uncased";
    const MT5: &str = "google/mt5-base";

    fn verdicts(rows: &[SeatRow]) -> Vec<Verdict> {
        findings(rows).iter().map(|f| f.verdict).collect()
    }

    #[test]
    fn nothing_to_compare_means_cannot_tell() {
        assert_eq!(verdicts(&[]), [Verdict::CannotTell; 6]);
    }

    #[test]
    fn each_finding_reads_its_comparison() {
        use Verdict::*;
        let rows = vec![
            // sentence vs word: 2 of 3 pairs smaller at sentence level.
            r(TC, "weat6_tr", 0.9, 0.20),
            r(TC, "sent-weat6_tr", 0.5, 0.01),
            r(TC, "weat6b_tr", 0.2, 0.30),
            r(TC, "sent-weat6b_tr", 0.1, 0.02),
            r(MT5, "weat6_tr", 0.1, 0.01),
            r(MT5, "sent-weat6_tr", 0.1, 0.04),
            r(MT5, "weat6b_tr", 0.3, 0.5),
            // religious vs mixed: smaller p in 1 of 1.
            r(TC, "weat6_religious_tr", 0.8, 0.10),
            // C4: mT5 significant, the cased BERTurk not.
            r(MT5, "sent-weat4_tr", 0.35, 0.01),
            r(TC, "sent-weat4_tr", 0.1, 0.40),
            // uncased vs cased: TU and TC both have 2 tests with p < 0.05, so uncased is not ahead.
            r(TU, "weat6_tr", 0.1, 0.01),
            r(TU, "weat7_tr", 0.9, 0.01),
            // large vs base: LU mean |d| 1.0 > TU's 0.5.
            r(LU, "weat6_tr", 1.0, 0.5),
        ];
        let f = findings(&rows);
        assert_eq!(f[0].verdict, Holds, "{:?}", f[0]);
        assert_eq!(
            f[0].evidence,
            "2 of 3 (model, test) pairs have a smaller p at sentence level"
        );
        // Monolingual: names ahead in weat6 (0.9 > 0.2) and sent-weat6 (0.5 > 0.1);
        // multilingual mT5: terms ahead in weat6 (0.3 > 0.1).
        assert_eq!(f[1].verdict, Holds, "{:?}", f[1]);
        assert_eq!(f[2].verdict, DoesNotHold, "{:?}", f[2]);
        assert_eq!(
            f[2].evidence,
            "0 of 1 cased/uncased pairs have more tests with p < 0.05 when uncased"
        );
        assert_eq!(f[3].verdict, Holds, "{:?}", f[3]);
        assert_eq!(f[4].verdict, Holds, "{:?}", f[4]);
        assert_eq!(f[5].verdict, Holds, "{:?}", f[5]);
        assert_eq!(
            f[5].evidence,
            "mT5 p = 0.010; 0 of 1 other models with p < 0.05"
        );

        let mut flipped = rows.clone();
        flipped.push(r(TU, "sent-weat4_tr", 0.3, 0.03));
        assert_eq!(findings(&flipped)[5].verdict, DoesNotHold);
    }

    #[test]
    fn figure_1_names_distinct_tests() {
        let mut tests: Vec<&str> = FIGURE_1.iter().map(|(_, t)| *t).collect();
        tests.sort_unstable();
        tests.dedup();
        assert_eq!(tests.len(), FIGURE_1.len());
    }
}
