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
//!
//! ## Lost examples
//! A static model (GloVe, word2vec) has no vector for a word outside its
//! vocabulary, where a subword model always has pieces. With [`Lost::Drop`]
//! (WEFE's `lost_vocabulary_threshold` idea, without its threshold), an example
//! is *lost* when the model's [`tokenize`](Embedder::tokenize) gives no piece or
//! any unknown piece: sent-bias's bag-of-words encoder cannot encode a text with
//! a word outside the vocabulary (a `KeyError`), and the mean of the other words
//! would be another sentence ("This is a gladiola." without *gladiola*). So
//! `gladiola` is lost from WEAT 1 and every bleached sentence that holds it from
//! sent-WEAT 1, while a two-word term whose words are both known stays. Lost
//! examples are removed from their set before
//! embedding and listed in the row ([`SeatRow::lost`]), whose sizes are those
//! used. A test whose sets no longer fit WEAT — a set left empty, or X and Y of
//! equal size as written but unequal after dropping — is not run: it is
//! [`Refused`], beside the rows, and Holm/BH correct over the tests that ran.
//! [`Lost::Keep`] (the default) embeds every example as written, as BERT-family
//! models do with their unknown token.
//!
//! ## WEFE's metrics
//! With [`SeatOptions::wefe`], every test that runs also gets WEFE's RND, RNSB, MAC, ECT and
//! RIPA on the same vectors ([`lmbias_metrics::wefe`]), their tests Holm-adjusted across the
//! battery within each metric and attribute set ([`SeatRow::wefe`]).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::AtomicBool;

use lmbias_core::{Embedder, EncoderError, Layer, Pooling, check_finite, quote};
use lmbias_data::association::{AssociationTest, Role};
use lmbias_metrics::correction;
use lmbias_metrics::weat::{self, Associations, Options, WeatError};
use lmbias_metrics::wefe::{self, MetricValue, Metrics, WefeError, WefeOptions};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// A hardest word with at least this many pieces counts as fragmented.
pub const FRAGMENTED_PIECES: usize = 3;
/// A target set with more than this share of fragmented examples is flagged.
pub const FRAGMENTED_SHARE: f64 = 0.5;

/// How every test of the battery is run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SeatOptions {
    /// How a text's hidden states become one vector (May et al. read `[CLS]`).
    pub pooling: Pooling,
    /// Which hidden states to read.
    pub layer: Layer,
    /// Permutation-test and effect-size settings, shared by all tests.
    pub weat: Options,
    /// What to do with examples the model has no vector for (an unknown piece, or none).
    pub lost: Lost,
    /// WEFE's metrics computed beside WEAT on every test ([`SeatRow::wefe`]); none by default.
    pub wefe: Wefe,
}

/// Which of WEFE's metrics a battery computes beside WEAT, and how their tests run (their
/// `n_samples` and `seed` are WEAT's, [`SeatOptions::weat`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wefe {
    /// The metrics; none: WEAT alone.
    pub metrics: Metrics,
    /// RNSB on a seeded held-out split (see [`lmbias_metrics::wefe::WefeOptions`]).
    #[serde(default)]
    pub rnsb_holdout: bool,
}

impl Wefe {
    /// True when no metric is asked for: WEAT alone, and nothing to record.
    pub fn is_none(&self) -> bool {
        self.metrics.is_empty()
    }

    /// The metrics' test options, the permutation test's `n_samples` and `seed` shared.
    pub fn options(&self, weat: &Options) -> WefeOptions {
        WefeOptions {
            n_samples: weat.n_samples,
            seed: weat.seed,
            rnsb_holdout: self.rnsb_holdout,
        }
    }
}

/// What to do with a *lost* example: one whose [`tokenize`](Embedder::tokenize)
/// gives no piece or an unknown piece (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lost {
    /// Embed it as written (the unknown token's vector, for a BERT-family model);
    /// results are those of the test as written.
    #[default]
    Keep,
    /// Remove it from its set before embedding and list it in the row; refuse a
    /// test that this leaves with an empty set or unequal target sets. What a
    /// static model (GloVe, word2vec) needs: it cannot embed such an example.
    Drop,
}

/// An example removed from its set because the model had no known piece for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LostExample {
    /// The set it was removed from.
    pub set: Role,
    /// The example, as the test holds it.
    pub text: String,
}

impl std::fmt::Display for LostExample {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.set, quote(&self.text))
    }
}

/// Why a test was not run once its lost examples were dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Refusal {
    /// Every example of a set was lost: a mean over it is undefined.
    EmptySet {
        /// The set left empty.
        set: Role,
    },
    /// X and Y were of equal size as written and are not any more: sent-bias's
    /// permutation test needs |X| = |Y| ([`Options::allow_unequal_sizes`] lifts it).
    UnequalTargets {
        /// |X| after dropping.
        targ1: usize,
        /// |Y| after dropping.
        targ2: usize,
    },
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::EmptySet { set } => write!(f, "set {set} lost all its examples"),
            Refusal::UnequalTargets { targ1, targ2 } => write!(
                f,
                "targ1 and targ2 have {targ1} and {targ2} examples once lost ones are dropped \
                 (WEAT needs equal sizes)"
            ),
        }
    }
}

/// A test of the battery that was not run on a model (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refused {
    /// The model's name.
    pub model: String,
    /// The test's name, as the battery lists it.
    pub test: String,
    /// True when it was the test's lower-cased copy that was refused.
    pub lowercased_copy: bool,
    /// Why.
    pub reason: Refusal,
    /// |X|, |Y|, |A|, |B| once the lost examples were dropped.
    pub sizes: SetSizes,
    /// The examples dropped, in set and file order.
    pub lost: Vec<LostExample>,
}

/// One line: model, test, reason and the examples dropped.
impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lost: Vec<String> = self.lost.iter().map(ToString::to_string).collect();
        write!(
            f,
            "model {}: test {} refused: {}; lost: {}",
            self.model,
            self.test,
            self.reason,
            lost.join(", ")
        )
    }
}

/// What a battery gives: a row per test that ran, and the tests refused.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatteryResult {
    /// One per (model, test) that ran, in model then battery order.
    pub rows: Vec<SeatRow>,
    /// The tests not run because of lost examples; always empty with [`Lost::Keep`].
    pub refused: Vec<Refused>,
}

impl BatteryResult {
    /// Appends another model's results.
    pub fn append(&mut self, other: BatteryResult) {
        self.rows.extend(other.rows);
        self.refused.extend(other.refused);
    }
}

impl SeatError {
    /// The test at fault, if the error concerns one.
    pub fn test(&self) -> Option<&str> {
        match self {
            SeatError::Encode { test, .. }
            | SeatError::Tokenize { test, .. }
            | SeatError::Weat { test, .. }
            | SeatError::Wefe { test, .. }
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

/// The category names of the four sets (the test file's `category` fields), so that a row
/// says what d > 0 means: X more associated with A than Y is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetNames {
    /// X, the first target set.
    pub targ1: String,
    /// Y, the second target set.
    pub targ2: String,
    /// A, the first attribute set.
    pub attr1: String,
    /// B, the second attribute set.
    pub attr2: String,
}

impl SetNames {
    /// The four names of `test`'s sets.
    pub fn of(test: &AssociationTest) -> SetNames {
        let [targ1, targ2, attr1, attr2] = Role::ALL.map(|r| test.set(r).category().to_owned());
        SetNames {
            targ1,
            targ2,
            attr1,
            attr2,
        }
    }
}

impl std::fmt::Display for SetNames {
    /// `X vs Y × A vs B`, as `lmbias weat` prints a test.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} vs {} × {} vs {}",
            self.targ1, self.targ2, self.attr1, self.attr2
        )
    }
}

/// How well one model's vocabulary covers one set (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCoverage {
    /// X, Y, A, B in that order.
    pub sets: Vec<SetCoverage>,
    /// Why to distrust this test on this model; empty when nothing is suspect.
    pub flags: Vec<CoverageFlag>,
}

/// One test on one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatRow {
    /// The model's name.
    pub model: String,
    /// The test's name, as the battery lists it.
    pub test: String,
    /// The category names of X, Y, A and B: d > 0 means X is more associated with A than Y is.
    pub categories: SetNames,
    /// True for a row of the test's lower-cased copy, which runs besides the test
    /// as written on a model whose tokenizer lower-cases, when asked ([`Copies`]).
    pub lowercased_copy: bool,
    /// The pooling applied: [`SeatOptions::pooling`] as the model applies it
    /// ([`Embedder::pooling_applied`]: `mean` for static vectors, whatever was asked).
    pub pooling: Pooling,
    /// `"last"` or the hidden-state index, as `lmbias embed` prints it.
    pub layer: Layer,
    /// Cohen's d; `None` when every association score is equal (0/0).
    pub effect_size: Option<f64>,
    /// Caliskan's statistic Σ_X s − Σ_Y s, the p-value's reference point.
    pub test_statistic: f64,
    /// Permutation p with sent-bias's semantics, its tails as `alternative` says.
    pub p_value: f64,
    /// One-sided (`greater`: X more associated with A than Y is, sent-bias's only test) or
    /// two-sided.
    pub alternative: weat::Alternative,
    /// The standard deviation that divides d: `sample` (ddof 1, sent-bias) or `population`.
    pub std: weat::StdKind,
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
    /// How well the model's vocabulary covers the test's examples (all of them,
    /// lost ones included).
    pub coverage: TestCoverage,
    /// The examples dropped with [`Lost::Drop`]; `sizes` count without them.
    pub lost: Vec<LostExample>,
    /// WEFE's metrics on the same vectors ([`SeatOptions::wefe`]), Holm-adjusted across the
    /// battery within each metric and attribute set; absent when none was asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wefe: Vec<MetricValue>,
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
    #[error("model {model}: test {test}, set {set}: cannot encode {}", quote(text))]
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
    /// The tokenizer refused an example (finding lost ones) or a word (counting coverage).
    #[error(
        "model {model}: test {test}, set {set}: cannot tokenize {}",
        quote(text)
    )]
    Tokenize {
        /// The model's name.
        model: String,
        /// The test being counted.
        test: String,
        /// The set that holds the example.
        set: Role,
        /// The example that failed, or whose word did.
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
    /// WEFE's metrics refused the test's vectors.
    #[error("model {model}: test {test}")]
    Wefe {
        /// The model's name.
        model: String,
        /// The test.
        test: String,
        /// The metrics' reason.
        #[source]
        source: WefeError,
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
/// lower-cased copy. The tests as written are what every model runs (the
/// procedure of Caglidil et al. 2024, who ran their one dataset on all seven
/// models); an uncased model (its tokenizer lower-cases) also runs the copies
/// when asked ([`Copies::AlsoLowercased`]): Turkish capitals must be lowered the
/// Turkish way (İ→i, I→ı) before a tokenizer that lowers them the English way
/// (and strips accents) sees them, the comparison the paper suggests (§4.2).
#[derive(Debug, Clone)]
pub struct Battery {
    tests: Vec<AssociationTest>,
    /// The lower-cased copies the dataset has, in battery order.
    copies: Vec<AssociationTest>,
    /// Per copy, the index in `tests` of the test it copies.
    copied: Vec<usize>,
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
            copies: Vec::new(),
            copied: Vec::new(),
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
            if let Some(copy) = copy {
                battery.copied.push(battery.tests.len());
                battery.copies.push(copy);
            }
            battery.tests.push(test);
        }
        Ok(battery)
    }

    /// The tests as written.
    pub fn tests(&self) -> &[AssociationTest] {
        &self.tests
    }

    /// The lower-cased copies, in battery order (tests without one have none).
    pub fn copies(&self) -> &[AssociationTest] {
        &self.copies
    }

    /// Each test's content, each copy's, and their order, by name, for a shard's stamp:
    /// a test's sets as canonical JSON, so that a test edited between shards (its attribute
    /// sets swapped, a word changed) is told apart however its file is laid out.
    pub fn contents(&self) -> Vec<(String, Vec<u8>)> {
        let json = |test: &AssociationTest| {
            serde_json::to_vec(test).expect("a test's sets are strings, always serializable")
        };
        let mut contents: Vec<(String, Vec<u8>)> = self
            .tests
            .iter()
            .map(|test| (format!("test {}", test.name()), json(test)))
            .collect();
        for (copy, &i) in self.copies.iter().zip(&self.copied) {
            let name = self.tests[i].name();
            contents.push((format!("test {name} (lower-cased copy)"), json(copy)));
        }
        // The order is the tables' too.
        let names: Vec<&str> = self.tests.iter().map(AssociationTest::name).collect();
        contents.push((
            "order of the tests".to_owned(),
            names.join("\n").into_bytes(),
        ));
        contents
    }
}

/// Whether a battery's lower-cased copies run besides the tests as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Copies {
    /// The tests as written, on every model (Caglidil et al.'s procedure).
    #[default]
    AsWritten,
    /// Also, on a model whose tokenizer lower-cases, every lower-cased copy: its
    /// rows follow the model's others, marked [`SeatRow::lowercased_copy`].
    AlsoLowercased,
}

/// Runs a [`Battery`] on one model: every test as written; then, with
/// [`Copies::AlsoLowercased`] and a model whose tokenizer lower-cases, the
/// lower-cased copies as a second run, named as the tests they copy (see
/// [`SeatRow::lowercased_copy`]). Holm and BH adjust within each run, so the
/// rows of the tests as written are the same whether the copies ran or not.
pub fn run_battery(
    model: &dyn Embedder,
    battery: &Battery,
    options: &SeatOptions,
    copies: Copies,
) -> Result<BatteryResult, SeatError> {
    run_battery_cancellable(model, battery, options, copies, &AtomicBool::new(false))
}

/// [`run_battery`], whose permutation tests stop soon after `cancel` is set (with
/// [`SeatError::Weat`] of [`WeatError::Cancelled`]): for a caller that can be interrupted.
pub fn run_battery_cancellable(
    model: &dyn Embedder,
    battery: &Battery,
    options: &SeatOptions,
    copies: Copies,
    cancel: &AtomicBool,
) -> Result<BatteryResult, SeatError> {
    let as_written: Vec<(&AssociationTest, &str)> =
        battery.tests.iter().map(|t| (t, t.name())).collect();
    let mut result = run_tests(model, &as_written, false, options, cancel)?;
    if copies == Copies::AlsoLowercased && model.lowercases() && !battery.copies.is_empty() {
        // A copy is named as the battery lists its test, whichever file it came from.
        let copied: Vec<(&AssociationTest, &str)> = battery
            .copies
            .iter()
            .zip(&battery.copied)
            .map(|(copy, &i)| (copy, battery.tests[i].name()))
            .collect();
        result.append(run_tests(model, &copied, true, options, cancel)?);
    }
    Ok(result)
}

/// A test's sets as they are used: every example with [`Lost::Keep`], the
/// examples that are not lost with [`Lost::Drop`].
struct Kept<'t> {
    test: &'t AssociationTest,
    sets: [Vec<&'t str>; 4],
    lost: Vec<LostExample>,
}

impl<'t> Kept<'t> {
    fn new(
        test: &'t AssociationTest,
        lost: Lost,
        pieces: &mut PieceCounter<'_>,
    ) -> Result<Self, SeatError> {
        let mut kept = Kept {
            test,
            sets: Default::default(),
            lost: Vec::new(),
        };
        for (role, set) in Role::ALL.into_iter().zip(&mut kept.sets) {
            for example in set_of(test, role).1 {
                let is_lost = match lost {
                    Lost::Keep => false,
                    Lost::Drop => {
                        pieces
                            .is_lost(example)
                            .map_err(|source| SeatError::Tokenize {
                                model: pieces.model.model_name().to_owned(),
                                test: test.name().to_owned(),
                                set: role,
                                text: example.clone(),
                                source: Box::new(source),
                            })?
                    }
                };
                if is_lost {
                    kept.lost.push(LostExample {
                        set: role,
                        text: example.clone(),
                    });
                } else {
                    set.push(example.as_str());
                }
            }
        }
        Ok(kept)
    }

    fn sizes(&self) -> SetSizes {
        let [targ1, targ2, attr1, attr2] = [0, 1, 2, 3].map(|i| self.sets[i].len());
        SetSizes {
            targ1,
            targ2,
            attr1,
            attr2,
        }
    }

    /// Why the test cannot run on what is left, if it cannot.
    fn refusal(&self, options: &Options) -> Option<Refusal> {
        if let Some((role, _)) = Role::ALL
            .into_iter()
            .zip(&self.sets)
            .find(|(_, set)| set.is_empty())
        {
            return Some(Refusal::EmptySet { set: role });
        }
        let (targ1, targ2) = (self.sets[0].len(), self.sets[1].len());
        let as_written = (
            self.test.set(Role::Targ1).len(),
            self.test.set(Role::Targ2).len(),
        );
        // Unequal as written is the statistics' error, as it is without dropping.
        (targ1 != targ2 && as_written.0 == as_written.1 && !options.allow_unequal_sizes)
            .then_some(Refusal::UnequalTargets { targ1, targ2 })
    }
}

/// Runs each test on one model, in order, named as given and marked `lowercased_copy`:
/// a row, or the reason it was refused. Holm and BH adjust over the rows, so each row
/// is built complete.
fn run_tests(
    model: &dyn Embedder,
    tests: &[(&AssociationTest, &str)],
    lowercased_copy: bool,
    options: &SeatOptions,
    cancel: &AtomicBool,
) -> Result<BatteryResult, SeatError> {
    if tests.is_empty() {
        return Err(SeatError::NoTests);
    }
    let mut pieces = PieceCounter::new(model);
    let kept: Vec<Kept<'_>> = tests
        .iter()
        .map(|(test, _)| Kept::new(test, options.lost, &mut pieces))
        .collect::<Result<_, _>>()?;
    let refusals: Vec<Option<Refusal>> = kept.iter().map(|k| k.refusal(&options.weat)).collect();
    let running: Vec<&Kept<'_>> = kept
        .iter()
        .zip(&refusals)
        .filter(|(_, r)| r.is_none())
        .map(|(k, _)| k)
        .collect();
    let vectors = embed_distinct(model, &running, options)?;
    // The statistics of every test at once, across rayon's pool (each permutation
    // test shares the same pool, so small and large tests keep every core busy):
    // a refused test keeps its reason.
    let wefe_options = options.wefe.options(&options.weat);
    type Verdict = Result<(weat::WeatResult, Vec<MetricValue>), SeatError>;
    let model_name = model.model_name();
    let verdicts: Vec<Result<Verdict, Refusal>> = kept
        .par_iter()
        .zip(refusals)
        .map(|(k, refusal)| match refusal {
            Some(reason) => Err(reason),
            None => {
                let [x, y, a, b] = [0, 1, 2, 3].map(|i| -> Vec<&[f32]> {
                    k.sets[i].iter().map(|e| vectors[e].as_slice()).collect()
                });
                let named =
                    |test: &AssociationTest| (model_name.to_owned(), test.name().to_owned());
                let weat = Associations::from_vectors(&x, &y, &a, &b)
                    .and_then(|assoc| weat::weat_cancellable(&assoc, &options.weat, cancel))
                    .map_err(|source| {
                        let (model, test) = named(k.test);
                        SeatError::Weat {
                            model,
                            test,
                            source,
                        }
                    });
                Ok(weat.and_then(|weat| {
                    if options.wefe.is_none() {
                        return Ok((weat, Vec::new()));
                    }
                    wefe::Sets::new([&x, &y, &a, &b])
                        .and_then(|sets| wefe::evaluate(&sets, options.wefe.metrics, &wefe_options))
                        .map(|values| (weat, values))
                        .map_err(|source| {
                            let (model, test) = named(k.test);
                            SeatError::Wefe {
                                model,
                                test,
                                source,
                            }
                        })
                }))
            }
        })
        .collect();
    let mut result = BatteryResult::default();
    let mut ran: Vec<(&Kept<'_>, &str, weat::WeatResult)> = Vec::new();
    let mut wefe_values: Vec<Vec<MetricValue>> = Vec::new();
    for ((k, (_, name)), verdict) in kept.iter().zip(tests).zip(verdicts) {
        match verdict {
            Err(reason) => result.refused.push(Refused {
                model: model_name.to_owned(),
                test: (*name).to_owned(),
                lowercased_copy,
                reason,
                sizes: k.sizes(),
                lost: k.lost.clone(),
            }),
            Ok(Ok((weat, values))) => {
                ran.push((k, name, weat));
                wefe_values.push(values);
            }
            Ok(Err(err)) => return Err(err),
        }
    }
    wefe::holm_across(&mut wefe_values);
    let p: Vec<f64> = ran.iter().map(|(_, _, r)| r.permutation.p_value).collect();
    let holm = correction::holm(&p).expect("permutation p-values lie in [0, 1]");
    let bh = correction::benjamini_hochberg(&p).expect("permutation p-values lie in [0, 1]");
    for ((((k, name, weat), p_holm), p_bh), wefe) in
        ran.into_iter().zip(holm).zip(bh).zip(wefe_values)
    {
        result.rows.push(SeatRow {
            model: model_name.to_owned(),
            test: name.to_owned(),
            categories: SetNames::of(k.test),
            lowercased_copy,
            pooling: model.pooling_applied(options.pooling),
            layer: options.layer,
            effect_size: weat.effect_size,
            test_statistic: weat.test_statistic,
            p_value: weat.permutation.p_value,
            alternative: weat.permutation.alternative,
            std: weat.std,
            exact: weat.permutation.exact,
            n_partitions: weat.permutation.n_partitions,
            n_evaluated: weat.permutation.n_evaluated,
            p_holm,
            p_bh,
            sizes: k.sizes(),
            coverage: pieces.coverage(k.test)?,
            lost: k.lost.clone(),
            wefe,
        });
    }
    Ok(result)
}

/// Encodes each distinct text of the battery once, in one call (the model
/// batches internally). A text the model refuses is named with the first test
/// and set that hold it, found from the index the encoder reports.
fn embed_distinct<'t>(
    model: &dyn Embedder,
    tests: &[&Kept<'t>],
    options: &SeatOptions,
) -> Result<HashMap<&'t str, Vec<f32>>, SeatError> {
    // Each distinct text with the first (test, set) that holds it.
    let mut texts: Vec<(&str, &AssociationTest, Role)> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for kept in tests {
        for (role, set) in Role::ALL.into_iter().zip(&kept.sets) {
            for &e in set {
                if seen.insert(e) {
                    texts.push((e, kept.test, role));
                }
            }
        }
    }
    if texts.is_empty() {
        // Every test was refused: nothing to ask the model.
        return Ok(HashMap::new());
    }
    let batch: Vec<&str> = texts.iter().map(|t| t.0).collect();
    // Any model's NaN is named with its text here, before the statistics see it.
    let vectors = model
        .embed(&batch, options.pooling, options.layer)
        .and_then(check_finite)
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

/// Pieces per word, each word tokenized once per model; and which whole
/// examples are lost, each tokenized once.
struct PieceCounter<'m> {
    model: &'m dyn Embedder,
    /// word → (pieces, has an unknown piece)
    cache: HashMap<String, (usize, bool)>,
    /// example → lost (no piece, or an unknown one)
    lost: HashMap<String, bool>,
}

impl<'m> PieceCounter<'m> {
    fn new(model: &'m dyn Embedder) -> Self {
        PieceCounter {
            model,
            cache: HashMap::new(),
            lost: HashMap::new(),
        }
    }

    fn is_lost(&mut self, example: &str) -> Result<bool, EncoderError> {
        if let Some(&hit) = self.lost.get(example) {
            return Ok(hit);
        }
        let pieces = self.model.tokenize(example)?;
        let lost = pieces.is_empty() || pieces.iter().any(|p| p.unknown);
        self.lost.insert(example.to_owned(), lost);
        Ok(lost)
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
