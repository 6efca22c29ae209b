//! The binary formats: word2vec binary, `.npy` with a vocabulary file. word2vec/GloVe text
//! is lmbias-data's one reader of it ([`WordVectors::read_text`]), whose table every format
//! here loads into, so a repeated word keeps its first vector (gensim's rule) and is counted
//! in all of them.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use lmbias_core::quote;
use lmbias_data::WordVectors;

use crate::error::StaticError;

/// What every format loads into.
pub(crate) type Table = WordVectors<f32>;

fn open(path: &Path) -> Result<File, StaticError> {
    lmbias_data::read::open(path).map_err(|e| StaticError::io(path, e))
}

/// Longest word accepted in a binary file: beyond it the file is taken to be something else.
const MAX_WORD_BYTES: usize = 100_000;

/// word2vec binary: a `COUNT DIM` header line, then per vector the word, a space and `DIM`
/// little-endian f32 (the C tool writes a newline after each vector; some writers do not).
pub(crate) fn read_word2vec_binary(path: &Path) -> Result<Table, StaticError> {
    let file = open(path)?;
    let size = file.metadata().map_err(|e| StaticError::io(path, e))?.len();
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let mut line = Vec::new();
    (&mut reader)
        .take(256)
        .read_until(b'\n', &mut line)
        .map_err(|e| StaticError::io(path, e))?;
    let shown = String::from_utf8_lossy(&line);
    let (count, dim) = std::str::from_utf8(&line)
        .ok()
        .and_then(
            |l| match l.split_ascii_whitespace().collect::<Vec<_>>()[..] {
                [count, dim] => Some((count.parse::<usize>().ok()?, dim.parse::<usize>().ok()?)),
                _ => None,
            },
        )
        .filter(|&(_, dim)| dim > 0)
        .ok_or_else(|| {
            StaticError::format(
                path,
                format!(
                    "header: expected \"COUNT DIM\" on the first line, found {:?}",
                    shown.trim_end().chars().take(60).collect::<String>()
                ),
            )
        })?;
    if count == 0 {
        return Err(StaticError::format(path, "header: 0 vectors"));
    }
    // Each vector takes at least a one-byte word, a space and its values.
    let least = dim
        .checked_mul(4)
        .and_then(|b| b.checked_add(2))
        .and_then(|b| b.checked_mul(count));
    if least.is_none_or(|least| least as u64 > size) {
        return Err(StaticError::format(
            path,
            format!(
                "header: {count} vectors of {dim} values cannot fit in the file's {size} bytes"
            ),
        ));
    }
    let mut table = Table::with_capacity(count, dim);
    let mut bytes = vec![0u8; dim * 4];
    let mut values = vec![0f32; dim];
    let mut word = Vec::new();
    for index in 0..count {
        let at_vector = |problem: String| StaticError::vector(path, index, problem);
        // Skip the newline (or any white space) that ends the previous vector.
        loop {
            let buf = reader.fill_buf().map_err(|e| StaticError::io(path, e))?;
            if buf.is_empty() {
                return Err(at_vector(format!(
                    "the file ends after {index} of the {count} vectors its header announces"
                )));
            }
            let skip = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            let whole = skip == buf.len();
            reader.consume(skip);
            if !whole {
                break;
            }
        }
        word.clear();
        (&mut reader)
            .take(MAX_WORD_BYTES as u64)
            .read_until(b' ', &mut word)
            .map_err(|e| StaticError::io(path, e))?;
        if word.last() != Some(&b' ') {
            return Err(at_vector(if word.len() == MAX_WORD_BYTES {
                format!("no space after the word within {MAX_WORD_BYTES} bytes")
            } else {
                "the file ends inside a word".to_owned()
            }));
        }
        word.pop();
        let text = String::from_utf8(std::mem::take(&mut word)).map_err(|e| {
            at_vector(format!(
                "the word is not UTF-8: {:?}",
                String::from_utf8_lossy(e.as_bytes())
            ))
        })?;
        reader.read_exact(&mut bytes).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => {
                at_vector(format!("{}: the file ends inside its values", quote(&text)))
            }
            _ => StaticError::io(path, e),
        })?;
        for (value, chunk) in values.iter_mut().zip(bytes.chunks_exact(4)) {
            *value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let shown = quote(&text);
        table
            .push(text, &values)
            .map_err(|problem| at_vector(format!("{shown}: {problem}")))?;
    }
    loop {
        let buf = reader.fill_buf().map_err(|e| StaticError::io(path, e))?;
        if buf.is_empty() {
            break;
        }
        if !buf.iter().all(u8::is_ascii_whitespace) {
            return Err(StaticError::format(
                path,
                format!("data after the {count} vectors the header announces"),
            ));
        }
        let n = buf.len();
        reader.consume(n);
    }
    Ok(table)
}

/// The longest `.npy` header read: numpy pads its headers to 64 bytes and writes a few hundred.
const MAX_NPY_HEADER: usize = 1 << 20;

/// A 2-D float array of a `.npy` file, row-major.
pub(crate) struct Npy {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) data: Vec<f32>,
}

/// A `.npy` file (numpy's format, versions 1 to 3) holding a 2-D float32 or float64 array, in
/// C or Fortran order, of either byte order. float64 values are rounded to f32.
///
/// Not `npyz`: it reads GloVe's file to the same bits, but accepts header keys numpy refuses,
/// multiplies the shape unchecked, and brings pest's parser generator (13 crates) for a
/// three-key dict (docs/decisions.md).
pub(crate) fn read_npy(path: &Path) -> Result<Npy, StaticError> {
    let bad = |problem: String| StaticError::format(path, problem);
    let file = open(path)?;
    let size = file
        .metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    let mut reader = BufReader::new(file);
    // Read as far as the header says, checking as it goes: a file that does not start as a
    // .npy one (`/dev/zero`, a sparse file) is refused at its first bytes, and the data is
    // read only once the header has said how much there must be (issue #47).
    let mut fill = |want: usize| -> Result<Vec<u8>, StaticError> {
        let mut bytes = Vec::new();
        (&mut reader)
            .take(want as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| StaticError::io(path, e))?;
        Ok(bytes)
    };
    let lead = fill(10)?;
    if lead.len() < 10 || &lead[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file (no \\x93NUMPY magic)".into()));
    }
    let (header_len, start): (usize, usize) = match lead[6] {
        1 => (u16::from_le_bytes([lead[8], lead[9]]) as usize, 10),
        major @ (2 | 3) => match fill(2)?[..] {
            [a, b] => (u32::from_le_bytes([lead[8], lead[9], a, b]) as usize, 12),
            _ => return Err(bad(format!("npy format version {major} is not supported"))),
        },
        major => return Err(bad(format!("npy format version {major} is not supported"))),
    };
    // numpy writes headers of a few hundred bytes; a larger one is not numpy's.
    if header_len > MAX_NPY_HEADER {
        return Err(bad(format!(
            "header of {header_len} bytes: more than the {MAX_NPY_HEADER} any numpy writes"
        )));
    }
    let header = fill(header_len)?;
    if header.len() != header_len {
        return Err(bad(format!(
            "header of {header_len} bytes runs past the end"
        )));
    }
    let header = std::str::from_utf8(&header).map_err(|_| bad("header is not text".into()))?;
    let dict = NpyHeader::parse(header).map_err(|p| bad(format!("header {header:?}: {p}")))?;
    let (little, width) = match dict.descr.as_str() {
        "<f4" => (true, 4),
        ">f4" => (false, 4),
        "<f8" => (true, 8),
        ">f8" => (false, 8),
        other => {
            return Err(bad(format!(
                "descr {other:?} is not supported: expected float32 or float64 ('<f4', '<f8')"
            )));
        }
    };
    let [rows, cols] = dict.shape[..] else {
        return Err(bad(format!(
            "shape {:?} is not 2-D (words × dimensions)",
            dict.shape
        )));
    };
    if cols == 0 {
        return Err(bad("shape has 0 dimensions per vector".into()));
    }
    let expected = rows.checked_mul(cols).and_then(|n| n.checked_mul(width));
    let wrong_size = |found: u64| {
        bad(format!(
            "data has {found} bytes; shape ({rows}, {cols}) of {} needs {}",
            dict.descr,
            expected.map_or("more than can be addressed".into(), |e| e.to_string())
        ))
    };
    // A file's size is known before its data is read; a pipe's is counted as it comes.
    let data_size = size.map(|size| size.saturating_sub((start + header_len) as u64));
    let expected = match (expected, data_size) {
        (Some(e), Some(found)) if e as u64 != found => return Err(wrong_size(found)),
        (Some(e), _) => e,
        (None, found) => return Err(wrong_size(found.unwrap_or(0))),
    };
    let data = fill(expected.saturating_add(1))?;
    if data.len() != expected {
        return Err(wrong_size(data.len() as u64));
    }
    let value = |i: usize| -> f32 {
        let b = &data[i * width..(i + 1) * width];
        match (width, little) {
            (4, true) => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            (4, false) => f32::from_be_bytes([b[0], b[1], b[2], b[3]]),
            (_, true) => {
                f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
            }
            (_, false) => {
                f64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) as f32
            }
        }
    };
    let data = if dict.fortran_order {
        // Column-major on disk: element (r, c) is number c·rows + r.
        let mut out = vec![0f32; rows * cols];
        for c in 0..cols {
            for r in 0..rows {
                out[r * cols + c] = value(c * rows + r);
            }
        }
        out
    } else {
        (0..rows * cols).map(value).collect()
    };
    Ok(Npy { rows, cols, data })
}

/// The fields of a `.npy` header: a Python dict literal such as
/// `{'descr': '<f4', 'fortran_order': False, 'shape': (400000, 50), }`.
#[derive(Debug)]
struct NpyHeader {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
}

impl NpyHeader {
    fn parse(text: &str) -> Result<Self, String> {
        let mut p = Literal {
            rest: text.trim_end_matches(['\n', ' ', '\0']),
        };
        p.expect('{')?;
        let (mut descr, mut fortran_order, mut shape) = (None, None, None);
        loop {
            if p.eat('}') {
                break;
            }
            let key = p.string()?;
            p.expect(':')?;
            match key.as_str() {
                "descr" => descr = Some(p.string()?),
                "fortran_order" => fortran_order = Some(p.boolean()?),
                "shape" => shape = Some(p.tuple()?),
                other => return Err(format!("unknown key {other:?}")),
            }
            if !p.eat(',') {
                p.expect('}')?;
                break;
            }
        }
        if !p.rest.trim().is_empty() {
            return Err(format!("text after the dict: {:?}", p.rest));
        }
        Ok(NpyHeader {
            descr: descr.ok_or("no 'descr'")?,
            fortran_order: fortran_order.ok_or("no 'fortran_order'")?,
            shape: shape.ok_or("no 'shape'")?,
        })
    }
}

/// A cursor over a Python literal.
struct Literal<'a> {
    rest: &'a str,
}

impl Literal<'_> {
    fn eat(&mut self, c: char) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected {c:?} at {:?}", self.rest))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.rest = self.rest.trim_start();
        let quote = self
            .rest
            .chars()
            .next()
            .filter(|&q| q == '\'' || q == '"')
            .ok_or_else(|| format!("expected a string at {:?}", self.rest))?;
        let body = &self.rest[1..];
        let end = body
            .find(quote)
            .ok_or_else(|| format!("unterminated string at {:?}", self.rest))?;
        self.rest = &body[end + 1..];
        Ok(body[..end].to_owned())
    }

    fn boolean(&mut self) -> Result<bool, String> {
        self.rest = self.rest.trim_start();
        for (word, value) in [("True", true), ("False", false)] {
            if let Some(rest) = self.rest.strip_prefix(word) {
                self.rest = rest;
                return Ok(value);
            }
        }
        Err(format!("expected True or False at {:?}", self.rest))
    }

    fn tuple(&mut self) -> Result<Vec<usize>, String> {
        self.expect('(')?;
        let mut items = Vec::new();
        loop {
            if self.eat(')') {
                return Ok(items);
            }
            self.rest = self.rest.trim_start();
            let digits = self
                .rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(self.rest.len());
            let item = self.rest[..digits]
                .parse::<usize>()
                .map_err(|_| format!("expected a size at {:?}", self.rest))?;
            items.push(item);
            self.rest = &self.rest[digits..];
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(items);
            }
        }
    }
}

/// A vocabulary file: one word per line, in the order of the vectors (`\r\n` is accepted).
pub(crate) fn read_vocab(path: &Path) -> Result<Vec<String>, StaticError> {
    // Text: capped, and refused at its first NUL byte (`/dev/zero` read for ever before).
    let bytes = lmbias_data::read::read_capped(path, lmbias_data::read::EMBEDDINGS)
        .map_err(|e| StaticError::io(path, e.source))?;
    let bytes = lmbias_data::strip_bom(&bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        StaticError::line(path, line, "not UTF-8")
    })?;
    let text = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Err(StaticError::format(path, "no words"));
    }
    text.split('\n')
        .enumerate()
        .map(|(i, word)| {
            let word = word.strip_suffix('\r').unwrap_or(word);
            if word.is_empty() {
                Err(StaticError::line(path, i + 1, "empty word"))
            } else {
                Ok(word.to_owned())
            }
        })
        .collect()
}

/// Vectors from a `.npy` array and its vocabulary, row i being the vector of line i + 1.
pub(crate) fn read_npy_with_vocab(npy: &Path, vocab: &Path) -> Result<Table, StaticError> {
    let array = read_npy(npy)?;
    let words = read_vocab(vocab)?;
    if words.len() != array.rows {
        return Err(StaticError::format(
            npy,
            format!(
                "{} vectors, but the vocabulary {} has {} words",
                array.rows,
                vocab.display(),
                words.len()
            ),
        ));
    }
    let mut table = Table::with_capacity(array.rows, array.cols);
    for (row, (word, vector)) in words
        .into_iter()
        .zip(array.data.chunks_exact(array.cols))
        .enumerate()
    {
        let shown = quote(&word);
        table
            .push(word, vector)
            .map_err(|problem| StaticError::vector(npy, row, format!("{shown}: {problem}")))?;
    }
    Ok(table)
}

/// Vectors given in memory, checked like a file's.
pub(crate) fn from_pairs<W: Into<String>>(
    pairs: impl IntoIterator<Item = (W, Vec<f32>)>,
) -> Result<Table, String> {
    let mut table = Table::new();
    for (word, vector) in pairs {
        let word = word.into();
        let shown = quote(&word);
        table
            .push(word, &vector)
            .map_err(|problem| format!("{shown}: {problem}"))?;
    }
    if table.is_empty() {
        return Err("no vectors".into());
    }
    Ok(table)
}
