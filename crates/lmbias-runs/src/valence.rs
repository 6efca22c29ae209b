//! Temporal valence (Cuscito, Ferrara, Ruskov): a dataset kept with its file, run on a
//! masked language model, one [`ValenceRun`] per model with its provenance.

use std::num::NonZeroUsize;
use std::path::Path;

use lmbias_data::corpus::Corpus;
use lmbias_data::lexicon::Lexicon;
use lmbias_data::valence::ValenceDataset;
use lmbias_metrics::log_odds::Thresholds;
use lmbias_studies::corpus_valence::{
    Agreement, CorpusValence, LexiconAgreement, agreement, check_settings, lexicon_agreement,
};
use lmbias_studies::valence::{self, ModelResult, SentenceScore};
use serde::{Deserialize, Serialize};

use crate::provenance::{FileDigest, Provenance};
use crate::{Ctx, Model, RunError};

/// The dataset a valence run reads, with its file's digest, and the lexicon that rates it
/// when one does (`--lexicon`).
pub struct Dataset {
    dataset: ValenceDataset,
    digest: FileDigest,
    lexicon: Option<FileDigest>,
}

impl Dataset {
    /// Reads and validates a valence dataset (JSON; see datasets/README.md).
    pub fn load(path: &Path) -> Result<Dataset, RunError> {
        Ok(Dataset {
            dataset: ValenceDataset::load(path)?,
            digest: FileDigest::of(path)?,
            lexicon: None,
        })
    }

    /// The same sentences with every proposal rated by the lexicon file `path` alone
    /// ([`ValenceDataset::rated_by`]): the sentences' annotations are set aside, and the
    /// lexicon's digest joins the run's inputs.
    pub fn rated_by(self, path: &Path) -> Result<Dataset, RunError> {
        let lexicon = Lexicon::read(path)?;
        Ok(Dataset {
            dataset: self.dataset.rated_by(lexicon.valences()),
            digest: self.digest,
            lexicon: Some(FileDigest::of(path)?),
        })
    }

    /// The lexicon file's digest, when a lexicon rates the sentences.
    pub fn lexicon(&self) -> Option<&FileDigest> {
        self.lexicon.as_ref()
    }

    /// The sentences.
    pub fn dataset(&self) -> &ValenceDataset {
        &self.dataset
    }
}

/// How two period corpora rate words (see lmbias-studies' `corpus_valence`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CorpusSettings {
    /// The prior's total pseudo-count α0.
    pub alpha0: f64,
    /// The z thresholds of ±0.5 and ±1.
    #[serde(rename = "z")]
    pub thresholds: Thresholds,
    /// Bigram occurrences from which a word is rated with its neighbour.
    pub min_context: u64,
    /// The effect-size floor: a word (or word pair) whose |log-odds ratio| between the
    /// corpora is below it is 0 whatever its z, so that a small difference of rate that large
    /// corpora make significant (a function word one translation prefers) is not a period.
    pub min_log_odds: f64,
}

impl Default for CorpusSettings {
    /// α0 = 1000 pseudo-counts (ours: a prior light beside corpora of ~10^5–10^6 words, so
    /// that the counts decide; the variance term already keeps a rare word's z small), the
    /// 0.05 and 0.001 two-sided critical values, 5 occurrences of a word pair, and a floor of
    /// ln 2 (issue #46; ours): a word is rated only when its odds in one corpus are at least
    /// twice those in the other.
    fn default() -> Self {
        CorpusSettings {
            alpha0: 1000.0,
            thresholds: Thresholds::default(),
            min_context: 5,
            min_log_odds: std::f64::consts::LN_2,
        }
    }
}

/// Two period corpora (`--valence-from EME ME`) and their files' digests.
pub struct PeriodCorpora {
    valence: CorpusValence,
    digests: [FileDigest; 2],
    settings: CorpusSettings,
}

impl PeriodCorpora {
    /// Reads the Early Modern and the Modern corpus (text or JSONL, as `train-mlm --corpus`)
    /// and counts them; the same file twice, an empty corpus or two corpora without a word in
    /// common are refused.
    pub fn load(
        early_modern: &Path,
        modern: &Path,
        settings: CorpusSettings,
    ) -> Result<PeriodCorpora, RunError> {
        check_settings(settings.alpha0, settings.thresholds, settings.min_log_odds)
            .map_err(RunError::CorpusSettings)?;
        let same = match (early_modern.canonicalize(), modern.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => early_modern == modern,
        };
        if same {
            return Err(RunError::SameCorpus {
                path: early_modern.to_path_buf(),
            });
        }
        let (eme, me) = (Corpus::read(early_modern)?, Corpus::read(modern)?);
        if eme.sha256() == me.sha256() {
            return Err(RunError::IdenticalCorpora {
                early_modern: early_modern.to_path_buf(),
                modern: modern.to_path_buf(),
                sha256: eme.sha256().to_owned(),
            });
        }
        let valence = CorpusValence::new(
            eme.passages(),
            me.passages(),
            settings.alpha0,
            settings.thresholds,
            settings.min_context,
            settings.min_log_odds,
        )
        .map_err(|source| RunError::PeriodCorpora {
            early_modern: early_modern.to_path_buf(),
            modern: modern.to_path_buf(),
            source,
        })?;
        Ok(PeriodCorpora {
            valence,
            digests: [FileDigest::of(early_modern)?, FileDigest::of(modern)?],
            settings,
        })
    }
}

impl PeriodCorpora {
    /// The corpora's counts and log-odds, which rate words.
    pub fn valence(&self) -> &CorpusValence {
        &self.valence
    }

    /// How the corpora's ratings agree with `dataset`'s sentence annotations.
    pub fn agreement(&self, dataset: &Dataset) -> Agreement {
        agreement(&dataset.dataset, &self.valence)
    }
}

/// How `dataset`'s annotations and each named corpus rater of `raters` agree with `lexicon`.
pub fn agreement_with_lexicon(
    dataset: &Dataset,
    lexicon: &Lexicon,
    raters: &[(&str, &PeriodCorpora)],
) -> LexiconAgreement {
    let raters: Vec<(&str, &CorpusValence)> =
        raters.iter().map(|(name, c)| (*name, &c.valence)).collect();
    lexicon_agreement(&dataset.dataset, lexicon, &raters)
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

/// What a valence run reads: the sentences and, when given, the period corpora that rate
/// every proposal the sentences' annotations leave.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The sentences (rated by their annotations or a lexicon).
    pub dataset: &'a Dataset,
    /// The corpora of `--valence-from`.
    pub corpora: Option<&'a PeriodCorpora>,
}

impl<'a> From<&'a Dataset> for Inputs<'a> {
    fn from(dataset: &'a Dataset) -> Self {
        Inputs {
            dataset,
            corpora: None,
        }
    }
}

/// How the study runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ValenceSettings {
    /// Proposals scored per sentence.
    pub top_k: NonZeroUsize,
    /// A sentence whose unannotated share of the top-k mass exceeds this gets no B and no A
    /// (1: every sentence scored, unrated proposals as 0).
    pub max_unannotated_share: f64,
}

impl Default for ValenceSettings {
    fn default() -> Self {
        ValenceSettings {
            top_k: valence::DEFAULT_TOP_K,
            max_unannotated_share: valence::DEFAULT_MAX_UNANNOTATED_SHARE,
        }
    }
}

impl ValenceSettings {
    /// What the study scores with.
    pub fn scoring(&self) -> valence::Scoring {
        valence::Scoring {
            top_k: self.top_k,
            max_unannotated_share: self.max_unannotated_share,
        }
    }
}

/// The settings as a run applied them, with the raters its inputs brought.
#[derive(Serialize)]
struct Applied<'a> {
    #[serde(flatten)]
    settings: &'a ValenceSettings,
    rater: Option<&'static str>,
    valence: Option<&'a CorpusSettings>,
}

/// Runs the study on `model` (a masked language model; static vectors are refused), every
/// proposal the annotations leave rated from the corpora when given.
pub fn run(
    model: &Model,
    inputs: &Inputs,
    settings: &ValenceSettings,
    _ctx: &Ctx,
) -> Result<ValenceRun, RunError> {
    let lm = model.masked_lm()?;
    let Inputs { dataset, corpora } = *inputs;
    let rating = corpora.map(|c| &c.valence);
    let result =
        valence::run_with_corpora(lm.as_ref(), &dataset.dataset, &settings.scoring(), rating)?;
    let applied = Applied {
        settings,
        rater: dataset.lexicon.as_ref().map(|_| "lexicon"),
        valence: corpora.map(|c| &c.settings),
    };
    let provenance = Provenance::new(model.provenance()?)
        .input(&dataset.digest)
        .inputs(&dataset.lexicon)
        .inputs(corpora.into_iter().flat_map(|c| &c.digests))
        .settings(&applied);
    Ok(ValenceRun { provenance, result })
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

/// What `lmbias valence --json` prints: every model's provenance, then its results, and with
/// period corpora their agreement with the dataset's annotations.
#[derive(Debug, Serialize)]
pub struct ValenceOutput<'a> {
    /// One per model, in run order.
    pub provenance: Vec<&'a Provenance>,
    /// One per model, in run order.
    pub results: Vec<&'a ModelResult>,
    /// With `--valence-from`: the corpora's ratings against the annotations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus_agreement: Option<Agreement>,
}

impl<'a> ValenceOutput<'a> {
    /// The runs, in order, and the corpora's agreement when they rated proposals.
    pub fn of(runs: &'a [ValenceRun], corpus_agreement: Option<Agreement>) -> ValenceOutput<'a> {
        ValenceOutput {
            provenance: runs.iter().map(|r| &r.provenance).collect(),
            results: runs.iter().map(|r| &r.result).collect(),
            corpus_agreement,
        }
    }
}
