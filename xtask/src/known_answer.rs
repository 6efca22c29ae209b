//! The valence known answer's inputs as reproduce-paper takes them (issue #46): the claims file
//! read and checked against the digests it was frozen with, before any model runs; and the
//! check itself on the period models' lexicon-rated results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};
use lmbias_papers::known_answer::{
    self, CLAIMS_FILE, FROZEN_SHA256, KnownAnswer, KnownAnswerError,
};
use lmbias_runs::FileDigest;
use lmbias_runs::data::claims::ClaimsFile;
use lmbias_runs::data::lexicon::Lexicon;
use lmbias_runs::studies::corpus_valence::LexiconAgreement;
use lmbias_runs::studies::valence::ModelResult;
use lmbias_runs::valence::{CorpusSettings, Dataset, PeriodCorpora};

use crate::period_models;

/// The claims file as frozen, with where its lexicon is.
#[derive(Debug, Clone)]
pub struct Frozen {
    pub claims: ClaimsFile,
    /// The lexicon file under `datasets/`.
    pub lexicon: PathBuf,
}

/// Reads `datasets/valence/known-answer-v1.json` and refuses it, its lexicon or any of its sets
/// when a digest differs from the one it was frozen with: the claims file's own is lmbias-papers'
/// [`FROZEN_SHA256`], the others are in the claims file.
pub fn frozen(datasets: &Path) -> Result<Frozen> {
    let path = datasets.join(CLAIMS_FILE);
    let digest = FileDigest::of(&path)?.sha256;
    ensure!(
        digest == FROZEN_SHA256,
        "{}: sha256 {digest}, not the {FROZEN_SHA256} it was frozen with: the known answer's \
         claims are fixed before the run (a new version is a new file, and lmbias-papers' \
         FROZEN_SHA256 names it)",
        path.display()
    );
    let claims = ClaimsFile::read(&path)?;
    for (what, pin) in std::iter::once(("lexicon", &claims.lexicon))
        .chain(claims.sets.iter().map(|s| ("set", &s.pinned)))
    {
        let file = datasets.join(&pin.file);
        let digest = FileDigest::of(&file)
            .with_context(|| format!("{}: its {what} {}", path.display(), pin.file))?
            .sha256;
        ensure!(
            digest == pin.sha256,
            "{}: sha256 {digest}, not the {} that {} was frozen with: the {what} of the known \
             answer is fixed before the run",
            file.display(),
            pin.sha256,
            path.display()
        );
    }
    Ok(Frozen {
        lexicon: datasets.join(&claims.lexicon.file),
        claims,
    })
}

/// The claims file's names of the period models (their corpora's short names) with their
/// labels.
pub fn labels() -> BTreeMap<String, String> {
    period_models::NAMES
        .iter()
        .zip(period_models::LABELS)
        .map(|(name, label)| ((*name).to_owned(), label.to_owned()))
        .collect()
}

/// The check on the period models' lexicon-rated results (`hand` and `drawn`: every model's,
/// the check keeps the period models'); `None` unless the KJV and WEB models both have a result.
pub fn check(
    frozen: &Frozen,
    hand: &[ModelResult],
    drawn: &[ModelResult],
) -> Option<Result<KnownAnswer, KnownAnswerError>> {
    let labels = labels();
    let has = |label: &str| hand.iter().any(|r| r.model == label);
    if !(has(period_models::LABELS[0]) && has(period_models::LABELS[1])) {
        return None;
    }
    let period: Vec<ModelResult> = hand
        .iter()
        .chain(drawn)
        .filter(|r| labels.values().any(|l| *l == r.model))
        .cloned()
        .collect();
    Some(known_answer::check(
        &frozen.claims,
        FROZEN_SHA256,
        &period,
        &labels,
    ))
}

/// How the hand annotations of `datasets/valence/eme-me-60.json` and the Bibles' corpus rater
/// agree with the lexicon.
pub fn lexicon_agreement(datasets: &Path, frozen: &Frozen) -> Result<LexiconAgreement> {
    let dataset = Dataset::load(&datasets.join(crate::reproduce::HAND_SET))?;
    let lexicon = Lexicon::read(&frozen.lexicon)?;
    let [kjv, web] = crate::corpora::period_corpora()?;
    let corpora = PeriodCorpora::load(&kjv.path, &web.path, CorpusSettings::default())?;
    Ok(corpora.lexicon_agreement(&dataset, &lexicon))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datasets() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../datasets")
    }

    /// A copy of the claims file and what it pins, in a temporary datasets folder.
    fn copy(to: &Path) {
        for file in [
            CLAIMS_FILE,
            "valence/lexicon-v1.tsv",
            "valence/eme-me-60.json",
            "valence/kjv-web-drawn.json",
        ] {
            std::fs::create_dir_all(to.join(file).parent().unwrap()).unwrap();
            std::fs::copy(datasets().join(file), to.join(file)).unwrap();
        }
    }

    #[test]
    fn the_committed_claims_file_is_the_frozen_one() {
        let frozen = frozen(&datasets()).unwrap();
        assert_eq!(frozen.claims.name, "known-answer-v1");
        assert_eq!(frozen.claims.claims.len(), 6);
        assert_eq!(frozen.claims.dose_response.models.len(), 5);
    }

    #[test]
    fn a_changed_claims_file_or_lexicon_is_refused() {
        let dir = std::env::temp_dir().join(format!("xtask-frozen-{}", std::process::id()));
        copy(&dir);
        // One more word in the lexicon: refused, naming the lexicon.
        let lexicon = dir.join("valence/lexicon-v1.tsv");
        let mut text = std::fs::read_to_string(&lexicon).unwrap();
        text.push_str("you\t1\tadded after the fact\n");
        std::fs::write(&lexicon, text).unwrap();
        let err = frozen(&dir).unwrap_err().to_string();
        assert!(
            err.starts_with(&format!("{}: sha256 ", lexicon.display()))
                && err.ends_with("the lexicon of the known answer is fixed before the run"),
            "{err}"
        );
        // A claims file with a threshold changed: refused by its own digest.
        copy(&dir);
        let claims = dir.join(CLAIMS_FILE);
        let text = std::fs::read_to_string(&claims)
            .unwrap()
            .replace("\"alpha\": 0.05", "\"alpha\": 0.1");
        std::fs::write(&claims, text).unwrap();
        let err = frozen(&dir).unwrap_err().to_string();
        assert!(
            err.contains(&format!("not the {FROZEN_SHA256} it was frozen with")),
            "{err}"
        );
        // A set changed under the claims: refused, naming the set.
        copy(&dir);
        let set = dir.join("valence/eme-me-60.json");
        std::fs::write(&set, std::fs::read_to_string(&set).unwrap() + " ").unwrap();
        let err = frozen(&dir).unwrap_err().to_string();
        assert!(
            err.contains("the set of the known answer is fixed before the run"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The rater and the sets come from disjoint sources: the drawn set's provenance pins the
    /// Bibles' held-out and training verses it was selected from, the lexicon is none of them
    /// (nor any period model's training corpus); the old rater, the Bibles' training verses,
    /// is among them, which is why it no longer rates the known answer.
    #[test]
    fn the_rater_and_the_selected_sets_come_from_disjoint_sources() {
        let frozen = frozen(&datasets()).unwrap();
        let drawn = Dataset::load(&datasets().join(crate::drawn::FILE)).unwrap();
        let sources: Vec<&String> = drawn.dataset().provenance().values().collect();
        let digests: Vec<&str> = sources
            .iter()
            .filter(|v| v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(|v| v.as_str())
            .collect();
        assert_eq!(digests.len(), 4, "{sources:?}");
        assert!(!digests.contains(&frozen.claims.lexicon.sha256.as_str()));
        let set = frozen.claims.set("kjv-web-drawn").unwrap();
        assert_eq!(
            set.pinned.sha256,
            FileDigest::of(&datasets().join(&set.pinned.file))
                .unwrap()
                .sha256
        );
        // The lexicon's own header says no corpus and no model output made it.
        let text = std::fs::read_to_string(&frozen.lexicon).unwrap();
        assert!(text.contains("No corpus, no model output."));
    }
}
