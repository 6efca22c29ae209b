//! Association tests (WEAT, SEAT, Double Bind…): two target sets X, Y and two attribute sets
//! A, B of words or sentences.
//!
//! lmbias's schema is sent-bias's (May et al. 2019): one JSON object per file — despite the
//! `.jsonl` name of sent-bias's files — with exactly these four keys:
//!
//! ```json
//! { "targ1": {"category": "Flowers",    "examples": ["aster", "clover"]},
//!   "targ2": {"category": "Insects",    "examples": ["ant", "flea"]},
//!   "attr1": {"category": "Pleasant",   "examples": ["caress", "freedom"]},
//!   "attr2": {"category": "Unpleasant", "examples": ["abuse", "crash"]} }
//! ```
//!
//! Unknown keys are an error (a typo must not silently drop a set). A test's name is its file
//! stem. Validation: every set non-empty, no blank example, no example twice in one set
//! (sent-bias keys encodings by text and so silently merges duplicates; [`Duplicates::Merge`]
//! does the same), and |targ1| = |targ2| unless [`TargetSizes::AllowUnequal`].

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use lmbias_core::quote;
use serde::{Deserialize, Serialize};

use crate::read::{DATASET, ReadError, read, strip_bom};

pub use lmbias_core::Role;

/// What to do with an example listed twice in one set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
    /// Refuse the file: a repeated example is usually a slip, and merging it changes |X|.
    #[default]
    Error,
    /// Keep the first occurrence, as sent-bias effectively does.
    Merge,
}

/// Whether the two target sets must have the same size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetSizes {
    /// sent-bias's requirement (its permutation test asserts it).
    #[default]
    Equal,
    /// For tests that are unequal by design; the permutation test must then allow it too.
    AllowUnequal,
}

/// How strictly a test file is validated; the default is sent-bias's contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    /// Repeated examples within a set.
    pub duplicates: Duplicates,
    /// |targ1| versus |targ2|.
    pub target_sizes: TargetSizes,
}

/// A set as written in a file, before validation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    /// The set's label in reports (e.g. "Flowers").
    pub category: String,
    /// Words or sentences, in file order (the order sent-bias numbers them).
    pub examples: Vec<String>,
}

/// A test as written in a file (sent-bias's four keys), before validation; build one in memory
/// and pass it to [`AssociationTest::new`] to get the same checks as a file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TestSpec {
    /// Target X.
    pub targ1: SetSpec,
    /// Target Y.
    pub targ2: SetSpec,
    /// Attribute A.
    pub attr1: SetSpec,
    /// Attribute B.
    pub attr2: SetSpec,
}

/// A validated set: non-empty, no blank or repeated example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Set {
    category: String,
    examples: Vec<String>,
}

impl Set {
    /// The label reports print for the set.
    pub fn category(&self) -> &str {
        &self.category
    }

    /// Distinct examples in file order (duplicates merged when the options said so).
    pub fn examples(&self) -> &[String] {
        &self.examples
    }

    /// |set|, after merging; never 0.
    pub fn len(&self) -> usize {
        self.examples.len()
    }

    /// Always false: a `Set` has at least one example. Present for API symmetry with `len`.
    pub fn is_empty(&self) -> bool {
        self.examples.is_empty()
    }
}

/// A validated association test; it cannot exist unvalidated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AssociationTest {
    #[serde(skip)]
    name: String,
    targ1: Set,
    targ2: Set,
    attr1: Set,
    attr2: Set,
}

impl AssociationTest {
    /// Validates a test built in memory; errors name it by `name`.
    pub fn new(
        name: &str,
        spec: TestSpec,
        options: &LoadOptions,
    ) -> Result<Self, AssociationError> {
        Self::validate(name, name, spec, options)
    }

    /// Reads one test file; its name is the file stem.
    pub fn from_path(path: &Path, options: &LoadOptions) -> Result<Self, AssociationError> {
        Self::from_slice(path, &read(path, DATASET)?, options)
    }

    /// Parses a test file's contents; `path` names it (and its stem names the test).
    pub fn from_slice(
        path: &Path,
        bytes: &[u8],
        options: &LoadOptions,
    ) -> Result<Self, AssociationError> {
        let bytes = strip_bom(bytes);
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(AssociationError::EmptyFile {
                path: path.to_path_buf(),
            });
        }
        let spec: TestSpec =
            serde_json::from_slice(bytes).map_err(|source| AssociationError::Json {
                path: path.to_path_buf(),
                source,
            })?;
        let name = path
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        Self::validate(&name, &path.display().to_string(), spec, options)
    }

    fn validate(
        name: &str,
        origin: &str,
        spec: TestSpec,
        options: &LoadOptions,
    ) -> Result<Self, AssociationError> {
        let set = |role, spec| validate_set(origin, role, spec, options.duplicates);
        let test = AssociationTest {
            name: name.to_owned(),
            targ1: set(Role::Targ1, spec.targ1)?,
            targ2: set(Role::Targ2, spec.targ2)?,
            attr1: set(Role::Attr1, spec.attr1)?,
            attr2: set(Role::Attr2, spec.attr2)?,
        };
        if test.targ1.len() != test.targ2.len() && options.target_sizes == TargetSizes::Equal {
            return Err(AssociationError::UnequalTargets {
                origin: origin.to_owned(),
                category1: test.targ1.category.clone(),
                size1: test.targ1.len(),
                category2: test.targ2.category.clone(),
                size2: test.targ2.len(),
            });
        }
        Ok(test)
    }

    /// The file stem, e.g. `weat1` or `sent-weat3b`.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The set in `role`: lets code loop over [`Role::ALL`] instead of naming four accessors.
    pub fn set(&self, role: Role) -> &Set {
        match role {
            Role::Targ1 => &self.targ1,
            Role::Targ2 => &self.targ2,
            Role::Attr1 => &self.attr1,
            Role::Attr2 => &self.attr2,
        }
    }

    /// Target X.
    pub fn targ1(&self) -> &Set {
        &self.targ1
    }

    /// Target Y.
    pub fn targ2(&self) -> &Set {
        &self.targ2
    }

    /// Attribute A.
    pub fn attr1(&self) -> &Set {
        &self.attr1
    }

    /// Attribute B.
    pub fn attr2(&self) -> &Set {
        &self.attr2
    }
}

fn validate_set(
    origin: &str,
    role: Role,
    spec: SetSpec,
    duplicates: Duplicates,
) -> Result<Set, AssociationError> {
    let error = |problem| AssociationError::Set {
        origin: origin.to_owned(),
        role,
        category: spec.category.clone(),
        problem,
    };
    if spec.examples.is_empty() {
        return Err(error(SetProblem::Empty));
    }
    if let Some(index) = spec.examples.iter().position(|e| e.trim().is_empty()) {
        return Err(error(SetProblem::BlankExample { index }));
    }
    let mut seen = HashSet::new();
    let mut examples = Vec::with_capacity(spec.examples.len());
    for example in &spec.examples {
        if seen.insert(example.as_str()) {
            examples.push(example.clone());
        } else if duplicates == Duplicates::Error {
            return Err(error(SetProblem::Duplicate {
                text: example.clone(),
            }));
        }
    }
    Ok(Set {
        category: spec.category.clone(),
        examples,
    })
}

/// Suffix of the folder that holds a battery's lower-cased copy (`seat/tr` → `seat/tr-uncased`).
const LOWERCASED_SUFFIX: &str = "-uncased";

/// Where the lower-cased copy of a test file lives, if it exists: `DIR/NAME.jsonl` →
/// `DIR-uncased/NAME.jsonl` (the same file name). Uncased models can run that copy beside
/// the file as written, when asked (see `lmbias_studies::seat::Copies` and
/// `datasets/README.md`, "seat/tr-uncased").
fn lowercased_copy(file: &Path) -> Option<PathBuf> {
    let dir = file.parent()?;
    let name = dir.file_name()?.to_str()?;
    let copy = dir
        .with_file_name(format!("{name}{LOWERCASED_SUFFIX}"))
        .join(file.file_name()?);
    copy.exists().then_some(copy)
}

/// A test with the file it was read from, kept so that an error or a result's provenance
/// names the file without searching for it again by the test's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestFile {
    /// The test.
    pub test: AssociationTest,
    /// The file it was read from, as the caller's path joined to its name.
    pub file: PathBuf,
}

impl TestFile {
    /// Reads the test in `file`.
    pub fn read(file: PathBuf, options: &LoadOptions) -> Result<Self, AssociationError> {
        let test = AssociationTest::from_path(&file, options)?;
        Ok(TestFile { test, file })
    }
}

/// A test of a battery as [`load_battery`] reads it: the file it came from, and its
/// lower-cased copy where one sits beside it (`DIR-uncased/NAME` for `DIR/NAME`), with that
/// file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatteryFile {
    /// The test as written.
    pub test: AssociationTest,
    /// The file it was read from.
    pub file: PathBuf,
    /// The same test from the `-uncased` folder beside it (`DIR-uncased/NAME`), which
    /// uncased models can also run.
    pub lowercased: Option<TestFile>,
}

impl BatteryFile {
    /// The test and its copy without their files, as `lmbias_studies::seat::Battery::new`
    /// takes them.
    pub fn tests(&self) -> (AssociationTest, Option<AssociationTest>) {
        let copy = self.lowercased.as_ref().map(|c| c.test.clone());
        (self.test.clone(), copy)
    }
}

/// The one battery loader: each path in order — a test file, or a folder of them (`*.jsonl`
/// and `*.json`, sorted by test name; subdirectories and hidden files skipped; a symbolic
/// link that leads nowhere is an error rather than a test silently left out) — each test
/// with its file and its lower-cased copy. Two tests with one name are an error naming both
/// files: their rows in a table could not be told apart.
pub fn load_battery(
    paths: &[impl AsRef<Path>],
    options: &LoadOptions,
) -> Result<Vec<BatteryFile>, AssociationError> {
    let mut out: Vec<BatteryFile> = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let files = if path.is_dir() {
            test_paths(path)?
        } else {
            vec![path.to_path_buf()]
        };
        for file in files {
            let TestFile { test, file } = TestFile::read(file, options)?;
            if let Some(first) = out.iter().find(|o| o.test.name() == test.name()) {
                return Err(AssociationError::DuplicateTest {
                    name: test.name().to_owned(),
                    file,
                    first: first.file.clone(),
                });
            }
            let lowercased = lowercased_copy(&file)
                .map(|copy| TestFile::read(copy, options))
                .transpose()?;
            out.push(BatteryFile {
                test,
                file,
                lowercased,
            });
        }
    }
    Ok(out)
}

/// The test files of `dir`, as [`load_battery`] reads them: by test name.
fn test_paths(dir: &Path) -> Result<Vec<PathBuf>, AssociationError> {
    let io = |source| ReadError::new(dir, source);
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let path = entry.map_err(io)?.path();
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        let test = path
            .extension()
            .is_some_and(|x| x == "jsonl" || x == "json");
        if hidden || !test {
            continue;
        }
        // `metadata` follows links: it fails on a dangling link or a loop.
        match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => paths.push(path),
            Ok(_) => {}
            Err(source) => return Err(AssociationError::BrokenLink { path, source }),
        }
    }
    // By test name, so `weat1` < `weat1+3-` does not depend on the extension's first byte.
    paths.sort_by(|a, b| a.file_stem().cmp(&b.file_stem()).then_with(|| a.cmp(b)));
    if paths.is_empty() {
        return Err(AssociationError::NoTests {
            path: dir.to_path_buf(),
        });
    }
    Ok(paths)
}

/// Why an association test (or a directory of them) was rejected: one line, naming the file
/// (or the test built in memory) and the set or field at fault.
#[derive(Debug, thiserror::Error)]
pub enum AssociationError {
    /// The file or directory could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// Nothing but whitespace: named apart from bad JSON because it is usually a failed export.
    #[error("{}: empty file", path.display())]
    EmptyFile {
        /// The test file.
        path: PathBuf,
    },
    /// Bad JSON, or JSON that does not fit the schema; the source names the field and position.
    #[error(
        "{}: not an association test ({{\"targ1\", \"targ2\", \"attr1\", \"attr2\"}})",
        path.display()
    )]
    Json {
        /// The test file.
        path: PathBuf,
        /// serde's reason, typed so a caller can take its line and column.
        source: serde_json::Error,
    },
    /// One set breaks a rule of [`SetProblem`].
    #[error("{origin}: {role} ({}): {problem}", quote(category))]
    Set {
        /// The file, or the test's name when it was built in memory.
        origin: String,
        /// Which of the four sets.
        role: Role,
        /// Its category, which users recognise faster than the key.
        category: String,
        /// What is wrong with it.
        problem: SetProblem,
    },
    /// |targ1| ≠ |targ2| while [`TargetSizes::Equal`] is asked for.
    #[error(
        "{origin}: targ1 ({}) has {size1} examples but targ2 ({}) has {size2}: sent-bias requires equal target sizes (`lmbias weat --allow-unequal-sizes`, or allow_unequal_sizes=True in Python, runs it anyway; `lmbias seat` keeps the rule)",
        quote(category1),
        quote(category2)
    )]
    UnequalTargets {
        /// The file, or the test's name when it was built in memory.
        origin: String,
        /// targ1's category.
        category1: String,
        /// |targ1|.
        size1: usize,
        /// targ2's category.
        category2: String,
        /// |targ2|.
        size2: usize,
    },
    /// Two tests of one battery share a name ([`load_battery`]).
    #[error("{}: test {name} is already loaded from {}", file.display(), first.display())]
    DuplicateTest {
        /// The test's name.
        name: String,
        /// The file read second.
        file: PathBuf,
        /// The file that holds the first test of that name.
        first: PathBuf,
    },
    /// A test file in a battery directory that is a symbolic link to nothing (or a loop).
    #[error("{}: a symbolic link that leads to no file (dangling, or a loop)", path.display())]
    BrokenLink {
        /// The link.
        path: PathBuf,
        /// What following it said.
        source: std::io::Error,
    },
    /// A battery directory with no test in it: most likely the wrong directory.
    #[error("{}: no association tests (*.jsonl or *.json files) in this directory", path.display())]
    NoTests {
        /// The directory.
        path: PathBuf,
    },
}

/// What is wrong with one set of an association test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetProblem {
    /// A WEAT mean over an empty set is undefined.
    #[error("has no examples")]
    Empty,
    /// A blank example would be embedded as nothing (or the bare special tokens).
    #[error("example {index} is blank")]
    BlankExample {
        /// Position in the file's list, counting from 0.
        index: usize,
    },
    /// The same text twice, refused under [`Duplicates::Error`].
    #[error(
        "example {} appears more than once (sent-bias silently merges duplicates; `lmbias weat --merge-duplicates`, or merge_duplicates=True in Python, merges them; `lmbias seat` refuses them)",
        quote(text)
    )]
    Duplicate {
        /// The repeated example.
        text: String,
    },
}
