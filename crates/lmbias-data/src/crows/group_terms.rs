//! A list of words that name a group, by bias type (`bias_type,term`, one lower-case word a
//! row; datasets/group-terms/en.csv is ours): what lets the lint tell a pair whose
//! modified words name a group of another bias type than the pair's (CrowS-Pairs' pair 96, a
//! disability pair, contrasts "mentally ill" with "white") from one that stays on its axis.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lmbias_core::quote;

use super::{Csv, PairsError};
use crate::read::{DATASET, read};

/// The columns a group-term list must have.
const COLUMNS: [&str; 2] = ["bias_type", "term"];

/// Words that name a group, by bias type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupTerms {
    path: PathBuf,
    by_type: BTreeMap<String, BTreeSet<String>>,
}

impl GroupTerms {
    /// Reads and checks a group-term list.
    pub fn read(path: &Path) -> Result<GroupTerms, PairsError> {
        GroupTerms::from_slice(path, &read(path, DATASET)?)
    }

    /// Checks a group-term list's contents; `path` names it in errors.
    pub fn from_slice(path: &Path, bytes: &[u8]) -> Result<GroupTerms, PairsError> {
        let csv = Csv::open(path, bytes)?;
        let (Some(bias_type), Some(term)) = (csv.column(COLUMNS[0]), csv.column(COLUMNS[1])) else {
            return Err(PairsError::file(
                path,
                format!(
                    "a group-term list has a header naming {}",
                    COLUMNS.join(", ")
                ),
            ));
        };
        let mut by_type: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for row in csv.rows() {
            let row = row?;
            let kind = row.cell(bias_type, "bias_type")?;
            let word = row.cell(term, "term")?;
            if word.contains(char::is_whitespace) || word_key(&word) != word {
                return Err(row.at(
                    "term",
                    format!(
                        "{}: a term is one lower-case word without surrounding punctuation",
                        quote(&word)
                    ),
                ));
            }
            by_type.entry(kind).or_default().insert(word);
        }
        if by_type.is_empty() {
            return Err(PairsError::file(path, "has no term".to_owned()));
        }
        Ok(GroupTerms {
            path: path.to_path_buf(),
            by_type,
        })
    }

    /// The file read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the list has terms for `bias_type`.
    pub fn covers(&self, bias_type: &str) -> bool {
        self.by_type.contains_key(bias_type)
    }

    /// What `words` name, for a pair of type `bias_type`: whether one of them is a term of
    /// that type, and whether one is a term of another type only.
    pub(super) fn names(&self, bias_type: &str, words: &[&str]) -> Named {
        let own = self.by_type.get(bias_type);
        let mut named = Named::default();
        for key in words.iter().map(|w| word_key(w)) {
            if own.is_some_and(|terms| terms.contains(&key)) {
                named.own = true;
            } else if self
                .by_type
                .iter()
                .any(|(kind, terms)| kind != bias_type && terms.contains(&key))
            {
                named.other = true;
            }
        }
        named
    }
}

/// Which groups some words name (see [`GroupTerms::names`]).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Named {
    pub own: bool,
    pub other: bool,
}

/// A word as the list is matched: lower-cased, without surrounding punctuation or a
/// possessive "'s" ("Jew," and "Jews'" → "jew", "jews"; "African-American's" →
/// "african-american").
fn word_key(word: &str) -> String {
    let lower = word.to_lowercase();
    let trimmed = lower.trim_matches(|c: char| !c.is_alphanumeric());
    trimmed
        .strip_suffix("'s")
        .or_else(|| trimmed.strip_suffix("\u{2019}s"))
        .unwrap_or(trimmed)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_matched_without_case_punctuation_or_possessive() {
        assert_eq!(word_key("Jew,"), "jew");
        assert_eq!(word_key("\"Women's"), "women");
        assert_eq!(word_key("African-Americans."), "african-americans");
        assert_eq!(word_key("mother\u{2019}s"), "mother");
        assert_eq!(word_key("..."), "");
    }
}
