//! One association test (WEAT/SEAT) on precomputed vectors, with sent-bias's semantics
//! (May et al. 2019): every text of the test looked up in the file, Cohen's d and the
//! permutation p; a vector that makes a cosine undefined is named with its text.

use std::path::Path;

use lmbias_core::quote;
use lmbias_data::association::{AssociationTest, Duplicates, LoadOptions, Role, TargetSizes};
use lmbias_data::embeddings::Embeddings;
use lmbias_metrics::weat::{Associations, Options, WeatError, WeatResult, weat};

use crate::RunError;
use crate::provenance::{FileDigest, ModelOrigin, ModelProvenance, Provenance};

/// How the test is read and computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WeatSettings {
    /// The statistics' options (samples, seed, std, sidedness, unequal targets).
    pub options: Options,
    /// Keep the first of repeated examples in a set, as sent-bias silently does.
    pub merge_duplicates: bool,
}

/// One test on one file of vectors, and what produced it.
#[derive(Debug, Clone)]
pub struct WeatRun {
    /// The vectors' file, the test's file, the options, lmbias.
    pub provenance: Provenance,
    /// The test as read.
    pub test: AssociationTest,
    /// Its statistics.
    pub result: WeatResult,
}

/// Runs the test of `test_file` on the vectors of `embeddings_file`.
pub fn run(
    test_file: &Path,
    embeddings_file: &Path,
    settings: &WeatSettings,
) -> Result<WeatRun, RunError> {
    let options = settings.options;
    let load = LoadOptions {
        duplicates: if settings.merge_duplicates {
            Duplicates::Merge
        } else {
            Duplicates::Error
        },
        target_sizes: if options.allow_unequal_sizes {
            TargetSizes::AllowUnequal
        } else {
            TargetSizes::Equal
        },
    };
    let test = AssociationTest::from_path(test_file, &load)?;
    let embeddings = Embeddings::from_path(embeddings_file)?;
    // One lookup over all four sets, so a missing-text error lists every missing text.
    let all: Vec<&String> = Role::ALL
        .iter()
        .flat_map(|&r| test.set(r).examples())
        .collect();
    embeddings
        .lookup(all)
        .map_err(|source| RunError::WeatLookup {
            test: test.name().to_owned(),
            source,
        })?;
    let [x, y, a, b] = Role::ALL.map(|r| {
        embeddings
            .lookup(test.set(r).examples())
            .expect("all texts found above")
    });
    let assoc = Associations::from_vectors(&x, &y, &a, &b)
        .map_err(|e| explain(e, &test, embeddings_file))?;
    let result = weat(&assoc, &options).map_err(|source| RunError::WeatFile {
        file: test_file.to_path_buf(),
        source,
    })?;
    let vectors = FileDigest::of(embeddings_file)?;
    let provenance = Provenance::new(&ModelProvenance {
        id: vectors.file.clone(),
        origin: ModelOrigin::File {
            sha256: vectors.sha256.clone(),
        },
        tokenizer_sha256: None,
        precision: lmbias_model::Precision::F32,
    })
    .input(&FileDigest::of(test_file)?)
    .option("n_samples", options.n_samples)
    .option("seed", options.seed)
    .option("std", format!("{:?}", options.std))
    .option("alternative", format!("{:?}", options.alternative))
    .option("allow_unequal_sizes", options.allow_unequal_sizes)
    .option("merge_duplicates", settings.merge_duplicates);
    Ok(WeatRun {
        provenance,
        test,
        result,
    })
}

/// Names the text behind a statistics error about a set item.
fn explain(error: WeatError, test: &AssociationTest, embeddings: &Path) -> RunError {
    let text = |role: Role, index: usize| quote(&test.set(role).examples()[index]);
    match error {
        WeatError::ZeroVector { set, index } => RunError::ZeroVector {
            embeddings: embeddings.to_path_buf(),
            role: set,
            text: text(set, index),
        },
        WeatError::Overflow { set, index } | WeatError::NonFiniteScore { set, index } => {
            RunError::HugeVector {
                embeddings: embeddings.to_path_buf(),
                role: set,
                text: text(set, index),
            }
        }
        source => RunError::WeatTest {
            embeddings: embeddings.to_path_buf(),
            test: test.name().to_owned(),
            source,
        },
    }
}
