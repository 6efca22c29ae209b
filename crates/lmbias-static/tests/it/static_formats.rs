//! The loaders: word2vec/GloVe text, word2vec binary, `.npy` + vocabulary; every bad file is
//! a one-line error naming the file and the line or vector, and no byte sequence panics.

use std::path::Path;

use lmbias_static::{StaticEmbeddings, StaticError};

use crate::{f32_le, npy_bytes, scratch};

/// The error of loading `path` with `load`, checked to be one line naming the file.
fn error_of(path: &Path, load: impl Fn(&Path) -> Result<StaticEmbeddings, StaticError>) -> String {
    let message = match load(path) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => e.to_string(),
    };
    assert!(!message.contains('\n'), "not one line: {message}");
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(message.contains(&*name), "{message:?} does not name {name}");
    message
}

/// A loader of one format.
type Load<'a> = &'a dyn Fn(&Path) -> Result<StaticEmbeddings, StaticError>;

fn text(path: &Path) -> Result<StaticEmbeddings, StaticError> {
    StaticEmbeddings::from_text(path)
}

fn binary(path: &Path) -> Result<StaticEmbeddings, StaticError> {
    StaticEmbeddings::from_word2vec_binary(path)
}

#[test]
fn static_text_glove_without_header() {
    let path = scratch(
        "glove.txt",
        "the 0.418 0.24968 -0.41242\nking 0.5 -1e-3 2\n",
    );
    let model = StaticEmbeddings::from_text(&path).unwrap();
    assert_eq!((model.len(), model.dim(), model.duplicates()), (2, 3, 0));
    assert_eq!(
        model.vector("the"),
        Some(&[0.418f32, 0.24968, -0.41242][..])
    );
    assert_eq!(model.vector("king"), Some(&[0.5f32, -0.001, 2.0][..]));
    assert!(model.vector("queen").is_none());
}

#[test]
fn static_text_word2vec_with_header_crlf_blank_lines_duplicates() {
    // word2vec's C tool writes a space after the last value; CRLF and blank lines are fine.
    let path = scratch(
        "w2v.txt",
        "3 2\r\nthe 1 2 \r\n\r\nKing 3 4 \r\nthe 5 6 \r\n\n",
    );
    let model = StaticEmbeddings::from_text(&path).unwrap();
    assert_eq!((model.len(), model.dim(), model.duplicates()), (2, 2, 1));
    // The first of two vectors of a word is kept, as gensim does.
    assert_eq!(model.vector("the"), Some(&[1.0f32, 2.0][..]));
    assert_eq!(model.vector("King"), Some(&[3.0f32, 4.0][..]));
}

#[test]
fn static_text_words_with_spaces() {
    // Common Crawl GloVe has lines such as ". . . 0.1 …": the word is ". . .".
    let path = scratch("spaces.txt", "a 1 2\n. . . 3 4\nat name@domain.com 5 6\n");
    let model = StaticEmbeddings::from_text(&path).unwrap();
    assert_eq!(model.vector(". . ."), Some(&[3.0f32, 4.0][..]));
    assert_eq!(model.vector("at name@domain.com"), Some(&[5.0f32, 6.0][..]));
    assert_eq!(model.len(), 3);
}

#[test]
fn static_text_bad_files() {
    let cases: &[(&str, &[u8], &str)] = &[
        (
            "nan.txt",
            b"a 1 2\nb nan 2\n",
            "line 2: \"b\": value 0 is NaN, not a finite number",
        ),
        (
            "inf.txt",
            b"a 1 2\nb 1 inf\n",
            "line 2: \"b\": value 1 is inf",
        ),
        (
            "overflow.txt",
            b"a 1 1e39\n",
            "line 1: \"a\": value 1 is inf",
        ),
        (
            "word.txt",
            b"a 1 2\nb 1 x\n",
            "line 2: \"b\": value 1 (\"x\") is not a number",
        ),
        (
            "short.txt",
            b"a 1 2\nb 1\n",
            "line 2: \"b\": 1 values, expected 2",
        ),
        (
            "long.txt",
            b"a 1 2\nb 1 2 3\n",
            "line 2: \"b\": 3 values, expected 2",
        ),
        (
            "header-short.txt",
            b"2 3\na 1 2\n",
            "line 2: \"a\": 2 values, expected 3",
        ),
        ("novalues.txt", b"a\n", "line 1: \"a\": no values"),
        (
            "lonely.txt",
            b"a 1\nb\n",
            "line 2: \"b\": 0 values, expected 1",
        ),
        (
            "count.txt",
            b"3 2\na 1 2\nb 3 4\n",
            "the header announces 3 vectors, the file has 2",
        ),
        ("dim0.txt", b"3 0\n", "line 1: header: dimension 0"),
        ("empty.txt", b"", "no vectors"),
        ("blank.txt", b"\n \n", "no vectors"),
        ("only-header.txt", b"0 5\n", "no vectors"),
        (
            "latin1.txt",
            b"a 1 2\ncaf\xe9 1 2\n",
            "line 2: not UTF-8 (bad byte at column 4)",
        ),
    ];
    for (name, bytes, expected) in cases {
        let message = error_of(&scratch(name, bytes), text);
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
    }
    let missing = std::env::temp_dir().join("lmbias-static-no-such-file.txt");
    let message = StaticEmbeddings::from_text(&missing)
        .unwrap_err()
        .to_string();
    assert!(
        message.contains("lmbias-static-no-such-file.txt"),
        "{message}"
    );
}

/// A word2vec binary file; `newline` after each vector as the C tool writes.
fn word2vec_binary(entries: &[(&[u8], &[f32])], dim: usize, newline: bool) -> Vec<u8> {
    let mut out = format!("{} {dim}\n", entries.len()).into_bytes();
    for (word, values) in entries {
        out.extend_from_slice(word);
        out.push(b' ');
        out.extend(f32_le(values));
        if newline {
            out.push(b'\n');
        }
    }
    out
}

#[test]
fn static_binary_with_and_without_newlines() {
    for newline in [true, false] {
        let bytes = word2vec_binary(
            &[
                (b"the", &[0.25, -1.5]),
                ("Zürich".as_bytes(), &[1e-30, 3.0]),
                (b"the", &[9.0, 9.0]),
            ],
            2,
            newline,
        );
        let model = StaticEmbeddings::from_word2vec_binary(scratch("w2v.bin", bytes)).unwrap();
        assert_eq!((model.len(), model.dim(), model.duplicates()), (2, 2, 1));
        assert_eq!(model.vector("the"), Some(&[0.25f32, -1.5][..]));
        assert_eq!(model.vector("Zürich"), Some(&[1e-30f32, 3.0][..]));
    }
}

#[test]
fn static_binary_bad_files() {
    let good = word2vec_binary(&[(b"a", &[1.0, 2.0]), (b"b", &[3.0, 4.0])], 2, true);
    let mut nan = good.clone();
    let at = nan.len() - 5; // b's second value
    nan[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    let mut latin1 = good.clone();
    latin1[4] = 0xe9; // the word "a"
    let mut trailing = good.clone();
    trailing.extend_from_slice(b"c ");
    let mut long_word = b"1 1\n".to_vec();
    long_word.extend(std::iter::repeat_n(b'x', 100_010));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "header.bin",
            b"two 2\n".to_vec(),
            "header: expected \"COUNT DIM\" on the first line, found \"two 2\"",
        ),
        (
            "header3.bin",
            b"1 2 3\n".to_vec(),
            "header: expected \"COUNT DIM\"",
        ),
        (
            "dim0.bin",
            b"1 0\na \n".to_vec(),
            "header: expected \"COUNT DIM\"",
        ),
        ("zero.bin", b"0 2\n".to_vec(), "header: 0 vectors"),
        (
            "huge.bin",
            b"1000000 300\nabc".to_vec(),
            "header: 1000000 vectors of 300 values cannot fit in the file's 15 bytes",
        ),
        (
            "overflow.bin",
            b"18446744073709551615 18446744073709551615\n".to_vec(),
            "cannot fit",
        ),
        (
            "truncated.bin",
            good[..good.len() - 3].to_vec(),
            "vector 1: \"b\": the file ends inside its values",
        ),
        (
            "nan.bin",
            nan,
            "vector 1: \"b\": value 1 is NaN, not a finite number",
        ),
        ("latin1.bin", latin1, "vector 0: the word is not UTF-8"),
        (
            "trailing.bin",
            trailing,
            "data after the 2 vectors the header announces",
        ),
        (
            "long-word.bin",
            long_word,
            "vector 0: no space after the word within 100000 bytes",
        ),
    ];
    for (name, bytes, expected) in cases {
        let message = error_of(&scratch(name, bytes), binary);
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
    }
    // Fewer vectors than announced, in a file long enough to pass the size check.
    let mut few = word2vec_binary(&[(b"a", &[1.0]), (b"b", &[2.0])], 1, true);
    few[0] = b'3';
    few.extend_from_slice(b"\n\n\n\n\n\n\n\n\n\n\n\n");
    let message = error_of(&scratch("few.bin", few), binary);
    assert!(
        message.contains("vector 2: the file ends after 2 of the 3 vectors"),
        "{message}"
    );
}

#[test]
fn static_npy_c_and_fortran_order_f4_f8_versions() {
    let vocab = scratch("vocab.txt", "the\nKing\r\nqueen\n");
    // Row-major: the [1, 2], King [3, 4], queen [5, 6].
    let c = npy_bytes(
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }",
        &f32_le(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
    );
    // The same array column-major, as the GloVe 6B package stores it.
    let fortran = npy_bytes(
        "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 2), }",
        &f32_le(&[1.0, 3.0, 5.0, 2.0, 4.0, 6.0]),
    );
    let big_f8: Vec<u8> = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect();
    let f8 = npy_bytes(
        "{'descr': '>f8', 'fortran_order': False, 'shape': (3, 2)}",
        &big_f8,
    );
    // Format 2.0: a 4-byte header length.
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }\n";
    let mut v2 = b"\x93NUMPY\x02\x00".to_vec();
    v2.extend_from_slice(&(header.len() as u32).to_le_bytes());
    v2.extend_from_slice(header.as_bytes());
    v2.extend(f32_le(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]));
    for (name, bytes) in [
        ("c.npy", c),
        ("f.npy", fortran),
        ("f8.npy", f8),
        ("v2.npy", v2),
    ] {
        let model = StaticEmbeddings::from_npy(scratch(name, bytes), &vocab).unwrap();
        assert_eq!((model.len(), model.dim()), (3, 2), "{name}");
        assert_eq!(model.vector("the"), Some(&[1.0f32, 2.0][..]), "{name}");
        assert_eq!(model.vector("King"), Some(&[3.0f32, 4.0][..]), "{name}");
        assert_eq!(model.vector("queen"), Some(&[5.0f32, 6.0][..]), "{name}");
    }
}

#[test]
fn static_npy_bad_files() {
    let vocab = scratch("vocab2.txt", "a\nb\n");
    let ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
    let four = f32_le(&[1.0, 2.0, 3.0, 4.0]);
    let npy = |dict: &str, data: &[u8]| npy_bytes(dict, data);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "magic.npy",
            b"PK\x03\x04 not numpy".to_vec(),
            "not a .npy file",
        ),
        ("short.npy", b"\x93NUMPY".to_vec(), "not a .npy file"),
        (
            "version.npy",
            b"\x93NUMPY\x09\x00\x10\x00{}".to_vec(),
            "npy format version 9 is not supported",
        ),
        (
            "header-long.npy",
            b"\x93NUMPY\x01\x00\xff\x00{'descr'".to_vec(),
            "header of 255 bytes runs past the end",
        ),
        (
            "i4.npy",
            npy(
                "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                &four,
            ),
            "descr \"<i4\" is not supported",
        ),
        (
            "noshape.npy",
            npy("{'descr': '<f4', 'fortran_order': False, }", &four),
            "no 'shape'",
        ),
        (
            "3d.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }",
                &four,
            ),
            "shape [1, 2, 2] is not 2-D",
        ),
        (
            "1d.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }",
                &four,
            ),
            "is not 2-D",
        ),
        (
            "cols0.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }",
                &[],
            ),
            "0 dimensions",
        ),
        (
            "key.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), 'x': 1}",
                &four,
            ),
            "unknown key \"x\"",
        ),
        (
            "garbage.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 2), }",
                &four,
            ),
            "expected True or False",
        ),
        (
            "size.npy",
            npy(ok_dict, &four[..12]),
            "data has 12 bytes; shape (2, 2) of <f4 needs 16",
        ),
        (
            "huge.npy",
            npy(
                "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 2), }",
                &four,
            ),
            "more than can be addressed",
        ),
        (
            "rows.npy",
            npy(
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }",
                &four,
            ),
            "1 vectors, but the vocabulary",
        ),
        (
            "nan.npy",
            npy(ok_dict, &f32_le(&[1.0, 2.0, 3.0, f32::NAN])),
            "vector 1: \"b\": value 1 is NaN, not a finite number",
        ),
    ];
    for (name, bytes, expected) in cases {
        let message = error_of(&scratch(name, bytes), |p| {
            StaticEmbeddings::from_npy(p, &vocab)
        });
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
    }
    // Bad vocabularies are named by line.
    let good = scratch("good.npy", npy(ok_dict, &four));
    for (name, words, expected) in [
        ("blank-vocab.txt", &b"a\n\nb\n"[..], "line 2: empty word"),
        (
            "latin1-vocab.txt",
            &b"a\ncaf\xe9\n"[..],
            "line 2: not UTF-8",
        ),
        ("empty-vocab.txt", &b""[..], "no words"),
        (
            "three-vocab.txt",
            &b"a\nb\nc\n"[..],
            "2 vectors, but the vocabulary",
        ),
    ] {
        let vocab = scratch(name, words);
        let message = StaticEmbeddings::from_npy(&good, &vocab)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
        assert!(!message.contains('\n'));
    }
}

/// Every prefix, and every single-byte change, of valid files: an error or a table, never a
/// panic (the test would fail) or an attempt to allocate what the file cannot hold.
#[test]
fn static_damaged_files_never_panic() {
    let binary_file = word2vec_binary(&[(b"ab", &[1.0, 2.0]), (b"cd", &[3.0, 4.0])], 2, true);
    let text_file = b"2 2\nab 1 2\ncd 3 4\n".to_vec();
    let npy_file = npy_bytes(
        "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
        &f32_le(&[1.0, 2.0, 3.0, 4.0]),
    );
    let vocab = scratch("damaged-vocab.txt", "ab\ncd\n");
    let loaders: [(&str, Vec<u8>, Load<'_>); 3] = [
        ("damaged.bin", binary_file, &binary),
        ("damaged.txt", text_file, &text),
        ("damaged.npy", npy_file, &|p: &Path| {
            StaticEmbeddings::from_npy(p, &vocab)
        }),
    ];
    for (name, good, load) in loaders {
        let path = scratch(name, &good);
        load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut variants: Vec<Vec<u8>> = (0..good.len()).map(|n| good[..n].to_vec()).collect();
        for i in 0..good.len() {
            for byte in [0u8, 0xff, b' ', b'\n', b'9', good[i] ^ 0x01] {
                let mut bad = good.clone();
                bad[i] = byte;
                variants.push(bad);
            }
        }
        for bad in variants {
            std::fs::write(&path, &bad).unwrap();
            if let Err(e) = load(&path) {
                assert!(!e.to_string().contains('\n'), "{name}: {e}");
            }
        }
    }
}

#[test]
fn static_text_and_vocab_drop_a_byte_order_mark() {
    // A BOM read as text would make the first word `\u{feff}the`, silently without a vector.
    let path = scratch("bom-glove.txt", "\u{feff}the 0.418 0.24968\nking 0.5 2\n");
    let model = StaticEmbeddings::from_text(&path).unwrap();
    assert_eq!(model.vector("the"), Some(&[0.418f32, 0.24968][..]));
    assert!(!model.known("\u{feff}the"));
    let with_header = scratch("bom-w2v.txt", "\u{feff}2 2\nthe 1 2\nking 3 4\n");
    let model = StaticEmbeddings::from_text(&with_header).unwrap();
    assert_eq!(model.vector("the"), Some(&[1.0f32, 2.0][..]));

    let data: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let npy = scratch(
        "bom.npy",
        npy_bytes(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
            &data,
        ),
    );
    let vocab = scratch("bom-vocab.txt", "\u{feff}the\nking\n");
    let model = StaticEmbeddings::from_npy(&npy, &vocab).unwrap();
    assert_eq!(model.vector("the"), Some(&[1.0f32, 2.0][..]));
}
