//! A token-valence lexicon (issue #46): one word a row with its period valence on the paper's
//! five-point scale and the rule that gives it, applied to every proposal of every model, so
//! that a proposal is rated "independently from the models that provided it" (Cuscito et al.)
//! by a list fixed before any model was scored with it. A word the lexicon does not list is 0.
//!
//! The format, tab-separated UTF-8 (`datasets/valence/lexicon-v1.tsv`):
//!
//! ```text
//! # comment lines and blank lines are skipped
//! word<TAB>valence<TAB>rule
//! thou<TAB>-1<TAB>only Early Modern: second person singular pronoun
//! ```
//!
//! `word` is one lowercase word (letters and inner apostrophes, as annotation keys), `valence`
//! one of −1, −0.5, 0, 0.5, 1, `rule` the reason, never empty. A word listed twice, a row with
//! another number of fields, a value off the scale and a file without a row are refused, each
//! with the file and line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::read::{ReadError, read_to_string};
use crate::valence::Valence;

/// A read and checked lexicon: word → (valence, rule).
#[derive(Debug, Clone, PartialEq)]
pub struct Lexicon {
    entries: BTreeMap<String, (Valence, String)>,
}

/// Why a lexicon file was refused: one line naming the file and the line.
#[derive(Debug, thiserror::Error)]
pub enum LexiconError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A row that breaks a rule.
    #[error("{}:{line}: {problem}", file.display())]
    Row {
        /// The lexicon file.
        file: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        problem: String,
    },
    /// No row at all.
    #[error("{}: no word: a lexicon lists at least one word (word<TAB>valence<TAB>rule)", file.display())]
    Empty {
        /// The lexicon file.
        file: PathBuf,
    },
}

/// Whether `word` is one lowercase word: letters, and apostrophes between letters.
fn is_word(word: &str) -> bool {
    let chars: Vec<char> = word.chars().collect();
    !chars.is_empty()
        && chars.iter().enumerate().all(|(i, &c)| {
            (c.is_alphabetic() && !c.is_uppercase())
                || (c == '\''
                    && i > 0
                    && i + 1 < chars.len()
                    && chars[i - 1].is_alphabetic()
                    && chars[i + 1].is_alphabetic())
        })
}

impl Lexicon {
    /// Reads and checks a lexicon file.
    pub fn read(path: &Path) -> Result<Lexicon, LexiconError> {
        Lexicon::parse(&read_to_string(path)?, path)
    }

    /// Parses and checks a lexicon; `file` only names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Lexicon, LexiconError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut entries = BTreeMap::new();
        let mut first_line: BTreeMap<String, usize> = BTreeMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let row = raw.strip_suffix('\r').unwrap_or(raw);
            if row.trim().is_empty() || row.starts_with('#') {
                continue;
            }
            let err = |problem: String| LexiconError::Row {
                file: file.to_path_buf(),
                line,
                problem,
            };
            let fields: Vec<&str> = row.split('\t').collect();
            let [word, value, rule] = fields[..] else {
                return Err(err(format!(
                    "{} tab-separated fields, expected 3 (word, valence, rule)",
                    fields.len()
                )));
            };
            if !is_word(word) {
                return Err(err(format!(
                    "word {word:?} is not one lowercase word (letters, inner apostrophes)"
                )));
            }
            let valence = value
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(Valence::new)
                .ok_or_else(|| {
                    err(format!(
                        "valence {value:?} of {word:?} is not on the scale -1, -0.5, 0, 0.5, 1"
                    ))
                })?;
            if rule.trim().is_empty() {
                return Err(err(format!("{word:?} has no rule")));
            }
            if let Some(first) = first_line.insert(word.to_owned(), line) {
                return Err(err(format!(
                    "{word:?} is listed twice (first at line {first})"
                )));
            }
            entries.insert(word.to_owned(), (valence, rule.trim().to_owned()));
        }
        if entries.is_empty() {
            return Err(LexiconError::Empty {
                file: file.to_path_buf(),
            });
        }
        Ok(Lexicon { entries })
    }

    /// The valence of `word` (matched lowercased): its entry's, else 0, the lexicon's rule for
    /// every word it does not list.
    pub fn valence(&self, word: &str) -> Valence {
        self.entries
            .get(&word.to_lowercase())
            .map_or(Valence::NEUTRAL, |(v, _)| *v)
    }

    /// Every word with its valence, in word order.
    pub fn valences(&self) -> BTreeMap<String, Valence> {
        self.entries
            .iter()
            .map(|(w, (v, _))| (w.clone(), *v))
            .collect()
    }

    /// The rule that rates `word`, if it is listed.
    pub fn rule(&self, word: &str) -> Option<&str> {
        self.entries
            .get(&word.to_lowercase())
            .map(|(_, r)| r.as_str())
    }

    /// Words listed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no word is listed (never, for a lexicon that was read).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Lexicon, LexiconError> {
        Lexicon::parse(text, Path::new("lex.tsv"))
    }

    #[test]
    fn rows_comments_and_the_default_of_zero() {
        let lex = parse(
            "# a lexicon\n\nthou\t-1\tonly Early Modern\nshall\t-0.5\tleaning\r\nemail\t1\tnew\n\
             y'all\t1\tnew\n",
        )
        .unwrap();
        assert_eq!(lex.len(), 4);
        assert_eq!(lex.valence("Thou"), Valence::EARLY_MODERN);
        assert_eq!(lex.valence("shall").value(), -0.5);
        assert_eq!(lex.valence("y'all").value(), 1.0);
        // Not listed: 0, the lexicon's rule for the rest.
        assert_eq!(lex.valence("table"), Valence::NEUTRAL);
        assert_eq!(lex.rule("email"), Some("new"));
        assert_eq!(lex.rule("table"), None);
    }

    #[test]
    fn bad_rows_are_one_line_errors_naming_file_and_line() {
        let cases = [
            (
                "thou\t-1\n",
                "lex.tsv:1: 2 tab-separated fields, expected 3 (word, valence, rule)",
            ),
            (
                "# x\nthou\t-0.7\tr\n",
                "lex.tsv:2: valence \"-0.7\" of \"thou\" is not on the scale -1, -0.5, 0, 0.5, 1",
            ),
            (
                "thou\tmuch\tr\n",
                "lex.tsv:1: valence \"much\" of \"thou\" is not on the scale -1, -0.5, 0, 0.5, 1",
            ),
            (
                "thou\t-1\tr\n\nthou\t-1\tr\n",
                "lex.tsv:3: \"thou\" is listed twice (first at line 1)",
            ),
            (
                "Thou\t-1\tr\n",
                "lex.tsv:1: word \"Thou\" is not one lowercase word (letters, inner apostrophes)",
            ),
            (
                "two words\t-1\tr\n",
                "lex.tsv:1: word \"two words\" is not one lowercase word (letters, inner apostrophes)",
            ),
            ("thou\t-1\t \n", "lex.tsv:1: \"thou\" has no rule"),
            (
                "# only comments\n\n",
                "lex.tsv: no word: a lexicon lists at least one word (word<TAB>valence<TAB>rule)",
            ),
            (
                "",
                "lex.tsv: no word: a lexicon lists at least one word (word<TAB>valence<TAB>rule)",
            ),
        ];
        for (text, message) in cases {
            assert_eq!(parse(text).unwrap_err().to_string(), message, "{text:?}");
        }
    }

    #[test]
    fn words_are_letters_with_inner_apostrophes() {
        assert!(is_word("hath") && is_word("y'all") && is_word("née"));
        assert!(!is_word("'tis") && !is_word("ye'") && !is_word("") && !is_word("a1"));
    }
}
