//! datasets/valence/eme-me-60.json on bert-base-uncased's vocabulary (all-MiniLM-L6-v2
//! ships it), as `lmbias valence` sees it. Annotation keys may be any one word, so the
//! set annotates archaic fills such as *hath* and *thine* that this vocabulary splits:
//! for an uncased BERT those keys are skipped and counted in the coverage report, and
//! every other key is matched when the model proposes it, so no annotated token is
//! scored 0 without the report saying so.

use std::collections::{BTreeSet, HashSet};
use std::num::NonZeroUsize;

use lmbias_core::testing::FakeMaskedLm;
use lmbias_data::valence::{AnnotationSource, ValenceDataset};
use lmbias_studies::valence::{self, Scoring};
use lmbias_text::Tokenizer;

#[test]
fn eme_me_60_keys_an_uncased_bert_splits_are_skipped_and_counted_the_rest_matched() {
    let path = lmbias_testing::repo_root().join("datasets/valence/eme-me-60.json");
    let dataset = ValenceDataset::load(&path).unwrap();
    let dir = crate::minilm::minilm_dir();
    let tokenizer = Tokenizer::from_dir(&dir).unwrap();
    // Independently of the tokenizer: the vocabulary file, as datasets/check.py reads it.
    let vocab: HashSet<String> = std::fs::read_to_string(dir.join("vocab.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();

    // Our set ships no global lexicon: every x is judged in its sentence.
    assert!(dataset.lexicon().is_empty());
    let keys = || {
        dataset
            .sentences()
            .iter()
            .flat_map(|s| s.annotations().keys())
    };
    let split: BTreeSet<&String> = keys().filter(|k| !vocab.contains(*k)).collect();
    let split_uses = keys().filter(|k| !vocab.contains(*k)).count();

    // bert-base-uncased's vocabulary, proposing for each sentence exactly the keys it
    // annotates that the vocabulary holds, with equal probabilities.
    let lm = dataset.sentences().iter().fold(
        FakeMaskedLm::with_piece_ids("bert-base-uncased vocabulary", "[MASK]", move |t| {
            tokenizer.piece_id(t)
        }),
        |lm, s| {
            let usable: Vec<&str> = s
                .annotations()
                .keys()
                .filter(|k| vocab.contains(*k))
                .map(String::as_str)
                .collect();
            let prob = 1.0 / usable.len() as f32;
            let proposals: Vec<(&str, f32)> = usable.into_iter().map(|t| (t, prob)).collect();
            lm.with_answer(s.text(), &proposals)
        },
    );
    // k = the most annotations any sentence has, so every usable key is proposed.
    let most = dataset
        .sentences()
        .iter()
        .map(|s| s.annotations().len())
        .max()
        .unwrap();
    let result = valence::run(
        &lm,
        &dataset,
        &Scoring::new(NonZeroUsize::new(most).unwrap()),
    )
    .unwrap();

    // Coverage: the split keys, each counted once per sentence that annotates it.
    let c = &result.coverage;
    let unusable: Vec<&String> = c.unusable.iter().collect();
    assert_eq!(unusable, split.iter().copied().collect::<Vec<_>>());
    assert_eq!(c.annotation_keys, keys().count());
    assert_eq!(c.annotation_keys - c.annotation_usable, split_uses);
    assert_eq!((c.lexicon_keys, c.lexicon_usable), (0, 0));
    // The numbers datasets/README.md's validation block prints for this vocabulary.
    assert_eq!((c.annotation_keys, c.annotation_usable), (1359, 1277));
    assert_eq!(c.unusable.len(), 70);
    // The paper's wilt and hither, and the archaic forms the set now annotates, are split;
    // the one-piece archaic forms are not.
    for archaic in [
        "wilt",
        "hither",
        "hath",
        "thine",
        "shalt",
        "wherefore",
        "troth",
    ] {
        assert!(c.unusable.iter().any(|k| k == archaic), "{archaic}");
    }
    for piece in [
        "thou", "thee", "thy", "ye", "art", "morrow", "liege", "meet",
    ] {
        assert!(vocab.contains(piece), "{piece}");
        assert!(!c.unusable.iter().any(|k| k == piece), "{piece}");
    }

    // Every key the model can propose is matched when proposed: no proposal is
    // unannotated, so nothing counts as 0 without being reported.
    for (s, scored) in dataset.sentences().iter().zip(&result.sentences) {
        let usable = s
            .annotations()
            .keys()
            .filter(|k| vocab.contains(*k))
            .count();
        assert_eq!(scored.tokens.len(), usable, "{}", s.id());
        for t in &scored.tokens {
            assert_eq!(
                t.annotation,
                AnnotationSource::Sentence,
                "{}: {}",
                s.id(),
                t.token
            );
            assert_eq!(
                Some(t.valence),
                s.annotations().get(&t.token).map(|v| v.value())
            );
        }
        assert_eq!(scored.unannotated_mass, 0.0, "{}", s.id());
    }
    assert!(result.unannotated.is_empty());
    assert_eq!(result.unannotated_share(), Some(0.0));
}
