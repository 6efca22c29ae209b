//! One column of strings from a Parquet file, as the GloVe 6B package's vocabulary needs
//! (`glove_6B_index.parquet`, written by pyarrow: snappy, dictionary pages falling back to
//! plain ones), read with the Apache `parquet` crate (no arrow; snappy is the one codec
//! built in). Anything else is a one-line error naming the file.

use std::path::Path;

use parquet::basic::Type as PhysicalType;
use parquet::column::reader::ColumnReader;
use parquet::data_type::ByteArray;
use parquet::file::reader::{ChunkReader, FileReader, SerializedFileReader};

use crate::error::StaticError;

/// The strings of column `column` of the file at `path`, in row order, over all row groups:
/// a flat `BYTE_ARRAY` column of UTF-8, without nulls.
pub(crate) fn read_string_column(path: &Path, column: &str) -> Result<Vec<String>, StaticError> {
    let file = lmbias_data::read::open(path).map_err(|e| StaticError::io(path, e))?;
    string_column(file, column)
        .map_err(|problem| StaticError::format(path, format!("parquet {problem}")))
}

/// Values read at a time: enough to amortise the calls, small next to GloVe's 400,000 rows.
const BATCH: usize = 8192;

/// [`read_string_column`] on any source the crate reads; the error is the problem, without a
/// file name, on one line.
///
/// The `parquet` crate trusts some lengths of a damaged file and can panic on them (an index
/// out of range while decoding levels): such a panic is caught and becomes an error, so a
/// corrupt download or cache is reported, not a crash. The panic's message still reaches
/// standard error through the panic hook.
fn string_column<R: ChunkReader + 'static>(source: R, column: &str) -> Result<Vec<String>, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| decode(source, column)))
        .unwrap_or_else(|panic| {
            let reason = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(format!(
                "file: damaged data stopped the reader ({})",
                reason.replace('\n', " ")
            ))
        })
}

fn decode<R: ChunkReader + 'static>(source: R, column: &str) -> Result<Vec<String>, String> {
    let one_line = |e: parquet::errors::ParquetError| e.to_string().replace('\n', " ");
    let file = SerializedFileReader::new(source).map_err(|e| format!("file: {}", one_line(e)))?;
    let meta = file.metadata();
    let schema = meta.file_metadata().schema_descr();
    let names: Vec<String> = schema.columns().iter().map(|c| c.path().string()).collect();
    let index = names.iter().position(|n| n == column).ok_or_else(|| {
        format!(
            "schema: no column {column:?} (columns: {})",
            names.join(", ")
        )
    })?;
    let descr = schema.column(index);
    if descr.physical_type() != PhysicalType::BYTE_ARRAY {
        return Err(format!(
            "column {column:?}: physical type {}, not BYTE_ARRAY (strings)",
            descr.physical_type()
        ));
    }
    if descr.max_rep_level() > 0 {
        return Err(format!("column {column:?}: a repeated (list) column"));
    }
    let optional = descr.max_def_level() > 0;
    let rows = usize::try_from(meta.file_metadata().num_rows())
        .map_err(|_| "footer: a negative row count".to_owned())?;
    // The footer's count is only a hint for the allocation: a damaged one must not reserve
    // more than the file could hold.
    let mut words: Vec<String> = Vec::with_capacity(rows.min(1 << 20));
    let (mut values, mut levels): (Vec<ByteArray>, Vec<i16>) = (Vec::new(), Vec::new());
    for group in 0..meta.num_row_groups() {
        let at = |e| format!("row group {group}: {}", one_line(e));
        let reader = file.get_row_group(group).map_err(at)?;
        let ColumnReader::ByteArrayColumnReader(mut reader) =
            reader.get_column_reader(index).map_err(at)?
        else {
            return Err(format!(
                "row group {group}: column {column:?} is not strings"
            ));
        };
        loop {
            values.clear();
            levels.clear();
            let (records, read, _) = reader
                .read_records(BATCH, optional.then_some(&mut levels), None, &mut values)
                .map_err(at)?;
            if records == 0 {
                break;
            }
            if read < records {
                let null = levels.iter().position(|&l| l == 0).unwrap_or(read);
                return Err(format!(
                    "column {column:?}: row {} is null",
                    words.len() + null
                ));
            }
            for value in &values {
                let word = value
                    .as_utf8()
                    .map_err(|_| format!("column {column:?}: row {} is not UTF-8", words.len()))?;
                words.push(word.to_owned());
            }
        }
    }
    if words.len() != rows {
        return Err(format!(
            "column {column:?}: {} values, but the footer counts {rows} rows",
            words.len()
        ));
    }
    Ok(words)
}

/// On the small files pyarrow writes in `tests/fixtures/static/parquet` (its `make.py`).
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/static/parquet")
            .join(name)
    }

    fn words() -> Vec<String> {
        std::fs::read_to_string(fixture("words.txt"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn layouts_pyarrow_writes() {
        let expected = words();
        assert_eq!(expected.len(), 330);
        // plain: PLAIN values, uncompressed, required. dictionary: snappy, optional,
        // dictionary pages falling back to plain ones, 3 row groups. v2: data pages v2.
        for name in ["plain", "dictionary", "v2"] {
            let path = fixture(&format!("{name}.parquet"));
            let found = read_string_column(&path, "index").unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(found, expected, "{name}");
        }
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for (name, column, expected) in [
            ("null", "index", "column \"index\": row 1 is null"),
            // Only snappy is built in.
            ("gzip", "index", "row group 0: "),
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
            let path = fixture(&format!("{name}.parquet"));
            let message = read_string_column(&path, column).unwrap_err().to_string();
            assert!(
                message.contains(expected),
                "{name}: {message:?} lacks {expected:?}"
            );
            assert!(
                message.contains(&format!("{name}.parquet: parquet ")),
                "{message}"
            );
            assert!(!message.contains('\n'), "{message}");
        }
        let dir =
            std::env::temp_dir().join(format!("lmbias-static-parquet-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("not.parquet");
        std::fs::write(&path, b"PAR1 but not really").unwrap();
        let message = read_string_column(&path, "index").unwrap_err().to_string();
        assert!(message.contains("not.parquet: parquet file: "), "{message}");
    }

    /// Every prefix and every single-byte change of two real files: an error or strings,
    /// never a panic (the test would fail).
    #[test]
    fn damaged_files_never_panic() {
        for name in ["dictionary", "v2"] {
            let good = std::fs::read(fixture(&format!("{name}.parquet"))).unwrap();
            let read = |bytes: &[u8]| string_column(bytes::Bytes::copy_from_slice(bytes), "index");
            assert_eq!(read(&good).unwrap(), words());
            let mut errors = 0;
            let mut check = |bytes: &[u8]| {
                if let Err(e) = read(bytes) {
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
}
