//! The SEAT battery (May et al. 2019; Caglidil et al. 2024): many association
//! tests on one or more models, with multiple-test correction across the battery
//! and a vocabulary-coverage diagnostic per test.
//!
//! Every distinct text is encoded once per model, however many tests share it
//! (the Turkish battery reuses names and attribute words across its 37 tests).
//!
//! ## Coverage
//! A model that does not know a word splits it into many pieces or maps it to
//! the unknown token, and its vector then says little about the word: Caglidil
//! et al. (2024) warn about exactly this for rare Kurdish names. For every
//! example we take its *hardest word* — the whitespace/punctuation-delimited
//! word (a maximal run of alphanumeric characters) that the model splits into
//! the most pieces — so a one-word example is judged by itself and a sentence
//! by its rarest word (normally the target word in a template). Per set we
//! count examples whose hardest word is one piece, split (≥ 2 pieces),
//! fragmented (≥ [`FRAGMENTED_PIECES`] pieces), or contains an unknown piece.
//! A test is flagged ([`CoverageFlag`]) when more than
//! [`FRAGMENTED_SHARE`] of a **target** set is fragmented, or when any example
//! of **any** set contains an unknown piece.

use std::collections::{HashMap, HashSet};

use lmbias_data::association::{AssociationTest, Role};
use lmbias_encoder::{Embedder, EncoderError, Layer, Pooling};
use lmbias_metrics::correction;
use lmbias_metrics::weat::{self, Associations, Options, WeatError};
use serde::Serialize;

/// A hardest word with at least this many pieces counts as fragmented.
pub const FRAGMENTED_PIECES: usize = 3;
/// A target set with more than this share of fragmented examples is flagged.
pub const FRAGMENTED_SHARE: f64 = 0.5;

/// How every test of the battery is run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeatOptions {
    /// How a text's hidden states become one vector (May et al. read [CLS]).
    pub pooling: Pooling,
    /// Which hidden states to read.
    pub layer: Layer,
    /// Permutation-test and effect-size settings, shared by all tests.
    pub weat: Options,
}

impl SeatError {
    /// The test at fault, if the error concerns one.
    pub fn test(&self) -> Option<&str> {
        match self {
            SeatError::Encode { test, .. }
            | SeatError::Tokenize { test, .. }
            | SeatError::Weat { test, .. }
            | SeatError::LowercasedCopy { test, .. } => Some(test),
            SeatError::NoTests | SeatError::Embed { .. } | SeatError::VectorCount { .. } => None,
        }
    }
}

fn is_target(role: Role) -> bool {
    matches!(role, Role::Targ1 | Role::Targ2)
}

/// The examples of `role` in `test`, with the set's category name.
fn set_of(test: &AssociationTest, role: Role) -> (&str, &[String]) {
    let set = test.set(role);
    (set.category(), set.examples())
}

/// Set sizes as used: |X|, |Y|, |A|, |B|.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SetSizes {
    /// |X|, the first target set.
    pub targ1: usize,
    /// |Y|, the second target set.
    pub targ2: usize,
    /// |A|, the first attribute set.
    pub attr1: usize,
    /// |B|, the second attribute set.
    pub attr2: usize,
}

/// How well one model's vocabulary covers one set (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetCoverage {
    /// Which of the test's four sets.
    pub set: Role,
    /// The set's category name, as the test file gives it.
    pub category: String,
    /// Examples in the set.
    pub examples: usize,
    /// Examples whose hardest word is a single piece.
    pub single_piece: usize,
    /// Examples whose hardest word is split into ≥ 2 pieces.
    pub split: usize,
    /// Examples whose hardest word is split into ≥ [`FRAGMENTED_PIECES`] pieces.
    pub fragmented: usize,
    /// Examples with at least one unknown piece anywhere.
    pub with_unknown: usize,
    /// Mean over examples of the hardest word's piece count.
    pub mean_pieces: f64,
}

/// Why a test's results deserve suspicion on this model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CoverageFlag {
    /// More than [`FRAGMENTED_SHARE`] of a target set is fragmented.
    Fragmented {
        /// The target set.
        set: Role,
        /// Its share of fragmented examples, in (0.5, 1].
        share: f64,
    },
    /// Some examples contain the unknown token.
    Unknown {
        /// The set.
        set: Role,
        /// How many of its examples have an unknown piece.
        examples: usize,
    },
}

impl std::fmt::Display for CoverageFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CoverageFlag::Fragmented { set, share } => write!(
                f,
                "{set}: {:.0}% split into ≥{FRAGMENTED_PIECES} pieces",
                share * 100.0
            ),
            CoverageFlag::Unknown { set, examples } => {
                write!(f, "{set}: {examples} with unknown pieces")
            }
        }
    }
}

/// Coverage of all four sets of a test, and the flags they raise.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestCoverage {
    /// X, Y, A, B in that order.
    pub sets: Vec<SetCoverage>,
    /// Why to distrust this test on this model; empty when nothing is suspect.
    pub flags: Vec<CoverageFlag>,
}

/// One test on one model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeatRow {
    /// The model's name.
    pub model: String,
    /// The test's name, as the battery lists it.
    pub test: String,
    /// True when the test's lower-cased copy ran, because the model's tokenizer
    /// lower-cases (see [`Battery`]).
    pub lowercased_copy: bool,
    /// The pooling used ([`SeatOptions::pooling`]).
    pub pooling: Pooling,
    /// `"last"` or the hidden-state index, as `lmbias embed` prints it.
    pub layer: Layer,
    /// Cohen's d; `None` when every association score is equal (0/0).
    pub effect_size: Option<f64>,
    /// Caliskan's statistic Σ_X s − Σ_Y s, the p-value's reference point.
    pub test_statistic: f64,
    /// Permutation p with sent-bias's semantics (tails as [`SeatOptions::weat`] says).
    pub p_value: f64,
    /// True when every split was enumerated, false when they were sampled.
    pub exact: bool,
    /// Number of equal splits of X ∪ Y; `None` when it overflows u128.
    pub n_partitions: Option<u128>,
    /// Splits evaluated: all of them when exact, else `n_samples`.
    pub n_evaluated: u64,
    /// Holm-adjusted p across this model's battery.
    pub p_holm: f64,
    /// Benjamini–Hochberg-adjusted p across this model's battery.
    pub p_bh: f64,
    /// |X|, |Y|, |A|, |B| as used.
    pub sizes: SetSizes,
    /// How well the model's vocabulary covers the test's examples.
    pub coverage: TestCoverage,
}

/// Why a battery could not be run. One line that names the model, test and set
/// (a caller that read the tests from files adds the file: see [`SeatError::test`]);
/// the encoder's or the statistics' error is the [`source`](std::error::Error::source),
/// never repeated in the message.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// A battery needs at least one test to correct over.
    #[error("the battery has no tests")]
    NoTests,
    /// The model refused one text of the battery (too long, say).
    #[error("model {model}: test {test}, set {set}: cannot encode {text:?}")]
    Encode {
        /// The model's name.
        model: String,
        /// The first test (in battery order) that holds the text.
        test: String,
        /// The set of that test that holds the text.
        set: Role,
        /// The text as the battery holds it.
        text: String,
        /// The encoder's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The model failed on the battery as a whole, not on one text of it.
    #[error("model {model}: cannot encode the battery")]
    Embed {
        /// The model's name.
        model: String,
        /// The encoder's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The tokenizer refused a word while coverage was counted.
    #[error("model {model}: test {test}, set {set}: cannot tokenize {text:?}")]
    Tokenize {
        /// The model's name.
        model: String,
        /// The test being counted.
        test: String,
        /// The set that holds the example.
        set: Role,
        /// The example whose word failed.
        text: String,
        /// The tokenizer's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The model broke the `Embedder` contract of one vector per text.
    #[error("model {model}: returned {found} vectors for {expected} texts")]
    VectorCount {
        /// The model's name.
        model: String,
        /// Vectors returned.
        found: usize,
        /// Texts sent.
        expected: usize,
    },
    /// A lower-cased copy stands in for its test, so it must match it set for set.
    #[error(
        "test {test}: its lower-cased copy has set sizes {copy:?}, the test {original:?}: \
         the copy must hold the same examples, lower-cased"
    )]
    LowercasedCopy {
        /// The test, as the battery lists it.
        test: String,
        /// |X|, |Y|, |A|, |B| of the test.
        original: [usize; 4],
        /// |X|, |Y|, |A|, |B| of the copy.
        copy: [usize; 4],
    },
    /// The statistics refused the test's vectors (e.g. non-finite values).
    #[error("model {model}: test {test}")]
    Weat {
        /// The model's name.
        model: String,
        /// The test.
        test: String,
        /// The statistics' reason.
        #[source]
        source: WeatError,
    },
}

/// A battery as it is run: each test with, where the dataset has one, its
/// lower-cased copy. An uncased model (its tokenizer lower-cases) runs the
/// copies: Turkish capitals must be lowered the Turkish way (İ→i, I→ı) before a
/// tokenizer that lowers them the English way (and strips accents) sees them.
#[derive(Debug, Clone)]
pub struct Battery {
    tests: Vec<AssociationTest>,
    /// `tests`, with every test that has a copy replaced by it.
    lowercased: Vec<AssociationTest>,
    has_copy: Vec<bool>,
}

fn sizes(test: &AssociationTest) -> [usize; 4] {
    Role::ALL.map(|r| test.set(r).len())
}

impl Battery {
    /// Tests paired with their lower-cased copies; a copy must match its test's set sizes.
    pub fn new(
        tests: Vec<(AssociationTest, Option<AssociationTest>)>,
    ) -> Result<Battery, SeatError> {
        if tests.is_empty() {
            return Err(SeatError::NoTests);
        }
        let mut battery = Battery {
            tests: Vec::with_capacity(tests.len()),
            lowercased: Vec::with_capacity(tests.len()),
            has_copy: Vec::with_capacity(tests.len()),
        };
        for (test, copy) in tests {
            if let Some(copy) = &copy
                && sizes(copy) != sizes(&test)
            {
                return Err(SeatError::LowercasedCopy {
                    test: test.name().to_owned(),
                    original: sizes(&test),
                    copy: sizes(copy),
                });
            }
            battery.has_copy.push(copy.is_some());
            battery
                .lowercased
                .push(copy.unwrap_or_else(|| test.clone()));
            battery.tests.push(test);
        }
        Ok(battery)
    }

    /// The tests as written.
    pub fn tests(&self) -> &[AssociationTest] {
        &self.tests
    }

    /// The tests `model` runs: the lower-cased copies when it lower-cases.
    pub fn tests_for(&self, model: &dyn Embedder) -> &[AssociationTest] {
        if model.lowercases() {
            &self.lowercased
        } else {
            &self.tests
        }
    }
}

/// Runs a [`Battery`] on one model, each test as written or as its lower-cased
/// copy, whichever the model's casing calls for (see [`SeatRow::lowercased_copy`]).
pub fn run_battery(
    model: &dyn Embedder,
    battery: &Battery,
    options: &SeatOptions,
) -> Result<Vec<SeatRow>, SeatError> {
    let mut rows = run_model(model, battery.tests_for(model), options)?;
    let lowercases = model.lowercases();
    for ((row, test), &copy) in rows.iter_mut().zip(&battery.tests).zip(&battery.has_copy) {
        // A row is named for the test as the battery lists it, whichever file ran.
        row.test = test.name().to_owned();
        row.lowercased_copy = lowercases && copy;
    }
    Ok(rows)
}

/// Runs every test on every model: one row per (model, test), models in the
/// order given, tests in battery order. Holm and BH are applied per model, over
/// that model's whole battery.
pub fn run(
    models: &[&dyn Embedder],
    tests: &[AssociationTest],
    options: &SeatOptions,
) -> Result<Vec<SeatRow>, SeatError> {
    let mut rows = Vec::with_capacity(models.len() * tests.len());
    for model in models {
        rows.extend(run_model(*model, tests, options)?);
    }
    Ok(rows)
}

/// Runs the battery on one model.
pub fn run_model(
    model: &dyn Embedder,
    tests: &[AssociationTest],
    options: &SeatOptions,
) -> Result<Vec<SeatRow>, SeatError> {
    if tests.is_empty() {
        return Err(SeatError::NoTests);
    }
    let vectors = embed_distinct(model, tests, options)?;
    let mut pieces = PieceCounter::new(model);
    let mut rows = Vec::with_capacity(tests.len());
    for test in tests {
        let lookup = |role| -> Vec<&[f32]> {
            set_of(test, role)
                .1
                .iter()
                .map(|e| vectors[e.as_str()].as_slice())
                .collect()
        };
        let [x, y, a, b] = Role::ALL.map(lookup);
        let weat_error = |source| SeatError::Weat {
            model: model.model_name().to_owned(),
            test: test.name().to_owned(),
            source,
        };
        let assoc = Associations::from_vectors(&x, &y, &a, &b).map_err(weat_error)?;
        let result = weat::weat(&assoc, &options.weat).map_err(weat_error)?;
        rows.push(SeatRow {
            model: model.model_name().to_owned(),
            test: test.name().to_owned(),
            lowercased_copy: false,
            pooling: options.pooling,
            layer: options.layer,
            effect_size: result.effect_size,
            test_statistic: result.test_statistic,
            p_value: result.permutation.p_value,
            exact: result.permutation.exact,
            n_partitions: result.permutation.n_partitions,
            n_evaluated: result.permutation.n_evaluated,
            p_holm: f64::NAN,
            p_bh: f64::NAN,
            sizes: SetSizes {
                targ1: x.len(),
                targ2: y.len(),
                attr1: a.len(),
                attr2: b.len(),
            },
            coverage: pieces.coverage(test)?,
        });
    }
    let p: Vec<f64> = rows.iter().map(|r| r.p_value).collect();
    let holm = correction::holm(&p).expect("permutation p-values lie in [0, 1]");
    let bh = correction::benjamini_hochberg(&p).expect("permutation p-values lie in [0, 1]");
    for ((row, h), b) in rows.iter_mut().zip(holm).zip(bh) {
        row.p_holm = h;
        row.p_bh = b;
    }
    Ok(rows)
}

/// Encodes each distinct text of the battery once, in one call (the model
/// batches internally). A text the model refuses is named with the first test
/// and set that hold it, found from the index the encoder reports.
fn embed_distinct<'t>(
    model: &dyn Embedder,
    tests: &'t [AssociationTest],
    options: &SeatOptions,
) -> Result<HashMap<&'t str, Vec<f32>>, SeatError> {
    // Each distinct text with the first (test, set) that holds it.
    let mut texts: Vec<(&str, &AssociationTest, Role)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for test in tests {
        for role in Role::ALL {
            for e in set_of(test, role).1 {
                if seen.insert(e.as_str()) {
                    texts.push((e.as_str(), test, role));
                }
            }
        }
    }
    let batch: Vec<&str> = texts.iter().map(|t| t.0).collect();
    let vectors = model
        .embed(&batch, options.pooling, options.layer)
        .map_err(|source| match source.index().and_then(|i| texts.get(i)) {
            Some(&(text, test, set)) => SeatError::Encode {
                model: model.model_name().to_owned(),
                test: test.name().to_owned(),
                set,
                text: text.to_owned(),
                source: Box::new(source),
            },
            None => SeatError::Embed {
                model: model.model_name().to_owned(),
                source: Box::new(source),
            },
        })?;
    if vectors.len() != batch.len() {
        return Err(SeatError::VectorCount {
            model: model.model_name().to_owned(),
            found: vectors.len(),
            expected: batch.len(),
        });
    }
    Ok(batch.into_iter().zip(vectors).collect())
}

/// The words of a text for coverage: maximal runs of alphanumeric characters,
/// i.e. what BERT's pre-tokenizer keeps together (it splits at whitespace and
/// punctuation, so "Ayşe'nin" is "Ayşe" and "nin").
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// Pieces per word, each word tokenized once per model.
struct PieceCounter<'m> {
    model: &'m dyn Embedder,
    /// word → (pieces, has an unknown piece)
    cache: HashMap<String, (usize, bool)>,
}

impl<'m> PieceCounter<'m> {
    fn new(model: &'m dyn Embedder) -> Self {
        PieceCounter {
            model,
            cache: HashMap::new(),
        }
    }

    fn word(&mut self, word: &str) -> Result<(usize, bool), EncoderError> {
        if let Some(&hit) = self.cache.get(word) {
            return Ok(hit);
        }
        let pieces = self.model.tokenize(word)?;
        let entry = (pieces.len(), pieces.iter().any(|p| p.unknown));
        self.cache.insert(word.to_owned(), entry);
        Ok(entry)
    }

    fn coverage(&mut self, test: &AssociationTest) -> Result<TestCoverage, SeatError> {
        let mut sets = Vec::with_capacity(4);
        let mut flags = Vec::new();
        for role in Role::ALL {
            let (category, examples) = set_of(test, role);
            let mut cov = SetCoverage {
                set: role,
                category: category.to_owned(),
                examples: examples.len(),
                single_piece: 0,
                split: 0,
                fragmented: 0,
                with_unknown: 0,
                mean_pieces: 0.0,
            };
            let mut total_pieces = 0usize;
            for example in examples {
                let mut hardest = 0usize;
                let mut unknown = false;
                for w in words(example) {
                    let (n, unk) = self.word(w).map_err(|source| SeatError::Tokenize {
                        model: self.model.model_name().to_owned(),
                        test: test.name().to_owned(),
                        set: role,
                        text: example.clone(),
                        source: Box::new(source),
                    })?;
                    hardest = hardest.max(n);
                    unknown |= unk;
                }
                total_pieces += hardest;
                match hardest {
                    // A text of punctuation only has no word; it counts as neither.
                    0 => {}
                    1 => cov.single_piece += 1,
                    _ => cov.split += 1,
                }
                if hardest >= FRAGMENTED_PIECES {
                    cov.fragmented += 1;
                }
                if unknown {
                    cov.with_unknown += 1;
                }
            }
            cov.mean_pieces = total_pieces as f64 / examples.len().max(1) as f64;
            let share = cov.fragmented as f64 / examples.len().max(1) as f64;
            if is_target(role) && share > FRAGMENTED_SHARE {
                flags.push(CoverageFlag::Fragmented { set: role, share });
            }
            if cov.with_unknown > 0 {
                flags.push(CoverageFlag::Unknown {
                    set: role,
                    examples: cov.with_unknown,
                });
            }
            sets.push(cov);
        }
        Ok(TestCoverage { sets, flags })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_whitespace_and_punctuation() {
        let w: Vec<_> = words("Ayşe'nin kitabı, burada.").collect();
        assert_eq!(w, ["Ayşe", "nin", "kitabı", "burada"]);
        assert_eq!(words("...").count(), 0);
    }
}
