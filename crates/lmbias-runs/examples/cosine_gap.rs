//! The measure that docs/adding-a-measure.md adds, whole: a *cosine gap*, the mean cosine of
//! the target texts' vectors with attribute set A minus that with set B. Each module is the
//! file it would be in lmbias (named in its first line); `cargo test` compiles this file and
//! runs its tests, so the guide's code cannot fall behind the crates it calls.
//!
//! `cargo run -p lmbias-runs --example cosine_gap -- MODEL TEST_FILE_OR_FOLDER...`

// Each module stands for a file of a library crate, where its items are public.
#![allow(unreachable_pub)]

/// crates/lmbias-metrics/src/cosine_gap.rs: the statistic on numbers, no model.
mod metrics {
    use lmbias_metrics::weat::cosine;

    /// Mean cos(x, a) − mean cos(x, b) over the targets x (Caliskan's s(w, A, B), averaged).
    pub fn cosine_gap(targets: &[Vec<f32>], a: &[Vec<f32>], b: &[Vec<f32>]) -> f64 {
        let mean = |x: &[f32], set: &[Vec<f32>]| {
            set.iter().map(|v| cosine(x, v)).sum::<f64>() / set.len() as f64
        };
        targets.iter().map(|x| mean(x, a) - mean(x, b)).sum::<f64>() / targets.len() as f64
    }
}

/// crates/lmbias-studies/src/cosine_gap.rs: the method against lmbias-core's traits.
mod studies {
    use lmbias_core::{Embedder, EncoderError, Layer, Pooling, Role};
    use lmbias_data::association::AssociationTest;
    use lmbias_studies::seat::Lost;

    /// The gap of `test`'s first target set on `model`: all texts embedded in one call (the
    /// model batches them), examples the model has no vector for dropped with
    /// [`Lost::Drop`]. `None` when that leaves a set empty.
    pub fn cosine_gap(
        model: &dyn Embedder,
        test: &AssociationTest,
        pooling: Pooling,
        layer: Layer,
        lost: Lost,
    ) -> Result<Option<f64>, EncoderError> {
        let mut sets: Vec<Vec<&str>> = Vec::new();
        for role in [Role::Targ1, Role::Attr1, Role::Attr2] {
            let mut kept = Vec::new();
            for text in test.set(role).examples() {
                let pieces = model.tokenize(text)?;
                let has_vector = !pieces.is_empty() && !pieces.iter().any(|p| p.unknown);
                if lost == Lost::Keep || has_vector {
                    kept.push(text.as_str());
                }
            }
            if kept.is_empty() {
                return Ok(None);
            }
            sets.push(kept);
        }
        let all: Vec<&str> = sets.concat();
        let mut vectors = model.embed(&all, pooling, layer)?.into_iter();
        let [x, a, b] = [0, 1, 2].map(|i| vectors.by_ref().take(sets[i].len()).collect::<Vec<_>>());
        Ok(Some(crate::metrics::cosine_gap(&x, &a, &b)))
    }
}

/// crates/lmbias-runs/src/cosine_gap.rs: the run's shape, `run(model, inputs, &settings, &ctx)`.
mod runs {
    use lmbias_core::{Layer, Pooling};
    use lmbias_runs::inputs::Tests;
    use lmbias_runs::{Ctx, Model, Provenance, RunError};
    use serde::Serialize;

    /// How the measure runs; what is not given comes from the model. Serialize: the
    /// provenance records it, field by field.
    #[derive(Debug, Clone, Copy, Default, Serialize)]
    pub struct CosineGapSettings {
        /// The sentence vector; `None`: the model's own.
        pub pooling: Option<Pooling>,
        /// The hidden-state layer.
        pub layer: Layer,
    }

    /// One gap per test.
    #[derive(Debug, Serialize)]
    pub struct GapRow {
        /// The test's name.
        pub test: String,
        /// The gap; `None` when the model has no vector for any text of a set.
        pub gap: Option<f64>,
    }

    /// The measure on one model, and what produced it.
    #[derive(Debug, Serialize)]
    pub struct CosineGapRun {
        /// The model, the tests' files, the settings as applied, lmbias.
        pub provenance: Provenance,
        /// One row per test, in battery order.
        pub rows: Vec<GapRow>,
    }

    /// Runs the measure on every test of `tests`.
    pub fn run(
        model: &Model,
        tests: &Tests,
        settings: &CosineGapSettings,
        ctx: &Ctx,
    ) -> Result<CosineGapRun, RunError> {
        let embedder = model.embedder()?;
        let pooling = model.pooling(settings.pooling)?;
        let applied = CosineGapSettings {
            pooling: Some(embedder.pooling_applied(pooling)),
            ..*settings
        };
        let mut rows = Vec::new();
        for (done, test) in tests.battery().tests().iter().enumerate() {
            let gap = crate::studies::cosine_gap(
                embedder.as_ref(),
                test,
                pooling,
                settings.layer,
                model.lost(),
            )
            .map_err(|e| RunError::study("cosine gap", e))?;
            rows.push(GapRow {
                test: test.name().to_owned(),
                gap,
            });
            (ctx.progress)(done + 1);
        }
        Ok(CosineGapRun {
            provenance: Provenance::new(model.provenance()?)
                .inputs(tests.files())
                .settings(&applied),
            rows,
        })
    }
}

/// crates/lmbias-cli/src/cosine_gap.rs, reduced to its call: parse, run, print.
fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let model = args
        .next()
        .ok_or_else(|| anyhow::anyhow!("give MODEL TEST..."))?;
    let tests: Vec<std::path::PathBuf> = args.map(Into::into).collect();
    let model = lmbias_runs::open(&model, lmbias_runs::DeviceKind::Cpu)?;
    let tests = lmbias_runs::inputs::Tests::load(&tests)?;
    let settings = runs::CosineGapSettings::default();
    let run = runs::run(&model, &tests, &settings, &lmbias_runs::Ctx::none())?;
    println!("{}", serde_json::to_string_pretty(&run)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use lmbias_core::testing::FakeEmbedder;
    use lmbias_core::{Layer, Pooling};
    use lmbias_data::association::{AssociationTest, LoadOptions};
    use lmbias_studies::seat::Lost;

    /// Targets along attribute A's axis and orthogonal to B's: the gap is exactly 1.
    #[test]
    fn a_planted_gap_is_found() {
        let axis = |text: &str| match text.chars().next() {
            Some('t') | Some('a') => vec![1.0, 0.0],
            _ => vec![0.0, 1.0],
        };
        let model = FakeEmbedder::new("fake", 2).with_text_vectors(axis);
        let test = AssociationTest::from_slice(
            Path::new("planted.jsonl"),
            br#"{"targ1": {"category": "T", "examples": ["t1", "t2"]},
                 "targ2": {"category": "U", "examples": ["u1", "u2"]},
                 "attr1": {"category": "A", "examples": ["a1", "a2"]},
                 "attr2": {"category": "B", "examples": ["b1", "b2"]}}"#,
            &LoadOptions::default(),
        )
        .unwrap();
        let gap = super::studies::cosine_gap(&model, &test, Pooling::Cls, Layer::Last, Lost::Keep);
        assert_eq!(gap.unwrap(), Some(1.0));
        assert_eq!(model.calls(), 1, "all texts in one call");
    }

    /// The whole run on a tiny checkpoint: one row per test, the test's file digested, the
    /// settings as applied in the provenance.
    #[test]
    fn the_run_names_its_inputs_and_settings() {
        let model = lmbias_runs::open(
            lmbias_testing::model_dir("tiny-bert-mlm").to_str().unwrap(),
            lmbias_runs::DeviceKind::Cpu,
        )
        .unwrap();
        let file = lmbias_testing::repo_root().join("datasets/seat/en/weat1.jsonl");
        let tests = lmbias_runs::inputs::Tests::load(std::slice::from_ref(&file)).unwrap();
        let settings = super::runs::CosineGapSettings::default();
        let run = super::runs::run(&model, &tests, &settings, &lmbias_runs::Ctx::none()).unwrap();
        assert_eq!(run.rows.len(), 1);
        assert!(
            run.rows[0]
                .gap
                .is_some_and(|g| g.is_finite() && g.abs() <= 2.0)
        );
        assert_eq!(run.provenance.inputs[0].file, file.display().to_string());
        assert_eq!(run.provenance.options["pooling"], "cls");
        assert_eq!(run.provenance.options["layer"], "last");
    }
}
