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

use serde::{Deserialize, Serialize};

use crate::error::{DataError, SetProblem};

/// The four sets' keys in a test file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Targ1,
    Targ2,
    Attr1,
    Attr2,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Targ1, Role::Targ2, Role::Attr1, Role::Attr2];

    pub fn key(self) -> &'static str {
        match self {
            Role::Targ1 => "targ1",
            Role::Targ2 => "targ2",
            Role::Attr1 => "attr1",
            Role::Attr2 => "attr2",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// What to do with an example listed twice in one set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Duplicates {
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
    AllowUnequal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LoadOptions {
    pub duplicates: Duplicates,
    pub target_sizes: TargetSizes,
}

/// A set as written in a file, before validation.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SetSpec {
    pub category: String,
    pub examples: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TestSpec {
    pub targ1: SetSpec,
    pub targ2: SetSpec,
    pub attr1: SetSpec,
    pub attr2: SetSpec,
}

/// A validated set: non-empty, no blank or repeated example.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Set {
    category: String,
    examples: Vec<String>,
}

impl Set {
    pub fn category(&self) -> &str {
        &self.category
    }

    pub fn examples(&self) -> &[String] {
        &self.examples
    }

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
    pub fn new(name: &str, spec: TestSpec, options: &LoadOptions) -> Result<Self, DataError> {
        Self::validate(name, name, spec, options)
    }

    /// Reads one test file; its name is the file stem.
    pub fn from_path(path: &Path, options: &LoadOptions) -> Result<Self, DataError> {
        let bytes = std::fs::read(path).map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Self::from_slice(path, &bytes, options)
    }

    /// Parses a test file's contents; `path` names it (and its stem names the test).
    pub fn from_slice(path: &Path, bytes: &[u8], options: &LoadOptions) -> Result<Self, DataError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(DataError::EmptyFile {
                path: path.to_path_buf(),
            });
        }
        let spec: TestSpec = serde_json::from_slice(bytes).map_err(|e| DataError::Json {
            path: path.to_path_buf(),
            message: format!(
                "not an association test ({{\"targ1\", \"targ2\", \"attr1\", \"attr2\"}}): {e}"
            ),
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
    ) -> Result<Self, DataError> {
        let set = |role, spec| validate_set(origin, role, spec, options.duplicates);
        let test = AssociationTest {
            name: name.to_owned(),
            targ1: set(Role::Targ1, spec.targ1)?,
            targ2: set(Role::Targ2, spec.targ2)?,
            attr1: set(Role::Attr1, spec.attr1)?,
            attr2: set(Role::Attr2, spec.attr2)?,
        };
        if test.targ1.len() != test.targ2.len() && options.target_sizes == TargetSizes::Equal {
            return Err(DataError::UnequalTargets {
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
) -> Result<Set, DataError> {
    let error = |problem| DataError::Set {
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
pub const LOWERCASED_SUFFIX: &str = "-uncased";

/// Where the lower-cased copy of a test file or folder lives, if it exists:
/// `DIR/NAME.jsonl` → `DIR-uncased/NAME.jsonl`, `DIR` → `DIR-uncased`. Uncased
/// models run that copy (see `datasets/README.md`, "seat/tr-uncased").
pub fn lowercased_copy(path: &Path) -> Option<PathBuf> {
    let with_suffix = |dir: &Path| -> Option<PathBuf> {
        let name = dir.file_name()?.to_str()?;
        Some(dir.with_file_name(format!("{name}{LOWERCASED_SUFFIX}")))
    };
    let copy = if path.is_dir() {
        with_suffix(path)?
    } else {
        with_suffix(path.parent()?)?.join(path.file_name()?)
    };
    copy.exists().then_some(copy)
}

/// The file of test `name` in `dir` (a test is named by its file stem), if any.
pub fn test_file(dir: &Path, name: &str) -> Option<PathBuf> {
    ["jsonl", "json"]
        .iter()
        .map(|ext| dir.join(format!("{name}.{ext}")))
        .find(|p| p.is_file())
}

/// Every test of `dir` (as [`load_dir`]), each with its lower-cased copy from
/// `dir-uncased` where that folder holds a test of the same name.
pub fn load_dir_with_copies(
    dir: &Path,
    options: &LoadOptions,
) -> Result<Vec<(AssociationTest, Option<AssociationTest>)>, DataError> {
    let copies = lowercased_copy(dir);
    load_dir(dir, options)?
        .into_iter()
        .map(|test| {
            let copy = copies
                .as_deref()
                .and_then(|c| test_file(c, test.name()))
                .map(|path| AssociationTest::from_path(&path, options))
                .transpose()?;
            Ok((test, copy))
        })
        .collect()
}

/// Every test (`*.jsonl`, `*.json`) in `dir`, sorted by name (file stem); subdirectories are skipped.
pub fn load_dir(dir: &Path, options: &LoadOptions) -> Result<Vec<AssociationTest>, DataError> {
    let io = |source| DataError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    paths.retain(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl" || x == "json"));
    // By test name, so `weat1` < `weat1+3-` does not depend on the extension's first byte.
    paths.sort_by(|a, b| a.file_stem().cmp(&b.file_stem()).then_with(|| a.cmp(b)));
    if paths.is_empty() {
        return Err(DataError::NoTests {
            path: dir.to_path_buf(),
        });
    }
    paths
        .iter()
        .map(|p| AssociationTest::from_path(p, options))
        .collect()
}
