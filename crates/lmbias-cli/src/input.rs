//! Texts from `--input FILE` (or `-` for stdin) instead of the command line, so that
//! large inputs need no argument list; read and handed to the model in chunks, so that
//! memory is bounded by a chunk and not by the file; with a progress bar on a terminal.
//!
//! A file is either one text per line, or JSON lines: each line a JSON string or an
//! object with a `"text"` string field (other fields are ignored). Which one is decided
//! per file by its first non-blank line: if that parses as such JSON, every line must.
//! Blank lines are skipped in both, a leading byte-order mark too; a line longer than
//! [`MAX_LINE`] is an error (a file that is not texts, such as a disk image, would
//! otherwise be read whole as one "line").

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use lmbias_frontend::Bar;
use lmbias_runs::encoder::{EncoderError, TEXTS_PER_CALL};

/// Texts per model call ([`TEXTS_PER_CALL`], as the Python package): a bar moves and
/// memory stays small on any input.
pub const CHUNK: usize = TEXTS_PER_CALL;

/// The longest line of `--input`, in bytes: far beyond any text a model reads (512
/// positions), small enough that a chunk of such lines fits in memory.
pub const MAX_LINE: usize = 1 << 20;

/// `--input`, shared by the commands that take texts.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Read the texts from FILE (`-`: standard input) instead of the command line: one text
    /// per line, or JSON lines (each line a JSON string or an object with a "text" field),
    /// told apart by the first non-blank line. Blank lines are skipped; a line may have at
    /// most 1 MiB. Read in chunks of 512 texts, so any size of file works.
    #[arg(long, value_name = "FILE", conflicts_with = "texts")]
    pub input: Option<PathBuf>,
}

impl InputArgs {
    /// `--input FILE`, when given, as an input an output must not overwrite.
    pub fn files(&self) -> Vec<(&'static str, &std::path::Path)> {
        self.input
            .iter()
            .map(|f| ("--input", f.as_path()))
            .collect()
    }
}

/// The texts given, chunk by chunk: from `--input`, else the positional ones.
pub struct Texts {
    source: Source,
    /// Whether the file is JSON lines, once its first non-blank line is read.
    json: Option<bool>,
    /// Lines read so far, for errors.
    line: usize,
    /// The first chunk and its texts' lines, read on opening so that an empty input fails
    /// before a model loads.
    first: Option<(Vec<String>, Vec<usize>)>,
    /// The line of each text of the chunk last handed out (a file's texts only), so that an
    /// error names the line and not the text's position among the non-blank ones.
    lines: Vec<usize>,
    /// Texts handed out so far: the offset of the next chunk.
    done: usize,
}

enum Source {
    Arguments(std::vec::IntoIter<String>),
    Reader {
        name: String,
        reader: Box<dyn BufRead>,
    },
}

impl Texts {
    /// Opens `--input` (clap forbids it beside positional texts) and reads its first chunk.
    pub fn open(input: &InputArgs, positional: Vec<String>) -> Result<Texts> {
        let source = match &input.input {
            None => Source::Arguments(positional.into_iter()),
            Some(path) if path == Path::new("-") => Source::Reader {
                name: "standard input".to_owned(),
                reader: Box::new(BufReader::new(std::io::stdin())),
            },
            Some(path) => {
                let name = path.display().to_string();
                let file = lmbias_runs::data::read::open(path)
                    .with_context(|| format!("--input {name}"))?;
                // Text: refused at its first NUL byte (`/dev/zero` read a 1 MiB line before).
                let text = lmbias_runs::data::read::TextOnly::new(file, "input");
                Source::Reader {
                    name,
                    reader: Box::new(BufReader::with_capacity(1 << 16, text)),
                }
            }
        };
        let mut texts = Texts {
            source,
            json: None,
            line: 0,
            first: None,
            lines: Vec::new(),
            done: 0,
        };
        if let Source::Reader { name, reader } = &mut texts.source {
            lmbias_runs::data::skip_bom(reader).with_context(|| format!("--input {name}"))?;
        }
        let first = texts.read_chunk()?;
        if first.0.is_empty() {
            bail!(
                "--input {}: no texts (the input is empty or blank)",
                texts.name()
            );
        }
        texts.first = Some(first);
        Ok(texts)
    }

    fn name(&self) -> &str {
        match &self.source {
            Source::Arguments(_) => "arguments",
            Source::Reader { name, .. } => name,
        }
    }

    /// The next chunk of at most [`CHUNK`] texts and the index of its first text in the
    /// whole input; `None` after the last.
    pub fn next_chunk(&mut self) -> Result<Option<(usize, Vec<String>)>> {
        let (chunk, lines) = match self.first.take() {
            Some(first) => first,
            None => self.read_chunk()?,
        };
        self.lines = lines;
        if chunk.is_empty() {
            return Ok(None);
        }
        let offset = self.done;
        self.done += chunk.len();
        Ok(Some((offset, chunk)))
    }

    fn read_chunk(&mut self) -> Result<(Vec<String>, Vec<usize>)> {
        let mut chunk = Vec::new();
        let mut lines = Vec::new();
        while chunk.len() < CHUNK {
            let Some(text) = self.next_text()? else { break };
            chunk.push(text);
            if let Source::Reader { .. } = self.source {
                lines.push(self.line);
            }
        }
        Ok((chunk, lines))
    }

    /// A model's error on text `index` of the last chunk: for a file, said of its line
    /// ("--input FILE: line 7 has 600 tokens …"); else of its place among all the texts.
    fn locate(&self, err: EncoderError, offset: usize) -> anyhow::Error {
        let (Some(index), Some(&line)) = (err.index(), err.index().and_then(|i| self.lines.get(i)))
        else {
            return err.offset(offset).into();
        };
        let message = err.to_string();
        match message.strip_prefix(&format!("text {index}")) {
            Some(rest) => anyhow::anyhow!("--input {}: line {line}{rest}", self.name()),
            None => err.offset(offset).into(),
        }
    }

    /// The next text: the next non-blank line, as a line or as JSON lines.
    fn next_text(&mut self) -> Result<Option<String>> {
        let (name, reader) = match &mut self.source {
            Source::Arguments(texts) => return Ok(texts.next()),
            Source::Reader { name, reader } => (name, reader),
        };
        loop {
            let Some(line) = read_line(reader.as_mut(), self.line + 1)
                .with_context(|| format!("--input {name}"))?
            else {
                return Ok(None);
            };
            self.line += 1;
            if line.trim().is_empty() {
                continue;
            }
            let json = *self.json.get_or_insert_with(|| json_text(&line).is_some());
            if !json {
                return Ok(Some(line));
            }
            let number = self.line;
            return match json_text(&line) {
                Some(Ok(text)) => Ok(Some(text)),
                Some(Err(what)) => {
                    bail!("--input {name}: line {number}: {what} (the file is JSON lines)")
                }
                None => bail!(
                    "--input {name}: line {number}: not a JSON string or object (the first \
                     line made the file JSON lines)"
                ),
            };
        }
    }
}

/// Line `number` of `reader` without its `\n` or `\r\n`, reading at most [`MAX_LINE`]
/// bytes of it; `None` at the end.
fn read_line(reader: &mut dyn BufRead, number: usize) -> Result<Option<String>> {
    let mut buf = Vec::new();
    let read = reader
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', &mut buf)
        .with_context(|| format!("line {number}"))?;
    if read == 0 {
        return Ok(None);
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
    } else if buf.len() > MAX_LINE {
        bail!("line {number} is longer than 1 MiB, the most a line may have (one text per line)");
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("line {number}: not UTF-8 text ({})", e.utf8_error()))
}

/// A line of JSON lines: a string, or an object with a `"text"` string.
fn json_text(line: &str) -> Option<Result<String, String>> {
    match serde_json::from_str::<serde_json::Value>(line).ok()? {
        serde_json::Value::String(text) => Some(Ok(text)),
        serde_json::Value::Object(fields) => Some(match fields.get("text") {
            Some(serde_json::Value::String(text)) => Ok(text.clone()),
            _ => Err("an object without a \"text\" string".to_owned()),
        }),
        _ => None,
    }
}

/// Runs `each` on every chunk of `texts` with a bar on a terminal; the text index of a
/// model's error ([`EncoderError`]) is made relative to the whole input.
pub fn chunked(
    mut texts: Texts,
    what: &str,
    mut each: impl FnMut(&[&str]) -> Result<()>,
) -> Result<()> {
    let progress = Bar::count(None, what);
    while let Some((offset, chunk)) = texts.next_chunk()? {
        let chunk: Vec<&str> = chunk.iter().map(String::as_str).collect();
        each(&chunk).map_err(|err| match err.downcast::<EncoderError>() {
            Ok(err) => texts.locate(err, offset),
            Err(other) => other,
        })?;
        progress.inc(chunk.len() as u64);
    }
    progress.finish();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(content: &[u8]) -> Texts {
        Texts {
            source: Source::Reader {
                name: "f".to_owned(),
                reader: Box::new(std::io::Cursor::new(content.to_vec())),
            },
            json: None,
            line: 0,
            first: None,
            lines: Vec::new(),
            done: 0,
        }
    }

    fn parse(content: &str) -> Result<Vec<String>> {
        let mut texts = reading(content.as_bytes());
        let mut all = Vec::new();
        while let Some((_, chunk)) = texts.next_chunk()? {
            all.extend(chunk);
        }
        Ok(all)
    }

    #[test]
    fn lines_or_json_lines() {
        assert_eq!(parse("a b\r\n\n c\n").unwrap(), ["a b", " c"]);
        assert_eq!(
            parse("\"a\"\n{\"text\": \"b\", \"id\": 2}\n").unwrap(),
            ["a", "b"]
        );
        // A text that happens to be JSON of another kind stays a line.
        assert_eq!(parse("3\n[1]\n").unwrap(), ["3", "[1]"]);
        let err = parse("\"a\"\nplain\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "--input f: line 2: not a JSON string or object (the first line made the file JSON lines)"
        );
        let err = parse("{\"txt\": \"a\"}\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "--input f: line 1: an object without a \"text\" string (the file is JSON lines)"
        );
    }

    #[test]
    fn chunks_are_bounded_and_count_from_the_whole_input() {
        let content = "x\n".repeat(2 * CHUNK + 3);
        let mut texts = reading(content.as_bytes());
        let mut seen = Vec::new();
        while let Some((offset, chunk)) = texts.next_chunk().unwrap() {
            seen.push((offset, chunk.len()));
        }
        assert_eq!(seen, [(0, CHUNK), (CHUNK, CHUNK), (2 * CHUNK, 3)]);
    }

    #[test]
    fn a_line_over_the_cap_is_an_error_naming_it() {
        let mut content = "short\n".to_owned();
        content.push_str(&"y".repeat(MAX_LINE));
        content.push('\n');
        // Exactly the cap is allowed.
        assert_eq!(parse(&content).unwrap().len(), 2);
        content.push_str(&"z".repeat(MAX_LINE + 1));
        let err = format!("{:#}", parse(&content).unwrap_err());
        assert_eq!(
            err,
            "--input f: line 3 is longer than 1 MiB, the most a line may have (one text per line)"
        );
    }

    #[test]
    fn chunk_errors_name_the_line_in_the_file() {
        // A blank line first: the second text of the second chunk is on line CHUNK + 3.
        let content = format!("\n{}", "x\n".repeat(CHUNK + 3));
        let err = chunked(reading(content.as_bytes()), "test", |chunk| {
            if chunk.len() == 3 {
                Err(EncoderError::EmptyText { index: 1 }.into())
            } else {
                Ok(())
            }
        })
        .unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            format!(
                "--input f: line {} has no tokens: it is empty or blank",
                CHUNK + 3
            )
        );
    }
}
