//! The minimal Parquet reader on files pyarrow wrote (`tests/fixtures/parquet/make.py`).

use lmbias_static::parquet::{read_string_column, string_column};

use crate::{fixture, scratch};

fn words() -> Vec<String> {
    std::fs::read_to_string(fixture("parquet/words.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn static_parquet_layouts_pyarrow_writes() {
    let expected = words();
    assert_eq!(expected.len(), 330);
    // plain: PLAIN values, uncompressed, required. dictionary: snappy, optional, dictionary
    // pages falling back to plain ones, 3 row groups. v2: data pages v2.
    for name in ["plain", "dictionary", "v2"] {
        let path = fixture(&format!("parquet/{name}.parquet"));
        let found = read_string_column(&path, "index").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(found, expected, "{name}");
    }
}

#[test]
fn static_parquet_refuses_what_it_cannot_read() {
    for (name, column, expected) in [
        ("null", "index", "row 1 is null"),
        (
            "gzip",
            "index",
            "codec 2 (GZIP) is not supported: only UNCOMPRESSED and SNAPPY",
        ),
        (
            "ints",
            "index",
            "column \"index\": physical type INT64, not BYTE_ARRAY (strings)",
        ),
        (
            "plain",
            "word",
            "schema: no column \"word\" (columns: index)",
        ),
    ] {
        let path = fixture(&format!("parquet/{name}.parquet"));
        let message = read_string_column(&path, column).unwrap_err().to_string();
        assert!(
            message.contains(expected),
            "{name}: {message:?} lacks {expected:?}"
        );
        assert!(
            message.contains(&format!("{name}.parquet: parquet ")),
            "{message}"
        );
    }
    let path = scratch("not.parquet", b"PAR1 but not really");
    let message = read_string_column(&path, "index").unwrap_err().to_string();
    assert!(
        message.ends_with("parquet file: no PAR1 magic at its start and end"),
        "{message}"
    );
}

/// Every prefix and every single-byte change of two real files: an error or strings, never a
/// panic or an allocation the file cannot justify.
#[test]
fn static_parquet_damaged_files_never_panic() {
    for name in ["dictionary", "v2"] {
        let good = std::fs::read(fixture(&format!("parquet/{name}.parquet"))).unwrap();
        assert_eq!(string_column(&good, "index").unwrap(), words());
        let mut errors = 0;
        let mut check = |bytes: &[u8]| {
            if let Err(e) = string_column(bytes, "index") {
                assert!(!e.contains('\n'), "{e}");
                errors += 1;
            }
        };
        for n in 0..good.len() {
            check(&good[..n]);
        }
        for i in 0..good.len() {
            for byte in [0u8, 0xff, good[i] ^ 0x01, good[i] ^ 0x80] {
                let mut bad = good.clone();
                bad[i] = byte;
                check(&bad);
            }
        }
        assert!(errors > good.len(), "{name}: damage went unnoticed");
    }
}
