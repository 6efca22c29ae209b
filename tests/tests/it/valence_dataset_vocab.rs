//! datasets/valence/eme-me-60.json on bert-base-uncased's vocabulary (all-MiniLM-L6-v2
//! ships it), as `lmbias valence` sees it. Annotation keys may be any one word, so the
//! set annotates archaic fills such as *hath* and *thine* that this vocabulary splits:
//! for an uncased BERT those keys are skipped and counted in the coverage report, and
//! every other key is matched when the model proposes it, so no annotated token is
//! scored 0 without the report saying so.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::num::NonZeroUsize;

use lmbias_data::valence::{AnnotationSource, ValenceDataset};
use lmbias_encoder::{EncoderError, MaskedLm, Prediction};
use lmbias_studies::valence;
use lmbias_text::Tokenizer;

/// bert-base-uncased's vocabulary, proposing for each sentence exactly the keys it
/// annotates that the tokenizer can produce as one piece, with equal probabilities.
struct ProposesItsAnnotations {
    tokenizer: Tokenizer,
    proposals: HashMap<String, Vec<String>>,
}

impl MaskedLm for ProposesItsAnnotations {
    fn model_name(&self) -> &str {
        "bert-base-uncased vocabulary"
    }

    fn mask_token(&self) -> &str {
        "[MASK]"
    }

    fn fill_mask(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Prediction>>, EncoderError> {
        Ok(texts
            .iter()
            .map(|text| {
                let tokens = &self.proposals[*text];
                tokens
                    .iter()
                    .take(top_k)
                    .map(|t| Prediction {
                        token: t.clone(),
                        id: self.tokenizer.piece_id(t).unwrap(),
                        prob: 1.0 / tokens.len() as f32,
                    })
                    .collect()
            })
            .collect())
    }

    fn piece_id(&self, token: &str) -> Option<u32> {
        self.tokenizer.piece_id(token)
    }

    fn token_probs(&self, _: &str, _: &[u32]) -> Result<Vec<f32>, EncoderError> {
        Err(EncoderError::Backend(
            "the valence study never asks for token_probs".into(),
        ))
    }
}

#[test]
fn eme_me_60_keys_an_uncased_bert_splits_are_skipped_and_counted_the_rest_matched() {
    let path = lmbias_tests::repo_root().join("datasets/valence/eme-me-60.json");
    let dataset = ValenceDataset::load(&path).unwrap();
    let dir = lmbias_tests::minilm_dir();
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

    let proposals = dataset
        .sentences()
        .iter()
        .map(|s| {
            let usable = s.annotations().keys().filter(|k| vocab.contains(*k));
            (s.text().to_owned(), usable.cloned().collect())
        })
        .collect();
    let lm = ProposesItsAnnotations {
        tokenizer,
        proposals,
    };
    // k = the most annotations any sentence has, so every usable key is proposed.
    let most = dataset
        .sentences()
        .iter()
        .map(|s| s.annotations().len())
        .max()
        .unwrap();
    let result = valence::run(&lm, &dataset, NonZeroUsize::new(most).unwrap()).unwrap();

    // Coverage: the split keys, each counted once per sentence that annotates it.
    let c = &result.coverage;
    let unusable: Vec<&String> = c.unusable.iter().collect();
    assert_eq!(unusable, split.iter().copied().collect::<Vec<_>>());
    assert_eq!(c.annotation_keys, keys().count());
    assert_eq!(c.annotation_keys - c.annotation_usable, split_uses);
    assert_eq!((c.lexicon_keys, c.lexicon_usable), (0, 0));
    // The numbers datasets/README.md's validation block prints for this vocabulary.
    assert_eq!((c.annotation_keys, c.annotation_usable), (1053, 977));
    assert_eq!(c.unusable.len(), 68);
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
