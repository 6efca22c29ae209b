//! Training corpora read from disk: the file's digest is what `sha256sum` prints, and a file
//! that cannot be read is a one-line error naming it, with the system's reason once.

use std::path::{Path, PathBuf};

use lmbias_data::corpus::{Corpus, CorpusError};

use crate::chain;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-data-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn a_corpus_file_reads_as_its_passages_and_digest() {
    let path = scratch("two.jsonl");
    std::fs::write(
        &path,
        "{\"text\": \"In the beginning\"}\n{\"text\": \"was the Word\"}\n",
    )
    .unwrap();
    let corpus = Corpus::read(&path).unwrap();
    assert_eq!(corpus.path(), path);
    assert_eq!(corpus.passages(), ["In the beginning", "was the Word"]);
    // `printf '{"text": "In the beginning"}\n{"text": "was the Word"}\n' | sha256sum`
    assert_eq!(
        corpus.sha256(),
        "4aaa8ce4dcb3e802f2798095d7bb32cff901351852a9f51e52d16e8074f815bf"
    );
}

#[test]
fn a_missing_corpus_is_one_line_naming_it() {
    let path = scratch("absent.txt");
    let e = Corpus::read(&path).unwrap_err();
    assert!(matches!(&e, CorpusError::Read(r) if r.source.kind() == std::io::ErrorKind::NotFound));
    let line = chain(&e);
    assert!(
        line.starts_with(&format!("{}: cannot read: ", path.display())),
        "{line}"
    );
    assert!(!line.contains('\n'));
}

/// A file without newlines (one 1 MB line) is cut into passages of at most
/// MAX_PASSAGE_BYTES at white space, every word kept whole and in order.
#[test]
fn a_line_without_end_is_cut_into_passages_at_white_space() {
    use lmbias_data::corpus::MAX_PASSAGE_BYTES;
    let words: Vec<String> = (0..150_000).map(|i| format!("w{i}")).collect();
    let text = words.join(" ");
    let corpus = Corpus::from_slice(Path::new("one-line.txt"), text.as_bytes()).unwrap();
    let passages = corpus.passages();
    assert!(
        passages.len() > text.len() / MAX_PASSAGE_BYTES,
        "{}",
        passages.len()
    );
    assert!(
        passages
            .iter()
            .all(|p| p.len() <= MAX_PASSAGE_BYTES && !p.is_empty())
    );
    let rejoined: Vec<&str> = passages.iter().flat_map(|p| p.split(' ')).collect();
    assert_eq!(rejoined, words);
    // A block without white space is cut at a character boundary.
    let long = "é".repeat(MAX_PASSAGE_BYTES);
    let corpus = Corpus::from_slice(Path::new("x.txt"), long.as_bytes()).unwrap();
    assert_eq!(corpus.passages().concat(), long);
    assert_eq!(corpus.passages().len(), 2);
}

#[test]
fn a_passage_is_numbered_by_its_line_or_its_given_line() {
    let text = scratch("numbered.txt");
    std::fs::write(&text, "first\n\n  third  \n").unwrap();
    let corpus = Corpus::read(&text).unwrap();
    assert_eq!(corpus.passages(), ["first", "third"]);
    assert_eq!(corpus.numbers(), [1, 3], "a blank line keeps its number");
    let jsonl = scratch("numbered.jsonl");
    std::fs::write(
        &jsonl,
        "{\"line\": 17, \"text\": \"a\"}\n{\"text\": \"b\"}\n{\"line\": 4, \"text\": \"c\"}\n",
    )
    .unwrap();
    assert_eq!(Corpus::read(&jsonl).unwrap().numbers(), [17, 2, 4]);
    for (bad, found) in [
        ("0", "\"0\""),
        ("-3", "\"-3\""),
        ("\"7\"", "\"\\\"7\\\"\""),
        ("1.5", "\"1.5\""),
    ] {
        std::fs::write(
            &jsonl,
            format!("{{\"text\": \"a\"}}\n{{\"line\": {bad}, \"text\": \"b\"}}\n"),
        )
        .unwrap();
        let err = Corpus::read(&jsonl).unwrap_err();
        assert!(
            matches!(err, CorpusError::LineNotNumber { line: 2, .. }),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "{}: line 2: field \"line\" is {found}, not a whole number from 1",
                jsonl.display()
            )
        );
    }
}
