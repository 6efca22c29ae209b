//! One association test (WEAT/SEAT) on precomputed vectors, with sent-bias's semantics
//! (May et al. 2019): every text of the test looked up in the file, Cohen's d and the
//! permutation p; a vector that makes a cosine undefined is named with its text.

use lmbias_core::quote;
use lmbias_data::association::{AssociationTest, Duplicates, LoadOptions, Role, TargetSizes};
use lmbias_metrics::weat::{Associations, Options, WeatError, WeatResult, weat_cancellable};
use lmbias_metrics::wefe::{self, MetricValue};
use lmbias_studies::seat::Wefe;
use serde::Serialize;

use crate::inputs::{Test, Vectors};
use crate::provenance::Provenance;
use crate::{Ctx, RunError};

/// How the test is read and computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct WeatSettings {
    /// The statistics' options (samples, seed, std, sidedness, unequal targets).
    #[serde(flatten)]
    pub options: Options,
    /// Keep the first of repeated examples in a set, as sent-bias silently does.
    pub merge_duplicates: bool,
    /// WEFE's metrics beside WEAT (written only when some are asked for).
    #[serde(skip_serializing_if = "Wefe::is_none")]
    pub wefe: Wefe,
}

impl WeatSettings {
    /// How the test file is read under these settings ([`Test::load`]).
    pub fn load_options(&self) -> LoadOptions {
        LoadOptions {
            duplicates: if self.merge_duplicates {
                Duplicates::Merge
            } else {
                Duplicates::Error
            },
            target_sizes: if self.options.allow_unequal_sizes {
                TargetSizes::AllowUnequal
            } else {
                TargetSizes::Equal
            },
        }
    }
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
    /// WEFE's metrics on the same vectors ([`WeatSettings::wefe`]); empty when none was asked
    /// for. `p_holm` is the p of the one test.
    pub wefe: Vec<MetricValue>,
}

/// Runs `test` (read with [`WeatSettings::load_options`]) on `vectors`; the permutation
/// test stops soon after `ctx.cancel` is set.
pub fn run(
    vectors: &Vectors,
    test: &Test,
    settings: &WeatSettings,
    ctx: &Ctx,
) -> Result<WeatRun, RunError> {
    let (embeddings, file) = (vectors.embeddings(), vectors.path());
    let read = test.test();
    // One lookup over all four sets, so a missing-text error lists every missing text.
    let all: Vec<&String> = Role::ALL
        .iter()
        .flat_map(|&r| read.set(r).examples())
        .collect();
    embeddings
        .lookup(all)
        .map_err(|source| RunError::WeatLookup {
            test: read.name().to_owned(),
            source,
        })?;
    let [x, y, a, b] = Role::ALL.map(|r| {
        embeddings
            .lookup(read.set(r).examples())
            .expect("all texts found above")
    });
    let assoc = Associations::from_vectors(&x, &y, &a, &b).map_err(|e| explain(e, read, file))?;
    let result = weat_cancellable(&assoc, &settings.options, ctx.cancel).map_err(|source| {
        RunError::WeatFile {
            file: test.path().to_path_buf(),
            source,
        }
    })?;
    let mut values = Vec::new();
    if !settings.wefe.is_none() {
        values = wefe::Sets::new([&x, &y, &a, &b])
            .and_then(|sets| {
                wefe::evaluate(
                    &sets,
                    settings.wefe.metrics,
                    &settings.wefe.options(&settings.options),
                )
            })
            .map_err(|source| RunError::WefeFile {
                file: test.path().to_path_buf(),
                source,
            })?;
        wefe::holm_across(std::slice::from_mut(&mut values));
    }
    Ok(WeatRun {
        provenance: Provenance::new(vectors.provenance())
            .input(test.file())
            .settings(settings),
        test: read.clone(),
        result,
        wefe: values,
    })
}

/// Names the text behind a statistics error about a set item.
fn explain(error: WeatError, test: &AssociationTest, embeddings: &std::path::Path) -> RunError {
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
