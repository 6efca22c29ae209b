//! Temporal valence (Cuscito, Ferrara, Ruskov): a dataset kept with its file, run on a
//! masked language model, one [`ValenceRun`] per model with its provenance.

use std::num::NonZeroUsize;
use std::path::Path;

use lmbias_data::valence::ValenceDataset;
use lmbias_studies::valence::{self, ModelResult, SentenceScore};
use serde::{Deserialize, Serialize};

use crate::provenance::{FileDigest, Provenance};
use crate::{Model, RunError};

/// The dataset a valence run reads, with its file's digest.
pub struct Dataset {
    dataset: ValenceDataset,
    digest: FileDigest,
}

impl Dataset {
    /// Reads and validates a valence dataset (JSON; see datasets/README.md).
    pub fn load(path: &Path) -> Result<Dataset, RunError> {
        Ok(Dataset {
            dataset: ValenceDataset::load(path)?,
            digest: FileDigest::of(path)?,
        })
    }

    /// The sentences.
    pub fn dataset(&self) -> &ValenceDataset {
        &self.dataset
    }
}

/// The valence study on one model: per sentence, per group, the k sweep, the
/// unannotated proposals; and what produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ValenceRun {
    /// The model, the dataset's file, top-k, lmbias.
    pub provenance: Provenance,
    /// The study's result.
    pub result: ModelResult,
}

/// Runs the study on `model` (a masked language model; static vectors are refused).
pub fn run(model: &Model, dataset: &Dataset, top_k: NonZeroUsize) -> Result<ValenceRun, RunError> {
    let lm = model.masked_lm()?;
    let result = valence::run(lm.as_ref(), &dataset.dataset, top_k)?;
    Ok(ValenceRun {
        provenance: Provenance::new(model.provenance())
            .input(&dataset.digest)
            .option("top_k", top_k),
        result,
    })
}

/// One row per (model, sentence): the sentence's scores with the run's model, dataset
/// and top-k, as Python's rows and the CLI's CSV give them.
#[derive(Debug, Serialize)]
pub struct ValenceRow<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The dataset's name.
    pub dataset: &'a str,
    /// Proposals scored per sentence.
    pub top_k: usize,
    /// The sentence's scores.
    #[serde(flatten)]
    pub sentence: &'a SentenceScore,
}

impl ValenceRun {
    /// The run's rows, in dataset order.
    pub fn rows(&self) -> Vec<ValenceRow<'_>> {
        self.result
            .sentences
            .iter()
            .map(|sentence| ValenceRow {
                model: &self.result.model,
                dataset: &self.result.dataset,
                top_k: self.result.top_k,
                sentence,
            })
            .collect()
    }
}

/// What `lmbias valence --json` prints: every model's provenance, then its results.
#[derive(Debug, Serialize)]
pub struct ValenceOutput<'a> {
    /// One per model, in run order.
    pub provenance: Vec<&'a Provenance>,
    /// One per model, in run order.
    pub results: Vec<&'a ModelResult>,
}

impl<'a> ValenceOutput<'a> {
    /// The runs, in order.
    pub fn of(runs: &'a [ValenceRun]) -> ValenceOutput<'a> {
        ValenceOutput {
            provenance: runs.iter().map(|r| &r.provenance).collect(),
            results: runs.iter().map(|r| &r.result).collect(),
        }
    }
}
