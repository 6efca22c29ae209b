//! Texts from `--input FILE` (or `-` for stdin) instead of the command line, so that
//! large inputs need no argument list; and calling a model on them in chunks with a
//! progress bar on a terminal.
//!
//! A file is either one text per line, or JSON lines: each line a JSON string or an
//! object with a `"text"` string field (other fields are ignored). Which one is decided
//! per file by its first non-blank line: if that parses as such JSON, every line must.
//! Blank lines are skipped in both.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use indicatif::{ProgressBar, ProgressStyle};
use lmbias_encoder::EncoderError;

/// Texts per model call: large enough that the model's own batching (which sorts
/// a call's texts by length) has room to work, small enough for a bar to move.
pub const CHUNK: usize = 512;

/// `--input`, shared by the commands that take texts.
#[derive(clap::Args, Debug)]
pub struct InputArgs {
    /// Read the texts from FILE (`-`: standard input) instead of the command line: one text
    /// per line, or JSON lines (each line a JSON string or an object with a "text" field),
    /// told apart by the first non-blank line. Blank lines are skipped.
    #[arg(long, value_name = "FILE", conflicts_with = "texts")]
    pub input: Option<PathBuf>,
}

/// The texts given: from `--input`, else the positional ones (clap forbids both).
pub fn texts(input: &InputArgs, positional: Vec<String>) -> Result<Vec<String>> {
    let Some(path) = &input.input else {
        return Ok(positional);
    };
    let (name, content) = if path == Path::new("-") {
        let mut content = String::new();
        std::io::stdin()
            .read_to_string(&mut content)
            .context("--input -: reading standard input")?;
        ("standard input".to_owned(), content)
    } else {
        let name = path.display().to_string();
        let content = std::fs::read_to_string(path).with_context(|| format!("--input {name}"))?;
        (name, content)
    };
    let texts = parse(&content).with_context(|| format!("--input {name}"))?;
    if texts.is_empty() {
        bail!("--input {name}: no texts (the input is empty or blank)");
    }
    Ok(texts)
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

fn parse(content: &str) -> Result<Vec<String>> {
    let lines = content
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty());
    let json = lines
        .clone()
        .next()
        .is_some_and(|(_, first)| json_text(first).is_some());
    if !json {
        return Ok(lines.map(|(_, line)| line.to_owned()).collect());
    }
    lines
        .map(|(i, line)| match json_text(line) {
            Some(Ok(text)) => Ok(text),
            Some(Err(what)) => bail!("line {}: {what} (the file is JSON lines)", i + 1),
            None => bail!(
                "line {}: not a JSON string or object (the first line made the file JSON lines)",
                i + 1
            ),
        })
        .collect()
}

/// Calls `run` on `texts` in chunks of [`CHUNK`], with a bar on a terminal; an error's
/// text index is made relative to `texts` again.
pub fn chunked<T>(
    texts: &[&str],
    what: &str,
    mut run: impl FnMut(&[&str]) -> Result<Vec<T>, EncoderError>,
) -> Result<Vec<T>, EncoderError> {
    let progress = bar(texts.len(), what);
    let mut out = Vec::with_capacity(texts.len());
    for (n, chunk) in texts.chunks(CHUNK).enumerate() {
        out.extend(run(chunk).map_err(|err| shifted(err, n * CHUNK))?);
        progress.inc(chunk.len() as u64);
    }
    progress.finish_and_clear();
    Ok(out)
}

/// A progress bar over `len` items on stderr, hidden unless stderr is a terminal
/// (so never in a pipe, a file or a test's captured output).
pub fn bar(len: usize, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64).with_message(what.to_owned());
    bar.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:30}] {pos}/{len} {elapsed}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar
}

fn shifted(mut err: EncoderError, offset: usize) -> EncoderError {
    match &mut err {
        EncoderError::MaskCount { index, .. }
        | EncoderError::WordRange { index, .. }
        | EncoderError::TooLong { index, .. }
        | EncoderError::EmptyText { index }
        | EncoderError::Tokenizer { index, .. } => *index += offset,
        EncoderError::Layer { .. } | EncoderError::UnknownId { .. } | EncoderError::Backend(_) => {}
    }
    err
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_or_json_lines() {
        assert_eq!(parse("a b\n\n c\n").unwrap(), ["a b", " c"]);
        assert_eq!(
            parse("\"a\"\n{\"text\": \"b\", \"id\": 2}\n").unwrap(),
            ["a", "b"]
        );
        // A text that happens to be JSON of another kind stays a line.
        assert_eq!(parse("3\n[1]\n").unwrap(), ["3", "[1]"]);
        let err = parse("\"a\"\nplain\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "line 2: not a JSON string or object (the first line made the file JSON lines)"
        );
        let err = parse("{\"txt\": \"a\"}\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "line 1: an object without a \"text\" string (the file is JSON lines)"
        );
    }

    #[test]
    fn chunk_errors_name_the_text_in_the_whole_input() {
        let texts: Vec<&str> = vec!["x"; CHUNK + 3];
        let err = chunked(&texts, "test", |chunk| {
            if chunk.len() == 3 {
                Err(EncoderError::EmptyText { index: 1 })
            } else {
                Ok(vec![(); chunk.len()])
            }
        })
        .unwrap_err();
        assert_eq!(err.index(), Some(CHUNK + 1));
    }
}
