//! Caglidil, Ostendorff & Rehm (2024), *Investigating Gender Bias in Turkish
//! Language Models*: the seven checkpoints it ran, its Figure 1 and its
//! qualitative findings, shaped from a Turkish battery's rows (`datasets/seat/tr`,
//! test names as in `datasets/seat/tr/PROVENANCE.md`).

use lmbias_studies::seat::SeatRow;

use crate::Reported;

/// Caglidil, Ostendorff & Rehm 2024, Turkish SEAT/Double Bind: the Double Bind
/// numbers are discussed in §4.2; mT5's C4 result, at sentence level, in §4.1 (Figure 1's
/// caption shows the C4 column but does not name mT5).
pub const REPORTED: &[Reported] = &[
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
        value: "d = 0.35; the text calls it significant both \"at 0.05\" and \"at 0.01\" (two thresholds for one result); the only model with this ethnic bias",
        source: "Caglidil et al. 2024, §4.1, the text that names mT5 (Figure 1's caption does not name it)",
    },
];

/// A model's size as the paper's Table 2 labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaperSize {
    /// "base".
    Base,
    /// "large": for BERTurk, the 128k-vocabulary checkpoints (see [`CHECKPOINTS`]).
    Large,
}

/// One of the models of the paper's Table 2, as the Hugging Face hub names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checkpoint {
    /// The hub id.
    pub id: &'static str,
    /// The paper's Table 2 row, quoted, where this reading depends on it.
    pub table_2: Option<&'static str>,
    /// The size Table 2 gives it.
    pub size: PaperSize,
    /// BERTurk (monolingual) or a multilingual model.
    pub multilingual: bool,
}

impl Checkpoint {
    /// Where the model stands in the paper, as a report names it, with our reading of
    /// "large" where Table 2 gives that size.
    pub fn role(&self) -> &'static str {
        match self.size {
            PaperSize::Base => "Caglidil et al. 2024",
            PaperSize::Large => {
                "Caglidil et al. 2024: a \"large … mono 128k\" BERTurk of their Table 2 (BERTurk \
                 exists at base size only: our reading of \"large\" is the 128k vocabulary)"
            }
        }
    }
}

const fn berturk(id: &'static str, table_2: &'static str, size: PaperSize) -> Checkpoint {
    Checkpoint {
        id,
        table_2: Some(table_2),
        size,
        multilingual: false,
    }
}

const fn multilingual_checkpoint(id: &'static str) -> Checkpoint {
    Checkpoint {
        id,
        table_2: None,
        size: PaperSize::Base,
        multilingual: true,
    }
}

/// The paper's seven models, in the order of its Table 2 and of its Figure 1's
/// rows (§4.2 calls the cased BERTurk models "the first and third rows" and the
/// uncased ones "the second and the fourth rows").
///
/// Table 2 lists "BERTurk (base, cased) mono 32k", "BERTurk (base, uncased) mono
/// 32k", "BERTurk (large, cased) mono 128k" and "BERTurk (large, uncased) mono
/// 128k". BERTurk was released at base size only, with a 32k and a 128k
/// vocabulary: the paper's "large" rows are the 128k-vocabulary checkpoints
/// (hidden size 768, 12 layers, vocab_size 128000) — our reading, from the
/// vocabulary the rows name; no `bert-large-turkish` exists on the hub.
pub const CHECKPOINTS: [Checkpoint; 7] = [
    berturk(
        "dbmdz/bert-base-turkish-cased",
        "BERTurk (base, cased) mono 32k",
        PaperSize::Base,
    ),
    berturk(
        "dbmdz/bert-base-turkish-uncased",
        "BERTurk (base, uncased) mono 32k",
        PaperSize::Base,
    ),
    berturk(
        "dbmdz/bert-base-turkish-128k-cased",
        "BERTurk (large, cased) mono 128k",
        PaperSize::Large,
    ),
    berturk(
        "dbmdz/bert-base-turkish-128k-uncased",
        "BERTurk (large, uncased) mono 128k",
        PaperSize::Large,
    ),
    multilingual_checkpoint("bert-base-multilingual-cased"),
    multilingual_checkpoint("bert-base-multilingual-uncased"),
    multilingual_checkpoint("google/mt5-base"),
];

/// The paper's checkpoint a model is: its hub id, or a folder named as the id's
/// last part (`…/bert-base-turkish-cased`).
pub fn checkpoint(model: &str) -> Option<&'static Checkpoint> {
    CHECKPOINTS
        .iter()
        .find(|c| c.id == model || name(c.id) == name(model))
}

/// A model's own name, lower-cased: the last part of its hub id or folder, so that
/// the folders it sits in say nothing about it.
fn name(model: &str) -> String {
    let model = model.trim_end_matches('/');
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase()
}

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

/// The rows in Figure 1's order: the paper's models in its Table 2's order, then
/// other models as they came; then the lower-cased copies' rows in the same model
/// order, after every row of the files as given rather than between them (the
/// copy is our addition, not a row of the paper's).
pub fn figure_1_order(rows: &[SeatRow]) -> Vec<SeatRow> {
    let models = models(rows);
    let rank = |r: &SeatRow| {
        let model = match CHECKPOINTS
            .iter()
            .position(|c| Some(c) == checkpoint(&r.model))
        {
            Some(i) => i,
            None => CHECKPOINTS.len() + models.iter().position(|m| *m == r.model).unwrap_or(0),
        };
        (r.lowercased_copy, model)
    };
    let mut ordered = rows.to_vec();
    ordered.sort_by_key(rank);
    ordered
}

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

/// The tests §4.1 states the level finding for: "For Caliskan Test 6 and 8".
const TESTS_6_AND_8: [&str; 2] = ["weat6", "weat8"];

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

/// Language coverage: the paper's checkpoints as [`CHECKPOINTS`] says, other models
/// by their Hugging Face ids (a Turkish model is monolingual; mBERT, mT5 and XLM-R
/// multilingual); `None` for a model whose id says neither.
fn multilingual_model(model: &str) -> Option<bool> {
    if let Some(c) = checkpoint(model) {
        return Some(c.multilingual);
    }
    let id = name(model);
    if id.contains("turkish") || id.contains("berturk") {
        Some(false)
    } else if ["multilingual", "mt5", "xlm-roberta"]
        .iter()
        .any(|m| id.contains(m))
    {
        Some(true)
    } else {
        None
    }
}

/// A model that reads Turkish: one of the paper's, or one whose id names Turkish
/// or multilingual coverage. The findings are about such models; any other model
/// (an English stand-in splitting the Turkish words into pieces) gives numbers,
/// never a verdict.
pub fn turkish_capable(model: &str) -> bool {
    multilingual_model(model).is_some()
}

fn is_mt5(model: &str) -> bool {
    name(model).contains("mt5")
}

fn is_mbert(model: &str) -> bool {
    name(model).contains("multilingual")
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

/// A finding that holds when none of `rows` has p < 0.05.
fn none_significant(
    claim: &'static str,
    section: &'static str,
    rows: &[&SeatRow],
    what: &str,
    missing: &str,
) -> Finding {
    let k = significant(rows.iter().copied());
    Finding {
        claim,
        section,
        verdict: match (rows.len(), k) {
            (0, _) => Verdict::CannotTell,
            (_, 0) => Verdict::Holds,
            _ => Verdict::DoesNotHold,
        },
        evidence: if rows.is_empty() {
            missing.to_owned()
        } else {
            format!("{k} of {} {what} with p < 0.05", rows.len())
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

/// Every (model, word-level row, sentence-level row) of the Caliskan tests `bases`
/// (all three variants) that ran at both levels, and with `double_bind` the
/// word-level Double Bind tests with their bleached twins.
fn level_pairs<'r>(
    rows: &'r [SeatRow],
    bases: &[&str],
    double_bind: bool,
) -> Vec<(&'r SeatRow, &'r SeatRow)> {
    let mut word_tests: Vec<String> = bases
        .iter()
        .flat_map(|b| variants(b))
        .map(|t| format!("{t}_tr"))
        .collect();
    if double_bind {
        for kind in ["competent", "likable"] {
            for rel in ["", "_religious"] {
                word_tests.push(format!("heilman_double_bind_{kind}{rel}_one_word_tr"));
            }
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

fn smaller_p_at_sentence_level(pairs: &[(&SeatRow, &SeatRow)]) -> Tally {
    Tally::of(
        pairs
            .iter()
            .map(|(word, sentence)| sentence.p_value < word.p_value),
    )
}

fn larger_d_at_word_level(pairs: &[(&SeatRow, &SeatRow)]) -> Tally {
    Tally::of(
        pairs
            .iter()
            .map(|(word, sentence)| abs_d(word) > abs_d(sentence)),
    )
}

const TESTS_6_AND_8_MISSING: &str = "Tests 6 and 8 did not run at both levels";

/// §4.1, first half: sentence level more significant than word level, by p, on
/// Tests 6 and 8 as the paper states it.
fn sentence_beats_word(rows: &[SeatRow]) -> Finding {
    finding(
        "For Caliskan Tests 6 and 8, \"sentence-level tests tend to elicit more significant \
         associations … than word-level tests\"",
        "§4.1",
        &smaller_p_at_sentence_level(&level_pairs(rows, &TESTS_6_AND_8, false)),
        "(model, test) pairs of Tests 6 and 8 have a smaller p at sentence level",
        TESTS_6_AND_8_MISSING,
    )
}

/// §4.1, second half: word level larger effects, by |d|, on the same pairs.
fn word_has_larger_effects(rows: &[SeatRow]) -> Finding {
    finding(
        "For Caliskan Tests 6 and 8, \"… while the latter [word-level tests] tend to have \
         larger effect sizes\"",
        "§4.1",
        &larger_d_at_word_level(&level_pairs(rows, &TESTS_6_AND_8, false)),
        "(model, test) pairs of Tests 6 and 8 have a larger |d| at word level",
        TESTS_6_AND_8_MISSING,
    )
}

/// Our extension of §4.1's level finding to every test run at both levels.
fn levels_wider(rows: &[SeatRow]) -> Finding {
    let pairs = level_pairs(rows, &CALISKAN, true);
    let (p, d) = (
        smaller_p_at_sentence_level(&pairs),
        larger_d_at_word_level(&pairs),
    );
    let verdict = match (p.verdict(), d.verdict()) {
        (Verdict::CannotTell, _) | (_, Verdict::CannotTell) => Verdict::CannotTell,
        (Verdict::Holds, Verdict::Holds) => Verdict::Holds,
        _ => Verdict::DoesNotHold,
    };
    Finding {
        claim: "ours, wider than the paper's claim: both halves of the finding above over every \
                test run at both levels (C4, C6, C7, C8, and each word-level Double Bind test \
                against its bleached sentences)",
        section: "§4.1 (our extension)",
        verdict,
        evidence: if pairs.is_empty() {
            "no test ran at both levels".to_owned()
        } else {
            format!(
                "smaller p at sentence level in {} of {} (model, test) pairs; larger |d| at word \
                 level in {} of {}",
                p.agree, p.pairs, d.agree, d.pairs
            )
        },
    }
}

/// §4.1 on Test 8: the multilingual models significant at sentence level, never
/// at word level.
fn test_8_multilingual(rows: &[SeatRow]) -> Finding {
    let of_level = |prefix: &str| -> Vec<&SeatRow> {
        rows.iter()
            .filter(|r| multilingual_model(&r.model) == Some(true))
            .filter(|r| {
                variants("weat8")
                    .iter()
                    .any(|t| r.test == format!("{prefix}{t}_tr"))
            })
            .collect()
    };
    let (word, sentence) = (of_level(""), of_level("sent-"));
    let claim = "Test 8: \"the multilingual models showed much higher significance at the \
                 sentence-level, whereas no significant results were found at the word-level\" \
                 (our reading: no word-level C8 result with p < 0.05, and more than half of the \
                 sentence-level ones with p < 0.05)";
    if word.is_empty() || sentence.is_empty() {
        return Finding {
            claim,
            section: "§4.1",
            verdict: Verdict::CannotTell,
            evidence: "needs a multilingual model (mBERT, mT5) on Test 8 at both levels".to_owned(),
        };
    }
    let (kw, ks) = (
        significant(word.iter().copied()),
        significant(sentence.iter().copied()),
    );
    Finding {
        claim,
        section: "§4.1",
        verdict: if kw == 0 && 2 * ks > sentence.len() {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
        evidence: format!(
            "multilingual models, C8 (main, b, religious): {kw} of {} word-level and {ks} of {} \
             sentence-level results with p < 0.05",
            word.len(),
            sentence.len()
        ),
    }
}

/// §4.1: C4 at word level significant for no model. The paper's "p ≈ 1 in almost all
/// tests" is said of Test 4 at both levels (WEAT and SEAT 4) together: the evidence counts it
/// over both, as numbers beside the verdict, which is on the word level alone.
fn c4_word_insignificant(rows: &[SeatRow]) -> Finding {
    let c4_at = |prefix: &str| -> Vec<&SeatRow> {
        rows.iter()
            .filter(|r| {
                variants("weat4")
                    .iter()
                    .any(|t| r.test == format!("{prefix}{t}_tr"))
            })
            .collect()
    };
    let word = c4_at("");
    let mut f = none_significant(
        "C4 at word level \"did not lead to any significant results for any of the models\" \
         (the paper's \"p ≈ 1 in almost all tests\" is said of WEAT and SEAT 4 together: \
         counted over both levels, numbers only)",
        "§4.1",
        &word,
        "word-level C4 results (main, b, religious)",
        "needs C4 at word level",
    );
    if !word.is_empty() {
        let both: Vec<&SeatRow> = word.iter().copied().chain(c4_at("sent-")).collect();
        let near_one = both.iter().filter(|r| r.p_value > 0.9).count();
        f.evidence.push_str(&format!(
            "; at both levels, {near_one} of {} C4 results with p > 0.9",
            both.len()
        ));
    }
    f
}

/// C4 at sentence level: significant for mT5 only.
fn c4_only_mt5(rows: &[SeatRow]) -> Finding {
    let claim =
        "C4 (Turkish vs Kurdish names, sentence level) is insignificant for every model but mT5";
    let section = "§4.1 (Figure 1's caption shows C4 but does not name mT5)";
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

/// Given names vs group terms (main vs `b`), by |d|: names ahead for monolingual
/// models, terms ahead for multilingual ones.
fn names_vs_terms(rows: &[SeatRow]) -> Finding {
    let claim = "given-name tests are more biased than group-term tests for monolingual models, \
                 and the reverse for multilingual ones";
    let tally = |want_multilingual: bool| {
        Tally::of(
            models(rows)
                .into_iter()
                .filter(|m| multilingual_model(m) == Some(want_multilingual))
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

/// §4.1 and §5: the monolingual models less biased than the multilingual ones,
/// read as a smaller share of results with p < 0.05, averaged per kind of model.
fn monolingual_less_biased(rows: &[SeatRow]) -> Finding {
    let share = |want_multilingual: bool| -> Option<(f64, usize)> {
        let shares: Vec<f64> = models(rows)
            .into_iter()
            .filter(|m| multilingual_model(m) == Some(want_multilingual))
            .map(|m| {
                let of: Vec<&SeatRow> = of_model(rows, m).collect();
                significant(of.iter().copied()) as f64 / of.len() as f64
            })
            .collect();
        (!shares.is_empty()).then(|| {
            (
                shares.iter().sum::<f64>() / shares.len() as f64,
                shares.len(),
            )
        })
    };
    let claim = "the monolingual models \"seem to have a 'less biased' characteristic than the \
                 multilingual models\" (our reading: a smaller share of results with p < 0.05, \
                 averaged over the models of each kind)";
    let section = "§4.1, §5";
    let (Some((mono, n_mono)), Some((multi, n_multi))) = (share(false), share(true)) else {
        return Finding {
            claim,
            section,
            verdict: Verdict::CannotTell,
            evidence: "needs a monolingual (BERTurk) and a multilingual (mBERT, mT5) model"
                .to_owned(),
        };
    };
    let models = |n: usize| format!("{n} model{}", if n == 1 { "" } else { "s" });
    Finding {
        claim,
        section,
        verdict: if mono < multi {
            Verdict::Holds
        } else {
            Verdict::DoesNotHold
        },
        evidence: format!(
            "share of results with p < 0.05: monolingual {mono:.2} ({}), multilingual {multi:.2} \
             ({})",
            models(n_mono),
            models(n_multi)
        ),
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
        .filter(|(uncased, _)| multilingual_model(uncased) == Some(false))
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
        "needs a cased and an uncased BERTurk of one vocabulary (e.g. \
         dbmdz/bert-base-turkish-cased and -uncased)",
    )
}

/// The pairs of BERTurk checkpoints of one casing, as `(128k, 32k)`: the paper's
/// "large" and "base" ([`CHECKPOINTS`]).
pub fn vocabulary_pairs(rows: &[SeatRow]) -> Vec<(&str, &str)> {
    model_pairs(rows, "-turkish-128k-", "-turkish-")
}

/// The paper's "large" BERTurk (128k vocabulary) more biased than its "base" (32k):
/// mean |d| over the battery.
fn vocabulary_128k_beats_32k(rows: &[SeatRow]) -> Finding {
    let pairs = vocabulary_pairs(rows);
    let tally = Tally::of(
        pairs
            .iter()
            .map(|(large, base)| mean_abs_d(rows, large) > mean_abs_d(rows, base)),
    );
    finding(
        "bias grows \"with the growing model size and vocabulary size\": the BERTurk the paper \
         calls \"large\" (\"mono 128k\") is more biased than its \"base\" (\"mono 32k\"); both \
         are base-size checkpoints, so this compares a 32k with a 128k vocabulary (our reading \
         of \"more biased\": a larger mean |d| over the battery)",
        "§5 (the quoted words), §4.2 (the \"base\" and \"large\" numbers)",
        &tally,
        "BERTurk 32k/128k pairs of one casing have a larger mean |d| with the 128k vocabulary",
        "needs BERTurk 32k and 128k of one casing (dbmdz/bert-base-turkish-cased and \
         dbmdz/bert-base-turkish-128k-cased, or the uncased pair)",
    )
}

/// §4.2: BERTurk and mBERT pick up the double bind.
fn double_bind_picked_up(rows: &[SeatRow]) -> Finding {
    let tally = Tally::of(
        models(rows)
            .into_iter()
            .filter(|m| multilingual_model(m) == Some(false) || is_mbert(m))
            .filter_map(|m| {
                let db: Vec<&SeatRow> = of_model(rows, m)
                    .filter(|r| r.test.contains("heilman_double_bind"))
                    .collect();
                (!db.is_empty()).then(|| significant(db) > 0)
            }),
    );
    finding(
        "\"monolingual models and the multilingual BERT models seem to pick up the double \
         bind\" (our reading: a model picks it up with at least one Double Bind test at \
         p < 0.05; holds when more than half of the BERTurk and mBERT models do)",
        "§4.2",
        &tally,
        "BERTurk/mBERT models have a Double Bind test with p < 0.05",
        "needs BERTurk or mBERT on the Double Bind tests",
    )
}

/// The Double Bind tests with both a bleached and an unbleached version, as
/// `(bleached, unbleached)`.
const BLEACHED_UNBLEACHED: [(&str, &str); 3] = [
    (
        "sent-heilman_double_bind_competent_one_word_tr",
        "heilman_double_bind_competent_one_sentence_tr",
    ),
    (
        "sent-heilman_double_bind_competent_religious_one_word_tr",
        "heilman_double_bind_competent_religious_one_sentence_tr",
    ),
    (
        "sent-heilman_double_bind_likable_one_word_tr",
        "heilman_double_bind_likable_one_sentence_tr",
    ),
];

/// §4.2: context neither increases nor decreases the double bind.
fn context_neutral(rows: &[SeatRow]) -> Finding {
    let pairs: Vec<(&SeatRow, &SeatRow)> = models(rows)
        .into_iter()
        .flat_map(|m| {
            BLEACHED_UNBLEACHED
                .iter()
                .filter_map(move |(b, u)| Some((row(rows, m, b)?, row(rows, m, u)?)))
        })
        .collect();
    let agree =
        |(b, u): &(&SeatRow, &SeatRow)| (b.p_value < SIGNIFICANT) == (u.p_value < SIGNIFICANT);
    let mut f = finding(
        "the double bind shows \"both in the bleached and the unbleached\" tests: \"the context \
         does not increase nor decrease the bias\" (our reading: the bleached and the \
         unbleached version of a test agree on p < 0.05)",
        "§4.2",
        &Tally::of(pairs.iter().map(agree)),
        "(model, test) bleached/unbleached pairs agree on p < 0.05",
        "needs a Double Bind test at both the bleached and the unbleached level",
    );
    if !pairs.is_empty() {
        let both = pairs
            .iter()
            .filter(|(b, u)| b.p_value < SIGNIFICANT && u.p_value < SIGNIFICANT)
            .count();
        f.evidence
            .push_str(&format!(" ({both} with p < 0.05 in both)"));
    }
    f
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

/// The competent Double Bind tests at the unbleached level, mixed and religious names.
const COMPETENT_UNBLEACHED: [&str; 2] = [
    "heilman_double_bind_competent_one_sentence_tr",
    "heilman_double_bind_competent_religious_one_sentence_tr",
];

/// §4.2: the unbleached test insignificant on the smaller models: the paper speaks of
/// BERTurk's sizes, so the smaller models are the BERTurk checkpoints its Table 2 labels
/// "base" (mono 32k); mBERT and mT5 are not among them (Table 2 gives mBERT no size).
fn unbleached_insignificant_on_smaller_models(rows: &[SeatRow]) -> Finding {
    let of: Vec<&SeatRow> = rows
        .iter()
        .filter(|r| {
            checkpoint(&r.model).is_some_and(|c| c.size == PaperSize::Base && !c.multilingual)
        })
        .filter(|r| COMPETENT_UNBLEACHED.contains(&r.test.as_str()))
        .collect();
    none_significant(
        "the unbleached test \"did not deliver any significant results for the smaller models\" \
         (the paper compares BERTurk's sizes: the smaller models are the BERTurk checkpoints \
         Table 2 labels \"base\", mono 32k; our reading: the competent unbleached tests, \
         mixed and religious names)",
        "§4.2",
        &of,
        "unbleached competent results of the BERTurk \"base\" (32k) models",
        "needs a BERTurk \"base\" (32k) model (dbmdz/bert-base-turkish-cased or -uncased) on \
         the competent unbleached tests",
    )
}

/// §4.2: no likable test significant.
fn likable_insignificant(rows: &[SeatRow]) -> Finding {
    let likable: Vec<&SeatRow> = rows
        .iter()
        .filter(|r| r.test.contains("heilman_double_bind_likable"))
        .collect();
    none_significant(
        "the likable tests \"did not deliver any significant results\"; the paper's own \
         paragraph on mBERT (the next finding) reports likable \"1\"/\"1+3\" significant at \
         0.01: the paper's two statements disagree, and each is checked as written",
        "§4.2",
        &likable,
        "likable results",
        "needs the likable Double Bind tests",
    )
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
                 names but not religious ones; uncased mBERT the opposite (at odds with the \
                 paper's statement in the previous finding)";
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

/// The checks, in the order of the paper's sections.
const CHECKS: [fn(&[SeatRow]) -> Finding; 17] = [
    sentence_beats_word,
    word_has_larger_effects,
    levels_wider,
    test_8_multilingual,
    c4_word_insignificant,
    c4_only_mt5,
    names_vs_terms,
    monolingual_less_biased,
    uncased_beats_cased,
    vocabulary_128k_beats_32k,
    double_bind_picked_up,
    context_neutral,
    religious_beats_mixed,
    unbleached_insignificant_on_smaller_models,
    likable_insignificant,
    mbert_likable,
    mt5_double_bind,
];

/// The paper's qualitative findings (its §4.1, §4.2 and §5), each checked on the
/// rows of the paper's procedure: the files as given, on the models that read
/// Turkish ([`turkish_capable`]). Rows of a lower-cased copy
/// ([`SeatRow::lowercased_copy`]), the comparison the paper only suggests (§4.2),
/// are left out. Without a Turkish-capable model every finding is "cannot tell",
/// and the other models' numbers are shown as numbers, never as a verdict.
pub fn findings(rows: &[SeatRow]) -> Vec<Finding> {
    let (turkish, stand_ins): (Vec<SeatRow>, Vec<SeatRow>) = rows
        .iter()
        .filter(|r| !r.lowercased_copy)
        .cloned()
        .partition(|r| turkish_capable(&r.model));
    CHECKS
        .iter()
        .map(|check| {
            let mut f = check(&turkish);
            if turkish.is_empty() {
                f.evidence = "no Turkish-capable model ran (BERTurk, mBERT, mT5, or another \
                              whose id names Turkish or multilingual coverage)"
                    .to_owned();
                let on_stand_ins = check(&stand_ins);
                if on_stand_ins.verdict != Verdict::CannotTell {
                    f.evidence.push_str(&format!(
                        "; on the stand-ins, numbers only: {}",
                        on_stand_ins.evidence
                    ));
                }
            }
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::testing::seat_row;

    fn r(model: &str, test: &str, d: f64, p: f64) -> SeatRow {
        seat_row(model, test, d, p)
    }

    fn copy(mut row: SeatRow) -> SeatRow {
        row.lowercased_copy = true;
        row
    }

    const TC: &str = "dbmdz/bert-base-turkish-cased";
    const TU: &str = "dbmdz/bert-base-turkish-uncased";
    const LU: &str = "dbmdz/bert-base-turkish-128k-uncased";
    const LC: &str = "dbmdz/bert-base-turkish-128k-cased";
    const MINILM: &str = "sentence-transformers/all-MiniLM-L6-v2";
    const MC: &str = "bert-base-multilingual-cased";
    const MU: &str = "bert-base-multilingual-uncased";
    const MT5: &str = "google/mt5-base";

    use Verdict::*;

    #[test]
    fn nothing_to_compare_means_cannot_tell() {
        let f = findings(&[]);
        assert_eq!(f.len(), 17);
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
            "2 of 3 (model, test) pairs of Tests 6 and 8 have a smaller p at sentence level"
        );
        let f = word_has_larger_effects(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "3 of 3 (model, test) pairs of Tests 6 and 8 have a larger |d| at word level"
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

    /// mT5's C4 result is quoted where the text names mT5, with both thresholds the text
    /// gives; Figure 1's caption, which does not name mT5, is not cited for it.
    #[test]
    fn mt5_c4_is_quoted_where_the_text_names_it() {
        let mt5 = REPORTED
            .iter()
            .find(|r| r.what.starts_with("mT5-base, C4"))
            .unwrap();
        assert!(mt5.value.contains("\"at 0.05\"") && mt5.value.contains("\"at 0.01\""));
        assert!(
            mt5.source.starts_with("Caglidil et al. 2024, §4.1"),
            "{}",
            mt5.source
        );
        assert!(!mt5.source.contains("Figure 1 caption"), "{}", mt5.source);
    }

    #[test]
    fn c4_is_significant_for_mt5_alone() {
        let rows = vec![
            r(MT5, "sent-weat4_tr", 0.35, 0.01),
            r(TC, "sent-weat4_tr", 0.1, 0.40),
        ];
        let f = c4_only_mt5(&rows);
        assert_eq!(
            (f.verdict, f.section),
            (
                Holds,
                "§4.1 (Figure 1's caption shows C4 but does not name mT5)"
            )
        );
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
    fn vocabularies_32k_and_128k_by_mean_d() {
        let rows = vec![r(TU, "weat6_tr", 0.5, 0.5), r(LU, "weat6_tr", 1.0, 0.5)];
        let f = vocabulary_128k_beats_32k(&rows);
        assert_eq!(f.verdict, Holds);
        // The quoted words stand in §5; the numbers the finding rests on in §4.2.
        assert!(
            f.claim
                .contains("\"with the growing model size and vocabulary size\"")
        );
        assert_eq!(
            f.section,
            "§5 (the quoted words), §4.2 (the \"base\" and \"large\" numbers)"
        );
        let rows = vec![r(TU, "weat6_tr", 1.5, 0.5), r(LU, "weat6_tr", 1.0, 0.5)];
        assert_eq!(vocabulary_128k_beats_32k(&rows).verdict, DoesNotHold);
        assert_eq!(vocabulary_128k_beats_32k(&rows[..1]).verdict, CannotTell);
        // Casings are not crossed: 128k cased has no 32k cased to compare with.
        let rows = vec![r(TU, "weat6_tr", 0.5, 0.5), r(LC, "weat6_tr", 1.0, 0.5)];
        assert_eq!(vocabulary_128k_beats_32k(&rows).verdict, CannotTell);
    }

    /// The seven models of the paper's Table 2, as the hub names them: BERTurk exists at
    /// base size only, so the paper's "large … mono 128k" rows are the 128k vocabularies,
    /// and the size finding pairs each 32k checkpoint with the 128k one of its casing.
    #[test]
    fn the_papers_checkpoints_and_the_size_pairs() {
        let ids: Vec<&str> = CHECKPOINTS.iter().map(|c| c.id).collect();
        assert_eq!(
            ids,
            [
                "dbmdz/bert-base-turkish-cased",
                "dbmdz/bert-base-turkish-uncased",
                "dbmdz/bert-base-turkish-128k-cased",
                "dbmdz/bert-base-turkish-128k-uncased",
                "bert-base-multilingual-cased",
                "bert-base-multilingual-uncased",
                "google/mt5-base",
            ]
        );
        let large: Vec<&str> = CHECKPOINTS
            .iter()
            .filter(|c| c.size == PaperSize::Large)
            .map(|c| c.table_2.unwrap())
            .collect();
        assert_eq!(
            large,
            [
                "BERTurk (large, cased) mono 128k",
                "BERTurk (large, uncased) mono 128k"
            ]
        );
        let rows: Vec<SeatRow> = ids.iter().map(|m| r(m, "weat6_tr", 0.5, 0.5)).collect();
        assert_eq!(
            vocabulary_pairs(&rows),
            [
                (
                    "dbmdz/bert-base-turkish-128k-cased",
                    "dbmdz/bert-base-turkish-cased"
                ),
                (
                    "dbmdz/bert-base-turkish-128k-uncased",
                    "dbmdz/bert-base-turkish-uncased"
                ),
            ]
        );
        // A local folder named as the checkpoint is that checkpoint.
        assert_eq!(
            checkpoint("/models/bert-base-turkish-128k-uncased").map(|c| c.id),
            Some(LU)
        );
        assert_eq!(checkpoint(MINILM), None);
        assert!(turkish_capable(MT5) && turkish_capable("FacebookAI/xlm-roberta-base"));
        assert!(!turkish_capable(MINILM));
        // Only the model's own name counts, not the folders it sits in.
        assert!(!turkish_capable("/data/turkish/all-MiniLM-L6-v2"));
    }

    /// An English stand-in gives numbers, never a verdict: every finding is "cannot
    /// tell", and where a check could count on the stand-in, its counts are shown.
    #[test]
    fn a_stand_in_gives_no_verdict() {
        let rows = vec![
            r(MINILM, "weat6_tr", 0.9, 0.20),
            r(MINILM, "sent-weat6_tr", 0.5, 0.01),
            r(MINILM, "weat4_tr", 0.1, 0.95),
        ];
        let f = findings(&rows);
        assert!(f.iter().all(|f| f.verdict == CannotTell), "{f:?}");
        assert!(
            f.iter()
                .all(|f| f.evidence.starts_with("no Turkish-capable model ran")),
            "{f:?}"
        );
        assert!(
            f[0].evidence.ends_with(
                "; on the stand-ins, numbers only: 1 of 1 (model, test) pairs of Tests 6 and 8 \
                 have a smaller p at sentence level"
            ),
            "{}",
            f[0].evidence
        );
        // Beside a Turkish-capable model, the stand-in's rows are left out of the verdict.
        let mut both = rows.clone();
        both.extend([
            r(TC, "weat6_tr", 0.9, 0.01),
            r(TC, "sent-weat6_tr", 0.5, 0.20),
        ]);
        let f = findings(&both);
        assert_eq!(f[0].verdict, DoesNotHold);
        assert_eq!(
            f[0].evidence,
            "0 of 1 (model, test) pairs of Tests 6 and 8 have a smaller p at sentence level"
        );
    }

    #[test]
    fn the_level_finding_is_checked_on_tests_6_and_8_and_ours_wider() {
        // C4 and C7 at both levels count only in our wider check.
        let rows = vec![
            r(TC, "weat6_tr", 0.9, 0.20),
            r(TC, "sent-weat6_tr", 0.5, 0.01),
            r(TC, "weat4_tr", 0.9, 0.01),
            r(TC, "sent-weat4_tr", 0.5, 0.20),
            r(TC, "weat7_tr", 0.9, 0.01),
            r(TC, "sent-weat7_tr", 0.5, 0.20),
        ];
        assert_eq!(sentence_beats_word(&rows).verdict, Holds);
        let f = levels_wider(&rows);
        assert_eq!(
            (f.verdict, f.section),
            (DoesNotHold, "§4.1 (our extension)")
        );
        assert_eq!(
            f.evidence,
            "smaller p at sentence level in 1 of 3 (model, test) pairs; larger |d| at word \
             level in 3 of 3"
        );
    }

    #[test]
    fn test_8_on_multilingual_models_by_level() {
        let rows = vec![
            r(MC, "weat8_tr", 0.9, 0.30),
            r(MC, "sent-weat8_tr", 0.5, 0.01),
            r(MT5, "weat8b_tr", 0.9, 0.60),
            r(MT5, "sent-weat8b_tr", 0.5, 0.02),
            // Monolingual: not part of the claim.
            r(TC, "weat8_tr", 0.9, 0.01),
        ];
        let f = test_8_multilingual(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "multilingual models, C8 (main, b, religious): 0 of 2 word-level and 2 of 2 \
             sentence-level results with p < 0.05"
        );
        let mut word_significant = rows.clone();
        word_significant[0].p_value = 0.04;
        assert_eq!(test_8_multilingual(&word_significant).verdict, DoesNotHold);
        assert_eq!(test_8_multilingual(&rows[4..]).verdict, CannotTell);
    }

    #[test]
    fn c4_at_word_level_significant_for_no_model() {
        let rows = vec![
            r(TC, "weat4_tr", 0.1, 0.97),
            r(MT5, "weat4b_tr", 0.1, 0.50),
            r(MT5, "sent-weat4_tr", 0.4, 0.01),
        ];
        let f = c4_word_insignificant(&rows);
        assert_eq!(f.verdict, Holds);
        // The verdict is on the word level; "p ≈ 1" is counted over both levels.
        assert_eq!(
            f.evidence,
            "0 of 2 word-level C4 results (main, b, religious) with p < 0.05; at both levels, \
             1 of 3 C4 results with p > 0.9"
        );
        assert!(
            f.claim.contains("said of WEAT and SEAT 4 together"),
            "{}",
            f.claim
        );
        let mut one = rows.clone();
        one[1].p_value = 0.03;
        assert_eq!(c4_word_insignificant(&one).verdict, DoesNotHold);
        assert_eq!(c4_word_insignificant(&rows[2..]).verdict, CannotTell);
    }

    #[test]
    fn monolingual_models_less_biased_by_share_of_significant_results() {
        let rows = vec![
            r(TC, "weat6_tr", 0.1, 0.01),
            r(TC, "weat7_tr", 0.1, 0.50),
            r(MC, "weat6_tr", 0.1, 0.01),
            r(MC, "weat7_tr", 0.1, 0.01),
            r(MINILM, "weat6_tr", 0.1, 0.50),
        ];
        let f = monolingual_less_biased(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "share of results with p < 0.05: monolingual 0.50 (1 model), multilingual 1.00 \
             (1 model)"
        );
        assert_eq!(monolingual_less_biased(&rows[..2]).verdict, CannotTell);
    }

    #[test]
    fn berturk_and_mbert_pick_up_the_double_bind() {
        let rows = vec![
            r(TC, "heilman_double_bind_competent_one_word_tr", 0.5, 0.01),
            r(MU, "heilman_double_bind_likable_1_tr", 0.5, 0.20),
            r(
                MC,
                "sent-heilman_double_bind_competent_one_word_tr",
                0.5,
                0.03,
            ),
            // mT5 is not part of this claim.
            r(MT5, "heilman_double_bind_likable_1_tr", 0.5, 0.90),
        ];
        let f = double_bind_picked_up(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "2 of 3 BERTurk/mBERT models have a Double Bind test with p < 0.05"
        );
        assert_eq!(double_bind_picked_up(&rows[1..]).verdict, DoesNotHold);
        assert_eq!(double_bind_picked_up(&rows[3..]).verdict, CannotTell);
    }

    #[test]
    fn bleached_and_unbleached_agree() {
        let [(b, u), (br, ur), _] = BLEACHED_UNBLEACHED;
        let rows = vec![
            r(TC, b, 0.5, 0.01),
            r(TC, u, 0.5, 0.02),
            r(TC, br, 0.5, 0.30),
            r(TC, ur, 0.5, 0.40),
            r(MC, b, 0.5, 0.01),
            r(MC, u, 0.5, 0.40),
        ];
        let f = context_neutral(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "2 of 3 (model, test) bleached/unbleached pairs agree on p < 0.05 (1 with p < 0.05 \
             in both)"
        );
        assert_eq!(context_neutral(&rows[4..]).verdict, DoesNotHold);
        assert_eq!(context_neutral(&rows[..1]).verdict, CannotTell);
    }

    #[test]
    fn unbleached_on_the_smaller_models_and_likable_nowhere() {
        let [competent, religious] = COMPETENT_UNBLEACHED;
        let rows = vec![
            r(TU, competent, 0.3, 0.20),
            r(TC, religious, 0.3, 0.60),
            // The paper's "large" BERTurk is not one of the smaller models, and the paper's
            // "smaller models" speaks of BERTurk sizes: mT5 and mBERT are not among them.
            r(LU, competent, 0.42, 0.01),
            r(MT5, religious, 0.3, 0.01),
            r(MC, competent, 0.3, 0.01),
        ];
        let f = unbleached_insignificant_on_smaller_models(&rows);
        assert_eq!(f.verdict, Holds);
        assert_eq!(
            f.evidence,
            "0 of 2 unbleached competent results of the BERTurk \"base\" (32k) models with \
             p < 0.05"
        );
        assert_eq!(
            unbleached_insignificant_on_smaller_models(&rows[2..]).verdict,
            CannotTell
        );
        let likable = mbert((1.2, 0.005), (0.4, 0.2));
        let f = likable_insignificant(&likable);
        assert_eq!(f.verdict, DoesNotHold);
        assert_eq!(f.evidence, "4 of 8 likable results with p < 0.05");
        // The two statements of the paper cannot both hold on the same rows.
        assert_eq!(mbert_likable(&likable).verdict, Holds);
    }

    #[test]
    fn figure_1_rows_in_the_papers_order_copies_last() {
        let rows = vec![
            r(MINILM, "weat6_tr", 0.1, 0.5),
            copy(r(TU, "weat6_tr", 0.1, 0.5)),
            r(MT5, "weat6_tr", 0.1, 0.5),
            r(TU, "weat6_tr", 0.1, 0.5),
            r(TC, "weat6_tr", 0.1, 0.5),
            copy(r(MINILM, "weat6_tr", 0.1, 0.5)),
            r(LU, "weat6_tr", 0.1, 0.5),
        ];
        let order: Vec<(String, bool)> = figure_1_order(&rows)
            .into_iter()
            .map(|r| (r.model, r.lowercased_copy))
            .collect();
        let want = [
            (TC, false),
            (TU, false),
            (LU, false),
            (MT5, false),
            (MINILM, false),
            (TU, true),
            (MINILM, true),
        ];
        assert_eq!(order, want.map(|(m, c)| (m.to_owned(), c)).to_vec());
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
        assert_eq!(findings(&rows)[8].claim, uncased_beats_cased(&rows).claim);
        assert_eq!(findings(&rows)[8].verdict, DoesNotHold);
        assert_eq!(uncased_beats_cased(&rows).verdict, Holds);
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
