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
use lmbias_runs::valence::{CorpusSettings, Dataset, PeriodCorpora, agreement_with_lexicon};

use crate::period_models;

/// The claims file as frozen, with where its lexicon is.
#[derive(Debug, Clone)]
pub struct Frozen {
    pub claims: ClaimsFile,
    /// The lexicon file under `datasets/`.
    pub lexicon: PathBuf,
}

/// Reads `datasets/valence/known-answer-v2.json` and refuses it, its lexicon or any of its sets
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

/// The check on the period models' lexicon-rated results (`hand` and the `selected` sets':
/// every model's, the check keeps the period models'); `None` unless the KJV and WEB models both
/// have a result.
pub fn check(
    frozen: &Frozen,
    hand: &[ModelResult],
    selected: &[&[ModelResult]],
) -> Option<Result<KnownAnswer, KnownAnswerError>> {
    let labels = labels();
    let has = |label: &str| hand.iter().any(|r| r.model == label);
    if !(has(period_models::LABELS[0]) && has(period_models::LABELS[1])) {
        return None;
    }
    let period: Vec<ModelResult> = hand
        .iter()
        .chain(selected.iter().flat_map(|s| s.iter()))
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

/// The raters against the lexicon, and why the disjoint ones are missing when they are.
#[derive(Debug, Clone)]
pub struct RaterAgreement {
    /// The hand annotations and the corpus raters that could be built.
    pub agreement: LexiconAgreement,
    /// Set when WordNet 3.0 is not installed: the two disjoint raters need it, the run does not.
    pub not_computed: Option<String>,
}

/// How the hand annotations of `hand_set` (`datasets/valence/eme-me-60.json`) and three corpus
/// raters agree
/// with the lexicon: the Bibles' training verses (the models' own text), and the two raters
/// disjoint from the tested models' training text (issue #46, item 1): Shakespeare's training
/// speeches against WordNet 3.0's definitions for the Bible models and their mixtures, the KJV's
/// training verses against the same definitions for the Shakespeare model. Without WordNet the
/// first is computed alone, and the report says why.
pub fn lexicon_agreement(hand_set: &Path, frozen: &Frozen) -> Result<RaterAgreement> {
    let dataset = Dataset::load(hand_set)?;
    let lexicon = Lexicon::read(&frozen.lexicon)?;
    let [kjv, web] = crate::corpora::period_corpora()?;
    let load =
        |early: &Path, modern: &Path| PeriodCorpora::load(early, modern, CorpusSettings::default());
    let bibles = load(&kjv.path, &web.path)?;
    let (disjoint, not_computed) = match crate::wordnet::definitions_corpus() {
        Ok(wordnet) => {
            let plays = crate::corpora::shakespeare_corpus()?;
            (
                Some((
                    load(&plays.training.path, &wordnet)?,
                    load(&kjv.path, &wordnet)?,
                )),
                None,
            )
        }
        Err(why) => (None, Some(format!("{why:#}"))),
    };
    let mut raters = vec![(RATERS[0], &bibles)];
    if let Some((plays_wordnet, kjv_wordnet)) = &disjoint {
        raters.extend([(RATERS[1], plays_wordnet), (RATERS[2], kjv_wordnet)]);
    }
    Ok(RaterAgreement {
        agreement: agreement_with_lexicon(&dataset, &lexicon, &raters),
        not_computed,
    })
}

/// The corpus raters of [`lexicon_agreement`], as the report names them.
pub const RATERS: [&str; 3] = [
    "the Bibles' training verses, KJV against WEB (the Bible models' own training text)",
    "Shakespeare's training speeches against WordNet 3.0's definitions (disjoint from the Bible \
     models' and the mixtures' training text)",
    "the KJV's training verses against WordNet 3.0's definitions (disjoint from the Shakespeare \
     model's training text)",
];

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
            "valence/plays-wordnet.json",
        ] {
            std::fs::create_dir_all(to.join(file).parent().unwrap()).unwrap();
            std::fs::copy(datasets().join(file), to.join(file)).unwrap();
        }
    }

    #[test]
    fn the_committed_claims_file_is_the_frozen_one() {
        let frozen = frozen(&datasets()).unwrap();
        assert_eq!(frozen.claims.name, "known-answer-v2");
        assert_eq!(frozen.claims.claims.len(), 10);
        assert_eq!(frozen.claims.dose_response.len(), 2);
        assert!(
            frozen
                .claims
                .dose_response
                .iter()
                .all(|d| d.models.len() == 5)
        );
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

    /// The play-line set is no model's training text and no corpus rater's: its Early Modern
    /// sentences are speeches held out of the Shakespeare model's training (its provenance pins
    /// them, and none is a training speech of it or a verse of the Bible models'), its Modern
    /// ones WordNet's example sentences, none of which is a definition of the disjoint raters.
    #[test]
    fn the_play_line_set_shares_no_text_with_training_or_the_disjoint_raters() {
        let frozen = frozen(&datasets()).unwrap();
        let set = Dataset::load(&datasets().join(crate::play_lines::FILE)).unwrap();
        crate::play_lines::check(set.dataset(), &datasets()).unwrap();
        let provenance = set.dataset().provenance();
        let plays = crate::corpora::shakespeare_corpus().unwrap();
        assert_eq!(
            provenance["early_modern_held_out_sha256"],
            plays.training.held_out.as_ref().unwrap().sha256
        );
        assert_eq!(
            provenance["early_modern_training_sha256"],
            plays.training.sha256
        );
        assert_eq!(provenance["lexicon_sha256"], frozen.claims.lexicon.sha256);
        let [kjv, web] = crate::corpora::period_corpora().unwrap();
        let definitions = crate::wordnet::definitions_corpus().unwrap();
        let mut seen = std::collections::HashSet::new();
        for path in [&plays.training.path, &kjv.path, &web.path, &definitions] {
            let corpus = lmbias_runs::data::corpus::Corpus::read(path).unwrap();
            seen.extend(corpus.passages().iter().map(|p| p.to_lowercase()));
        }
        let mask = set.dataset().mask().to_owned();
        let (mut early, mut modern) = (0, 0);
        for s in set.dataset().sentences() {
            // The masked word is the first the lexicon rates of the period: put back, the text
            // is the source's.
            let word = s
                .source()
                .rsplit_once("masked: \"")
                .unwrap()
                .1
                .split('"')
                .next()
                .unwrap();
            let lowered = s.text().to_lowercase().replace(&mask.to_lowercase(), word);
            assert!(
                !seen.contains(&lowered),
                "{} is a training or rater text",
                s.id()
            );
            match s.id().split_once('-').unwrap().1.as_bytes()[0] {
                b's' => early += 1,
                b'w' => modern += 1,
                _ => panic!("{}", s.id()),
            }
        }
        assert_eq!((early, modern), (200, 200));
    }
}
