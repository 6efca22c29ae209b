//! Temporal valence sentences (Cuscito, Ferrara, Ruskov, "How BERT Speaks
//! Shakespearean English?"): one masked sentence per item, its valence v(s) on
//! the five-point Early Modern (−1) … Modern (+1) scale, and per-sentence
//! annotations x(t, s) of the tokens a model may propose, judged in context as
//! the paper judges them. An optional global lexicon (a departure from the
//! paper, which rates tokens per sentence) serves as fallback.
//!
//! File format (JSON, lmbias's own; documented in `datasets/README.md`):
//!
//! ```json
//! { "name": "eme-me-60", "description": "...", "mask": "[MASK]",
//!   "sentences": [ { "id": "eme-01", "group": "EME", "class": "pronoun", "valence": -1,
//!                    "source": "Cuscito, Ferrara & Ruskov, Tables 1-3 ...",
//!                    "text": "Why wilt [MASK] be offended by that?",
//!                    "annotations": { "thou": -1, "not": 0, "you": 0, "never": 0 } } ] }
//! ```
//!
//! `mask` defaults to `[MASK]`, `lexicon`, `annotations` and `provenance` (what a generated set
//! was made from, names to strings) to empty; `class`
//! (the word class of the masked word) and `notes` (why a token is scored as
//! it is in this context) are optional. Tokens are matched case-insensitively
//! (Unicode lowercase), so keys are stored lowercased and two keys that differ
//! only in case are an error. A key may be any one word or punctuation mark (a
//! token without whitespace): whether a model can propose it is the study's
//! business (its coverage), not the dataset's.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use lmbias_core::{quote, shorten};
use serde::{Deserialize, Serialize, Serializer};

use crate::read::{ReadError, read_to_string};

/// A point on the paper's scale {−1, −0.5, 0, 0.5, 1}, stored in halves so
/// that no other value can exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Valence(i8);

impl Valence {
    /// −1: a form only Early Modern English uses (e.g. "thou").
    pub const EARLY_MODERN: Valence = Valence(-2);
    /// 0: current in both periods.
    pub const NEUTRAL: Valence = Valence(0);
    /// +1: a form only Modern English uses.
    pub const MODERN: Valence = Valence(2);

    /// The valence whose value is exactly `value`, if it is on the scale.
    pub fn new(value: f64) -> Option<Valence> {
        let halves = value * 2.0;
        // Exact comparison on purpose: 0.5 and its multiples are exact in f64,
        // and 0.49 must not round onto the scale.
        (halves.fract() == 0.0 && (-2.0..=2.0).contains(&halves)).then_some(Valence(halves as i8))
    }

    /// The number the paper's formulas use.
    pub fn value(self) -> f64 {
        f64::from(self.0) / 2.0
    }
}

impl fmt::Display for Valence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.value())
    }
}

impl Serialize for Valence {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.value())
    }
}

/// The period a sentence is written in; the paper reports every measure per group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Group {
    /// Early Modern English ("EME"): valence below 0.
    #[serde(rename = "EME")]
    EarlyModern,
    /// Either period ("neutral"): valence within ±0.5.
    #[serde(rename = "neutral")]
    Neutral,
    /// Modern English ("ME"): valence above 0.
    #[serde(rename = "ME")]
    Modern,
}

impl Group {
    /// Scale order: Early Modern, neutral, Modern.
    pub const ALL: [Group; 3] = [Group::EarlyModern, Group::Neutral, Group::Modern];

    /// The name used in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Group::EarlyModern => "EME",
            Group::Neutral => "neutral",
            Group::Modern => "ME",
        }
    }

    /// Exact names only: a typo must not silently move a sentence to another group.
    fn parse(s: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.as_str() == s)
    }

    /// Whether a sentence of this group may carry valence `v`: Early Modern
    /// sentences are negative, Modern ones positive, neutral ones within ±0.5
    /// (the dataset's rule; a contradiction is almost always a data-entry slip).
    fn admits(self, v: Valence) -> bool {
        match self {
            Group::EarlyModern => v.0 < 0,
            Group::Neutral => v.0.abs() <= 1,
            Group::Modern => v.0 > 0,
        }
    }
}

impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The word class of a sentence's masked word. The paper masks "pronouns,
/// verbs, adverbs, adjectives, and nouns" in every group; recording the class
/// lets a dataset show that class and period are not confounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WordClass {
    /// Personal, possessive (thy, mine eyes), demonstrative or indefinite pronouns.
    Pronoun,
    /// Finite and non-finite verbs, auxiliaries included (hath, wilt, be).
    Verb,
    /// Adverbs, intensifiers included (hither, anon, sore afraid).
    Adverb,
    /// Adjectives, attributive or predicative.
    Adjective,
    /// Nouns, common or forms of address.
    Noun,
}

impl WordClass {
    /// The paper's order.
    pub const ALL: [WordClass; 5] = [
        WordClass::Pronoun,
        WordClass::Verb,
        WordClass::Adverb,
        WordClass::Adjective,
        WordClass::Noun,
    ];

    /// The name used in files and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            WordClass::Pronoun => "pronoun",
            WordClass::Verb => "verb",
            WordClass::Adverb => "adverb",
            WordClass::Adjective => "adjective",
            WordClass::Noun => "noun",
        }
    }

    /// Exact names only, like [`Group`]'s.
    fn parse(s: &str) -> Option<WordClass> {
        WordClass::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

impl fmt::Display for WordClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One validated sentence with exactly one mask.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValenceSentence {
    id: String,
    group: Group,
    #[serde(rename = "class", skip_serializing_if = "Option::is_none")]
    word_class: Option<WordClass>,
    valence: Valence,
    source: String,
    text: String,
    annotations: BTreeMap<String, Valence>,
    #[serde(skip_serializing_if = "String::is_empty")]
    notes: String,
}

impl ValenceSentence {
    /// Unique within the dataset; errors and reports name the sentence by it.
    pub fn id(&self) -> &str {
        &self.id
    }
    /// The period the sentence is written in.
    pub fn group(&self) -> Group {
        self.group
    }
    /// v(s).
    pub fn valence(&self) -> Valence {
        self.valence
    }
    /// Where the sentence comes from (a work and passage, or "constructed").
    pub fn source(&self) -> &str {
        &self.source
    }
    /// The text with the dataset's mask string in it, exactly once.
    pub fn text(&self) -> &str {
        &self.text
    }
    /// The per-sentence annotations, keys lowercased.
    pub fn annotations(&self) -> &BTreeMap<String, Valence> {
        &self.annotations
    }
    /// The word class of the masked word, where the dataset records it.
    pub fn word_class(&self) -> Option<WordClass> {
        self.word_class
    }
    /// Why tokens are scored as they are in this context; may be empty.
    pub fn notes(&self) -> &str {
        &self.notes
    }
}

/// A validated valence dataset: non-empty, unique ids, one mask per text,
/// every valence on the scale and consistent with its group.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ValenceDataset {
    name: String,
    description: String,
    provenance: BTreeMap<String, String>,
    mask: String,
    lexicon: BTreeMap<String, Valence>,
    /// Set by [`ValenceDataset::rated_by`]: a word the lexicon does not list is 0 by its rule,
    /// not unannotated.
    lexicon_rates_all: bool,
    sentences: Vec<ValenceSentence>,
}

/// Where a token's valence x(t, s) came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnnotationSource {
    /// The sentence's own annotations (judged in context).
    Sentence,
    /// The dataset's global lexicon (fallback).
    Lexicon,
    /// Neither, rated from two period corpora instead (lmbias-studies' `corpus_valence`).
    Corpus,
    /// Nothing: the token counts as 0 and its probability as unannotated mass.
    None,
}

impl ValenceDataset {
    /// The dataset's own name (not the file's), for report titles.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Free text for reports; may be empty.
    pub fn description(&self) -> &str {
        &self.description
    }
    /// What a generated dataset was made from (`"provenance"`: names to strings, e.g. the
    /// sha256 of the verses the drawn set comes from); empty for a hand-made one.
    pub fn provenance(&self) -> &BTreeMap<String, String> {
        &self.provenance
    }
    /// The mask string as written in the texts (models may use another one).
    pub fn mask(&self) -> &str {
        &self.mask
    }
    /// The fallback x(t) of tokens a sentence does not annotate, keys lowercased;
    /// empty unless the file has one (the paper rates tokens per sentence only).
    pub fn lexicon(&self) -> &BTreeMap<String, Valence> {
        &self.lexicon
    }
    /// In file order, which reports keep.
    pub fn sentences(&self) -> &[ValenceSentence] {
        &self.sentences
    }

    /// x(t, s) of `token` proposed in `sentence`: the sentence's annotation,
    /// else the lexicon's, else none. Matching is case-insensitive.
    pub fn token_valence(
        &self,
        sentence: &ValenceSentence,
        token: &str,
    ) -> (Option<Valence>, AnnotationSource) {
        let key = token.to_lowercase();
        if let Some(&v) = sentence.annotations.get(&key) {
            (Some(v), AnnotationSource::Sentence)
        } else if let Some(&v) = self.lexicon.get(&key) {
            (Some(v), AnnotationSource::Lexicon)
        } else if self.lexicon_rates_all {
            (Some(Valence::NEUTRAL), AnnotationSource::Lexicon)
        } else {
            (None, AnnotationSource::None)
        }
    }

    /// The same sentences rated by a lexicon's `valences` alone (issue #46; a lexicon file
    /// gives them, `Lexicon::valences`): every sentence annotation and the file's own lexicon
    /// set aside, every proposal given the lexicon's valence (0 for a word it does not list),
    /// whichever model proposed it.
    pub fn rated_by(&self, valences: BTreeMap<String, Valence>) -> ValenceDataset {
        ValenceDataset {
            lexicon: valences,
            lexicon_rates_all: true,
            sentences: self
                .sentences
                .iter()
                .map(|s| ValenceSentence {
                    annotations: BTreeMap::new(),
                    ..s.clone()
                })
                .collect(),
            ..self.clone()
        }
    }

    /// Whether a lexicon rates every proposal ([`ValenceDataset::rated_by`]).
    pub fn lexicon_rates_all(&self) -> bool {
        self.lexicon_rates_all
    }

    /// Reads and validates a dataset file.
    pub fn load(path: &Path) -> Result<ValenceDataset, ValenceError> {
        ValenceDataset::from_json(&read_to_string(path)?, path)
    }

    /// Parses and validates a dataset; `file` only names it in errors.
    pub fn from_json(text: &str, file: &Path) -> Result<ValenceDataset, ValenceError> {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let json = |e| ValenceError::Json {
            file: file.to_path_buf(),
            source: e,
        };
        let value: serde_json::Value = serde_json::from_str(text).map_err(json)?;
        // Every required field that is missing, in one error: serde would name the first only.
        if let Some(missing) = missing_fields(&value) {
            return Err(ValenceError::Dataset {
                file: file.to_path_buf(),
                problem: missing,
            });
        }
        let raw: RawDataset = serde_json::from_value(value).map_err(json)?;
        raw.validate(file)
    }
}

/// The required fields of a dataset.
const REQUIRED: [&str; 2] = ["name", "sentences"];
/// The required fields of a sentence.
const REQUIRED_IN_SENTENCE: [&str; 5] = ["id", "group", "valence", "source", "text"];

/// "missing required fields: …" naming every required field absent from the dataset and from
/// each sentence (by position counting from 1, and id where it has one); `None` when none is, or when the
/// JSON is not shaped as a dataset at all (the typed reader says what is wrong then).
fn missing_fields(value: &serde_json::Value) -> Option<String> {
    let object = value.as_object()?;
    let absent = |o: &serde_json::Map<String, serde_json::Value>, fields: &[&str]| -> Vec<String> {
        fields
            .iter()
            .filter(|f| !o.contains_key(**f))
            .map(|f| f.to_string())
            .collect()
    };
    let mut parts = Vec::new();
    let top = absent(object, &REQUIRED);
    if !top.is_empty() {
        parts.push(top.join(", "));
    }
    let sentences = object.get("sentences").and_then(|s| s.as_array());
    for (i, sentence) in sentences.into_iter().flatten().enumerate() {
        let Some(o) = sentence.as_object() else {
            continue;
        };
        let fields = absent(o, &REQUIRED_IN_SENTENCE);
        if !fields.is_empty() {
            let id = o
                .get("id")
                .and_then(|id| id.as_str())
                .map_or(String::new(), |id| format!(" ({})", quote(id)));
            parts.push(format!("sentence #{}{id}: {}", i + 1, fields.join(", ")));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "missing required fields: {} (a dataset needs {}; each sentence {})",
            parts.join("; "),
            REQUIRED.join(", "),
            REQUIRED_IN_SENTENCE.join(", ")
        )
    })
}

/// Why a dataset was rejected. One line, naming the file and the sentence id
/// (or the lexicon entry) at fault.
#[derive(Debug, thiserror::Error)]
pub enum ValenceError {
    /// The file could not be read (or is not UTF-8).
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Bad JSON, or JSON that does not fit the schema; the source names the field and position.
    #[error("{}: not a valence dataset", file.display())]
    Json {
        /// The dataset file.
        file: PathBuf,
        /// serde's reason, typed so a caller can take its line and column.
        source: serde_json::Error,
    },
    /// A rule about the dataset as a whole (mask, no sentences, an id-less sentence).
    #[error("{}: {problem}", file.display())]
    Dataset {
        /// The dataset file.
        file: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// A lexicon entry that is not one word or not on the scale.
    #[error("{}: lexicon token {}: {problem}", file.display(), quote(token))]
    Lexicon {
        /// The dataset file.
        file: PathBuf,
        /// The entry's key, as written.
        token: String,
        /// What is wrong.
        problem: String,
    },
    /// A sentence (or one of its annotations) that breaks a rule.
    #[error("{}: sentence {}: {problem}", file.display(), shorten(id))]
    Sentence {
        /// The dataset file.
        file: PathBuf,
        /// The sentence's id.
        id: String,
        /// What is wrong.
        problem: String,
    },
}

const SCALE: &str = "the scale -1, -0.5, 0, 0.5, 1";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDataset {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    provenance: BTreeMap<String, String>,
    mask: Option<String>,
    #[serde(default)]
    lexicon: BTreeMap<String, f64>,
    sentences: Vec<RawSentence>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSentence {
    id: String,
    group: String,
    /// Read as text so that a bad name gets the sentence's one-line error.
    class: Option<String>,
    valence: f64,
    source: String,
    text: String,
    #[serde(default)]
    annotations: BTreeMap<String, f64>,
    #[serde(default)]
    notes: String,
}

impl RawDataset {
    fn validate(self, file: &Path) -> Result<ValenceDataset, ValenceError> {
        let dataset_err = |problem: String| ValenceError::Dataset {
            file: file.to_path_buf(),
            problem,
        };
        let mask = self.mask.unwrap_or_else(|| "[MASK]".to_owned());
        if mask.trim().is_empty() {
            return Err(dataset_err("mask must not be empty".into()));
        }
        if self.sentences.is_empty() {
            return Err(dataset_err("no sentences".into()));
        }
        let lexicon =
            lowercase_keys(self.lexicon).map_err(|(token, problem)| ValenceError::Lexicon {
                file: file.to_path_buf(),
                token,
                problem,
            })?;
        let mut first_index: HashMap<String, usize> = HashMap::new();
        let mut sentences = Vec::with_capacity(self.sentences.len());
        for (index, raw) in self.sentences.into_iter().enumerate() {
            if raw.id.trim().is_empty() {
                return Err(dataset_err(format!(
                    "sentence #{} (counting from 1) has an empty id",
                    index + 1
                )));
            }
            let sentence_err = |problem: String| ValenceError::Sentence {
                file: file.to_path_buf(),
                id: raw.id.clone(),
                problem,
            };
            if let Some(first) = first_index.insert(raw.id.clone(), index) {
                return Err(sentence_err(format!(
                    "duplicate id (sentences #{} and #{}, counting from 1)",
                    first + 1,
                    index + 1
                )));
            }
            if raw.text.trim().is_empty() {
                return Err(sentence_err("text is empty".into()));
            }
            let masks = raw.text.matches(mask.as_str()).count();
            if masks != 1 {
                return Err(sentence_err(format!(
                    "text must contain exactly one {}, found {masks}",
                    shorten(&mask)
                )));
            }
            if raw.source.trim().is_empty() {
                return Err(sentence_err("source is empty".into()));
            }
            let group = Group::parse(&raw.group).ok_or_else(|| {
                sentence_err(format!(
                    "unknown group {}: expected EME, neutral or ME",
                    quote(&raw.group)
                ))
            })?;
            let word_class = raw
                .class
                .as_deref()
                .map(|c| {
                    WordClass::parse(c).ok_or_else(|| {
                        sentence_err(format!(
                            "unknown class {}: expected pronoun, verb, adverb, adjective or noun",
                            quote(c)
                        ))
                    })
                })
                .transpose()?;
            let valence = Valence::new(raw.valence).ok_or_else(|| {
                sentence_err(format!("valence {} is not on {SCALE}", raw.valence))
            })?;
            if !group.admits(valence) {
                return Err(sentence_err(format!(
                    "valence {valence} contradicts group {group} \
                     (EME < 0, neutral within ±0.5, ME > 0)"
                )));
            }
            let annotations = lowercase_keys(raw.annotations).map_err(|(token, problem)| {
                sentence_err(format!("annotation {}: {problem}", quote(&token)))
            })?;
            sentences.push(ValenceSentence {
                id: raw.id,
                group,
                word_class,
                valence,
                source: raw.source,
                text: raw.text,
                annotations,
                notes: raw.notes,
            });
        }
        Ok(ValenceDataset {
            name: self.name,
            description: self.description,
            provenance: self.provenance,
            mask,
            lexicon,
            lexicon_rates_all: false,
            sentences,
        })
    }
}

/// Validates valences and lowercases keys; on failure returns the offending
/// key and what is wrong with it.
fn lowercase_keys(
    raw: BTreeMap<String, f64>,
) -> Result<BTreeMap<String, Valence>, (String, String)> {
    let mut out: BTreeMap<String, Valence> = BTreeMap::new();
    let mut spelled: HashMap<String, String> = HashMap::new();
    for (token, value) in raw {
        if token.trim().is_empty() || token.chars().any(char::is_whitespace) {
            return Err((token, "a token must be one non-empty word".into()));
        }
        let Some(v) = Valence::new(value) else {
            return Err((token, format!("valence {value} is not on {SCALE}")));
        };
        let key = token.to_lowercase();
        if let Some(other) = spelled.insert(key.clone(), token.clone()) {
            return Err((
                token,
                format!(
                    "also given as {}: tokens are matched case-insensitively",
                    quote(&other)
                ),
            ));
        }
        out.insert(key, v);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"{
      "name": "mini", "description": "two sentences",
      "lexicon": { "The": 0, "thou": -1 },
      "sentences": [
        { "id": "eme-01", "group": "EME", "class": "pronoun", "valence": -1, "source": "Hamlet",
          "text": "Why wilt [MASK] be offended by that?", "annotations": { "thou": -1, "Not": 0, "you": 0.5 },
          "notes": "you 0.5 here only to test the lookup" },
        { "id": "me-01", "group": "ME", "valence": 0.5, "source": "constructed",
          "text": "Are [MASK] coming tonight?" }
      ] }"#;

    fn load(text: &str) -> Result<ValenceDataset, ValenceError> {
        ValenceDataset::from_json(text, Path::new("v.json"))
    }

    /// `GOOD` with one substring replaced, asserting the replacement happened.
    fn broken(from: &str, to: &str) -> String {
        assert!(GOOD.contains(from), "{from}");
        GOOD.replacen(from, to, 1)
    }

    /// The error and its causes, each once, as anyhow's `{:#}` prints them.
    fn err(text: &str) -> String {
        let error = load(text).expect_err("must be rejected");
        let mut e = error.to_string();
        let mut cause = std::error::Error::source(&error);
        while let Some(c) = cause {
            assert!(!e.contains(&c.to_string()), "cause printed twice: {e}");
            e = format!("{e}: {c}");
            cause = c.source();
        }
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }

    #[test]
    fn valence_scale_has_exactly_five_points() {
        let on: Vec<f64> = [-1.0, -0.5, 0.0, 0.5, 1.0]
            .into_iter()
            .filter_map(|v| Valence::new(v).map(Valence::value))
            .collect();
        assert_eq!(on, [-1.0, -0.5, 0.0, 0.5, 1.0]);
        for off in [-1.5, 0.25, 0.49, 2.0, f64::NAN, f64::INFINITY] {
            assert_eq!(Valence::new(off), None, "{off}");
        }
    }

    /// Issue #47: a 60,000-character mask or sentence id was quoted whole in its error.
    /// Both are cut to 80 characters and their length, as every quoted input is.
    #[test]
    fn a_long_mask_or_id_is_cut_in_its_error() {
        let long = "x".repeat(60_000);
        let cut = format!("{}… (60000 characters)", "x".repeat(80));
        let masked = broken(
            r#""name": "mini","#,
            &format!(r#""name": "mini", "mask": "{long}","#),
        );
        assert_eq!(
            err(&masked),
            format!("v.json: sentence eme-01: text must contain exactly one {cut}, found 0")
        );
        let id = broken(r#""id": "me-01""#, &format!(r#""id": "{long}""#));
        let id = id.replace("Are [MASK] coming", "Are coming");
        assert_eq!(
            err(&id),
            format!("v.json: sentence {cut}: text must contain exactly one [MASK], found 0")
        );
    }

    #[test]
    fn loads_and_lowercases_keys() {
        let d = load(GOOD).unwrap();
        assert_eq!(d.mask(), "[MASK]");
        assert_eq!(d.sentences().len(), 2);
        let s = &d.sentences()[0];
        assert_eq!(s.group(), Group::EarlyModern);
        assert_eq!(s.valence().value(), -1.0);
        assert_eq!(
            s.annotations().keys().collect::<Vec<_>>(),
            ["not", "thou", "you"]
        );
        assert_eq!(d.sentences()[1].annotations().len(), 0);
        assert_eq!(d.lexicon().get("the"), Some(&Valence::NEUTRAL));
        // class and notes are optional.
        assert_eq!(s.word_class(), Some(WordClass::Pronoun));
        assert_eq!(s.notes(), "you 0.5 here only to test the lookup");
        assert_eq!(d.sentences()[1].word_class(), None);
        assert_eq!(d.sentences()[1].notes(), "");
    }

    #[test]
    fn word_classes_are_the_papers_five_by_exact_name() {
        let names: Vec<&str> = WordClass::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names, ["pronoun", "verb", "adverb", "adjective", "noun"]);
        for c in WordClass::ALL {
            let text = broken(r#""class": "pronoun""#, &format!(r#""class": "{c}""#));
            assert_eq!(load(&text).unwrap().sentences()[0].word_class(), Some(c));
        }
        assert_eq!(
            err(&broken(r#""class": "pronoun""#, r#""class": "Pronoun""#)),
            "v.json: sentence eme-01: unknown class \"Pronoun\": expected pronoun, verb, adverb, adjective or noun"
        );
        assert_eq!(
            err(&broken(r#""class": "pronoun""#, r#""class": "determiner""#)),
            "v.json: sentence eme-01: unknown class \"determiner\": expected pronoun, verb, adverb, adjective or noun"
        );
    }

    #[test]
    fn any_one_word_is_a_key_archaic_or_with_an_apostrophe() {
        // Whether a model can propose a key is the study's coverage, not a load error.
        let text = broken(
            r#""thou": -1, "Not""#,
            r#""thou": -1, "hath": -1, "'tis": -1, "Not""#,
        );
        let d = load(&text).unwrap();
        let keys: Vec<&str> = d.sentences()[0]
            .annotations()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["'tis", "hath", "not", "thou", "you"]);
        assert_eq!(
            err(&broken(
                r#""thou": -1, "Not""#,
                r#""thou": -1, "art thou": -1, "Not""#
            )),
            "v.json: sentence eme-01: annotation \"art thou\": a token must be one non-empty word"
        );
    }

    #[test]
    fn a_lexicon_rates_every_proposal_and_sets_the_annotations_aside() {
        let d = load(GOOD).unwrap();
        let lexicon = crate::lexicon::Lexicon::parse(
            "thou\t-1\tonly Early Modern\nemail\t1\tnew\n",
            Path::new("l.tsv"),
        )
        .unwrap();
        let rated = d.rated_by(lexicon.valences());
        assert!(rated.lexicon_rates_all() && !d.lexicon_rates_all());
        let s = &rated.sentences()[0];
        assert!(s.annotations().is_empty());
        assert_eq!(s.id(), d.sentences()[0].id());
        assert_eq!(
            rated.token_valence(s, "Thou"),
            (Some(Valence::EARLY_MODERN), AnnotationSource::Lexicon)
        );
        // A word the lexicon does not list is 0 by its rule, not unannotated: "you", which the
        // sentence annotated 0.5, too.
        for word in ["table", "you"] {
            assert_eq!(
                rated.token_valence(s, word),
                (Some(Valence::NEUTRAL), AnnotationSource::Lexicon)
            );
        }
        assert_eq!(rated.token_valence(s, "email").0.unwrap().value(), 1.0);
        assert_eq!(rated.name(), d.name());
    }

    #[test]
    fn token_valence_prefers_the_sentence_then_the_lexicon_case_insensitively() {
        let d = load(GOOD).unwrap();
        let (eme, me) = (&d.sentences()[0], &d.sentences()[1]);
        assert_eq!(
            d.token_valence(eme, "Thou"),
            (Some(Valence::EARLY_MODERN), AnnotationSource::Sentence)
        );
        assert_eq!(
            d.token_valence(eme, "you"),
            (Valence::new(0.5), AnnotationSource::Sentence)
        );
        assert_eq!(
            d.token_valence(me, "THOU"),
            (Some(Valence::EARLY_MODERN), AnnotationSource::Lexicon)
        );
        assert_eq!(
            d.token_valence(me, "the"),
            (Some(Valence::NEUTRAL), AnnotationSource::Lexicon)
        );
        assert_eq!(d.token_valence(me, "you"), (None, AnnotationSource::None));
    }

    #[test]
    fn mask_count_errors_name_the_sentence() {
        let e = err(&broken("Why wilt [MASK] be", "Why wilt thou be"));
        assert_eq!(
            e,
            "v.json: sentence eme-01: text must contain exactly one [MASK], found 0"
        );
        let e = err(&broken("Are [MASK] coming", "Are [MASK] [MASK] coming"));
        assert_eq!(
            e,
            "v.json: sentence me-01: text must contain exactly one [MASK], found 2"
        );
    }

    #[test]
    fn the_dataset_mask_string_is_the_one_counted() {
        let text = broken(r#""name": "mini","#, r#""name": "mini", "mask": "<mask>","#);
        let e = err(&text);
        assert_eq!(
            e,
            "v.json: sentence eme-01: text must contain exactly one <mask>, found 0"
        );
    }

    #[test]
    fn off_scale_valences_name_sentence_and_token() {
        assert_eq!(
            err(&broken(r#""valence": -1,"#, r#""valence": -0.75,"#)),
            "v.json: sentence eme-01: valence -0.75 is not on the scale -1, -0.5, 0, 0.5, 1"
        );
        assert_eq!(
            err(&broken(r#""thou": -1, "Not""#, r#""thou": -2, "Not""#)),
            "v.json: sentence eme-01: annotation \"thou\": valence -2 is not on the scale -1, -0.5, 0, 0.5, 1"
        );
        assert_eq!(
            err(&broken(r#""The": 0"#, r#""The": 0.3"#)),
            "v.json: lexicon token \"The\": valence 0.3 is not on the scale -1, -0.5, 0, 0.5, 1"
        );
    }

    #[test]
    fn group_errors() {
        assert_eq!(
            err(&broken(r#""group": "ME""#, r#""group": "modern""#)),
            "v.json: sentence me-01: unknown group \"modern\": expected EME, neutral or ME"
        );
        assert_eq!(
            err(&broken(r#""valence": 0.5"#, r#""valence": -0.5"#)),
            "v.json: sentence me-01: valence -0.5 contradicts group ME (EME < 0, neutral within ±0.5, ME > 0)"
        );
    }

    #[test]
    fn duplicate_ids_empty_text_and_empty_source() {
        assert_eq!(
            err(&broken(r#""id": "me-01""#, r#""id": "eme-01""#)),
            "v.json: sentence eme-01: duplicate id (sentences #1 and #2, counting from 1)"
        );
        assert_eq!(
            err(&broken(r#""Are [MASK] coming tonight?""#, r#""  ""#)),
            "v.json: sentence me-01: text is empty"
        );
        assert_eq!(
            err(&broken(r#""source": "Hamlet""#, r#""source": """#)),
            "v.json: sentence eme-01: source is empty"
        );
        assert_eq!(
            err(&broken(r#""id": "me-01""#, r#""id": """#)),
            "v.json: sentence #2 (counting from 1) has an empty id"
        );
    }

    #[test]
    fn keys_differing_only_in_case_are_ambiguous() {
        assert_eq!(
            err(&broken(r#""Not": 0"#, r#""Not": 0, "not": 1"#)),
            "v.json: sentence eme-01: annotation \"not\": also given as \"Not\": tokens are matched case-insensitively"
        );
    }

    #[test]
    fn structural_errors_name_the_file() {
        assert!(err("{").starts_with("v.json: not a valence dataset: "));
        // Issue #49, item 7: every missing required field at once, the sentences by position.
        let e = err(&broken(r#""source": "constructed","#, ""));
        assert_eq!(
            e,
            "v.json: missing required fields: sentence #2 (\"me-01\"): source (a dataset needs \
             name, sentences; each sentence id, group, valence, source, text)"
        );
        let e =
            err(r#"{ "sentences": [ { "id": "a", "text": "x [MASK]" }, { "group": "EME" } ] }"#);
        assert_eq!(
            e,
            "v.json: missing required fields: name; sentence #1 (\"a\"): group, valence, source; \
             sentence #2: id, valence, source, text (a dataset needs name, sentences; each sentence \
             id, group, valence, source, text)"
        );
        let e = err(&broken(
            r#""annotations": { "thou""#,
            r#""annotation": { "thou""#,
        ));
        assert!(e.contains("unknown field `annotation`"), "{e}");
        let e = err(r#"{ "name": "x", "sentences": [] }"#);
        assert_eq!(e, "v.json: no sentences");
    }
}
