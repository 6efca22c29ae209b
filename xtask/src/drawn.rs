//! The drawn valence sentences (issue #34): `datasets/valence/kjv-web-drawn.json`, drawn by
//! lmbias-runs' `draw` (as `lmbias draw-sentences` draws from any parallel corpora) from the
//! verses held out of the period models' training (lmbias-studies' `drawn_sentences::held_out`) and
//! rated by the two Bibles' training verses.
//! `cargo xtask draw-sentences` writes it; `reproduce-paper` reads the committed file and
//! refuses it when it was drawn from other held-out verses than the models were trained
//! without.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::data::valence::ValenceDataset;
use lmbias_runs::draw::{self, Parallel, SentenceSettings};

use crate::corpora::PeriodCorpus;

/// Where the set lives, under `datasets/`.
pub const FILE: &str = "valence/kjv-web-drawn.json";

/// Early Modern sentences, and as many Modern ones (issue #34 asks for at least 200 each).
pub const PER_GROUP: NonZeroUsize = NonZeroUsize::new(300).unwrap();

/// The seed of the draw.
pub const SEED: u64 = 34;

const DESCRIPTION: &str = "Temporal-valence sentences drawn from the two Bibles (issue #34; our \
construction after Cuscito, Ferrara & Ruskov's Discussion, not the paper's set): verses held out \
of the period models' training, each Early Modern sentence a King James verse with the word \
masked where the World English Bible has a word of the other period (both rated from the two \
Bibles' training verses: log-odds with an informative Dirichlet prior, z beyond 3.29), each \
Modern sentence a WEB verse masked the same way, each neutral sentence a verse whose two \
wordings have the same words. No annotations: proposals are rated from the corpora \
(--valence-from). Made by `cargo xtask draw-sentences`; see datasets/README.md.";

/// The held-out passages of a corpus (a Bible's verses, Shakespeare's speeches): (line, text)
/// in order, read as every corpus is read.
pub(crate) fn held_out(corpus: &PeriodCorpus) -> Result<Vec<(usize, String)>> {
    let held = corpus
        .held_out
        .as_ref()
        .with_context(|| format!("{}: nothing held out", corpus.name))?;
    let read = Corpus::read(&held.path)?;
    Ok(read
        .numbers()
        .iter()
        .copied()
        .zip(read.passages().iter().cloned())
        .collect())
}

/// The two Bibles' held-out and training files, read and checked as one parallel corpus.
pub(crate) fn parallel(kjv: &PeriodCorpus, web: &PeriodCorpus) -> Result<Parallel> {
    let held = |c: &PeriodCorpus| {
        c.held_out
            .as_ref()
            .map(|h| h.path.clone())
            .with_context(|| format!("{}: nothing held out", c.name))
    };
    let (early, modern) = (held(kjv)?, held(web)?);
    Ok(Parallel::load([&early, &modern], [&kjv.path, &web.path])?)
}

/// The set's JSON as a fresh draw writes it.
pub fn draw_json() -> Result<String> {
    let [kjv, web] = crate::corpora::period_corpora()?;
    let settings = SentenceSettings {
        per_group: PER_GROUP,
        seed: SEED,
        name: "kjv-web-drawn".to_owned(),
        description: DESCRIPTION.to_owned(),
        corpora: Some(format!(
            "{} (Early Modern), {} (Modern)",
            kjv.package, web.package
        )),
        ..SentenceSettings::default()
    };
    Ok(draw::sentences(&parallel(&kjv, &web)?, &settings)?)
}

/// Writes a fresh draw to `out`.
pub fn write(out: &Path) -> Result<()> {
    let json = draw_json()?;
    lmbias_runs::write_atomically(out, json.as_bytes())?;
    Ok(())
}

/// Refuses a drawn set whose recorded held-out verses are not those of `kjv` and `web`: its
/// sentences could be verses a model trained on.
pub fn check(
    dataset: &ValenceDataset,
    path: &Path,
    kjv: &PeriodCorpus,
    web: &PeriodCorpus,
) -> Result<()> {
    let held = |c: &PeriodCorpus| {
        c.held_out
            .as_ref()
            .map_or_else(String::new, |h| h.sha256.clone())
    };
    let want = BTreeMap::from([
        ("early_modern_held_out_sha256", held(kjv)),
        ("modern_held_out_sha256", held(web)),
    ]);
    for key in ["early_modern_held_out_sha256", "modern_held_out_sha256"] {
        let found = dataset
            .provenance()
            .get(key)
            .map(String::as_str)
            .unwrap_or("none");
        ensure!(
            found == want[key],
            "{}: provenance.{key} is {found}, but the period models were trained without the \
             verses of sha256 {}: the sentences may be training verses (run `cargo xtask \
             draw-sentences`)",
            path.display(),
            want[key]
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn committed() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../datasets")
            .join(FILE)
    }

    /// The committed set is what its seed draws from the held-out verses: byte for byte.
    #[test]
    fn the_drawn_set_is_reproducible_from_its_seed() {
        let fresh = draw_json().unwrap_or_else(|e| panic!("{e:#}"));
        let file = std::fs::read_to_string(committed()).unwrap();
        assert!(
            fresh == file,
            "datasets/{FILE} is not a fresh draw: run `cargo xtask draw-sentences`"
        );
        let dataset = ValenceDataset::load(&committed()).unwrap();
        let count = |prefix: &str| {
            dataset
                .sentences()
                .iter()
                .filter(|s| s.id().starts_with(prefix))
                .count()
        };
        assert_eq!(
            (count("eme-"), count("me-")),
            (PER_GROUP.get(), PER_GROUP.get())
        );
        assert!(count("neu-") > 100, "{}", count("neu-"));
    }

    /// A set drawn from other held-out verses than the models trained without is refused.
    #[test]
    fn a_set_from_other_held_out_verses_is_refused() {
        let [kjv, mut web] = crate::corpora::period_corpora().unwrap();
        let dataset = ValenceDataset::load(&committed()).unwrap();
        check(&dataset, &committed(), &kjv, &web).unwrap();
        web.held_out.as_mut().unwrap().sha256 = "0".repeat(64);
        let err = check(&dataset, Path::new("drawn.json"), &kjv, &web)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("drawn.json: provenance.modern_held_out_sha256 is ")
                && err.contains(&format!(
                    "trained without the verses of sha256 {}",
                    "0".repeat(64)
                ))
                && !err.contains('\n'),
            "{err}"
        );
    }
}
