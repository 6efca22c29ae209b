//! The file formats: word2vec/GloVe text, word2vec binary, `.npy` with a vocabulary file.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use crate::error::StaticError;

/// Vectors by row and the row of each word: what every format loads into.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    pub(crate) dim: usize,
    /// Row-major, `dim` values a row. Rows of repeated words stay unreferenced.
    pub(crate) vectors: Vec<f32>,
    pub(crate) rows: HashMap<String, u32>,
    pub(crate) duplicates: usize,
}

impl Table {
    fn new(dim: usize) -> Self {
        Table {
            dim,
            vectors: Vec::new(),
            rows: HashMap::new(),
            duplicates: 0,
        }
    }

    /// Adds a word whose vector is the next row; a repeated word keeps its first vector (as
    /// gensim does) and is counted. Returns false when there are more rows than ids.
    fn add_row(&mut self, word: String, row: usize) -> bool {
        let Some(row) = u32::try_from(row).ok().filter(|&r| r != u32::MAX) else {
            return false;
        };
        match self.rows.entry(word) {
            Entry::Occupied(_) => self.duplicates += 1,
            Entry::Vacant(slot) => {
                slot.insert(row);
            }
        }
        true
    }
}

/// What is wrong with a value, if anything.
fn check_finite(value: f32, index: usize) -> Result<f32, String> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("value {index} is {value}, not a finite number"))
    }
}

fn open(path: &Path) -> Result<File, StaticError> {
    File::open(path).map_err(|e| StaticError::io(path, e))
}

/// word2vec/GloVe text: an optional `COUNT DIM` header line (word2vec has one, GloVe none),
/// then `WORD V1 … VDIM` per line, separated by ASCII white space. A line with more tokens
/// than `DIM + 1` whose extra tokens are not numbers has a word with spaces in it (the
/// Common Crawl GloVe files have a few, such as `. . .`): its word is the leading tokens
/// joined by one space.
pub(crate) fn read_text(path: &Path) -> Result<Table, StaticError> {
    let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
    lmbias_data::skip_bom(&mut reader).map_err(|e| StaticError::io(path, e))?;
    let mut header: Option<(usize, usize)> = None;
    let mut table: Option<Table> = None;
    let mut vector_lines = 0usize;
    let mut buf = Vec::new();
    let mut number = 0usize;
    let mut values: Vec<f32> = Vec::new();
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| StaticError::io(path, e))?;
        if read == 0 {
            break;
        }
        number += 1;
        let line = std::str::from_utf8(&buf).map_err(|e| {
            StaticError::line(
                path,
                number,
                format!("not UTF-8 (bad byte at column {})", e.valid_up_to() + 1),
            )
        })?;
        let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
        if tokens.is_empty() {
            continue;
        }
        if table.is_none()
            && header.is_none()
            && let [count, dim] = tokens[..]
            && let (Ok(count), Ok(dim)) = (count.parse::<usize>(), dim.parse::<usize>())
        {
            if dim == 0 {
                return Err(StaticError::line(path, number, "header: dimension 0"));
            }
            header = Some((count, dim));
            continue;
        }
        let dim = match (&table, header) {
            (Some(t), _) => t.dim,
            (None, Some((_, dim))) => dim,
            (None, None) => tokens.len() - 1,
        };
        let word_tokens = tokens.len().saturating_sub(dim).max(1);
        let word = tokens[..word_tokens].join(" ");
        if dim == 0 {
            return Err(StaticError::line(
                path,
                number,
                format!("{word:?}: no values"),
            ));
        }
        let found = tokens.len() - word_tokens;
        if found != dim
            || tokens[1..word_tokens]
                .iter()
                .any(|t| t.parse::<f32>().is_ok())
        {
            let found = tokens.len() - 1;
            return Err(StaticError::line(
                path,
                number,
                format!("{:?}: {found} values, expected {dim}", tokens[0]),
            ));
        }
        values.clear();
        for (i, token) in tokens[word_tokens..].iter().enumerate() {
            let value = token
                .parse::<f32>()
                .map_err(|_| format!("value {i} ({token:?}) is not a number"))
                .and_then(|v| check_finite(v, i))
                .map_err(|problem| {
                    StaticError::line(path, number, format!("{word:?}: {problem}"))
                })?;
            values.push(value);
        }
        let table = table.get_or_insert_with(|| Table::new(dim));
        let row = table.vectors.len() / dim;
        if !table.add_row(word, row) {
            return Err(StaticError::line(path, number, "more than 2^32 vectors"));
        }
        table.vectors.extend_from_slice(&values);
        vector_lines += 1;
    }
    if let Some((announced, _)) = header
        && announced != vector_lines
    {
        return Err(StaticError::format(
            path,
            format!("the header announces {announced} vectors, the file has {vector_lines}"),
        ));
    }
    table.ok_or_else(|| StaticError::format(path, "no vectors"))
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
    let mut table = Table::new(dim);
    table.vectors.reserve_exact(count * dim);
    let mut bytes = vec![0u8; dim * 4];
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
                at_vector(format!("{text:?}: the file ends inside its values"))
            }
            _ => StaticError::io(path, e),
        })?;
        for (i, chunk) in bytes.chunks_exact(4).enumerate() {
            let value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            let value = check_finite(value, i).map_err(|p| at_vector(format!("{text:?}: {p}")))?;
            table.vectors.push(value);
        }
        if !table.add_row(text, index) {
            return Err(at_vector("more than 2^32 vectors".into()));
        }
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

/// A 2-D float array of a `.npy` file, row-major.
pub(crate) struct Npy {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) data: Vec<f32>,
}

/// A `.npy` file (numpy's format, versions 1 to 3) holding a 2-D float32 or float64 array, in
/// C or Fortran order, of either byte order. float64 values are rounded to f32.
pub(crate) fn read_npy(path: &Path) -> Result<Npy, StaticError> {
    let bytes = std::fs::read(path).map_err(|e| StaticError::io(path, e))?;
    let bad = |problem: String| StaticError::format(path, problem);
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file (no \\x93NUMPY magic)".into()));
    }
    let (header_len, start): (usize, usize) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        major => return Err(bad(format!("npy format version {major} is not supported"))),
    };
    let header = bytes
        .get(start..start.saturating_add(header_len))
        .ok_or_else(|| bad(format!("header of {header_len} bytes runs past the end")))?;
    let header = std::str::from_utf8(header).map_err(|_| bad("header is not text".into()))?;
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
    let data = &bytes[start + header_len..];
    let expected = rows.checked_mul(cols).and_then(|n| n.checked_mul(width));
    if expected != Some(data.len()) {
        return Err(bad(format!(
            "data has {} bytes; shape ({rows}, {cols}) of {} needs {}",
            data.len(),
            dict.descr,
            expected.map_or("more than can be addressed".into(), |e| e.to_string())
        )));
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
    let bytes = std::fs::read(path).map_err(|e| StaticError::io(path, e))?;
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
    let mut table = Table::new(array.cols);
    for (row, (word, vector)) in words
        .into_iter()
        .zip(array.data.chunks_exact(array.cols))
        .enumerate()
    {
        if let Some(i) = vector.iter().position(|v| !v.is_finite()) {
            let problem = check_finite(vector[i], i).err().unwrap_or_default();
            return Err(StaticError::vector(
                npy,
                row,
                format!("{word:?}: {problem}"),
            ));
        }
        if !table.add_row(word, row) {
            return Err(StaticError::vector(npy, row, "more than 2^32 vectors"));
        }
    }
    table.vectors = array.data;
    Ok(table)
}

/// Vectors given in memory, checked like a file's.
pub(crate) fn from_pairs<W: Into<String>>(
    pairs: impl IntoIterator<Item = (W, Vec<f32>)>,
) -> Result<Table, String> {
    let mut table: Option<Table> = None;
    for (row, (word, vector)) in pairs.into_iter().enumerate() {
        let word = word.into();
        let dim = table.as_ref().map_or(vector.len(), |t| t.dim);
        if vector.is_empty() {
            return Err(format!("{word:?}: empty vector"));
        }
        if vector.len() != dim {
            return Err(format!("{word:?}: {} values, expected {dim}", vector.len()));
        }
        if let Some(i) = vector.iter().position(|v| !v.is_finite()) {
            return Err(format!(
                "{word:?}: {}",
                check_finite(vector[i], i).err().unwrap_or_default()
            ));
        }
        let table = table.get_or_insert_with(|| Table::new(dim));
        if !table.add_row(word, row) {
            return Err("more than 2^32 vectors".into());
        }
        table.vectors.extend_from_slice(&vector);
    }
    table.ok_or_else(|| "no vectors".into())
}
