//! The shipped temporal valence set loads under every validation rule.

use std::path::Path;

use lmbias_data::valence::{Group, ValenceDataset, ValenceSentence, WordClass};

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
    assert_eq!(eme.word_class(), Some(WordClass::Pronoun));
    assert_eq!(eme.valence().value(), -1.0);
    assert_eq!(x(eme, "thou"), Some(-1.0));
    assert_eq!(x(eme, "not"), Some(0.0));

    let neutral = sentence(&d, "neu-01");
    assert_eq!(
        neutral.text(),
        "Have you come [MASK] to torment us before the time?"
    );
    assert_eq!(neutral.group(), Group::Neutral);
    assert_eq!(neutral.word_class(), Some(WordClass::Adverb));
    assert_eq!(neutral.valence().value(), 0.0);
    assert_eq!(x(neutral, "here"), Some(0.0));
    // The King James Bible's word in this verse, annotatable now that a key may be any word.
    assert_eq!(x(neutral, "hither"), Some(-1.0));

    // The Modern English example table is ours (xtask's VALENCE_EXAMPLES).
    let modern = sentence(&d, "me-05");
    assert_eq!(modern.text(), "Can you [MASK] me the report by Friday?");
    assert_eq!(
        (x(modern, "email"), x(modern, "send")),
        (Some(1.0), Some(0.0))
    );
}

/// Every Early Modern sentence can be filled with an Early-Modern-only (−1) form,
/// and every Modern sentence with a modern-leaning one; forms common to both
/// periods are 0, not +1 (datasets/README.md, annotation rules). No global lexicon.
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
        // 9–14 written with the set, plus the period models' top-5 proposals and the period
        // forms rated wherever they appear (issue #34; datasets/README.md).
        assert!(
            (8..=30).contains(&s.annotations().len()),
            "{}: {} annotations",
            s.id(),
            s.annotations().len()
        );
    }
    assert!(d.lexicon().is_empty());
    // A regular -s form current in both periods is 0 (me-07, "She [MASK] to work from home").
    assert_eq!(x(sentence(&d, "me-07"), "likes"), Some(0.0));
    // Archaic forms an uncased BERT splits are annotated all the same.
    assert_eq!(x(sentence(&d, "eme-06"), "hath"), Some(-1.0));
    assert_eq!(x(sentence(&d, "eme-03"), "thine"), Some(-1.0));
    // A punctuation mark the period models propose carries no period: 0.
    assert_eq!(x(sentence(&d, "neu-11"), ","), Some(0.0));
}

/// The paper masks "pronouns, verbs, adverbs, adjectives, and nouns" in every group:
/// each class four times per group (datasets/README.md's table), except that `me-03`
/// ("[MASK] is so cringe"), whose Modern candidates are nouns, is a noun: ME has three
/// pronouns and five nouns. Word class and period stay unconfounded.
#[test]
fn eme_me_60_masks_each_word_class_in_every_group() {
    let d = shipped();
    for g in Group::ALL {
        for c in WordClass::ALL {
            let n = d
                .sentences()
                .iter()
                .filter(|s| s.group() == g && s.word_class() == Some(c))
                .count();
            let want = match (g, c) {
                (Group::Modern, WordClass::Pronoun) => 3,
                (Group::Modern, WordClass::Noun) => 5,
                _ => 4,
            };
            assert_eq!(n, want, "{g} × {c}");
        }
    }
    assert_eq!(sentence(&d, "me-03").word_class(), Some(WordClass::Noun));
}

/// Where the same word is scored differently in two contexts, the sentences say why
/// (their notes): mail as a verb and as a noun, sore as an adverb and as "angry".
#[test]
fn eme_me_60_explains_context_dependent_scores_in_notes() {
    let d = shipped();
    for (id, word, value) in [
        ("me-05", "mail", 0.5),
        ("me-17", "mail", 0.0),
        ("eme-11", "sore", -1.0),
        ("eme-14", "sore", 0.5),
    ] {
        let s = sentence(&d, id);
        assert_eq!(x(s, word), Some(value), "{id}");
        assert!(s.notes().contains(word), "{id}: {}", s.notes());
    }
}
