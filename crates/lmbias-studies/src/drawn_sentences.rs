//! Valence test sentences drawn from two parallel period corpora: the second automation
//! Cuscito et al.'s Discussion proposes ("the identification of sentences that are
//! representative for each historical period"). The construction is ours, not the paper's
//! (issue #34):
//!
//! * the input is verse pairs (the same verse in an Early Modern and a Modern wording) held out
//!   of every model's training; a pair whose wording is also a training passage is refused;
//! * the two wordings' words are aligned (a Myers diff of the lower-cased words, the `similar`
//!   crate); a pair qualifies when a one-word substitution of the alignment swaps a word the
//!   corpora rate −1 (Early Modern, [`CorpusValence::rate`], the word alone) for one they rate
//!   +1 (Modern): *hath*/*has*, *thou*/*you*, *unto*/*to*; of several, the one with the widest
//!   gap in z;
//! * qualifying pairs are shuffled with the seed; the first [`DrawSettings::per_group`] give an
//!   Early Modern sentence (the Early Modern wording, its word masked, v(s) = −1), the next as
//!   many a Modern one (the Modern wording, its word masked, v(s) = +1), so that no verse serves
//!   both groups;
//! * a pair whose two wordings have the same words gives a neutral sentence (v(s) = 0): the
//!   Early Modern wording with the word of 3 letters or more that the corpora find least
//!   period-marked (smallest |z|) masked; at most [`DrawSettings::per_group`] of them, drawn
//!   with the seed;
//! * no sentence carries annotations: every proposal is rated by the corpora (`--valence-from`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use serde_json::{Value, json};
use similar::{Algorithm, DiffOp, capture_diff_slices};

use crate::corpus_valence::{self, CorpusValence};

/// One verse in both wordings.
#[derive(Debug, Clone, Copy)]
pub struct VersePair<'a> {
    /// Its line in the whole corpora (from 1), the same in both.
    pub line: usize,
    /// The Early Modern wording.
    pub early_modern: &'a str,
    /// The Modern wording.
    pub modern: &'a str,
}

/// How many sentences to draw, and how.
#[derive(Debug, Clone)]
pub struct DrawSettings {
    /// Early Modern sentences, as many Modern ones, and at most as many neutral ones.
    pub per_group: usize,
    /// Seeds the shuffle of the qualifying pairs.
    pub seed: u64,
    /// The mask token written into the sentences.
    pub mask: String,
}

/// Why no sentence set could be drawn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    /// A held-out verse is also a training passage: a model would be tested on a text it saw.
    #[error(
        "held-out verse at line {line} ({period} wording) is also a training passage: {text:?}"
    )]
    Overlap {
        /// Its line.
        line: usize,
        /// "Early Modern" or "Modern".
        period: &'static str,
        /// The text.
        text: String,
    },
    /// Too few pairs qualify for the sentences asked for.
    #[error(
        "{found} held-out verse pairs differ at a period-marked word: too few for {wanted} Early \
         Modern and {wanted} Modern sentences"
    )]
    TooFew {
        /// Pairs that qualify.
        found: usize,
        /// Sentences per group asked for.
        wanted: usize,
    },
}

/// A word of a text: its lower-cased form and its byte range.
pub(crate) struct Word {
    pub(crate) key: String,
    start: usize,
    end: usize,
}

/// The words of `text` as [`crate::corpus_valence::words`] finds them (runs of letters,
/// apostrophes inside a word kept), with their byte ranges.
pub(crate) fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let next_is_letter = chars.get(k + 1).is_some_and(|&(_, n)| n.is_alphabetic());
        let inside =
            c.is_alphabetic() || ((c == '\'' || c == '’') && start.is_some() && next_is_letter);
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(word(text, s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(word(text, s, text.len()));
    }
    out
}

fn word(text: &str, start: usize, end: usize) -> Word {
    Word {
        key: text[start..end].replace('’', "'").to_lowercase(),
        start,
        end,
    }
}

/// A pair's period-marked substitution: the Early Modern and Modern words.
struct Swap {
    early: Word,
    modern: Word,
    gap: f64,
}

/// The substitution of `pair` that swaps an Early Modern word for a Modern one, widest gap in
/// z first.
fn swap(pair: &VersePair<'_>, corpora: &CorpusValence) -> Option<Swap> {
    let (mut early, mut modern) = (words(pair.early_modern), words(pair.modern));
    let a: Vec<&str> = early.iter().map(|w| w.key.as_str()).collect();
    let b: Vec<&str> = modern.iter().map(|w| w.key.as_str()).collect();
    let mut best: Option<(usize, usize, f64)> = None;
    for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
        if let DiffOp::Replace {
            old_index,
            old_len: 1,
            new_index,
            new_len: 1,
        } = op
        {
            let (e, m) = (
                corpora.rate(None, a[old_index], None),
                corpora.rate(None, b[new_index], None),
            );
            let gap = m.z - e.z;
            if e.valence == -1.0 && m.valence == 1.0 && best.is_none_or(|(_, _, g)| gap > g) {
                best = Some((old_index, new_index, gap));
            }
        }
    }
    let (i, j, gap) = best?;
    Some(Swap {
        early: early.swap_remove(i),
        modern: modern.swap_remove(j),
        gap,
    })
}

/// `text` with `word` replaced by `mask`.
pub(crate) fn masked(text: &str, word: &Word, mask: &str) -> String {
    format!("{}{mask}{}", &text[..word.start], &text[word.end..])
}

/// Refuses a verse pair whose wording is also a training passage (`training`: the Early
/// Modern and the Modern passages).
fn check_held_out(pairs: &[VersePair<'_>], training: [&[String]; 2]) -> Result<(), DrawError> {
    let seen: [HashSet<&str>; 2] = training.map(|t| t.iter().map(String::as_str).collect());
    for pair in pairs {
        for (k, (text, period)) in [(pair.early_modern, "Early Modern"), (pair.modern, "Modern")]
            .into_iter()
            .enumerate()
        {
            if seen[k].contains(text) {
                return Err(DrawError::Overlap {
                    line: pair.line,
                    period,
                    text: text.to_owned(),
                });
            }
        }
    }
    Ok(())
}

/// The passages (by index from 0) of two aligned corpora (`early_modern[i]` and `modern[i]`
/// one passage in two wordings) to hold out of training: a `share` of them drawn with `seed`;
/// every passage whose two wordings have the same words (where a neutral sentence can be
/// drawn: the text is current in both periods); and every passage that shares its Early
/// Modern or its Modern wording with a held-out one (*And the LORD spake unto Moses, saying,*
/// is 70 verses), so that no held-out text is also a training text.
pub fn held_out(
    early_modern: &[String],
    modern: &[String],
    share: f64,
    seed: u64,
) -> BTreeSet<usize> {
    let n = early_modern.len().min(modern.len());
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let drawn = ((n as f64 * share).round() as usize).min(n);
    let mut held: BTreeSet<usize> = order[..drawn].iter().copied().collect();
    held.extend(
        (0..n).filter(|&i| {
            corpus_valence::words(&early_modern[i]) == corpus_valence::words(&modern[i])
        }),
    );
    let (by_early, by_modern) = (by_text(&early_modern[..n]), by_text(&modern[..n]));
    let mut queue: Vec<usize> = held.iter().copied().collect();
    while let Some(i) = queue.pop() {
        for &j in by_early[early_modern[i].as_str()]
            .iter()
            .chain(&by_modern[modern[i].as_str()])
        {
            if held.insert(j) {
                queue.push(j);
            }
        }
    }
    held
}

/// Each text's indices in `texts`.
fn by_text(texts: &[String]) -> HashMap<&str, Vec<usize>> {
    let mut by_text: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, t) in texts.iter().enumerate() {
        by_text.entry(t.as_str()).or_default().push(i);
    }
    by_text
}

/// A verse whose two wordings make a minimal pair: they differ in at most a few words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodPair<'a> {
    /// The verse's line.
    pub line: usize,
    /// The Early Modern wording.
    pub early_modern: &'a str,
    /// The Modern wording.
    pub modern: &'a str,
    /// The words of the Early Modern wording the alignment changes (lower-cased).
    pub early_words: Vec<String>,
    /// The words of the Modern wording it changes.
    pub modern_words: Vec<String>,
}

/// The minimal pairs among `pairs` (held out of `training`, checked as [`draw`] checks them),
/// in line order: the two wordings' words (lower-cased) aligned by a Myers diff, and a pair
/// kept when the words changed on each side number at least one (on one side) and at most
/// `max_words` (on each): *thou art* / *you are*, *hath* / *has*. Our construction (issue #37),
/// a likelihood-based companion of the drawn valence sentences.
pub fn period_pairs<'a>(
    pairs: &[VersePair<'a>],
    training: [&[String]; 2],
    max_words: usize,
) -> Result<Vec<PeriodPair<'a>>, DrawError> {
    check_held_out(pairs, training)?;
    Ok(pairs
        .iter()
        .filter_map(|pair| {
            let (early, modern) = (words(pair.early_modern), words(pair.modern));
            let a: Vec<&str> = early.iter().map(|w| w.key.as_str()).collect();
            let b: Vec<&str> = modern.iter().map(|w| w.key.as_str()).collect();
            let (mut early_words, mut modern_words) = (Vec::new(), Vec::new());
            for op in capture_diff_slices(Algorithm::Myers, &a, &b) {
                if !matches!(op, DiffOp::Equal { .. }) {
                    early_words.extend(a[op.old_range()].iter().map(|w| (*w).to_owned()));
                    modern_words.extend(b[op.new_range()].iter().map(|w| (*w).to_owned()));
                }
            }
            let changed = early_words.len().max(modern_words.len());
            (1..=max_words).contains(&changed).then_some(PeriodPair {
                line: pair.line,
                early_modern: pair.early_modern,
                modern: pair.modern,
                early_words,
                modern_words,
            })
        })
        .collect())
}

/// The sentences drawn from `pairs` (held out of `training`, the Early Modern and Modern
/// training passages), rated by `corpora`: a valence dataset in lmbias's format
/// (datasets/README.md), named `name`, its description `description` followed by the counts.
pub fn draw(
    pairs: &[VersePair<'_>],
    training: [&[String]; 2],
    corpora: &CorpusValence,
    settings: &DrawSettings,
    name: &str,
    description: &str,
    provenance: &BTreeMap<String, String>,
) -> Result<Value, DrawError> {
    check_held_out(pairs, training)?;
    let mut swaps: Vec<(&VersePair<'_>, Swap)> = pairs
        .iter()
        .filter_map(|p| swap(p, corpora).map(|s| (p, s)))
        .collect();
    if swaps.len() < 2 * settings.per_group {
        return Err(DrawError::TooFew {
            found: swaps.len(),
            wanted: settings.per_group,
        });
    }
    swaps.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed));
    let mut early: Vec<&(&VersePair<'_>, Swap)> = swaps[..settings.per_group].iter().collect();
    let mut modern: Vec<&(&VersePair<'_>, Swap)> = swaps
        [settings.per_group..2 * settings.per_group]
        .iter()
        .collect();
    early.sort_by_key(|(p, _)| p.line);
    modern.sort_by_key(|(p, _)| p.line);

    let mask = settings.mask.as_str();
    let mut sentences = Vec::new();
    for (pair, swap) in &early {
        sentences.push(json!({
            "id": format!("eme-{}", pair.line),
            "group": "EME",
            "valence": -1,
            "source": format!(
                "held-out verse at line {} of the Early Modern corpus; masked: {:?} (the Modern \
                 wording has {:?}; z gap {:.1})",
                pair.line, &pair.early_modern[swap.early.start..swap.early.end],
                &pair.modern[swap.modern.start..swap.modern.end], swap.gap
            ),
            "text": masked(pair.early_modern, &swap.early, mask),
        }));
    }
    let mut neutral: Vec<(&VersePair<'_>, Word)> = pairs
        .iter()
        .filter_map(|p| {
            let (a, b) = (words(p.early_modern), words(p.modern));
            let same = a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| x.key == y.key);
            if !same {
                return None;
            }
            a.into_iter()
                .filter(|w| w.key.chars().count() >= 3)
                .map(|w| (corpora.rate(None, &w.key, None), w))
                .filter(|(r, _)| r.valence == 0.0)
                .min_by(|(x, _), (y, _)| x.z.abs().total_cmp(&y.z.abs()))
                .map(|(_, w)| (p, w))
        })
        .collect();
    neutral.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed));
    neutral.truncate(settings.per_group);
    neutral.sort_by_key(|(p, _)| p.line);
    for (pair, word) in &neutral {
        sentences.push(json!({
            "id": format!("neu-{}", pair.line),
            "group": "neutral",
            "valence": 0,
            "source": format!(
                "held-out verse at line {} with the same words in both corpora; masked: {:?}",
                pair.line,
                &pair.early_modern[word.start..word.end]
            ),
            "text": masked(pair.early_modern, word, mask),
        }));
    }
    for (pair, swap) in &modern {
        sentences.push(json!({
            "id": format!("me-{}", pair.line),
            "group": "ME",
            "valence": 1,
            "source": format!(
                "held-out verse at line {} of the Modern corpus; masked: {:?} (the Early Modern \
                 wording has {:?}; z gap {:.1})",
                pair.line, &pair.modern[swap.modern.start..swap.modern.end],
                &pair.early_modern[swap.early.start..swap.early.end], swap.gap
            ),
            "text": masked(pair.modern, &swap.modern, mask),
        }));
    }
    Ok(json!({
        "name": name,
        "description": format!(
            "{description} {} Early Modern, {} neutral and {} Modern sentences, drawn from {} \
             held-out verse pairs ({} differ at a period-marked word) with seed {}.",
            early.len(), neutral.len(), modern.len(), pairs.len(), swaps.len(), settings.seed
        ),
        "provenance": provenance,
        "mask": mask,
        "sentences": sentences,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_metrics::log_odds::Thresholds;

    fn corpora() -> CorpusValence {
        let early: Vec<String> = (0..40)
            .map(|_| "he hath said unto thee that thou art the light".to_owned())
            .collect();
        let modern: Vec<String> = (0..40)
            .map(|_| "he has said to you that you are the light".to_owned())
            .collect();
        CorpusValence::new(&early, &modern, 1000.0, Thresholds::default(), 5, 0.0).unwrap()
    }

    fn settings(per_group: usize) -> DrawSettings {
        DrawSettings {
            per_group,
            seed: 7,
            mask: "[MASK]".into(),
        }
    }

    #[test]
    fn a_pair_gives_its_period_marked_word_masked_and_identical_pairs_a_neutral_one() {
        let pairs = [
            VersePair {
                line: 3,
                early_modern: "And he hath said it, O light.",
                modern: "And he has said it, O light!",
            },
            VersePair {
                line: 9,
                early_modern: "Go unto the light.",
                modern: "Go to the light.",
            },
            VersePair {
                line: 12,
                early_modern: "The light said it.",
                modern: "The light said it!",
            },
        ];
        let training = ["x".to_owned()];
        let drawn = draw(
            &pairs,
            [&training, &training],
            &corpora(),
            &settings(1),
            "t",
            "Test.",
            &BTreeMap::new(),
        )
        .unwrap();
        let sentences = drawn["sentences"].as_array().unwrap();
        let texts: Vec<(&str, &str)> = sentences
            .iter()
            .map(|s| (s["id"].as_str().unwrap(), s["text"].as_str().unwrap()))
            .collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        let eme = texts.iter().find(|(id, _)| id.starts_with("eme-")).unwrap();
        let me = texts.iter().find(|(id, _)| id.starts_with("me-")).unwrap();
        // One pair per group, whichever the seed gives where.
        let expected = [
            ("eme-3", "And he [MASK] said it, O light."),
            ("eme-9", "Go [MASK] the light."),
        ];
        assert!(expected.contains(eme), "{eme:?}");
        let other = if eme.0 == "eme-3" {
            ("me-9", "Go [MASK] the light.")
        } else {
            ("me-3", "And he [MASK] said it, O light!")
        };
        assert_eq!(*me, other);
        assert!(
            texts.contains(&("neu-12", "[MASK] light said it.")),
            "{texts:?}"
        );
        assert!(
            drawn["description"]
                .as_str()
                .unwrap()
                .starts_with("Test. 1 Early Modern, 1 neutral and 1 Modern")
        );
    }

    #[test]
    fn a_held_out_verse_seen_in_training_and_too_few_pairs_are_refused() {
        let pairs = [VersePair {
            line: 5,
            early_modern: "He hath the light.",
            modern: "He has the light.",
        }];
        let training = ["He has the light.".to_owned()];
        let none: [String; 0] = [];
        let err = draw(
            &pairs,
            [&none, &training],
            &corpora(),
            &settings(1),
            "t",
            "",
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "held-out verse at line 5 (Modern wording) is also a training passage: \"He has the light.\""
        );
        let err = draw(
            &pairs,
            [&none, &none],
            &corpora(),
            &settings(1),
            "t",
            "",
            &BTreeMap::new(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "1 held-out verse pairs differ at a period-marked word: too few for 1 Early Modern and 1 Modern sentences"
        );
    }
}
