//! Word lists and templates for the categorical-association probe (Dusi 2024,
//! "Discrimination Bias Detection through Categorical Association in
//! Pre-trained Language Models").
//!
//! Word lists are CSV with a header: `word,value` (the word and its class, e.g.
//! `muslim,muslim` or `kind,positive`), or Dusi's `word,value,descriptor`,
//! where the descriptor says which templates the word fits (e.g. `noun`).
//!
//! Templates are text, one per line; blank lines and lines starting with `#`
//! are skipped. Each template holds exactly one placeholder, `[WORD:<descriptor>]`
//! (only words with that descriptor, or without one, go there) or `[WORD]`
//! (any word goes there).

use lmbias_core::quote;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::csv_lines::LineCounter;
use crate::read::{DATASET, ReadError, read, read_to_string};

/// One word and its class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordEntry {
    /// The word as it is put into templates (and looked up in embedding files).
    pub word: String,
    /// Its class (column `value`), e.g. `muslim` or `positive`.
    pub class: String,
    /// Which templates it fits (e.g. `noun`); `None` fits every template.
    pub descriptor: Option<String>,
}

/// A validated word list: unique words, at least two classes, each with at least two words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordList {
    entries: Vec<WordEntry>,
}

impl WordList {
    /// Entries in file order.
    pub fn entries(&self) -> &[WordEntry] {
        &self.entries
    }

    /// Class names in the order the file first gives them: the order a table of
    /// them prints (Dusi's lists give christian before muslim, positive before negative).
    pub fn classes_in_file_order(&self) -> Vec<&str> {
        let mut classes: Vec<&str> = Vec::new();
        for e in &self.entries {
            if !classes.contains(&e.class.as_str()) {
                classes.push(&e.class);
            }
        }
        classes
    }

    /// Class names, sorted.
    pub fn classes(&self) -> Vec<&str> {
        let mut classes: Vec<&str> = self.entries.iter().map(|e| e.class.as_str()).collect();
        classes.sort_unstable();
        classes.dedup();
        classes
    }

    /// Validates entries that did not come from a file; `source` names them in errors.
    pub fn from_entries(
        source: &Path,
        entries: Vec<WordEntry>,
    ) -> Result<WordList, ProbeDataError> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (index, entry) in entries.iter().enumerate() {
            let line = index + 2; // header is line 1
            let problem = if entry.word.trim().is_empty() {
                Some("empty word".to_string())
            } else if entry.class.trim().is_empty() {
                Some(format!("word {} has an empty value", quote(&entry.word)))
            } else {
                seen.insert(entry.word.as_str(), line).map(|first| {
                    format!(
                        "duplicate word {} (first on line {first})",
                        quote(&entry.word)
                    )
                })
            };
            if let Some(problem) = problem {
                return Err(ProbeDataError::Line {
                    file: source.to_path_buf(),
                    line,
                    problem,
                });
            }
        }
        let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
        for entry in &entries {
            *sizes.entry(entry.class.as_str()).or_default() += 1;
        }
        let problem = if sizes.len() < 2 {
            Some(format!(
                "needs at least two classes in column value, found {}",
                sizes.len()
            ))
        } else {
            sizes.iter().find(|(_, n)| **n < 2).map(|(class, n)| {
                format!(
                    "class {} has {n} word; every class needs at least 2",
                    quote(class)
                )
            })
        };
        match problem {
            Some(problem) => Err(ProbeDataError::File {
                file: source.to_path_buf(),
                problem,
            }),
            None => Ok(WordList { entries }),
        }
    }
}

/// Reads and validates a word-list CSV.
pub fn load_word_list(path: &Path) -> Result<WordList, ProbeDataError> {
    let file = |problem: String| ProbeDataError::File {
        file: path.to_path_buf(),
        problem,
    };
    let bytes = read(path, DATASET)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(bytes.as_slice());
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| file(csv_problem(&e)))?
        .iter()
        .map(str::to_owned)
        .collect();
    let has_descriptor = match header.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["word", "value"] => false,
        ["word", "value", "descriptor"] => true,
        [] | [""] => {
            return Err(file(
                "is empty: a word list starts with its header, word,value or \
                 word,value,descriptor"
                    .to_owned(),
            ));
        }
        _ => {
            return Err(file(format!(
                "header must be word,value or word,value,descriptor, found {}",
                quote(&header.join(","))
            )));
        }
    };
    let mut entries = Vec::new();
    let mut lines = LineCounter::new(&bytes);
    for record in reader.records() {
        let record = record.map_err(|e| match e.position() {
            Some(pos) => ProbeDataError::Line {
                file: path.to_path_buf(),
                line: lines.line_at(pos.byte()),
                problem: csv_problem(&e),
            },
            None => file(csv_problem(&e)),
        })?;
        let descriptor = if has_descriptor {
            Some(record[2].to_string()).filter(|d| !d.is_empty())
        } else {
            None
        };
        entries.push(WordEntry {
            word: record[0].to_string(),
            class: record[1].to_string(),
            descriptor,
        });
    }
    WordList::from_entries(path, entries)
}

/// The csv crate's message without its own position prefix (we add file and line).
///
/// The file is read before csv sees it, so csv has no I/O of its own to fail: what is left is
/// a problem with the data (ragged rows, bad UTF-8), which a message describes fully.
fn csv_problem(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => {
            format!("{len} fields, expected {expected_len}")
        }
        _ => e.to_string(),
    }
}

/// A sentence with one slot for a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    text: String,
    slot: Range<usize>,
    descriptor: Option<String>,
}

impl Template {
    /// Parses one template line; the error says what is wrong with its placeholder.
    pub fn parse(line: &str) -> Result<Template, String> {
        let starts: Vec<usize> = line.match_indices("[WORD").map(|(i, _)| i).collect();
        if starts.len() != 1 {
            return Err(format!(
                "needs exactly one [WORD:<descriptor>] placeholder, found {}",
                starts.len()
            ));
        }
        let start = starts[0];
        let end = line[start..]
            .find(']')
            .map(|i| start + i + 1)
            .ok_or("unclosed [WORD placeholder")?;
        let inner = &line[start + "[WORD".len()..end - 1];
        let descriptor = match inner.strip_prefix(':') {
            Some(d) if !d.trim().is_empty() => Some(d.trim().to_string()),
            None if inner.is_empty() => None,
            _ => {
                return Err(format!(
                    "malformed placeholder {}",
                    quote(&line[start..end])
                ));
            }
        };
        Ok(Template {
            text: line.to_string(),
            slot: start..end,
            descriptor,
        })
    }

    /// The kind of word the slot takes (e.g. `noun`); `None` takes any.
    pub fn descriptor(&self) -> Option<&str> {
        self.descriptor.as_deref()
    }

    /// Whether `entry` may fill this template's slot.
    pub fn accepts(&self, entry: &WordEntry) -> bool {
        match (&self.descriptor, &entry.descriptor) {
            (Some(want), Some(have)) => want == have,
            _ => true,
        }
    }

    /// The sentence with `word` in the slot, and the byte range `word` occupies.
    pub fn fill(&self, word: &str) -> (String, Range<usize>) {
        let mut text = String::with_capacity(self.text.len() + word.len());
        text.push_str(&self.text[..self.slot.start]);
        text.push_str(word);
        text.push_str(&self.text[self.slot.end..]);
        (text, self.slot.start..self.slot.start + word.len())
    }
}

/// Reads a templates file (one template per line; blank and `#` lines skipped).
pub fn load_templates(path: &Path) -> Result<Vec<Template>, ProbeDataError> {
    let text = read_to_string(path)?;
    let mut templates = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        templates.push(
            Template::parse(line).map_err(|problem| ProbeDataError::Line {
                file: path.to_path_buf(),
                line: index + 1,
                problem,
            })?,
        );
    }
    if templates.is_empty() {
        return Err(ProbeDataError::File {
            file: path.to_path_buf(),
            problem: "no templates".into(),
        });
    }
    Ok(templates)
}

/// Why probe data could not be loaded. One line, naming the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum ProbeDataError {
    /// The file could not be read (or is not UTF-8).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A rule about the file as a whole (header, classes, no templates).
    #[error("{}: {problem}", file.display())]
    File {
        /// The word list or templates file.
        file: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A line that breaks a rule.
    #[error("{}:{line}: {problem}", file.display())]
    Line {
        /// The word list or templates file.
        file: PathBuf,
        /// Counting from 1 (the header is line 1), as editors and compilers do.
        line: usize,
        /// What is wrong.
        problem: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, content: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lmbias-probe-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        path
    }

    #[test]
    fn reads_both_headers() {
        let two = write(
            "two.csv",
            "word,value\nchurch,christian\nbible,christian\nmosque,muslim\nquran,muslim\n",
        );
        let list = load_word_list(&two).unwrap();
        assert_eq!(list.classes(), ["christian", "muslim"]);
        assert_eq!(list.entries()[2].word, "mosque");
        assert_eq!(list.entries()[2].descriptor, None);
        let three = write(
            "three.csv",
            "word,value,descriptor\nkind,positive,adj\ngood,positive,adj\nmean,negative,adj\nevil,negative,\n",
        );
        let list = load_word_list(&three).unwrap();
        assert_eq!(list.entries()[0].descriptor.as_deref(), Some("adj"));
        assert_eq!(list.entries()[3].descriptor, None);
    }

    #[test]
    fn errors_name_file_and_line() {
        let dup = write("dup.csv", "word,value\na,x\nb,x\nc,y\na,y\n");
        let err = load_word_list(&dup).unwrap_err().to_string();
        assert!(
            err.ends_with("dup.csv:5: duplicate word \"a\" (first on line 2)"),
            "{err}"
        );

        let small = write("small.csv", "word,value\na,x\nb,x\nc,y\n");
        let err = load_word_list(&small).unwrap_err().to_string();
        assert!(
            err.ends_with("small.csv: class \"y\" has 1 word; every class needs at least 2"),
            "{err}"
        );

        let ragged = write("ragged.csv", "word,value\na,x\nb,x,extra\n");
        let err = load_word_list(&ragged).unwrap_err().to_string();
        assert!(err.ends_with("ragged.csv:3: 3 fields, expected 2"), "{err}");

        let latin1 = write("latin1.csv", "");
        std::fs::write(&latin1, b"word,value\na,x\nb,x\nc,y\nd\xe9,y\n").unwrap();
        let err = load_word_list(&latin1).unwrap_err().to_string();
        assert!(err.contains("latin1.csv:5: "), "{err}");
        assert!(err.contains("UTF-8"), "{err}");

        let empty = write("empty.csv", "");
        let err = load_word_list(&empty).unwrap_err().to_string();
        assert!(
            err.ends_with(
                "empty.csv: is empty: a word list starts with its header, word,value \
                           or word,value,descriptor"
            ),
            "{err}"
        );

        let header = write("header.csv", "term,class\na,x\n");
        let err = load_word_list(&header).unwrap_err().to_string();
        assert!(
            err.contains("header.csv: header must be word,value"),
            "{err}"
        );
        assert!(!err.contains('\n'));
    }

    #[test]
    fn templates_fill_their_slot() {
        let path = write(
            "templates.txt",
            "# religion\n\nThe [WORD:noun] was here.\n[WORD] is a word.\n",
        );
        let templates = load_templates(&path).unwrap();
        assert_eq!(templates.len(), 2);
        assert_eq!(templates[0].descriptor(), Some("noun"));
        let (text, range) = templates[0].fill("mosque");
        assert_eq!(text, "The mosque was here.");
        assert_eq!(&text[range], "mosque");
        let adj = WordEntry {
            word: "kind".into(),
            class: "positive".into(),
            descriptor: Some("adj".into()),
        };
        assert!(!templates[0].accepts(&adj));
        assert!(templates[1].accepts(&adj));

        let bad = write("bad.txt", "A [WORD:noun] and [WORD:noun].\n");
        let err = load_templates(&bad).unwrap_err().to_string();
        assert!(
            err.ends_with("bad.txt:1: needs exactly one [WORD:<descriptor>] placeholder, found 2"),
            "{err}"
        );
        let missing = std::env::temp_dir().join("lmbias-no-such-dir/templates.txt");
        match load_templates(&missing) {
            Err(ProbeDataError::Read(e)) => {
                assert_eq!(e.to_string(), format!("{}: cannot read", missing.display()));
                assert_eq!(e.source.kind(), std::io::ErrorKind::NotFound);
            }
            other => panic!("{other:?}"),
        }
        let bad = write("bad2.txt", "ok [WORD]\nA [WORD:] here.\n");
        let err = load_templates(&bad).unwrap_err().to_string();
        assert!(
            err.ends_with("bad2.txt:2: malformed placeholder \"[WORD:]\""),
            "{err}"
        );
    }
}
