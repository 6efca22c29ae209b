//! The likelihood measures' bookkeeping on a fake masked LM whose log-probabilities are known
//! (−ln(id + 2) for every piece, masked or not; uniform attention), so every score below is
//! worked out by hand: which pieces each measure reads, the originals' sentence order, ties,
//! skips and errors.

use std::path::Path;

use lmbias_core::testing::FakeMaskedLm;
use lmbias_data::crows::PairSet;
use lmbias_studies::crows::relative::relative;
use lmbias_studies::crows::summary::{Verdict, compare, summarize};
use lmbias_studies::crows::{CrowsError, Decision, Measure, Measures, score};

/// ids: <s> 0, </s> 1, the 2, man 3, woman 4, ran 5, home 6, very 7, far 8.
fn model() -> FakeMaskedLm {
    FakeMaskedLm::new(
        "fake",
        "<mask>",
        &[
            "<s>", "</s>", "the", "man", "woman", "ran", "home", "very", "far",
        ],
    )
}

fn lp(id: u32) -> f64 {
    -f64::from(id + 2).ln()
}

fn pairs(rows: &str) -> PairSet {
    let text = format!(",sent_more,sent_less,stereo_antistereo,bias_type\n{rows}");
    PairSet::from_slice(Path::new("pairs.csv"), text.as_bytes()).unwrap()
}

#[test]
fn each_measure_reads_its_own_pieces() {
    let set = pairs("0,the man ran home,the woman ran home,stereo,gender\n");
    let got = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    let p = &got[0];
    // Shared: <s> the ran home </s>; the PLL skips the template's first and last.
    assert_eq!(p.more.pll, lp(2) + lp(5) + lp(6));
    assert_eq!(p.less.pll, p.more.pll);
    assert_eq!(p.decisions.pll, Decision::Tie);
    // bias-bench: the modified piece alone.
    assert_eq!(p.more.bias_bench, Some(lp(3)));
    assert_eq!(p.less.bias_bench, Some(lp(4)));
    assert_eq!(p.decisions.bias_bench, Decision::Stereotypical);
    // AUL: every piece but the first and last, unmasked; AULA the same weighted by 1/6.
    let aul = (lp(2) + lp(3) + lp(5) + lp(6)) / 4.0;
    assert!((p.more.aul - aul).abs() < 1e-15);
    assert!((p.more.aula - aul / 6.0).abs() < 1e-15);
    assert_eq!(
        (p.modified_more.as_slice(), p.modified_less.as_slice()),
        (&["man".to_owned()][..], &["woman".to_owned()][..])
    );
}

/// An antistereo pair is diffed from sent_less to sent_more, as metric.py orders it, and a
/// pair whose sentence has no modified piece is skipped by bias-bench alone.
#[test]
fn directions_and_skips_follow_the_originals() {
    let set = pairs(
        "0,the woman ran home,the man ran home,antistereo,gender\n\
         1,the man ran very far,the man ran far,stereo,age\n",
    );
    let got = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    assert_eq!(got[0].decisions.bias_bench, Decision::NotStereotypical);
    assert_eq!(got[0].more.bias_bench, Some(lp(4)));
    // "the man ran far" has no piece the other lacks: bias-bench skips the pair.
    assert_eq!(got[1].decisions.bias_bench, Decision::Skipped);
    assert_eq!(got[1].more.bias_bench, None);
    assert_eq!(got[1].modified_more, ["very"]);
    let summary = summarize(&got, Measures::PAPERS);
    let bb = summary
        .iter()
        .find(|s| s.measure == Measure::BiasBench)
        .unwrap();
    assert_eq!((bb.overall.pairs, bb.skipped), (1, 1));
    assert_eq!(bb.overall.verdict, Verdict::NotSignificant);
    // Two runs of the same pairs never disagree.
    let tests = compare(&got, &got).unwrap();
    assert!(
        tests
            .iter()
            .all(|t| t.only_first == 0 && t.only_second == 0 && t.p_value == 1.0)
    );
    // Pairs match by line: one a run set aside is left out, as a tie is; another file's
    // pair on the same line is refused.
    let fewer = compare(&got, &got[..1]).unwrap();
    assert_eq!(fewer, compare(&got[..1], &got[..1]).unwrap());
    let mut other = got.clone();
    other[0].id = "x".into();
    assert_eq!(
        compare(&got, &other).unwrap_err().to_string(),
        "the two runs scored different pairs: line 2 is pair \"0\" in one and \"x\" in the other"
    );
}

/// Issue #47: pairs that differ only in what the tokenizer does not keep (here white space)
/// were scored as ties and counted, and a file of nothing else reported 0.0 %. They are set
/// aside like identical pairs, by line; a file of nothing else is an error.
#[test]
fn a_pair_the_tokenizer_reads_as_the_same_pieces_is_set_aside_not_tied() {
    let set = pairs(
        "0,the man ran home,the  man ran home,stereo,gender\n\
         1,the man ran home,the woman ran home,stereo,gender\n",
    );
    let got = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {}).unwrap();
    assert_eq!(got.same_pieces, [("0".to_owned(), 2)]);
    assert_eq!(got.pairs.len(), 1);
    assert_eq!((got.pairs[0].id.as_str(), got.pairs[0].line), ("1", 3));
    let set = pairs("0,the man ran home,the man ran  home,stereo,gender\n");
    let err = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {}).unwrap_err();
    assert_eq!(
        err.to_string(),
        "fake: no pair to score: of the 1 given, 1 are the same pieces to its tokenizer (they \
         differ only in case, white space or characters it does not keep)"
    );
}

#[test]
fn a_sentence_the_model_cannot_read_is_named_by_line_and_column() {
    let set = pairs("0,the man ran home,the dog ran home,stereo,gender\n");
    let err = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {}).unwrap_err();
    assert!(
        matches!(err, CrowsError::Sentence { line: 2, .. }),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "fake: line 2, sent_less");
}

/// Many decided pairs one way: the interval clears 50 % and the verdict says so; Holm adjusts
/// across the bias types.
#[test]
fn a_clear_majority_is_called_stereotypical() {
    let rows: String = (0..30)
        .map(|i| {
            format!(
                "{i},the man ran home,the woman ran home,stereo,{}\n",
                if i % 2 == 0 { "a" } else { "b" }
            )
        })
        .collect();
    let set = pairs(&rows);
    let got = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    let summary = summarize(&got, Measures::PAPERS);
    let bb = summary
        .iter()
        .find(|s| s.measure == Measure::BiasBench)
        .unwrap();
    assert_eq!(bb.overall.stereotypical, 30);
    assert_eq!(bb.overall.verdict, Verdict::Stereotypical);
    // 15 of 15 per type: p = 2 · 0.5^15 each, Holm doubles the smaller.
    let p = 2.0 * 0.5f64.powi(15);
    assert!((bb.bias_types["a"].p_value.unwrap() - p).abs() < 1e-15);
    assert!((bb.bias_types["a"].holm_p.unwrap() - 2.0 * p).abs() < 1e-15);
    // The PLL ties on every pair: no decided pair, no verdict.
    let pll = summary.iter().find(|s| s.measure == Measure::Pll).unwrap();
    assert_eq!(
        (pll.overall.ties, pll.overall.verdict),
        (30, Verdict::NoData)
    );
}

/// mlm-bias's measures on the fake (rank 1 + id % 3, best log-probability −ln 2, uniform
/// attention): CRR and ΔP read the sentence without its punctuation, every piece masked; a
/// lower CRR or ΔP counts for `sent_more`; SSS masks the modified pieces together.
#[test]
fn mlm_bias_s_measures_read_the_stripped_sentence_and_count_errors_downwards() {
    let model = FakeMaskedLm::new(
        "fake",
        "<mask>",
        &["<s>", "</s>", "the", "man", "woman", "ran", "home", "!"],
    );
    let set = pairs("0,the man ran home !,the woman ran home !,antistereo,gender\n");
    let got = score(&model, set.pairs(), Measures::ALL, &mut |_| {})
        .unwrap()
        .pairs;
    let p = &got[0];
    let rank = |id: u32| f64::from(1 + id % 3);
    // sent_more read as "the man ran home": ids 2 3 5 6; "!" is gone.
    let more = [2, 3, 5, 6];
    let mean = |f: &dyn Fn(u32) -> f64| more.iter().map(|&i| f(i)).sum::<f64>() / 4.0;
    let crr = mean(&|i| 1.0 - 1.0 / rank(i));
    assert!((p.more.crr.unwrap() - crr).abs() < 1e-15);
    let dp = mean(&|i| -(2f64.ln()) - lp(i));
    assert!((p.more.dp.unwrap() - dp).abs() < 1e-15);
    // w: the keys 1..T−2 of six pieces, each receiving 1/6.
    assert!((p.more.dpa.unwrap() - dp / 6.0).abs() < 1e-15);
    let crra = mean(&|i| (1.0 + rank(i).ln()) / 6.0);
    assert!((p.more.crra.unwrap() - crra).abs() < 1e-15);
    // man (3) ranks 1, woman (4) ranks 2: sent_more has the lower error, so CRR counts the
    // pair stereotypical whatever its direction.
    assert!(p.more.crr.unwrap() < p.less.crr.unwrap());
    assert_eq!(p.decisions.crr, Some(Decision::Stereotypical));
    // SSS: man alone modified, 1 × 1.
    assert_eq!(p.more.sss_mlm_bias, Some(lp(3)));
    assert_eq!(p.decisions.sss_mlm_bias, Some(Decision::Stereotypical));
    // Not asked for: absent, and the papers' four unchanged.
    let papers = score(&model, set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    assert_eq!((papers[0].more.crr, papers[0].decisions.dp), (None, None));
    assert_eq!(papers[0].more.pll, p.more.pll);
    let summary = summarize(&got, Measures::ALL);
    assert_eq!(summary.len(), 9);
    assert_eq!(
        Measures::parse(["crr", "sss-mlm-bias"])
            .unwrap()
            .iter()
            .count(),
        6
    );
    assert_eq!(
        Measures::parse(["crr", "ppl"]).unwrap_err().to_string(),
        "unknown measure \"ppl\": the measures are pll, bias_bench, aul, aula (always computed), \
         crr, crra, dp, dpa, sss_mlm_bias, or all"
    );
}

/// Relative bias: each pair's difference of differences by hand, the sign test's counts,
/// mlm-bias's formula as written beside it, and two tokenizations refused.
#[test]
fn relative_bias_is_the_difference_of_differences_beside_mlm_bias_s_formula() {
    let set = pairs(
        "0,the man ran home,the woman ran home,stereo,gender\n\
         1,the man ran far,the woman ran far,stereo,gender\n",
    );
    let base = score(&model(), set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    // The other model finds "man" (3) likelier by 0.5 and "far" (8) less likely by 2.
    let other = model().with_log_probs(|ids, p, _| {
        lp(ids[p])
            + match ids[p] {
                3 => 0.5,
                8 => -2.0,
                _ => 0.0,
            }
    });
    let other = score(&other, set.pairs(), Measures::PAPERS, &mut |_| {})
        .unwrap()
        .pairs;
    let r = relative(&base, &other).unwrap();
    // bias-bench reads the modified piece alone: d = (+0.5 − 0) − (0 − 0) on both pairs.
    let bb = r
        .measures
        .iter()
        .find(|m| m.measure == Measure::BiasBench)
        .unwrap();
    assert_eq!(r.pairs[0].differences["bias_bench"], 0.5);
    assert_eq!((bb.toward.stereotypical, bb.toward.pairs), (2, 2));
    assert_eq!(bb.mean_difference, Some(0.5));
    // mlm-bias's formula, (m2_S1 − m1_S1) − (m2_S2 − m2_S1): 0.5 − (lp(4) − (lp(3) + 0.5)) > 0.
    assert_eq!(bb.mlm_bias_formula, 100.0);
    // The PLL reads the shared pieces: "far" moved both sentences alike, so d = 0 (a tie).
    assert_eq!(r.pairs[1].differences["pll"], 0.0);
    let pll = r
        .measures
        .iter()
        .find(|m| m.measure == Measure::Pll)
        .unwrap();
    assert_eq!((pll.toward.ties, pll.toward.pairs), (2, 2));
    // Two tokenizations are refused, naming the line.
    let mut retokenized = other.clone();
    retokenized[1].more.tokens.push("!".into());
    assert_eq!(
        relative(&base, &retokenized).unwrap_err().to_string(),
        "the two models read line 3 as different pieces (6 and 7 pieces in sent_more): relative \
         bias needs two models of one vocabulary (e.g. a model and its fine-tuned copy)"
    );
}
