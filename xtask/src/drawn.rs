//! The drawn valence sentences (issue #34): `datasets/valence/kjv-web-drawn.json`, drawn by
//! lmbias-studies' `drawn_sentences` from the verses held out of the period models' training
//! ([`crate::corpora::held_out_lines`]) and rated by the two Bibles' training verses.
//! `cargo xtask draw-sentences` writes it; `reproduce-paper` reads the committed file and
//! refuses it when it was drawn from other held-out verses than the models were trained
//! without.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::data::valence::ValenceDataset;
use lmbias_runs::studies::drawn_sentences::{DrawSettings, VersePair, draw};
use lmbias_runs::valence::{CorpusSettings, PeriodCorpora};

use crate::corpora::PeriodCorpus;

/// Where the set lives, under `datasets/`.
pub const FILE: &str = "valence/kjv-web-drawn.json";

/// Early Modern sentences, and as many Modern ones (issue #34 asks for at least 200 each).
pub const PER_GROUP: usize = 300;

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
/// in order.
pub(crate) fn held_out(corpus: &PeriodCorpus) -> Result<Vec<(usize, String)>> {
    let held = corpus
        .held_out
        .as_ref()
        .with_context(|| format!("{}: nothing held out", corpus.name))?;
    let text = std::fs::read_to_string(&held.path)
        .with_context(|| format!("{}: cannot read", held.path.display()))?;
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let value: serde_json::Value = serde_json::from_str(line)
                .with_context(|| format!("{}: line {}", held.path.display(), i + 1))?;
            match (value["line"].as_u64(), value["text"].as_str()) {
                (Some(n), Some(t)) => Ok((n as usize, t.to_owned())),
                _ => anyhow::bail!(
                    "{}: line {}: needs \"line\" and \"text\"",
                    held.path.display(),
                    i + 1
                ),
            }
        })
        .collect()
}

/// What the set records of the verses it was drawn from.
fn provenance(kjv: &PeriodCorpus, web: &PeriodCorpus) -> BTreeMap<String, String> {
    let held = |c: &PeriodCorpus| {
        c.held_out
            .as_ref()
            .map_or_else(String::new, |h| h.sha256.clone())
    };
    BTreeMap::from([
        (
            "corpora".to_owned(),
            format!("{} (Early Modern), {} (Modern)", kjv.package, web.package),
        ),
        ("early_modern_held_out_sha256".to_owned(), held(kjv)),
        ("modern_held_out_sha256".to_owned(), held(web)),
        (
            "early_modern_training_sha256".to_owned(),
            kjv.sha256.clone(),
        ),
        ("modern_training_sha256".to_owned(), web.sha256.clone()),
        ("seed".to_owned(), SEED.to_string()),
    ])
}

/// The two Bibles' held-out verses, line by line: (line, KJV wording, WEB wording).
pub fn held_out_verses(
    kjv: &PeriodCorpus,
    web: &PeriodCorpus,
) -> Result<Vec<(usize, String, String)>> {
    let (early, modern) = (held_out(kjv)?, held_out(web)?);
    ensure!(
        early
            .iter()
            .map(|(l, _)| l)
            .eq(modern.iter().map(|(l, _)| l)),
        "the two Bibles' held-out verses are not the same lines: delete the cached corpora"
    );
    Ok(early
        .into_iter()
        .zip(modern)
        .map(|((line, e), (_, m))| (line, e, m))
        .collect())
}

/// The set's JSON as a fresh draw writes it.
pub fn draw_json() -> Result<String> {
    let [kjv, web] = crate::corpora::period_corpora()?;
    let verses = held_out_verses(&kjv, &web)?;
    let pairs: Vec<VersePair<'_>> = verses
        .iter()
        .map(|(line, e, m)| VersePair {
            line: *line,
            early_modern: e,
            modern: m,
        })
        .collect();
    // The rule the set was drawn by, frozen with it: z alone, before the log-odds floor.
    let corpora = PeriodCorpora::load(
        &kjv.path,
        &web.path,
        CorpusSettings {
            min_log_odds: 0.0,
            ..CorpusSettings::default()
        },
    )?;
    let (train_kjv, train_web) = (Corpus::read(&kjv.path)?, Corpus::read(&web.path)?);
    let settings = DrawSettings {
        per_group: PER_GROUP,
        seed: SEED,
        mask: "[MASK]".to_owned(),
    };
    let value = draw(
        &pairs,
        [train_kjv.passages(), train_web.passages()],
        corpora.valence(),
        &settings,
        "kjv-web-drawn",
        DESCRIPTION,
        &provenance(&kjv, &web),
    )?;
    Ok(serde_json::to_string_pretty(&value)? + "\n")
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
    let want = provenance(kjv, web);
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
        assert_eq!((count("eme-"), count("me-")), (PER_GROUP, PER_GROUP));
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
