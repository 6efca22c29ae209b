//! Damaged copies of real files of every format lmbias-data reads (a SEAT test, the valence
//! dataset, a probe word list and its templates, an embeddings file, corpora, word vectors,
//! CrowS-Pairs pairs and group terms, `--add-words` lists, valence lexicons, known-answer
//! claims), read from disk as the CLI reads them: cut short, bytes flipped, inserted, removed
//! or repeated, each answers with a one-line error (each cause once) or data, never a panic
//! (#35, #47). `LMBIAS_FUZZ_CASES` sets the number of inputs for the longer run in
//! docs/reliability.md. And every reader given what is not a file of text (a FIFO nobody
//! writes, a device, a folder, a loop of links, a sparse file) answers with one line naming
//! it, at once (#47).

use std::path::Path;

use lmbias_data::claims::ClaimsFile;
use lmbias_data::corpus::Corpus;
use lmbias_data::crows::{GroupTerms, PairSet};
use lmbias_data::lexicon::Lexicon;
use lmbias_data::probe::{load_templates, load_word_list};
use lmbias_data::valence::ValenceDataset;
use lmbias_data::{AssociationTest, Embeddings, LoadOptions, WordVectors, WordsFile};
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
const WORDS: &str = "# period forms\nhath\nthine\n\ndoth\n";

/// The first `lines` lines of a file under datasets/.
fn head(relative: &str, lines: usize) -> Vec<u8> {
    let text = dataset(relative);
    let end = text
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .nth(lines - 1)
        .map_or(text.len(), |(i, _)| i + 1);
    text[..end].to_vec()
}

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

    #[test]
    fn crows_pairs(bytes in damaged(head("crows-pairs/crows_pairs_anonymized.csv", 20))) {
        let path = on_disk("pairs.csv", &bytes);
        sane(&path, PairSet::read(&path))?;
    }

    #[test]
    fn group_terms(bytes in damaged(head("group-terms/en.csv", 30))) {
        let path = on_disk("terms.csv", &bytes);
        sane(&path, GroupTerms::read(&path))?;
    }

    #[test]
    fn added_words(bytes in damaged(WORDS.as_bytes().to_vec())) {
        let path = on_disk("words.txt", &bytes);
        sane(&path, WordsFile::read(&path))?;
    }

    #[test]
    fn valence_lexicon(bytes in damaged(head("valence/lexicon-v1.tsv", 40))) {
        let path = on_disk("lexicon.tsv", &bytes);
        sane(&path, Lexicon::read(&path))?;
    }

    #[test]
    fn claims(bytes in damaged(dataset("valence/known-answer-v2.json"))) {
        let path = on_disk("claims.json", &bytes);
        sane(&path, ClaimsFile::read(&path))?;
    }
}

/// Every reader of lmbias-data given a path, as the CLI would pass it on.
type Reader = (&'static str, fn(&Path) -> Result<(), String>);

fn readers() -> Vec<Reader> {
    fn line<T, E: std::error::Error>(result: Result<T, E>) -> Result<(), String> {
        result.map(drop).map_err(|e| crate::chain(&e))
    }
    vec![
        ("seat test", |p| {
            line(AssociationTest::from_path(p, &LoadOptions::default()))
        }),
        ("valence dataset", |p| line(ValenceDataset::load(p))),
        ("probe word list", |p| line(load_word_list(p))),
        ("probe templates", |p| line(load_templates(p))),
        ("embeddings", |p| line(Embeddings::from_path(p))),
        ("word vectors", |p| line(WordVectors::<f32>::read_text(p))),
        ("corpus", |p| line(Corpus::read(p))),
        ("crows pairs", |p| line(PairSet::read(p))),
        ("group terms", |p| line(GroupTerms::read(p))),
        ("added words", |p| line(WordsFile::read(p))),
        ("lexicon", |p| line(Lexicon::read(p))),
        ("claims", |p| line(ClaimsFile::read(p))),
    ]
}

/// A FIFO nobody writes, a device that gives nothing and one that never ends, a folder, a
/// loop of links, a link to nothing and a sparse file of 1 GiB: every reader refuses each in
/// one line naming it, within seconds and without reading the gigabyte.
#[cfg(unix)]
#[test]
fn every_reader_refuses_what_is_not_a_text_file_at_once() {
    let dir = std::env::temp_dir().join(format!("lmbias-file-types-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    let fifo = dir.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let (a, b) = (dir.join("loop-a"), dir.join("loop-b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let dangling = dir.join("dangling");
    std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
    let sparse = dir.join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let kinds = [
        fifo,
        "/dev/null".into(),
        "/dev/zero".into(),
        dir.join("folder"),
        a,
        dangling,
        sparse,
    ];
    for (reader, read) in readers() {
        for path in &kinds {
            let started = std::time::Instant::now();
            let error = read(path).expect_err(&format!("{reader} read {}", path.display()));
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "{reader}: {} took {:?}",
                path.display(),
                started.elapsed()
            );
            assert!(
                !error.contains('\n') && error.len() < 2000,
                "{reader}: {error}"
            );
            assert!(
                error.contains(&*path.display().to_string()),
                "{reader}: does not name {}: {error}",
                path.display()
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
