//! Embedding files: JSON objects and word2vec/GloVe text; every bad file is a one-line error
//! naming it and the text or line at fault.

use std::path::Path;

use lmbias_data::word_vectors::VectorProblem;
use lmbias_data::{Embeddings, EmbeddingsError, WordVectors};

use crate::chain;

fn parse(content: &str) -> Result<Embeddings, String> {
    Embeddings::from_slice(Path::new("emb.txt"), content.as_bytes()).map_err(|e| {
        let message = chain(&e);
        assert!(!message.contains('\n'), "not one line: {message}");
        assert!(
            message.starts_with("emb.txt: "),
            "does not name the file: {message}"
        );
        message
    })
}

#[test]
fn json_with_sentences_as_keys() {
    let e =
        parse(r#"{"This is an aster.": [1, 2.5, -3e-2], "\"Quoted\", café!": [0, 0, 1]}"#).unwrap();
    assert_eq!(e.dim(), 3);
    assert_eq!(e.len(), 2);
    assert_eq!(e.get("This is an aster."), Some(&[1.0, 2.5, -0.03][..]));
    assert_eq!(e.get("\"Quoted\", café!"), Some(&[0.0, 0.0, 1.0][..]));
}

#[test]
fn json_and_text_read_the_same_digits_as_the_same_numbers() {
    // 17 significant digits, as numpy writes float64: serde_json alone reads about one in
    // six of these one ulp off (0.48999513279988860 among them), str::parse none.
    let mut state: u64 = 12345;
    let mut values = vec!["0.48999513279988860".to_owned()];
    for _ in 0..299 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = f64::from_bits((state >> 12) | 0x3FF0000000000000) - 1.5;
        values.push(format!("{x:.17}"));
    }
    let rows: Vec<&[String]> = values.chunks(3).collect();
    // Keys with digits and escapes in them are texts, not numbers: `w0-1e5"2` …
    let key = |i: usize| format!(r#"w{i}-1e5\"2"#);
    let json = rows
        .iter()
        .enumerate()
        .map(|(i, row)| format!("\"{}\": [{}]", key(i), row.join(", ")))
        .collect::<Vec<_>>()
        .join(",\n");
    let json = parse(&format!("{{{json}}}")).unwrap();
    let text = rows
        .iter()
        .enumerate()
        .map(|(i, row)| format!("w{i} {}\n", row.join(" ")))
        .collect::<String>();
    let text = parse(&text).unwrap();
    let mut off_by_serde = 0;
    for (i, row) in rows.iter().enumerate() {
        let exact: Vec<f64> = row.iter().map(|v| v.parse().unwrap()).collect();
        let serde: Vec<f64> = row
            .iter()
            .map(|v| serde_json::from_str::<f64>(v).unwrap())
            .collect();
        off_by_serde += usize::from(exact != serde);
        let from_json = json.get(&format!("w{i}-1e5\"2")).unwrap();
        assert_eq!(from_json, exact.as_slice(), "row {i}");
        assert_eq!(
            text.get(&format!("w{i}")).unwrap(),
            exact.as_slice(),
            "row {i}"
        );
    }
    // The case this guards against does occur.
    assert!(off_by_serde > 0);
}

#[test]
fn word2vec_text_with_and_without_header() {
    let with = parse("2 3\nrose 0.1 0.2 0.3 \nant -1 0 1\n").unwrap();
    let without = parse("rose 0.1 0.2 0.3\nant -1 0 1").unwrap();
    assert_eq!(
        with,
        Embeddings::from_slice(Path::new("emb.txt"), b"rose 0.1 0.2 0.3\nant -1 0 1").unwrap()
    );
    assert_eq!(without.get("ant"), Some(&[-1.0, 0.0, 1.0][..]));
    assert_eq!(without.dim(), 3);
}

/// A repeated word keeps its first vector (gensim's rule) and is counted; a word may hold
/// spaces (Common Crawl GloVe's `. . .`); blank lines and CRLF are fine.
#[test]
fn word2vec_text_duplicates_and_words_with_spaces() {
    let e = parse("3 2\r\nrose 1 2\r\n\r\n. . . 3 4\r\nrose 5 6\r\n").unwrap();
    assert_eq!((e.len(), e.dim(), e.duplicates()), (2, 2, 1));
    assert_eq!(e.get("rose"), Some(&[1.0, 2.0][..]));
    assert_eq!(e.get(". . ."), Some(&[3.0, 4.0][..]));
    let json = parse(r#"{"rose": [1, 2]}"#).unwrap();
    assert_eq!(json.duplicates(), 0);
}

/// One reader, two value types: f64 (`--embeddings`) keeps the nearest f64 of each value,
/// f32 (lmbias-static's `--model`) the nearest f32, where 1e39 is out of range.
#[test]
fn word_vectors_read_as_f32_or_f64() {
    let text = b"2 2\nrose 0.1 0.30000000000000004\n. . . 1e39 2\n";
    let wide = WordVectors::<f64>::read_text_from(Path::new("v.txt"), &text[..]).unwrap();
    assert_eq!(wide.get("rose"), Some(&[0.1, 0.30000000000000004][..]));
    assert_eq!(wide.get(". . ."), Some(&[1e39, 2.0][..]));
    assert_eq!(
        (wide.row("rose"), wide.row(". . ."), wide.row("Rose")),
        (Some(0), Some(1), None)
    );
    let err = WordVectors::<f32>::read_text_from(Path::new("v.txt"), &text[..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "v.txt: line 3: \". . .\": value 0 is inf, not a finite number"
    );
    let narrow =
        WordVectors::<f32>::read_text_from(Path::new("v.txt"), &b"rose 0.1 0.3"[..]).unwrap();
    assert_eq!(narrow.get("rose"), Some(&[0.1f32, 0.3][..]));

    let mut table = WordVectors::<f32>::new();
    assert_eq!(table.push("a", &[1.0, 2.0]), Ok(true));
    assert_eq!(table.push("a", &[3.0, 4.0]), Ok(false));
    assert_eq!(
        table.push("b", &[1.0]),
        Err(VectorProblem::Width {
            found: 1,
            expected: 2
        })
    );
    assert_eq!(table.push("c", &[]), Err(VectorProblem::Empty));
    assert_eq!(
        (table.len(), table.duplicates(), table.get("a")),
        (1, 1, Some(&[1.0f32, 2.0][..]))
    );
}

#[test]
fn missing_texts_are_all_listed() {
    let e = parse(r#"{"rose": [1, 0], "ant": [0, 1]}"#).unwrap();
    let texts = ["rose", "tulip", "ant", "A \"moth\".", "tulip"];
    let err = e.lookup(&texts).unwrap_err().to_string();
    assert_eq!(
        err,
        r#"emb.txt: 2 text(s) have no vector: "tulip", "A \"moth\".""#
    );
    let found = e.lookup(&["ant", "rose"]).unwrap();
    assert_eq!(found, vec![&[0.0, 1.0][..], &[1.0, 0.0][..]]);
}

#[test]
fn bad_json_files_are_one_line_errors() {
    for (content, expected) in [
        ("", "emb.txt: empty file"),
        (
            "{}",
            "emb.txt: invalid embeddings JSON: no vectors at line 1 column 2",
        ),
        (
            r#"{"a": [1, 2], "b": [1]}"#,
            "emb.txt: invalid embeddings JSON: \"b\": 1 values, but earlier vectors have 2 at line 1 column 23",
        ),
        (
            r#"{"a": [1, 2], "a": [3, 4]}"#,
            "emb.txt: invalid embeddings JSON: \"a\" appears twice at line 1 column 26",
        ),
        (
            r#"{"a": []}"#,
            "emb.txt: invalid embeddings JSON: \"a\": empty vector at line 1 column 9",
        ),
        (
            r#"{"a": [1, NaN]}"#,
            "emb.txt: invalid embeddings JSON: expected value at line 1 column 11",
        ),
        (
            r#"{"a": [1, 1e999]}"#,
            "emb.txt: invalid embeddings JSON: number out of range at line 1 column 15",
        ),
        (
            r#"{"a": [1, "x"]}"#,
            "emb.txt: invalid embeddings JSON: invalid type: string \"x\", expected f64 at line 1 column 13",
        ),
        (
            r#"{"a": [1, 2]} trailing"#,
            "emb.txt: invalid embeddings JSON: trailing characters at line 1 column 15",
        ),
        (
            "{\"a\": [1, 2]",
            "emb.txt: invalid embeddings JSON: EOF while parsing an object at line 1 column 12",
        ),
    ] {
        assert_eq!(parse(content).unwrap_err(), expected, "for {content:?}");
    }
}

/// The rules of the one word2vec/GloVe text reader (`lmbias_data::word_vectors`), which
/// lmbias-static's `--model FILE.txt` shares: its messages, not this crate's earlier ones.
#[test]
fn bad_text_files_are_one_line_errors() {
    for (content, expected) in [
        (
            "rose 1 2\nant 1",
            "emb.txt: line 2: \"ant\": 1 values, expected 2",
        ),
        (
            "3 2\nrose 1 2\nant 1 2",
            "emb.txt: the header announces 3 vectors, the file has 2",
        ),
        (
            "2 3\nrose 1 2\nant 1 2",
            "emb.txt: line 2: \"rose\": 2 values, expected 3",
        ),
        (
            "rose 1 x",
            "emb.txt: line 1: \"rose\": value 1 (\"x\") is not a number",
        ),
        (
            "rose 1 nan",
            "emb.txt: line 1: \"rose\": value 1 is NaN, not a finite number",
        ),
        (
            "rose 1 inf",
            "emb.txt: line 1: \"rose\": value 1 is inf, not a finite number",
        ),
        ("rose\n", "emb.txt: line 1: \"rose\": no values"),
        (
            "rose 1 2\nant 1 2 3",
            "emb.txt: line 2: \"ant\": 3 values, expected 2",
        ),
        ("2 0\n", "emb.txt: line 1: header: dimension 0"),
        // A header claiming a huge width reserves nothing like it: the first vector is
        // refused for its width (it aborted the process, asking for 4 TB).
        (
            "10 100000000000\nthe 0.1 0.2\n",
            "emb.txt: line 2: \"the\": 2 values, expected 100000000000",
        ),
        ("0 300\n", "emb.txt: no vectors"),
    ] {
        assert_eq!(parse(content).unwrap_err(), expected, "for {content:?}");
    }
    // Text is checked line by line: the message says where it stops being UTF-8.
    let err = Embeddings::from_slice(Path::new("emb.txt"), &[b'a', b' ', 0xff, 0xfe]).unwrap_err();
    assert_eq!(
        chain(&err),
        "emb.txt: line 1: not UTF-8 (bad byte at column 3)"
    );
    let err = Embeddings::from_slice(Path::new("emb.json"), b"{\"a\xff\": [1]}").unwrap_err();
    assert_eq!(err.to_string(), "emb.json: not valid UTF-8 text");
    assert_eq!(
        chain(&err),
        "emb.json: not valid UTF-8 text: invalid utf-8 sequence of 1 bytes from index 3"
    );
    let err = Embeddings::from_path(Path::new("/nonexistent/emb.json")).unwrap_err();
    assert!(
        chain(&err).starts_with("/nonexistent/emb.json: cannot read: No such file"),
        "{err}"
    );
    assert!(
        matches!(&err, EmbeddingsError::Read(read) if read.source.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
}

/// `lmbias embed --json`'s object is read as texts paired with vectors (issue #49, item 3); a
/// text embedded twice keeps one vector, and a file whose counts or vectors disagree is refused.
#[test]
fn embed_output_pairs_texts_with_vectors() {
    let e = parse(
        r#"{"model": "m", "static": false, "pooling": "mean", "layer": 3,
            "texts": ["a rose", "a bee", "a rose"],
            "vectors": [[0.5, -1.0], [2.0, 0.25], [0.5, -1.0]],
            "tokens": [["a", "rose"], ["a", "bee"], ["a", "rose"]], "no_vector": [[], [], []]}"#,
    )
    .unwrap();
    assert_eq!(e.len(), 2);
    assert_eq!(e.get("a rose"), Some(&[0.5, -1.0][..]));
    assert_eq!(e.get("a bee"), Some(&[2.0, 0.25][..]));
    let err = parse(r#"{"texts": ["a", "b"], "vectors": [[1.0]]}"#).unwrap_err();
    assert!(err.contains("2 texts but 1 vectors"), "{err}");
    let err = parse(r#"{"texts": ["a", "a"], "vectors": [[1.0], [2.0]]}"#).unwrap_err();
    assert!(err.contains("\"a\" has two different vectors"), "{err}");
    let err = parse(r#"{"texts": ["a", "b"], "vectors": [[1.0], [2.0, 3.0]]}"#).unwrap_err();
    assert!(err.contains("\"b\""), "{err}");
    // A word file whose words are "texts" and "vectors" is still a word file.
    let words = parse(r#"{"texts": [1.0, 2.0], "vectors": [3.0, 4.0]}"#).unwrap();
    assert_eq!(words.get("vectors"), Some(&[3.0, 4.0][..]));
}
