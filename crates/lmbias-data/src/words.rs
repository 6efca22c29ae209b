//! A plain list of words, one a line (`train-mlm --add-words FILE`): blank lines and lines
//! starting with `#` skipped, each word trimmed. A word holding white space, and a word given
//! twice, are errors naming the line: a list that says something else than its reader takes
//! would add other words than the user meant.

use lmbias_core::quote;
use std::path::{Path, PathBuf};

use crate::read::{ReadError, read_to_string};

/// The words of a list file, in file order, with the line each is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordsFile {
    path: PathBuf,
    words: Vec<(usize, String)>,
}

impl WordsFile {
    /// Reads and checks a word list.
    pub fn read(path: &Path) -> Result<WordsFile, WordsError> {
        let text = read_to_string(path)?;
        WordsFile::parse(path, &text)
    }

    /// Parses a list's text; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<WordsFile, WordsError> {
        let bad = |line: usize, message: String| WordsError::Line {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut words: Vec<(usize, String)> = Vec::new();
        // Each word's first line: one look-up a word, linear in the list (issue #47).
        let mut first_line: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::new();
        for (i, line) in text.trim_start_matches('\u{feff}').lines().enumerate() {
            let word = line.trim();
            if word.is_empty() || word.starts_with('#') {
                continue;
            }
            if word.contains(char::is_whitespace) {
                return Err(bad(
                    i + 1,
                    format!("{} holds white space: one word a line", quote(word)),
                ));
            }
            if let Some(c) = word.chars().find(|&c| is_dropped(c)) {
                return Err(bad(
                    i + 1,
                    format!(
                        "{} holds the invisible character U+{:04X}, which tokenizers drop: the \
                         word added would not be the word listed",
                        quote(word),
                        u32::from(c)
                    ),
                ));
            }
            if let Some(first) = first_line.insert(word, i + 1) {
                return Err(bad(
                    i + 1,
                    format!("{} is given twice (first on line {first})", quote(word)),
                ));
            }
            words.push((i + 1, word.to_owned()));
        }
        if words.is_empty() {
            return Err(WordsError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(WordsFile {
            path: path.to_path_buf(),
            words,
        })
    }

    /// The file the words came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The words with their line numbers, in file order.
    pub fn words(&self) -> &[(usize, String)] {
        &self.words
    }
}

/// A control character, or a format character BERT's normalizer removes (soft hyphen,
/// zero-width spaces and joiners, direction marks, the byte-order mark): a listed word that
/// holds one was silently added as another word (issue #47).
fn is_dropped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        )
}

/// Why a word list cannot be used; one line, naming the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum WordsError {
    /// The file could not be read (or is not UTF-8).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A line holds no single word, or a word given before.
    #[error("{}: line {line}: {message}", path.display())]
    Line {
        /// The list.
        path: PathBuf,
        /// Counting from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// Nothing but blank lines and comments.
    #[error("{}: no word (every line is blank or a # comment)", path.display())]
    Empty {
        /// The list.
        path: PathBuf,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_read_with_their_lines_and_bad_lists_are_named() {
        let path = Path::new("w.txt");
        let list = WordsFile::parse(path, "\u{feff}# period forms\nhath\n\n  thine \n").unwrap();
        assert_eq!(
            list.words(),
            [(2, "hath".to_owned()), (4, "thine".to_owned())]
        );
        let twice = WordsFile::parse(path, "hath\nthine\nhath\n").unwrap_err();
        assert_eq!(
            twice.to_string(),
            "w.txt: line 3: \"hath\" is given twice (first on line 1)"
        );
        for (word, code) in [("th\u{7}ine", "0007"), ("th\u{200b}ine", "200B")] {
            let hidden = WordsFile::parse(path, &format!("hath\n{word}\n")).unwrap_err();
            assert_eq!(
                hidden.to_string(),
                format!(
                    "w.txt: line 2: {word:?} holds the invisible character U+{code}, which \
                     tokenizers drop: the word added would not be the word listed"
                )
            );
        }
        let spaced = WordsFile::parse(path, "fare thee\n").unwrap_err();
        assert_eq!(
            spaced.to_string(),
            "w.txt: line 1: \"fare thee\" holds white space: one word a line"
        );
        let empty = WordsFile::parse(path, "# nothing\n\n").unwrap_err();
        assert_eq!(
            empty.to_string(),
            "w.txt: no word (every line is blank or a # comment)"
        );
    }
}
