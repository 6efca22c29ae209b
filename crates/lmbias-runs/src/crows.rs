//! Likelihood measures on minimal pairs (CrowS-Pairs' CSV): a pairs file kept with its
//! digest and its lint, scored on a masked language model, one [`CrowsRun`] per model with
//! its provenance; [`compare`] tests two runs on the same pairs.

use std::path::Path;

use lmbias_data::crows::{GroupTerms, MinimalPair, PairSet};
use lmbias_studies::crows::relative::RelativeBias;
use lmbias_studies::crows::summary::{self, Comparison, MeasureSummary};
use lmbias_studies::crows::{self, DataChecks, Measures, PairScore};
use serde::{Deserialize, Serialize};

use crate::provenance::{FileDigest, Provenance};
use crate::{Ctx, Model, RunError};

/// How pairs are chosen and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CrowsSettings {
    /// Leave out the pairs the lint flags (several modified spans, spans of unequal
    /// length, duplicates, another bias type's group named); by default they are scored and
    /// only counted.
    pub exclude_flagged: bool,
    /// The lint's limit: a modified span more than this many words longer than its
    /// counterpart is flagged.
    pub max_span_gap: usize,
    /// The measures computed: the CrowS-Pairs papers' four always, mlm-bias's where asked
    /// (written to the provenance only when asked, so a default run's record is unchanged).
    #[serde(skip_serializing_if = "Measures::is_papers")]
    pub measures: Measures,
}

impl Default for CrowsSettings {
    /// Flagged pairs scored; spans may differ by up to 3 words (ours: Blodgett et al. 2021
    /// name no number, and 3 words covers "a man" / "an old woman").
    fn default() -> Self {
        CrowsSettings {
            exclude_flagged: false,
            max_span_gap: 3,
            measures: Measures::PAPERS,
        }
    }
}

/// A pairs file and the group-term list its lint uses, if any, each with its digest.
pub struct Pairs {
    set: PairSet,
    digest: FileDigest,
    group_terms: Option<(GroupTerms, FileDigest)>,
}

impl Pairs {
    /// Reads a pairs file (CrowS-Pairs' CSV columns; see datasets/README.md) and, where one is
    /// named, a group-term list (`bias_type,term`, e.g. datasets/group-terms/en.csv).
    pub fn load(path: &Path, group_terms: Option<&Path>) -> Result<Pairs, RunError> {
        let group_terms = match group_terms {
            Some(list) => Some((GroupTerms::read(list)?, FileDigest::of(list)?)),
            None => None,
        };
        Ok(Pairs {
            set: PairSet::read(path)?,
            digest: FileDigest::of(path)?,
            group_terms,
        })
    }

    /// The pairs as read.
    pub fn set(&self) -> &PairSet {
        &self.set
    }
}

/// The measures on one model: every pair's raw scores and decisions, each measure's
/// summary with its tests, the data checks, and what produced them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CrowsRun {
    /// The model, the pairs file, the settings, lmbias.
    pub provenance: Provenance,
    /// The model's name.
    pub model: String,
    /// Each measure over the pairs scored.
    pub summary: Vec<MeasureSummary>,
    /// What the data checks found.
    pub data_checks: DataChecks,
    /// Every pair scored, in file order.
    pub pairs: Vec<PairScore>,
}

/// Scores `pairs` on `model`, calling `ctx.progress` with the pairs done.
pub fn run(
    model: &Model,
    pairs: &Pairs,
    settings: &CrowsSettings,
    ctx: &Ctx,
) -> Result<CrowsRun, RunError> {
    let lm = model.masked_lm()?;
    let terms = pairs.group_terms.as_ref();
    let lint = pairs
        .set
        .lint(settings.max_span_gap, terms.map(|(list, _)| list));
    let chosen: Vec<MinimalPair> = pairs
        .set
        .pairs()
        .iter()
        .filter(|p| !(settings.exclude_flagged && lint.flags(p)))
        .cloned()
        .collect();
    let scored = crows::score(lm.as_ref(), &chosen, settings.measures, &mut |done| {
        (ctx.progress)(done)
    })
    .map_err(|source| RunError::Crows {
        file: pairs.set.path().to_path_buf(),
        source: Box::new(source),
    })?;
    Ok(CrowsRun {
        provenance: Provenance::new(model.provenance()?)
            .input(&pairs.digest)
            .inputs(terms.map(|(_, digest)| digest))
            .settings(settings),
        model: lm.model_name().to_owned(),
        summary: summary::summarize(&scored.pairs, settings.measures),
        data_checks: DataChecks::new(
            &pairs.set,
            &lint,
            &scored,
            settings.max_span_gap,
            settings.exclude_flagged,
        ),
        pairs: scored.pairs,
    })
}

/// Two models compared on the same pairs, every measure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelComparison {
    /// The first model's name.
    pub first: String,
    /// The second's.
    pub second: String,
    /// One exact McNemar test per measure.
    pub tests: Vec<Comparison>,
}

/// Every pair of runs, in order (first with second, first with third, …, second with
/// third, …), compared pair by pair.
pub fn compare(runs: &[CrowsRun]) -> Result<Vec<ModelComparison>, RunError> {
    let mut out = Vec::new();
    for (i, a) in runs.iter().enumerate() {
        for b in &runs[i + 1..] {
            out.push(ModelComparison {
                first: a.model.clone(),
                second: b.model.clone(),
                tests: summary::compare(&a.pairs, &b.pairs)?,
            });
        }
    }
    Ok(out)
}

impl CrowsRun {
    /// The run as lmbias-report's tables take it.
    pub fn row(&self) -> (&str, &[MeasureSummary], &DataChecks) {
        (&self.model, &self.summary, &self.data_checks)
    }
}

impl ModelComparison {
    /// The comparison as lmbias-report's table takes it.
    pub fn row(&self) -> (&str, &str, &[Comparison]) {
        (&self.first, &self.second, &self.tests)
    }
}

/// What `lmbias crows --json` prints.
#[derive(Debug, Serialize)]
pub struct CrowsOutput<'a> {
    /// One per model, in run order.
    pub results: &'a [CrowsRun],
    /// Each pair of models compared (none for one model).
    pub comparisons: Vec<ModelComparison>,
    /// The second model's bias relative to the first's, where asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative: Option<Relative>,
}

/// One model's bias relative to another's on the same pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Relative {
    /// The base model's name.
    pub base: String,
    /// The other model's.
    pub other: String,
    /// Per measure and per pair.
    #[serde(flatten)]
    pub bias: RelativeBias,
}

/// The bias of `other` relative to `base` (two runs of one vocabulary on the same pairs).
pub fn relative(base: &CrowsRun, other: &CrowsRun) -> Result<Relative, RunError> {
    Ok(Relative {
        base: base.model.clone(),
        other: other.model.clone(),
        bias: crows::relative::relative(&base.pairs, &other.pairs)?,
    })
}
