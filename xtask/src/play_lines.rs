//! The play-line valence set (issue #46, item 2): `datasets/valence/plays-wordnet.json`, Early
//! Modern sentences from Shakespeare's speeches held out of his model's training
//! ([`crate::corpora::held_out_speeches`]; no other model trains on plays) and Modern sentences
//! from WordNet 3.0's example sentences (no model trains on WordNet), each masked where the
//! frozen lexicon rates a word of its period (lmbias-studies' `lexicon_sentences`). Neither is
//! Bible text nor any model's training text. `cargo xtask draw-play-lines` writes it.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Result, ensure};
use lmbias_runs::data::corpus::Corpus;
use lmbias_runs::data::lexicon::Lexicon;
use lmbias_runs::data::valence::ValenceDataset;
use lmbias_runs::studies::lexicon_sentences::{LexiconDrawSettings, Passage, draw_by_lexicon};

/// Where the set lives, under `datasets/`.
pub const FILE: &str = "valence/plays-wordnet.json";

/// The lexicon that picks the masks: the known answer's, frozen before this set was drawn.
const LEXICON: &str = "valence/lexicon-v1.tsv";

const DESCRIPTION: &str = "Temporal-valence sentences from texts no tested model trained on \
(issue #46; our construction, not the paper's set): each Early Modern sentence a speech of \
Shakespeare's plays held out of the Shakespeare model's training (the Bible models train on no \
play), masked at its first word the lexicon (valence/lexicon-v1.tsv) rates below 0; each Modern \
sentence an example sentence of WordNet 3.0 (no model trains on WordNet), masked at its first \
word the lexicon rates above 0. v(s) is the period of the source; no annotations: the lexicon \
rates the proposals. Made by `cargo xtask draw-play-lines`; see datasets/README.md.";

/// Sentences of each period.
pub const PER_GROUP: usize = 200;

/// The seed of the draw.
pub const SEED: u64 = 46;

/// Each (id, source, text) as a passage to draw from.
fn as_passages(v: &[(String, String, String)]) -> Vec<Passage<'_>> {
    v.iter()
        .map(|(id, source, text)| Passage { id, source, text })
        .collect()
}

/// The set's JSON as a fresh draw writes it.
pub fn draw_json(datasets: &Path) -> Result<String> {
    let plays = crate::corpora::shakespeare_corpus()?;
    let speeches: Vec<(String, String, String)> = crate::drawn::held_out(&plays.training)?
        .into_iter()
        .map(|(n, text)| {
            (
                format!("eme-s{n}"),
                format!("held-out speech at line {n} of Shakespeare's plays"),
                text,
            )
        })
        .collect();
    let mut examples: Vec<(String, String, String)> = Vec::new();
    for gloss in crate::wordnet::glosses()? {
        for (k, example) in gloss.examples.iter().enumerate() {
            examples.push((
                format!("me-wn{}{}-{}", gloss.pos, gloss.offset, k + 1),
                format!(
                    "WordNet 3.0 example {} of synset {} ({})",
                    k + 1,
                    gloss.offset,
                    gloss.pos
                ),
                example.clone(),
            ));
        }
    }
    let lexicon = Lexicon::read(&datasets.join(LEXICON))?;
    let training = Corpus::read(&plays.training.path)?;
    let settings = LexiconDrawSettings {
        per_group: PER_GROUP,
        seed: SEED,
        mask: "[MASK]".to_owned(),
        words: 6..=40,
    };
    let value = draw_by_lexicon(
        &as_passages(&speeches),
        &as_passages(&examples),
        &[training.passages()],
        &lexicon,
        &settings,
        ["plays-wordnet", DESCRIPTION],
        &provenance(&plays.training, &lexicon_sha256(datasets)?),
    )?;
    Ok(serde_json::to_string_pretty(&value)? + "\n")
}

fn lexicon_sha256(datasets: &Path) -> Result<String> {
    Ok(lmbias_runs::FileDigest::of(&datasets.join(LEXICON))?.sha256)
}

/// What the set records of its sources.
fn provenance(
    shakespeare: &crate::corpora::PeriodCorpus,
    lexicon_sha256: &str,
) -> BTreeMap<String, String> {
    let held = shakespeare
        .held_out
        .as_ref()
        .map_or_else(String::new, |h| h.sha256.clone());
    let mut out = BTreeMap::from([
        (
            "early_modern".to_owned(),
            format!(
                "{}: speeches held out of the Shakespeare model's training",
                shakespeare.package
            ),
        ),
        ("early_modern_held_out_sha256".to_owned(), held),
        (
            "early_modern_training_sha256".to_owned(),
            shakespeare.sha256.clone(),
        ),
        (
            "modern".to_owned(),
            format!(
                "{}: the example sentences of the glosses",
                crate::wordnet::PACKAGE
            ),
        ),
        ("lexicon_sha256".to_owned(), lexicon_sha256.to_owned()),
        ("seed".to_owned(), SEED.to_string()),
    ]);
    for (file, sha256) in crate::wordnet::DATA_FILES {
        out.insert(
            format!("modern_wordnet_{}_sha256", file.replace('.', "_")),
            sha256.to_owned(),
        );
    }
    out
}

/// Refuses a play-line set whose recorded held-out speeches are not those the Shakespeare model
/// was trained without: its sentences could be speeches the model trained on.
pub fn check(dataset: &ValenceDataset, datasets: &Path) -> Result<()> {
    let plays = crate::corpora::shakespeare_corpus()?;
    let want = plays
        .training
        .held_out
        .as_ref()
        .map_or("none", |h| h.sha256.as_str());
    let found = dataset
        .provenance()
        .get("early_modern_held_out_sha256")
        .map_or("none", String::as_str);
    ensure!(
        found == want,
        "{}: provenance.early_modern_held_out_sha256 is {found}, but the Shakespeare model was \
         trained without the speeches of sha256 {want}: the sentences may be training speeches \
         (run `cargo xtask draw-play-lines`)",
        datasets.join(FILE).display()
    );
    Ok(())
}

/// Writes a fresh draw to `out`.
pub fn write(datasets: &Path, out: &Path) -> Result<()> {
    let json = draw_json(datasets)?;
    lmbias_runs::write_atomically(out, json.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datasets() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../datasets")
    }

    /// The committed set is what its seed draws from the held-out speeches and WordNet: byte
    /// for byte.
    #[test]
    fn the_play_line_set_is_reproducible_from_its_seed() {
        let fresh = draw_json(&datasets()).unwrap_or_else(|e| panic!("{e:#}"));
        let file = std::fs::read_to_string(datasets().join(FILE)).unwrap();
        assert!(
            fresh == file,
            "datasets/{FILE} is not a fresh draw: run `cargo xtask draw-play-lines`"
        );
    }
}
