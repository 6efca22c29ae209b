//! Minimal pairs in CrowS-Pairs' CSV (Nangia, Vania, Bhalerao & Bowman 2020,
//! `data/crows_pairs_anonymized.csv`): a header naming at least `sent_more`, `sent_less`,
//! `stereo_antistereo` and `bias_type`; the first, unnamed column, where there is one, is the
//! pair's id (else its line); the annotators' columns are not read.
//!
//! A pair whose two sentences are identical has nothing to score: it is set aside with its
//! line ([`PairSet::identical`]), never counted as a tie. [`PairSet::lint`] lists the pairs
//! that Blodgett et al. (2021, "Stereotyping Norwegian Salmon") warn about and that a program
//! can find: sentences that differ in more than one place, modified spans of very different
//! lengths, pairs given twice and, given a list of group terms ([`GroupTerms`]), pairs whose
//! modified words name a group of another bias type than the pair's.

mod group_terms;

pub use group_terms::GroupTerms;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use lmbias_core::quote;
use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::csv_lines::LineCounter;
use crate::read::{DATASET, ReadError, read};

/// The columns a pairs file must have.
const COLUMNS: [&str; 4] = ["sent_more", "sent_less", "stereo_antistereo", "bias_type"];

/// Which way a pair's first sentence goes, CrowS-Pairs' `stereo_antistereo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// `sent_more` demonstrates a stereotype about a disadvantaged group.
    Stereo,
    /// `sent_more` violates one (an anti-stereotype).
    Antistereo,
}

/// One minimal pair as the file gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MinimalPair {
    /// The first column's value, or the line when the file has no id column.
    pub id: String,
    /// The line the pair is on, counting the header as 1.
    pub line: usize,
    /// `sent_more`.
    pub more: String,
    /// `sent_less`.
    pub less: String,
    /// `stereo_antistereo`.
    pub direction: Direction,
    /// `bias_type` (`race-color`, `gender`, …).
    pub bias_type: String,
}

/// The pairs of one file, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairSet {
    path: PathBuf,
    pairs: Vec<MinimalPair>,
    identical: Vec<MinimalPair>,
}

/// The pairs [`PairSet::lint`] flags, each by id, in file order.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Lint {
    /// The sentences differ in more than one contiguous span of words.
    pub several_spans: Vec<String>,
    /// A modified span is more than the lint's limit longer, in words, than its counterpart.
    pub unequal_spans: Vec<String>,
    /// A pair whose two sentences an earlier pair has (in either order): (this id, the first's).
    pub duplicates: Vec<(String, String)>,
    /// What a group-term list found, where the lint was given one.
    pub group_terms: Option<GroupCheck>,
    /// Ids given to more than one row, each with its rows' lines, in file order of the id's
    /// first row. Counted, not flagged: a pair is its row, its id only names it (issue #47).
    pub repeated_ids: Vec<(String, Vec<usize>)>,
    /// The lines of the flagged pairs: a pair is its row, whatever its id (a file may give
    /// one id to several rows), so that leaving out the flagged leaves out no other pair.
    #[serde(skip)]
    lines: BTreeSet<usize>,
}

/// The pairs a group-term list tells about, each by id, in file order. Pairs of a bias type
/// the list has no terms for are in neither list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupCheck {
    /// The list, as its path was given.
    pub list: String,
    /// One sentence's modified words name a group the list gives for another bias type, and
    /// none it gives for the pair's own (flagged).
    pub other_group: Vec<String>,
    /// Neither sentence's modified words hold a term of the pair's type: given names,
    /// occupations, words the list does not know. Counted, not flagged: the list cannot tell.
    pub unlisted: Vec<String>,
}

impl Lint {
    /// Whether `pair` (by its line) is flagged by any check.
    pub fn flags(&self, pair: &MinimalPair) -> bool {
        self.lines.contains(&pair.line)
    }

    /// Every flagged id once, in file order of first flagging.
    pub fn ids(&self) -> Vec<&str> {
        let mut ids: Vec<&str> = Vec::new();
        let other_group = self.group_terms.iter().flat_map(|g| &g.other_group);
        let all = self.several_spans.iter().chain(&self.unequal_spans);
        let all = all.chain(self.duplicates.iter().map(|(id, _)| id));
        for id in all.chain(other_group) {
            if !ids.contains(&id.as_str()) {
                ids.push(id);
            }
        }
        ids
    }
}

impl PairSet {
    /// Reads and checks a pairs file.
    pub fn read(path: &Path) -> Result<PairSet, PairsError> {
        PairSet::from_slice(path, &read(path, DATASET)?)
    }

    /// Checks a pairs file's contents; `path` names it in errors.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<PairSet, PairsError> {
        let csv = Csv::open(path, bytes)?;
        let missing: Vec<&str> = COLUMNS
            .into_iter()
            .filter(|c| csv.column(c).is_none())
            .collect();
        if !missing.is_empty() {
            return Err(PairsError::file(
                path,
                format!(
                    "no column {}: a pairs file has a header naming {} (CrowS-Pairs' CSV){}",
                    missing.join(", "),
                    COLUMNS.join(", "),
                    // A header read as one column that holds tabs: a TSV given for the CSV.
                    if csv.header.len() == 1 && csv.header[0].contains('\t') {
                        "; its header is one column holding tabs: is the file tab-separated? \
                         Pairs are comma-separated"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let [more, less, direction, bias_type] = COLUMNS.map(|c| csv.column(c).unwrap_or_default());
        // CrowS-Pairs' own id column is the first, unnamed one.
        let id = csv.header.first().filter(|h| h.is_empty()).map(|_| 0);
        let mut pairs = Vec::new();
        let mut identical = Vec::new();
        for row in csv.rows() {
            let row = row?;
            let direction = match row.cell(direction, "stereo_antistereo")?.as_str() {
                "stereo" => Direction::Stereo,
                "antistereo" => Direction::Antistereo,
                other => {
                    return Err(row.at(
                        "stereo_antistereo",
                        format!("{}: expected stereo or antistereo", quote(other)),
                    ));
                }
            };
            let pair = MinimalPair {
                id: match id {
                    Some(index) => row.cell(index, "id")?,
                    None => row.line.to_string(),
                },
                line: row.line,
                more: row.cell(more, "sent_more")?,
                less: row.cell(less, "sent_less")?,
                direction,
                bias_type: row.cell(bias_type, "bias_type")?,
            };
            if pair.more == pair.less {
                identical.push(pair);
            } else {
                pairs.push(pair);
            }
        }
        if pairs.is_empty() {
            return Err(PairsError::file(path, "has no pair to score".to_owned()));
        }
        Ok(PairSet {
            path: path.to_path_buf(),
            pairs,
            identical,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pairs to score, in file order.
    pub fn pairs(&self) -> &[MinimalPair] {
        &self.pairs
    }

    /// The pairs whose two sentences are the same, set aside unscored.
    pub fn identical(&self) -> &[MinimalPair] {
        &self.identical
    }

    /// The pairs to look at before trusting a score on them (words split at white space):
    /// sentences that differ in more than one contiguous span, spans whose lengths differ by
    /// more than `max_length_gap` words, pairs given twice and, with `terms`, what the list
    /// tells of each pair's modified words ([`GroupCheck`]).
    pub fn lint(&self, max_length_gap: usize, terms: Option<&GroupTerms>) -> Lint {
        let mut lint = Lint {
            group_terms: terms.map(|t| GroupCheck {
                list: t.path().display().to_string(),
                other_group: Vec::new(),
                unlisted: Vec::new(),
            }),
            ..Lint::default()
        };
        let mut seen: HashMap<(&str, &str), &str> = HashMap::new();
        let mut rows_of_id: HashMap<&str, usize> = HashMap::new();
        for pair in &self.pairs {
            match rows_of_id.get(pair.id.as_str()) {
                Some(&k) => lint.repeated_ids[k].1.push(pair.line),
                None => {
                    rows_of_id.insert(&pair.id, lint.repeated_ids.len());
                    lint.repeated_ids.push((pair.id.clone(), vec![pair.line]));
                }
            }
            let spans = modified_spans(&pair.more, &pair.less);
            if spans.len() > 1 {
                lint.several_spans.push(pair.id.clone());
                lint.lines.insert(pair.line);
            }
            if spans
                .iter()
                .any(|(a, b)| a.len().abs_diff(b.len()) > max_length_gap)
            {
                lint.unequal_spans.push(pair.id.clone());
                lint.lines.insert(pair.line);
            }
            if let (Some(terms), Some(check)) = (terms, lint.group_terms.as_mut())
                && terms.covers(&pair.bias_type)
            {
                let more: Vec<&str> = spans.iter().flat_map(|s| s.0.iter().copied()).collect();
                let less: Vec<&str> = spans.iter().flat_map(|s| s.1.iter().copied()).collect();
                let (more, less) = (
                    terms.names(&pair.bias_type, &more),
                    terms.names(&pair.bias_type, &less),
                );
                if (more.other && !more.own) || (less.other && !less.own) {
                    check.other_group.push(pair.id.clone());
                    lint.lines.insert(pair.line);
                } else if !more.own && !less.own {
                    check.unlisted.push(pair.id.clone());
                }
            }
            let key = if pair.more <= pair.less {
                (pair.more.as_str(), pair.less.as_str())
            } else {
                (pair.less.as_str(), pair.more.as_str())
            };
            match seen.get(&key) {
                Some(first) => {
                    lint.duplicates.push((pair.id.clone(), (*first).to_owned()));
                    lint.lines.insert(pair.line);
                }
                None => {
                    seen.insert(key, &pair.id);
                }
            }
        }
        lint.repeated_ids.retain(|(_, lines)| lines.len() > 1);
        lint
    }
}

/// Beyond this many words between the common start and end of a pair, the middle is one
/// modified span without a diff: a minimal pair differs in a few words, and a Myers diff of two
/// long middles that differ throughout takes time quadratic in their length (a 50 MB sentence
/// hung the data checks; issue #47).
const MAX_DIFF_WORDS: usize = 2_000;

/// The words of each contiguous span where `a` and `b` differ (a's, b's): the common first and
/// last words set aside in linear time, then a Myers diff of the words between (one span when
/// they are more than [`MAX_DIFF_WORDS`]).
fn modified_spans<'a>(a: &'a str, b: &'a str) -> Vec<(Vec<&'a str>, Vec<&'a str>)> {
    let (a, b): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    if a.is_empty() && b.is_empty() {
        return Vec::new();
    }
    if a.len() + b.len() > MAX_DIFF_WORDS {
        return vec![(a.to_vec(), b.to_vec())];
    }
    let mut spans: Vec<(Vec<&str>, Vec<&str>)> = Vec::new();
    let mut open = false;
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        let (old, new) = match op {
            DiffOp::Equal { .. } => {
                open = false;
                continue;
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => (old_index..old_index + old_len, 0..0),
            DiffOp::Insert {
                new_index, new_len, ..
            } => (0..0, new_index..new_index + new_len),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => (
                old_index..old_index + old_len,
                new_index..new_index + new_len,
            ),
        };
        if !open {
            spans.push((Vec::new(), Vec::new()));
        }
        if let Some(span) = spans.last_mut() {
            span.0.extend_from_slice(&a[old]);
            span.1.extend_from_slice(&b[new]);
        }
        open = true;
    }
    spans
}

/// A CSV file as both readers here take one: its header, then its rows; errors name the
/// file, and the line where there is one.
struct Csv<'b> {
    path: &'b Path,
    header: Vec<String>,
    reader: csv::Reader<&'b [u8]>,
    lines: LineCounter<'b>,
}

impl<'b> Csv<'b> {
    fn open(path: &'b Path, bytes: &'b [u8]) -> Result<Csv<'b>, PairsError> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(bytes);
        let header = reader
            .headers()
            .map_err(|e| PairsError::file(path, e.to_string()))?
            .iter()
            .map(str::to_owned)
            .collect();
        Ok(Csv {
            path,
            header,
            reader,
            lines: LineCounter::new(bytes),
        })
    }

    /// The index of the column named `name`.
    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    /// The rows after the header, each with its line.
    fn rows(self) -> impl Iterator<Item = Result<Row<'b>, PairsError>> {
        let (path, mut lines) = (self.path, self.lines);
        self.reader.into_records().map(move |record| {
            let record = record.map_err(|e| match e.position() {
                Some(pos) => PairsError::Line {
                    file: path.to_path_buf(),
                    line: lines.line_at(pos.byte()),
                    field: None,
                    problem: e.to_string(),
                },
                None => PairsError::file(path, e.to_string()),
            })?;
            Ok(Row {
                path,
                line: record.position().map_or(0, |p| lines.line_at(p.byte())),
                record,
            })
        })
    }
}

/// One row of a [`Csv`], with its line (the header is line 1).
struct Row<'b> {
    path: &'b Path,
    line: usize,
    record: csv::StringRecord,
}

impl Row<'_> {
    /// An error at this row's `field`.
    fn at(&self, field: &'static str, problem: String) -> PairsError {
        PairsError::Line {
            file: self.path.to_path_buf(),
            line: self.line,
            field: Some(field),
            problem,
        }
    }

    /// The cell of column `index`, trimmed; an empty one is an error naming `field`.
    fn cell(&self, index: usize, field: &'static str) -> Result<String, PairsError> {
        let value = self.record.get(index).unwrap_or_default().trim();
        if value.is_empty() {
            return Err(self.at(field, "empty".to_owned()));
        }
        Ok(value.to_owned())
    }
}

/// Why a pairs file or a group-term list cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PairsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A rule about the file as a whole (its header, no pairs or terms).
    #[error("{}: {problem}", file.display())]
    File {
        /// The pairs file or group-term list.
        file: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A line that breaks a rule, with the field at fault where there is one.
    #[error("{}:{line}: {}{problem}", file.display(), field.map(|f| format!("{f}: ")).unwrap_or_default())]
    Line {
        /// The pairs file or group-term list.
        file: PathBuf,
        /// Counting from 1 (the header is line 1).
        line: usize,
        /// The column.
        field: Option<&'static str>,
        /// What is wrong.
        problem: String,
    },
}

impl PairsError {
    fn file(path: &Path, problem: String) -> PairsError {
        PairsError::File {
            file: path.to_path_buf(),
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue #49, item 7: a tab-separated pairs file is named as such; a comma-separated one
    /// missing a column gets no such guess.
    #[test]
    fn a_tab_separated_file_gets_a_hint() {
        let tsv = "sent_more\tsent_less\tstereo_antistereo\tbias_type\nA\tB\tstereo\trace\n";
        let err = PairSet::from_slice(Path::new("p.tsv"), tsv.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.tsv: no column sent_more, sent_less, stereo_antistereo, bias_type: a pairs file has \
             a header naming sent_more, sent_less, stereo_antistereo, bias_type (CrowS-Pairs' CSV); \
             its header is one column holding tabs: is the file tab-separated? Pairs are \
             comma-separated"
        );
        let csv = "sent_more,sent_less,bias_type\nA,B,race\n";
        let err = PairSet::from_slice(Path::new("p.csv"), csv.as_bytes()).unwrap_err();
        assert!(!err.to_string().contains("tab"), "{err}");
    }

    /// Three rows share id 7 and one of them differs in two spans: only that row is flagged
    /// (issue #47: exclusion matched ids, and left out all three).
    #[test]
    fn a_flag_is_a_row_not_an_id() {
        let csv = ",sent_more,sent_less,stereo_antistereo,bias_type\n\
                   7,the poor are lazy,the rich are lazy,stereo,socioeconomic\n\
                   7,he is a black man who sings,he is a white man who dances,stereo,race-color\n\
                   7,old people are slow,young people are slow,stereo,age\n";
        let set = PairSet::from_slice(Path::new("p.csv"), csv.as_bytes()).unwrap();
        let lint = set.lint(2, None);
        assert_eq!(lint.several_spans, ["7"]);
        let flagged: Vec<usize> = set
            .pairs()
            .iter()
            .filter(|p| lint.flags(p))
            .map(|p| p.line)
            .collect();
        assert_eq!(flagged, [3]);
        // The id given to three rows is reported with their lines, and flags none of them.
        assert_eq!(lint.repeated_ids, [("7".to_owned(), vec![2, 3, 4])]);
        let unique = PairSet::from_slice(
            Path::new("q.csv"),
            ",sent_more,sent_less,stereo_antistereo,bias_type\n\
             1,the poor are lazy,the rich are lazy,stereo,socioeconomic\n\
             2,old people are slow,young people are slow,stereo,age\n"
                .as_bytes(),
        )
        .unwrap();
        assert!(unique.lint(2, None).repeated_ids.is_empty());
    }

    #[test]
    fn spans_are_the_runs_of_words_that_differ() {
        fn words(a: &[&'static str], b: &[&'static str]) -> (Vec<&'static str>, Vec<&'static str>) {
            (a.to_vec(), b.to_vec())
        }
        assert_eq!(
            modified_spans("the poor are lazy", "the rich are lazy"),
            [words(&["poor"], &["rich"])]
        );
        assert_eq!(
            modified_spans(
                "he is a black man who sings",
                "he is a white man who dances"
            ),
            [
                words(&["black"], &["white"]),
                words(&["sings"], &["dances"])
            ]
        );
        assert_eq!(
            modified_spans("my neighbour is old", "my neighbour is a young person"),
            [words(&["old"], &["a", "young", "person"])]
        );
        assert_eq!(
            modified_spans("they are old people", "they are people"),
            [words(&["old"], &[])]
        );
        assert_eq!(modified_spans("same words", "same words"), []);
        // Two long sentences that differ throughout (issue #47: 200,000 words took 53 s): the
        // middle between the common ends is one span, found in linear time.
        let a = format!("the start {} the end", "a b ".repeat(100_000));
        let b = format!("the start {} the end", "c d ".repeat(100_000));
        let spans = modified_spans(&a, &b);
        assert_eq!(spans.len(), 1);
        assert_eq!((spans[0].0.len(), spans[0].1.len()), (200_000, 200_000));
        assert_eq!((spans[0].0[0], spans[0].1[199_999]), ("a", "d"));
        // Short middles are still diffed word by word inside long common ends.
        let long = "w ".repeat(50_000);
        assert_eq!(
            modified_spans(
                &format!("{long} poor {long}"),
                &format!("{long} rich {long}")
            ),
            [words(&["poor"], &["rich"])]
        );
    }
}
