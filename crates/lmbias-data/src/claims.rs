//! A known-answer claims file (issue #46): what a check of the valence method must show, fixed
//! before the run. It names the rater (a lexicon, by file and sha256), the sentence sets (by file
//! and sha256, with what selected them), every claim (two models, a set, a group, the expected
//! sign of mean B of the first minus the second) and the dose-response test (models in order of
//! their dose, the expected trend of mean B). `datasets/valence/known-answer-v2.json` is ours (v1, kept, was the first);
//! lmbias-papers' `known_answer` checks the claims, xtask refuses a file whose digest is not the
//! one it was frozen with.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::read::{ReadError, read_to_string};
use crate::valence::Group;

/// A file the claims rest on, pinned by digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pinned {
    /// The path under `datasets/`.
    pub file: String,
    /// Its sha256, lower-case hex.
    pub sha256: String,
}

/// A sentence set the claims are tested on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentenceSet {
    /// The dataset's name (its `name` field), as claims refer to it.
    pub name: String,
    /// The dataset file.
    #[serde(flatten)]
    pub pinned: Pinned,
    /// What chose its sentences and their masks: a source other than the rater.
    pub selected_by: String,
}

/// One claim: mean B over `group` of set `set` is lower for model `early` than for `modern`
/// (the sign-flip test over sentences, paired by id, one-sided).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimSpec {
    /// Short, unique: C1, C2 …
    pub id: String,
    /// What must hold, in words.
    pub statement: String,
    /// The model expected to lean Early Modern (a period model's short name: kjv, shakespeare).
    pub early: String,
    /// The model expected to lean Modern (web).
    pub modern: String,
    /// The sentence set, by name.
    pub set: String,
    /// The sentences of the set tested.
    pub group: Group,
}

/// The dose-response test: mean B over `group` of `set` falls along `models`, ordered by their
/// dose (Page's test over sentences).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoseResponseSpec {
    /// Short, unique among the claims: D1.
    pub id: String,
    /// What must hold, in words.
    pub statement: String,
    /// The models, lowest dose first.
    pub models: Vec<String>,
    /// Each model's dose, in the same order (the share of Early Modern training text, %).
    pub doses: Vec<u32>,
    /// The sentence set, by name.
    pub set: String,
    /// The sentences of the set tested.
    pub group: Group,
    /// Permutation patterns, the observed one included.
    pub n_samples: u64,
    /// The seed of the permutations.
    pub seed: u64,
}

/// A checked claims file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimsFile {
    /// `known-answer-v2`.
    pub name: String,
    /// The day it was frozen (ISO 8601).
    pub frozen: String,
    /// What it is, for the report.
    pub description: String,
    /// The family-wise error rate, after [`ClaimsFile::correction`].
    pub alpha: f64,
    /// `holm`, the only correction supported.
    pub correction: String,
    /// The rater of every claim: a lexicon ([`crate::lexicon`]).
    pub lexicon: Pinned,
    /// The sentence sets.
    pub sets: Vec<SentenceSet>,
    /// The claims, in report order.
    pub claims: Vec<ClaimSpec>,
    /// The dose-response tests: one object (v1) or a list.
    #[serde(deserialize_with = "one_or_many")]
    pub dose_response: Vec<DoseResponseSpec>,
}

/// A dose-response test written as one object or as a list of them; serde's reason for a
/// malformed one names its field.
fn one_or_many<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<DoseResponseSpec>, D::Error> {
    use serde::de::Error;
    let value = serde_json::Value::deserialize(deserializer)?;
    if value.is_array() {
        Vec::<DoseResponseSpec>::deserialize(value).map_err(D::Error::custom)
    } else {
        DoseResponseSpec::deserialize(value)
            .map(|d| vec![d])
            .map_err(|e| D::Error::custom(format!("dose_response: {e}")))
    }
}

/// Why a claims file was refused: one line naming the file and the field.
#[derive(Debug, thiserror::Error)]
pub enum ClaimsError {
    /// The file could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Not JSON of this shape; serde's reason names the field, line and column.
    #[error("{}: not a known-answer claims file", file.display())]
    Json {
        /// The file.
        file: PathBuf,
        /// serde's reason.
        source: serde_json::Error,
    },
    /// A field that breaks a rule.
    #[error("{}: {field}: {problem}", file.display())]
    Field {
        /// The file.
        file: PathBuf,
        /// The field (`claims[2].set`).
        field: String,
        /// What is wrong.
        problem: String,
    },
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl ClaimsFile {
    /// Reads and checks a claims file.
    pub fn read(path: &Path) -> Result<ClaimsFile, ClaimsError> {
        ClaimsFile::parse(&read_to_string(path)?, path)
    }

    /// Parses and checks a claims file; `file` only names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<ClaimsFile, ClaimsError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let claims: ClaimsFile =
            serde_json::from_str(text).map_err(|source| ClaimsError::Json {
                file: file.to_path_buf(),
                source,
            })?;
        claims.check(file)?;
        Ok(claims)
    }

    /// The set named `name`.
    pub fn set(&self, name: &str) -> Option<&SentenceSet> {
        self.sets.iter().find(|s| s.name == name)
    }

    fn check(&self, file: &Path) -> Result<(), ClaimsError> {
        let err = |field: String, problem: String| ClaimsError::Field {
            file: file.to_path_buf(),
            field,
            problem,
        };
        if !(self.alpha > 0.0 && self.alpha < 1.0) {
            return Err(err(
                "alpha".into(),
                format!("{} is not in (0, 1)", self.alpha),
            ));
        }
        if self.correction != "holm" {
            return Err(err(
                "correction".into(),
                format!("{:?}: only \"holm\" is supported", self.correction),
            ));
        }
        let pins = std::iter::once(("lexicon".to_owned(), &self.lexicon)).chain(
            self.sets
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("sets[{i}]"), &s.pinned)),
        );
        for (field, pin) in pins {
            if !is_sha256(&pin.sha256) {
                return Err(err(
                    format!("{field}.sha256"),
                    format!("{:?} is not 64 lower-case hex digits", pin.sha256),
                ));
            }
        }
        let mut names = BTreeSet::new();
        for (i, set) in self.sets.iter().enumerate() {
            if !names.insert(set.name.as_str()) {
                return Err(err(
                    format!("sets[{i}].name"),
                    format!("{:?} twice", set.name),
                ));
            }
            if set.selected_by.trim().is_empty() {
                return Err(err(format!("sets[{i}].selected_by"), "empty".into()));
            }
        }
        if self.claims.is_empty() {
            return Err(err("claims".into(), "no claim".into()));
        }
        let mut ids = BTreeSet::new();
        let known_set = |field: String, set: &str| {
            if names.contains(set) {
                Ok(())
            } else {
                Err(err(field, format!("{set:?} is not one of the sets")))
            }
        };
        for (i, c) in self.claims.iter().enumerate() {
            if !ids.insert(c.id.as_str()) {
                return Err(err(format!("claims[{i}].id"), format!("{:?} twice", c.id)));
            }
            known_set(format!("claims[{i}].set"), &c.set)?;
            if c.early == c.modern {
                return Err(err(
                    format!("claims[{i}].modern"),
                    format!("{:?} is also the early model", c.modern),
                ));
            }
        }
        if self.dose_response.is_empty() {
            return Err(err("dose_response".into(), "no test".into()));
        }
        for (i, d) in self.dose_response.iter().enumerate() {
            if !ids.insert(d.id.as_str()) {
                return Err(err(
                    format!("dose_response[{i}].id"),
                    format!("{:?} is also a claim's or a test's", d.id),
                ));
            }
            known_set(format!("dose_response[{i}].set"), &d.set)?;
            if d.models.len() < 3 || d.models.len() != d.doses.len() {
                return Err(err(
                    format!("dose_response[{i}].models"),
                    format!(
                        "{} models and {} doses: a trend needs at least 3 models, one dose each",
                        d.models.len(),
                        d.doses.len()
                    ),
                ));
            }
            if !d.doses.windows(2).all(|w| w[0] < w[1]) {
                return Err(err(
                    format!("dose_response[{i}].doses"),
                    format!("{:?} does not rise strictly", d.doses),
                ));
            }
            if d.models.iter().collect::<BTreeSet<_>>().len() != d.models.len() {
                return Err(err(
                    format!("dose_response[{i}].models"),
                    "a model twice".into(),
                ));
            }
            if d.n_samples == 0 {
                return Err(err(
                    format!("dose_response[{i}].n_samples"),
                    "must be at least 1".into(),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "92f82d62064b116b310ff94a0fb7691a5ef8cde57e7f1af4540215b68b089058";

    fn file(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v = serde_json::json!({
            "name": "ka", "frozen": "2026-12-06", "description": "d", "alpha": 0.05,
            "correction": "holm",
            "lexicon": {"file": "valence/lex.tsv", "sha256": SHA},
            "sets": [{"name": "drawn", "file": "valence/d.json", "sha256": SHA,
                      "selected_by": "the Bibles' alignment"}],
            "claims": [{"id": "C1", "statement": "s", "early": "kjv", "modern": "web",
                        "set": "drawn", "group": "EME"}],
            "dose_response": {"id": "D1", "statement": "s", "models": ["web", "k50", "kjv"],
                              "doses": [0, 50, 100], "set": "drawn", "group": "EME",
                              "n_samples": 10, "seed": 1}
        });
        edit(&mut v);
        v.to_string()
    }

    fn parse(text: &str) -> Result<ClaimsFile, ClaimsError> {
        ClaimsFile::parse(text, Path::new("ka.json"))
    }

    #[test]
    fn a_valid_file_reads() {
        let c = parse(&file(|_| {})).unwrap();
        assert_eq!(c.claims[0].group, Group::EarlyModern);
        assert_eq!(c.set("drawn").unwrap().pinned.sha256, SHA);
        assert_eq!(c.dose_response[0].doses, [0, 50, 100]);
        // A list of tests reads too, each checked.
        let two = file(|v| {
            let mut second = v["dose_response"].clone();
            second["id"] = "D2".into();
            v["dose_response"] = serde_json::json!([v["dose_response"].clone(), second]);
        });
        let c = parse(&two).unwrap();
        assert_eq!(c.dose_response.len(), 2);
        assert_eq!(c.dose_response[1].id, "D2");
        let err = parse(&file(|v| {
            v["dose_response"].as_object_mut().unwrap().remove("seed");
        }))
        .unwrap_err();
        // The message, then serde's reason as its source, once.
        let err = format!("{err}: {}", std::error::Error::source(&err).unwrap());
        assert!(
            err.starts_with(
                "ka.json: not a known-answer claims file: dose_response: missing field `seed`"
            ),
            "{err}"
        );
    }

    #[test]
    fn rule_breaking_fields_are_named() {
        type Edit = Box<dyn FnOnce(&mut serde_json::Value)>;
        let cases: Vec<(Edit, &str)> = vec![
            (
                Box::new(|v| v["alpha"] = 1.0.into()),
                "ka.json: alpha: 1 is not in (0, 1)",
            ),
            (
                Box::new(|v| v["correction"] = "bonferroni".into()),
                "ka.json: correction: \"bonferroni\": only \"holm\" is supported",
            ),
            (
                Box::new(|v| v["lexicon"]["sha256"] = "abc".into()),
                "ka.json: lexicon.sha256: \"abc\" is not 64 lower-case hex digits",
            ),
            (
                Box::new(|v| v["claims"][0]["set"] = "hand".into()),
                "ka.json: claims[0].set: \"hand\" is not one of the sets",
            ),
            (
                Box::new(|v| v["claims"][0]["modern"] = "kjv".into()),
                "ka.json: claims[0].modern: \"kjv\" is also the early model",
            ),
            (
                Box::new(|v| v["dose_response"]["id"] = "C1".into()),
                "ka.json: dose_response[0].id: \"C1\" is also a claim's or a test's",
            ),
            (
                Box::new(|v| v["dose_response"]["doses"] = serde_json::json!([0, 100, 50])),
                "ka.json: dose_response[0].doses: [0, 100, 50] does not rise strictly",
            ),
            (
                Box::new(|v| v["dose_response"]["doses"] = serde_json::json!([0, 100])),
                "ka.json: dose_response[0].models: 3 models and 2 doses: a trend needs at least 3 \
                 models, one dose each",
            ),
            (
                Box::new(|v| v["claims"] = serde_json::json!([])),
                "ka.json: claims: no claim",
            ),
        ];
        for (edit, message) in cases {
            assert_eq!(parse(&file(edit)).unwrap_err().to_string(), message);
        }
        // An unknown field or group: serde's reason, naming it, as the source.
        let unknown = parse(&file(|v| v["claims"][0]["group"] = "Victorian".into())).unwrap_err();
        assert_eq!(
            unknown.to_string(),
            "ka.json: not a known-answer claims file"
        );
        let reason = std::error::Error::source(&unknown).unwrap().to_string();
        assert!(reason.contains("Victorian"), "{reason}");
    }
}
