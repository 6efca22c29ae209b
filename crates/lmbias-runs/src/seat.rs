//! SEAT (May et al. 2019): a battery of association tests on a model, each test kept with
//! the file it came from, options defaulting from the model (its pooling; a static model
//! drops examples without a vector), one [`SeatRun`] per model with its provenance.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use lmbias_core::{Layer, Pooling};
use lmbias_data::association::{self, AssociationTest, LoadOptions, TestFile};
use lmbias_metrics::weat::{DEFAULT_N_SAMPLES, DEFAULT_SEED, Options};
use lmbias_studies::seat::{
    self, Battery, BatteryResult, Copies, Lost, Refused, SeatError, SeatOptions, SeatRow,
};
use serde::{Deserialize, Serialize};

use crate::provenance::{FileDigest, Provenance};
use crate::shards::Stamp;
use crate::{Model, RunError};

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
        for source in sources {
            let read: Vec<(AssociationTest, Option<PathBuf>, Option<TestFile>)> = match source {
                TestSource::Test(test) => vec![(test, None, None)],
                TestSource::Path(path) => association::load_battery(&[path], &options)?
                    .into_iter()
                    .map(|b| (b.test, Some(b.file), b.lowercased))
                    .collect(),
            };
            for (test, file, copy) in read {
                let origin = |l: &Loaded| {
                    l.path
                        .as_ref()
                        .map_or_else(|| "a dict".to_owned(), |p| p.display().to_string())
                };
                if let Some(first) = loaded.iter().find(|l| l.name == test.name()) {
                    return Err(RunError::DuplicateTest {
                        test: test.name().to_owned(),
                        first: origin(first),
                        second: file
                            .as_ref()
                            .map_or_else(|| "a dict".to_owned(), |p| p.display().to_string()),
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

    /// The battery the study runs.
    pub fn battery(&self) -> &Battery {
        &self.battery
    }

    /// Records every test's content (and its copy's) and their order in a shard's stamp.
    pub fn digest_into(&self, stamp: &mut Stamp) {
        for (name, content) in self.battery.contents() {
            stamp.digest(name, &content);
        }
    }

    fn digests(&self) -> impl Iterator<Item = &FileDigest> {
        self.loaded
            .iter()
            .flat_map(|l| l.file.iter().chain(l.copy.iter()))
    }
}

/// The test's file joined to an error that names a test.
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

/// How a battery runs; what is not given comes from the model.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeatSettings {
    /// The sentence vector; `None`: each model's own ([`Model::pooling`]).
    pub pooling: Option<Pooling>,
    /// The hidden-state layer.
    pub layer: Layer,
    /// Exact p when X ∪ Y has at most this many equal splits, else this many sampled ones.
    pub n_samples: u64,
    /// Seed of the sampled permutation tests.
    pub seed: u64,
    /// Whether uncased models also run the lower-cased copies.
    pub copies: Copies,
}

impl Default for SeatSettings {
    fn default() -> Self {
        SeatSettings {
            pooling: None,
            layer: Layer::Last,
            n_samples: DEFAULT_N_SAMPLES,
            seed: DEFAULT_SEED,
            copies: Copies::AsWritten,
        }
    }
}

/// A battery on one model: its rows, the tests it refused, and what produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatRun {
    /// The model, the tests' files, the options, lmbias.
    pub provenance: Provenance,
    /// One row per test that ran (then per lower-cased copy), in battery order.
    pub rows: Vec<SeatRow>,
    /// The tests that could not run on this model, and why.
    pub refused: Vec<Refused>,
}

/// Runs `tests` on `model`; the permutation tests stop soon after `cancel` is set.
pub fn run(
    model: &Model,
    tests: &Tests,
    settings: &SeatSettings,
    cancel: &AtomicBool,
) -> Result<SeatRun, RunError> {
    let embedder = model.embedder()?;
    let options = SeatOptions {
        pooling: model.pooling(settings.pooling)?,
        layer: settings.layer,
        weat: Options {
            n_samples: settings.n_samples,
            seed: settings.seed,
            ..Options::default()
        },
        lost: model.lost(),
    };
    let result = seat::run_battery_cancellable(
        embedder.as_ref(),
        &tests.battery,
        &options,
        settings.copies,
        cancel,
    )
    .map_err(|e| in_file(&tests.loaded, e))?;
    let provenance = tests
        .digests()
        .fold(Provenance::new(model.provenance()?), Provenance::input)
        .option("pooling", embedder.pooling_applied(options.pooling))
        .option("layer", settings.layer)
        .option("n_samples", settings.n_samples)
        .option("seed", settings.seed)
        .option(
            "lowercased_copies",
            settings.copies == Copies::AlsoLowercased,
        )
        .option(
            "lost_examples",
            match options.lost {
                Lost::Keep => "kept",
                Lost::Drop => "dropped",
            },
        );
    Ok(SeatRun {
        provenance,
        rows: result.rows,
        refused: result.refused,
    })
}

/// The runs of several models as one battery (rows in run order), for the tables.
pub fn combine<'a>(runs: impl IntoIterator<Item = &'a SeatRun>) -> BatteryResult {
    let mut all = BatteryResult::default();
    for run in runs {
        all.append(BatteryResult {
            rows: run.rows.clone(),
            refused: run.refused.clone(),
        });
    }
    all
}

/// What `lmbias seat --json` prints: every model's provenance, then all rows and refusals.
#[derive(Debug, Serialize)]
pub struct SeatOutput<'a> {
    /// One per model, in run order.
    pub provenance: Vec<&'a Provenance>,
    /// Every row, models in run order.
    pub rows: Vec<&'a SeatRow>,
    /// Every refused test.
    pub refused: Vec<&'a Refused>,
}

impl<'a> SeatOutput<'a> {
    /// The runs, in order.
    pub fn of(runs: &'a [SeatRun]) -> SeatOutput<'a> {
        SeatOutput {
            provenance: runs.iter().map(|r| &r.provenance).collect(),
            rows: runs.iter().flat_map(|r| &r.rows).collect(),
            refused: runs.iter().flat_map(|r| &r.refused).collect(),
        }
    }
}
