//! Inputs more than one study reads, each kept with its file's digest so that a run's
//! provenance names it: association tests (SEAT's battery, WEAT's one test, any measure on
//! sent-bias's tests) and files of precomputed vectors (WEAT, the probe).

use std::path::{Path, PathBuf};

use lmbias_data::association::{self, AssociationTest, LoadOptions, TestFile};
use lmbias_data::embeddings::Embeddings;
use lmbias_model::{DeviceKind, Precision};
use lmbias_studies::seat::{Battery, SeatError};

use crate::RunError;
use crate::provenance::{FileDigest, ModelOrigin, ModelProvenance, sha256_file};
use crate::shards::Stamp;

/// Where a test of a battery comes from.
pub enum TestSource {
    /// A sent-bias-format file, or a folder of them (`*.jsonl` and `*.json`, by name), each
    /// test with its lower-cased copy where `DIR-uncased/NAME` exists.
    Path(PathBuf),
    /// A test built in memory (Python's dicts): it has no file to digest.
    Test(AssociationTest),
}

/// A test as it runs: where it came from, and its lower-cased copy's file.
struct Loaded {
    name: String,
    file: Option<FileDigest>,
    path: Option<PathBuf>,
    copy: Option<FileDigest>,
}

/// The tests of a battery, each with its file (kept: an error names it, the provenance
/// digests it), in the order given; two tests with one name are refused.
pub struct Tests {
    loaded: Vec<Loaded>,
    battery: Battery,
}

impl Tests {
    /// Every file or folder of `paths`, in order, as `lmbias seat --test` reads them.
    pub fn load(paths: &[PathBuf]) -> Result<Tests, RunError> {
        Tests::new(paths.iter().cloned().map(TestSource::Path).collect())
    }

    /// Tests from files, folders and memory, in order.
    pub fn new(sources: Vec<TestSource>) -> Result<Tests, RunError> {
        let options = LoadOptions::default();
        let mut loaded: Vec<Loaded> = Vec::new();
        let mut tests = Vec::new();
        let origin = |path: Option<&PathBuf>| {
            path.map_or_else(|| "a dict".to_owned(), |p| p.display().to_string())
        };
        for source in sources {
            let read: Vec<(AssociationTest, Option<PathBuf>, Option<TestFile>)> = match source {
                TestSource::Test(test) => vec![(test, None, None)],
                TestSource::Path(path) => association::load_battery(&[path], &options)?
                    .into_iter()
                    .map(|b| (b.test, Some(b.file), b.lowercased))
                    .collect(),
            };
            for (test, file, copy) in read {
                if let Some(first) = loaded.iter().find(|l| l.name == test.name()) {
                    return Err(RunError::DuplicateTest {
                        test: test.name().to_owned(),
                        first: origin(first.path.as_ref()),
                        second: origin(file.as_ref()),
                    });
                }
                loaded.push(Loaded {
                    name: test.name().to_owned(),
                    file: file.as_deref().map(FileDigest::of).transpose()?,
                    path: file,
                    copy: copy.as_ref().map(|c| FileDigest::of(&c.file)).transpose()?,
                });
                tests.push((test, copy.map(|c| c.test)));
            }
        }
        let battery = Battery::new(tests).map_err(|e| in_file(&loaded, e))?;
        Ok(Tests { loaded, battery })
    }

    /// The battery: the tests as written and their lower-cased copies.
    pub fn battery(&self) -> &Battery {
        &self.battery
    }

    /// Records every test's content (and its copy's) and their order in a shard's stamp.
    pub fn digest_into(&self, stamp: &mut Stamp) {
        for (name, content) in self.battery.contents() {
            stamp.digest(name, &content);
        }
    }

    /// The files read (each test's, then its copy's), for a run's provenance.
    pub fn files(&self) -> impl Iterator<Item = &FileDigest> {
        self.loaded
            .iter()
            .flat_map(|l| l.file.iter().chain(l.copy.iter()))
    }

    /// An error of the battery that names a test, joined to the test's file.
    pub(crate) fn in_file(&self, err: SeatError) -> RunError {
        in_file(&self.loaded, err)
    }
}

fn in_file(loaded: &[Loaded], err: SeatError) -> RunError {
    match err
        .test()
        .and_then(|name| loaded.iter().find(|l| l.name == name))
        .and_then(|l| l.path.as_ref())
    {
        Some(file) => RunError::SeatInFile {
            file: file.clone(),
            source: Box::new(err),
        },
        None => RunError::Seat(Box::new(err)),
    }
}

/// One association test read from its file (`lmbias weat --test`), with the file's digest.
pub struct Test {
    path: PathBuf,
    test: AssociationTest,
    digest: FileDigest,
}

impl Test {
    /// Reads the test of `path` with `options` (repeated examples, unequal targets).
    pub fn load(path: &Path, options: &LoadOptions) -> Result<Test, RunError> {
        Ok(Test {
            path: path.to_path_buf(),
            test: AssociationTest::from_path(path, options)?,
            digest: FileDigest::of(path)?,
        })
    }

    /// The test as read.
    pub fn test(&self) -> &AssociationTest {
        &self.test
    }

    /// Its file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its file's digest.
    pub fn file(&self) -> &FileDigest {
        &self.digest
    }
}

/// A file of precomputed vectors (JSON `{text: [..]}`, word2vec or GloVe text), which stands
/// for the model in a run's provenance.
pub struct Vectors {
    path: PathBuf,
    embeddings: Embeddings,
    provenance: ModelProvenance,
}

impl Vectors {
    /// Reads a file of vectors.
    pub fn load(path: &Path) -> Result<Vectors, RunError> {
        Ok(Vectors {
            path: path.to_path_buf(),
            embeddings: Embeddings::from_path(path)?,
            provenance: ModelProvenance {
                id: path.display().to_string(),
                label: None,
                origin: ModelOrigin::File {
                    sha256: sha256_file(path)?,
                },
                tokenizer_sha256: None,
                precision: Precision::F32,
                device: DeviceKind::Cpu,
            },
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The vectors, by text.
    pub fn embeddings(&self) -> &Embeddings {
        &self.embeddings
    }

    /// The file as a run's model.
    pub fn provenance(&self) -> &ModelProvenance {
        &self.provenance
    }
}
