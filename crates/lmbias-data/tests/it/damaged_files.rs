//! Damaged copies of real files of every format lmbias-data reads (a SEAT test, the valence
//! dataset, a probe word list and its templates, an embeddings file, corpora, word vectors),
//! read from disk as the CLI reads them: cut short, bytes flipped, inserted, removed or
//! repeated, each answers with a one-line error (each cause once) or data, never a panic
//! (#35). `LMBIAS_FUZZ_CASES` sets the number of inputs for the longer run in
//! docs/reliability.md.

use std::path::Path;

use lmbias_data::corpus::Corpus;
use lmbias_data::probe::{load_templates, load_word_list};
use lmbias_data::valence::ValenceDataset;
use lmbias_data::{AssociationTest, Embeddings, LoadOptions, WordVectors};
use lmbias_testing::hostile::{cases, damaged, on_disk};
use proptest::prelude::*;

fn dataset(relative: &str) -> Vec<u8> {
    std::fs::read(lmbias_testing::repo_root().join("datasets").join(relative)).unwrap()
}

/// A result is data or one line that names the file and says each cause once.
fn sane<T, E: std::error::Error>(path: &Path, result: Result<T, E>) -> Result<(), TestCaseError> {
    if let Err(e) = result {
        let line = crate::chain(&e);
        prop_assert!(!line.contains('\n'), "{}", line);
        prop_assert!(line.len() < 2000, "{} bytes: {}", line.len(), line);
        let name = path.file_name().unwrap().to_string_lossy();
        prop_assert!(line.contains(&*name), "does not name the file: {}", line);
    }
    Ok(())
}

const EMBEDDINGS: &str = r#"{"thou": [0.1, -2, 3e-4], "you": [1, 1, 1], "hath": [0, 0, 0.5]}"#;
const VECTORS: &str = "3 2\nthou 0.1 0.2\nyou -1 2e-3\nhath 1 1\n";
const CORPUS: &str = "Thou art more lovely and more temperate.\n\nRough winds do shake the buds.\n";
const CORPUS_JSONL: &str = "{\"text\": \"Thou art more lovely.\"}\n{\"text\": \"Rough winds.\"}\n";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn seat_test(bytes in damaged(dataset("seat/en/sent-weat1.jsonl"))) {
        let path = on_disk("sent-weat1.jsonl", &bytes);
        sane(&path, AssociationTest::from_path(&path, &LoadOptions::default()))?;
    }

    #[test]
    fn valence_dataset(bytes in damaged(dataset("valence/eme-me-60.json"))) {
        let path = on_disk("eme-me-60.json", &bytes);
        sane(&path, ValenceDataset::load(&path))?;
    }

    #[test]
    fn probe_word_list(bytes in damaged(dataset("probe/gender.csv"))) {
        let path = on_disk("gender.csv", &bytes);
        sane(&path, load_word_list(&path))?;
    }

    #[test]
    fn probe_templates(bytes in damaged(dataset("probe/templates.txt"))) {
        let path = on_disk("templates.txt", &bytes);
        sane(&path, load_templates(&path))?;
    }

    #[test]
    fn embeddings_json(bytes in damaged(EMBEDDINGS.as_bytes().to_vec())) {
        let path = on_disk("embeddings.json", &bytes);
        sane(&path, Embeddings::from_path(&path))?;
    }

    #[test]
    fn word_vectors_text(bytes in damaged(VECTORS.as_bytes().to_vec())) {
        let path = on_disk("vectors.txt", &bytes);
        sane(&path, WordVectors::<f32>::read_text(&path))?;
    }

    #[test]
    fn corpus_text(bytes in damaged(CORPUS.as_bytes().to_vec())) {
        let path = on_disk("corpus.txt", &bytes);
        sane(&path, Corpus::read(&path))?;
    }

    #[test]
    fn corpus_jsonl(bytes in damaged(CORPUS_JSONL.as_bytes().to_vec())) {
        let path = on_disk("corpus.jsonl", &bytes);
        sane(&path, Corpus::read(&path))?;
    }
}
