//! Every annotation and lexicon token of datasets/valence/eme-me-60.json is one
//! piece of bert-base-uncased's vocabulary (all-MiniLM-L6-v2 ships that vocabulary),
//! as seen through lmbias-text's tokenizer: the check `lmbias valence` makes
//! before running a model.

use lmbias_data::valence::ValenceDataset;
use lmbias_encoder::{EncoderError, MaskedLm, Prediction};
use lmbias_studies::valence;
use lmbias_text::Tokenizer;

/// Only a vocabulary: the check never fills a mask.
struct VocabularyOnly(Tokenizer);

impl MaskedLm for VocabularyOnly {
    fn model_name(&self) -> &str {
        "bert-base-uncased vocabulary"
    }

    fn mask_token(&self) -> &str {
        "[MASK]"
    }

    fn fill_mask(&self, _: &[&str], _: usize) -> Result<Vec<Vec<Prediction>>, EncoderError> {
        Err(EncoderError::Backend(
            "a vocabulary cannot fill masks".into(),
        ))
    }

    fn piece_id(&self, token: &str) -> Option<u32> {
        self.0.piece_id(token)
    }

    fn token_probs(&self, _: &str, _: &[u32]) -> Result<Vec<f32>, EncoderError> {
        Err(EncoderError::Backend(
            "a vocabulary has no probabilities".into(),
        ))
    }
}

#[test]
fn eme_me_60_annotations_are_single_bert_uncased_pieces() {
    let path = lmbias_tests::repo_root().join("datasets/valence/eme-me-60.json");
    let dataset = ValenceDataset::load(&path).unwrap();
    let vocab = VocabularyOnly(Tokenizer::from_dir(lmbias_tests::minilm_dir()).unwrap());
    valence::check_vocabulary(&vocab, &dataset).unwrap_or_else(|e| panic!("{e}"));
    // The check is not vacuous: an archaic form the vocabulary splits is refused.
    assert!(vocab.piece_id("thou").is_some());
    assert_eq!(vocab.piece_id("forsooth"), None);
    // Archaic forms the dataset therefore cannot annotate (datasets/README.md): the
    // paper's own "wilt" and "hither", and hath/doth/thine, which is why no EME slot
    // masks them.
    for split in ["wilt", "hither", "hath", "doth", "thine"] {
        assert_eq!(vocab.piece_id(split), None, "{split}");
    }
    // The one-piece Early Modern forms the EME slots mask instead (eme-01 .. eme-20).
    let masked =
        "thou thee thy ye mine art brake pray be hence exceeding sore nay meet twain morrow liege";
    for piece in masked.split_whitespace() {
        assert!(vocab.piece_id(piece).is_some(), "{piece}");
    }
}
