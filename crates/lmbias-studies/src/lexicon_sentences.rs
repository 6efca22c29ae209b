//! Valence test sentences drawn from texts no model trained on, masked where a lexicon rates a
//! word (issue #46, item 2): Early Modern passages held out of every model's training, masked
//! at the first word the lexicon rates Early Modern (below 0), v(s) = −1; Modern passages from
//! a text no model saw, masked at the first word it rates Modern (above 0), v(s) = +1; a word of
//! one letter is never a slot. The construction is ours, not the paper's.
//!
//! The lexicon picks where to mask; the sentence's valence is the period of its source, and the
//! masked word itself never enters B (B is over the proposals): what the test asks is whether a
//! model proposes the period's forms in a slot where the period used one.

use std::collections::{BTreeMap, HashSet};

use lmbias_data::lexicon::Lexicon;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};

use crate::drawn_sentences::{Word, masked, words};

/// A passage a sentence may come from.
#[derive(Debug, Clone, Copy)]
pub struct Passage<'a> {
    /// The sentence's id, unique in the set.
    pub id: &'a str,
    /// Where it is from, as the sentence's `source` says it.
    pub source: &'a str,
    /// The passage as it is, before masking.
    pub text: &'a str,
}

/// How many sentences to draw, and how.
#[derive(Debug, Clone)]
pub struct LexiconDrawSettings {
    /// Sentences of each period.
    pub per_group: usize,
    /// Seeds the shuffle of each period's qualifying passages.
    pub seed: u64,
    /// The mask token written into the sentences.
    pub mask: String,
    /// Passages of fewer words, or more, do not qualify.
    pub words: std::ops::RangeInclusive<usize>,
}

/// Why no sentence set could be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LexiconDrawError {
    /// A passage is also a training passage: a model would be tested on a text it saw.
    #[error("{id} is also a training passage: {text:?}")]
    Seen {
        /// The passage's id.
        id: String,
        /// Its text.
        text: String,
    },
    /// Too few passages qualify.
    #[error(
        "{found} {period} passages have a word the lexicon rates {sign} within {min}–{max} words: \
         too few for {wanted}"
    )]
    TooFew {
        /// "Early Modern" or "Modern".
        period: &'static str,
        /// How the lexicon must rate the word: "below 0", "above 0".
        sign: &'static str,
        /// Passages that qualify.
        found: usize,
        /// Sentences asked for.
        wanted: usize,
        /// The fewest words a passage may have.
        min: usize,
        /// The most.
        max: usize,
    },
}

/// The passages of one period that qualify, seeded-shuffled, the first `per_group` in their
/// input order, each with the word to mask.
fn choose<'p, 'a>(
    passages: &'p [Passage<'a>],
    lexicon: &Lexicon,
    early: bool,
    settings: &LexiconDrawSettings,
) -> Result<(Vec<(&'p Passage<'a>, Word)>, usize), LexiconDrawError> {
    // A one-letter word is no slot: the lexicon's *u* is text-speak, a text's *u* mostly the
    // U of U.S.
    let rated = |w: &Word| {
        if w.key.chars().count() < 2 {
            return false;
        }
        let v = lexicon.valence(&w.key).value();
        if early { v < 0.0 } else { v > 0.0 }
    };
    let mut qualifying: Vec<(usize, Word)> = passages
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let ws = words(p.text);
            if !settings.words.contains(&ws.len()) {
                return None;
            }
            ws.into_iter().find(|w| rated(w)).map(|w| (i, w))
        })
        .collect();
    let found = qualifying.len();
    if found < settings.per_group {
        return Err(LexiconDrawError::TooFew {
            period: if early { "Early Modern" } else { "Modern" },
            sign: if early { "below 0" } else { "above 0" },
            found,
            wanted: settings.per_group,
            min: *settings.words.start(),
            max: *settings.words.end(),
        });
    }
    qualifying.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed));
    qualifying.truncate(settings.per_group);
    qualifying.sort_by_key(|(i, _)| *i);
    Ok((
        qualifying
            .into_iter()
            .map(|(i, w)| (&passages[i], w))
            .collect(),
        found,
    ))
}

/// Draws [`LexiconDrawSettings::per_group`] Early Modern sentences from `early` and as many
/// Modern ones from `modern`, masked where `lexicon` rates a word of their period; refuses a
/// passage that is also one of `training` (every tested model's training passages). A valence
/// dataset in lmbias's format, named `name`, its description followed by the counts.
pub fn draw_by_lexicon(
    early: &[Passage<'_>],
    modern: &[Passage<'_>],
    training: &[&[String]],
    lexicon: &Lexicon,
    settings: &LexiconDrawSettings,
    [name, description]: [&str; 2],
    provenance: &BTreeMap<String, String>,
) -> Result<Value, LexiconDrawError> {
    let seen: HashSet<&str> = training
        .iter()
        .flat_map(|t| t.iter().map(String::as_str))
        .collect();
    if let Some(p) = early.iter().chain(modern).find(|p| seen.contains(p.text)) {
        return Err(LexiconDrawError::Seen {
            id: p.id.to_owned(),
            text: p.text.to_owned(),
        });
    }
    let (chosen_early, found_early) = choose(early, lexicon, true, settings)?;
    let (chosen_modern, found_modern) = choose(modern, lexicon, false, settings)?;
    let mut sentences = Vec::with_capacity(2 * settings.per_group);
    for ((group, valence), chosen) in [(("EME", -1), &chosen_early), (("ME", 1), &chosen_modern)] {
        for (passage, word) in chosen {
            sentences.push(json!({
                "id": passage.id,
                "group": group,
                "valence": valence,
                "source": format!(
                    "{}; masked: {:?} (lexicon {})",
                    passage.source,
                    word.key,
                    lexicon.valence(&word.key).value()
                ),
                "text": masked(passage.text, word, &settings.mask),
            }));
        }
    }
    Ok(json!({
        "name": name,
        "description": format!(
            "{description} {} Early Modern sentences of {} qualifying passages (of {}) and {} \
             Modern of {} (of {}), {}–{} words, drawn with seed {}.",
            chosen_early.len(), found_early, early.len(), chosen_modern.len(), found_modern,
            modern.len(), settings.words.start(), settings.words.end(), settings.seed
        ),
        "provenance": provenance,
        "mask": settings.mask,
        "sentences": sentences,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn lexicon() -> Lexicon {
        Lexicon::parse(
            "# word\tvalence\trule\nthou\t-1\tREADME\nhath\t-1\tREADME\nhas\t0.5\tREADME\nu\t1\tR\n",
            Path::new("lexicon.tsv"),
        )
        .unwrap()
    }

    fn settings(per_group: usize) -> LexiconDrawSettings {
        LexiconDrawSettings {
            per_group,
            seed: 1,
            mask: "[MASK]".to_owned(),
            words: 3..=8,
        }
    }

    #[test]
    fn each_period_is_masked_at_its_first_word_the_lexicon_rates_its_way() {
        let early = [
            Passage {
                id: "e1",
                source: "speech 1",
                text: "Hath thou seen him, my lord?",
            },
            Passage {
                id: "e2",
                source: "speech 2",
                text: "He has no word of the old kind",
            },
            Passage {
                id: "e3",
                source: "speech 3",
                text: "Thou art",
            },
        ];
        let modern = [
            Passage {
                id: "m1",
                source: "example 1",
                text: "hath the U.S. has it now",
            },
            Passage {
                id: "m2",
                source: "example 2",
                text: "the thing is done",
            },
        ];
        let value = draw_by_lexicon(
            &early,
            &modern,
            &[],
            &lexicon(),
            &settings(1),
            ["t", "A test set."],
            &BTreeMap::new(),
        )
        .unwrap();
        let sentences = value["sentences"].as_array().unwrap();
        // e2 has no Early Modern word, e3 is too short: only e1 qualifies, masked at "Hath".
        assert_eq!(sentences[0]["text"], "[MASK] thou seen him, my lord?");
        assert_eq!(sentences[0]["valence"], -1);
        assert_eq!(
            sentences[0]["source"],
            "speech 1; masked: \"hath\" (lexicon -1)"
        );
        // The Modern passage is masked at "has", the first word rated above 0.
        // The one-letter u of U.S. is passed over.
        assert_eq!(sentences[1]["text"], "hath the U.S. [MASK] it now");
        assert_eq!(sentences[1]["group"], "ME");
        assert!(
            value["description"]
                .as_str()
                .unwrap()
                .ends_with("1 Early Modern sentences of 1 qualifying passages (of 3) and 1 Modern of 1 (of 2), 3–8 words, drawn with seed 1.")
        );
        // Two asked, one qualifies: refused, saying how many.
        let err = draw_by_lexicon(
            &early,
            &modern,
            &[],
            &lexicon(),
            &settings(2),
            ["t", ""],
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "1 Early Modern passages have a word the lexicon rates below 0 within 3–8 words: too few for 2"
        );
        // A passage a model trained on is refused, by id.
        let training = vec!["the thing is done".to_owned()];
        let err = draw_by_lexicon(
            &early,
            &modern,
            &[&training],
            &lexicon(),
            &settings(1),
            ["t", ""],
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert!(
            err.to_string().starts_with("m2 is also a training passage"),
            "{err}"
        );
    }
}
