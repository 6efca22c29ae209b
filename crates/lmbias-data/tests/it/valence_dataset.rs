//! The shipped temporal valence set loads under every validation rule.

use std::path::Path;

use lmbias_data::valence::{Group, ValenceDataset, ValenceSentence};

fn shipped() -> ValenceDataset {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/valence/eme-me-60.json");
    ValenceDataset::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn sentence<'a>(d: &'a ValenceDataset, id: &str) -> &'a ValenceSentence {
    d.sentences()
        .iter()
        .find(|s| s.id() == id)
        .unwrap_or_else(|| panic!("no sentence {id}"))
}

/// x(t, s) as annotated in the sentence itself.
fn x(s: &ValenceSentence, token: &str) -> Option<f64> {
    s.annotations().get(token).map(|v| v.value())
}

#[test]
fn eme_me_60_loads_with_one_mask_a_source_and_a_valence_per_sentence() {
    let d = shipped();
    assert_eq!(d.name(), "eme-me-60");
    assert_eq!(d.sentences().len(), 60);
    for g in Group::ALL {
        let n = d.sentences().iter().filter(|s| s.group() == g).count();
        assert_eq!(n, 20, "group {g}");
    }
    for s in d.sentences() {
        assert_eq!(s.text().matches(d.mask()).count(), 1, "{}", s.id());
        assert!(!s.source().trim().is_empty(), "{}", s.id());
        let v = s.valence().value();
        let admitted = match s.group() {
            Group::EarlyModern => v < 0.0,
            Group::Neutral => v.abs() <= 0.5,
            Group::Modern => v > 0.0,
        };
        assert!(admitted, "{}: v = {v} in group {}", s.id(), s.group());
        assert!(!s.annotations().is_empty(), "{} has no annotations", s.id());
    }
}

/// The paper's two example sentences sit at stable ids (the report prints them in
/// the shape of the paper's Tables 1–3), annotated as the paper annotates them.
#[test]
fn eme_me_60_holds_the_papers_examples_at_eme_01_and_neu_01() {
    let d = shipped();
    let eme = sentence(&d, "eme-01");
    assert_eq!(eme.text(), "Why wilt [MASK] be offended by that?");
    assert_eq!(eme.group(), Group::EarlyModern);
    assert_eq!(eme.valence().value(), -1.0);
    assert_eq!(x(eme, "thou"), Some(-1.0));
    assert_eq!(x(eme, "not"), Some(0.0));

    let neutral = sentence(&d, "neu-01");
    assert_eq!(
        neutral.text(),
        "Have you come [MASK] to torment us before the time?"
    );
    assert_eq!(neutral.group(), Group::Neutral);
    assert_eq!(neutral.valence().value(), 0.0);
    assert_eq!(x(neutral, "here"), Some(0.0));
}

/// Every Early Modern sentence can be filled with an Early-Modern-only (−1) one-piece
/// form, and every Modern sentence with a modern-leaning one; forms common to both
/// periods are 0, not +1 (datasets/README.md, annotation rules).
#[test]
fn eme_me_60_annotates_a_candidate_of_each_sentences_own_period() {
    let d = shipped();
    for s in d.sentences() {
        let values: Vec<f64> = s.annotations().values().map(|v| v.value()).collect();
        match s.group() {
            Group::EarlyModern => assert!(values.contains(&-1.0), "{} has no −1 candidate", s.id()),
            Group::Modern => assert!(
                values.iter().any(|&v| v > 0.0),
                "{} has no modern candidate",
                s.id()
            ),
            Group::Neutral => assert!(values.contains(&0.0), "{} has no neutral candidate", s.id()),
        }
    }
    assert_eq!(d.lexicon().len(), 87);
    let lexicon = |token: &str| d.lexicon().get(token).map(|v| v.value());
    assert_eq!(lexicon("thou"), Some(-1.0));
    assert_eq!(lexicon("you"), Some(0.0));
    assert_eq!(lexicon("has"), Some(0.5));
    assert_eq!(lexicon("email"), Some(1.0));
    // A regular -s form current in both periods is 0 (me-07, "She [MASK] to work from home").
    assert_eq!(x(sentence(&d, "me-07"), "likes"), Some(0.0));
}
