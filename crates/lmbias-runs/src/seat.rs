//! SEAT (May et al. 2019): a battery of association tests on a model, each test kept with
//! the file it came from, options defaulting from the model (its pooling; a static model
//! drops examples without a vector), one [`SeatRun`] per model with its provenance.

use lmbias_core::{Layer, Pooling};
use lmbias_metrics::weat::{Alternative, DEFAULT_N_SAMPLES, DEFAULT_SEED, Options, StdKind};
use lmbias_studies::seat::{
    self, BatteryResult, Copies, Lost, Refused, SeatOptions, SeatRow, Wefe,
};
use serde::{Deserialize, Serialize};

use crate::inputs::Tests;
use crate::provenance::Provenance;
use crate::{Ctx, Model, RunError};

/// How a battery runs; what is not given comes from the model. Serialized with the names
/// a run's provenance and a shard's stamp record.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeatSettings {
    /// The sentence vector; `None`: each model's own ([`Model::pooling`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pooling: Option<Pooling>,
    /// The hidden-state layer.
    pub layer: Layer,
    /// Exact p when X ∪ Y has at most this many equal splits, else this many sampled ones.
    pub n_samples: u64,
    /// Seed of the sampled permutation tests.
    pub seed: u64,
    /// One-sided (sent-bias's test) or two-sided p.
    #[serde(default)]
    pub alternative: Alternative,
    /// The standard deviation that divides d: sample (ddof 1, sent-bias) or population.
    #[serde(default)]
    pub std: StdKind,
    /// Whether uncased models also run the lower-cased copies.
    #[serde(rename = "lowercased_copies", with = "as_bool")]
    pub copies: Copies,
    /// Examples the model has no vector for; `None`: the model's rule ([`Model::lost`]).
    #[serde(
        rename = "lost_examples",
        with = "as_kept",
        skip_serializing_if = "Option::is_none",
        default
    )]
    pub lost: Option<Lost>,
    /// WEFE's metrics beside WEAT (written only when some are asked for).
    #[serde(default, skip_serializing_if = "Wefe::is_none")]
    pub wefe: Wefe,
}

impl Default for SeatSettings {
    fn default() -> Self {
        SeatSettings {
            pooling: None,
            layer: Layer::Last,
            n_samples: DEFAULT_N_SAMPLES,
            seed: DEFAULT_SEED,
            alternative: Alternative::Greater,
            std: StdKind::Sample,
            copies: Copies::AsWritten,
            lost: None,
            wefe: Wefe::default(),
        }
    }
}

/// `copies` written as whether the lower-cased copies run.
mod as_bool {
    use super::Copies;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(copies: &Copies, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(*copies == Copies::AlsoLowercased)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Copies, D::Error> {
        Ok(match bool::deserialize(d)? {
            true => Copies::AlsoLowercased,
            false => Copies::AsWritten,
        })
    }
}

/// `lost` written as what happened to the examples: `kept` or `dropped`.
mod as_kept {
    use super::Lost;
    use serde::{Deserialize, Deserializer, Serializer, de};

    pub(super) fn serialize<S: Serializer>(lost: &Option<Lost>, s: S) -> Result<S::Ok, S::Error> {
        match lost {
            Some(Lost::Keep) => s.serialize_str("kept"),
            Some(Lost::Drop) => s.serialize_str("dropped"),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Lost>, D::Error> {
        match Option::<String>::deserialize(d)?.as_deref() {
            None => Ok(None),
            Some("kept") => Ok(Some(Lost::Keep)),
            Some("dropped") => Ok(Some(Lost::Drop)),
            Some(other) => Err(de::Error::unknown_variant(other, &["kept", "dropped"])),
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

/// Runs `tests` on `model`; the permutation tests stop soon after `ctx.cancel` is set.
pub fn run(
    model: &Model,
    tests: &Tests,
    settings: &SeatSettings,
    ctx: &Ctx,
) -> Result<SeatRun, RunError> {
    let embedder = model.embedder()?;
    let options = SeatOptions {
        pooling: model.pooling(settings.pooling)?,
        layer: settings.layer,
        weat: Options {
            n_samples: settings.n_samples,
            seed: settings.seed,
            std: settings.std,
            alternative: settings.alternative,
            allow_unequal_sizes: false,
        },
        lost: settings.lost.unwrap_or(model.lost()),
        wefe: settings.wefe,
    };
    // The settings as they ran on this model, every default decided: what the provenance says.
    let applied = SeatSettings {
        pooling: Some(embedder.pooling_applied(options.pooling)),
        lost: Some(options.lost),
        ..*settings
    };
    let result = seat::run_battery_cancellable(
        embedder.as_ref(),
        tests.battery(),
        &options,
        settings.copies,
        ctx.cancel,
    )
    .map_err(|e| tests.in_file(e))?;
    Ok(SeatRun {
        provenance: Provenance::new(model.provenance()?)
            .inputs(tests.files())
            .settings(&applied),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_back_as_written_in_a_shard() {
        for lost in [None, Some(Lost::Keep), Some(Lost::Drop)] {
            for copies in [Copies::AsWritten, Copies::AlsoLowercased] {
                let settings = SeatSettings {
                    pooling: Some(Pooling::First),
                    layer: Layer::Index(3),
                    lost,
                    copies,
                    ..SeatSettings::default()
                };
                let json = serde_json::to_string(&settings).unwrap();
                assert_eq!(
                    serde_json::from_str::<SeatSettings>(&json).unwrap(),
                    settings
                );
            }
        }
        let written = serde_json::to_value(SeatSettings {
            lost: Some(Lost::Drop),
            copies: Copies::AlsoLowercased,
            ..SeatSettings::default()
        })
        .unwrap();
        assert_eq!(written["lost_examples"], "dropped");
        assert_eq!(written["lowercased_copies"], true);
        assert!(
            written.get("pooling").is_none(),
            "the model's own is not a choice"
        );
        let err = serde_json::from_str::<SeatSettings>(
            r#"{"layer": "last", "n_samples": 1, "seed": 1, "lowercased_copies": false, "lost_examples": "lost"}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown variant `lost`"), "{err}");
    }
}
