//! Token valence from two period corpora, the automation Cuscito et al.'s Discussion proposes:
//! "the temporal valence of word tokens could be derived not simply from the sentence where
//! they emerge, but from the wider historical context, e.g. from a large corpus, representative
//! for the period". This is our construction of it, not the paper's:
//!
//! * a word's association with the Modern corpus against the Early Modern one is its log-odds
//!   with an informative Dirichlet prior, z-scored (lmbias-metrics' [`log_odds`]: Monroe,
//!   Colaresi & Quinn 2008), mapped onto the paper's scale {−1, −0.5, 0, 0.5, 1} by
//!   [`Thresholds`] (positive: Modern);
//! * **in context**: where the corpora have seen the word beside its neighbour in the sentence
//!   at least [`CorpusValence::min_context`] times (both corpora together), the bigram's z is
//!   used instead of the word's, the better-attested of the left and right bigrams first; so
//!   *you* in "fare you well" can differ from *you* elsewhere;
//! * a word neither corpus holds, or a piece inside a word (`##eth`), has z = 0: no evidence
//!   for either period, valence 0 (as every word with |z| below the first threshold).
//!
//! Words are runs of letters (apostrophes inside a word kept, "’" read as "'"), lowercased.

use std::collections::BTreeMap;

use lmbias_data::lexicon::Lexicon;
use lmbias_data::valence::ValenceDataset;
use lmbias_metrics::agreement::{Weights, spearman, weighted_kappa};
use lmbias_metrics::log_odds::{LogOdds, LogOddsError, Thresholds, log_odds};

/// Where a rating came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Context {
    /// The word with its left neighbour.
    Left,
    /// The word with its right neighbour.
    Right,
    /// The word alone.
    Word,
    /// Neither corpus holds the word.
    Unseen,
}

/// A word rated in its sentence.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rating {
    /// On the paper's scale, positive Modern.
    pub valence: f64,
    /// The z it came from (0 when unseen).
    pub z: f64,
    /// What was counted.
    pub context: Context,
}

/// The counts and log-odds of two period corpora.
#[derive(Debug, Clone)]
pub struct CorpusValence {
    words: BTreeMap<String, LogOdds>,
    pairs: BTreeMap<(String, String), LogOdds>,
    pair_counts: BTreeMap<(String, String), u64>,
    thresholds: Thresholds,
    min_context: u64,
    min_log_odds: f64,
}

/// Why the corpora cannot rate words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CorpusValenceError {
    /// A corpus has no word.
    #[error("the {0} corpus has no word")]
    Empty(&'static str),
    /// The corpora share no word: they are not two periods of one language.
    #[error("the two corpora share no word: they cannot be two periods of one language")]
    Disjoint,
    /// Bad settings.
    #[error("{0}")]
    Settings(String),
}

/// The words of `text`, lowercased.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let c = if c == '’' { '\'' } else { c };
        if c.is_alphabetic() {
            word.extend(c.to_lowercase());
        } else if c == '\'' && !word.is_empty() && chars.peek().is_some_and(|n| n.is_alphabetic()) {
            word.push(c);
        } else if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The words right before and after the (first) `mask` of `text`: a proposal's context.
pub(crate) fn neighbours(text: &str, mask: &str) -> (Option<String>, Option<String>) {
    match text.split_once(mask) {
        Some((before, after)) => (words(before).pop(), words(after).into_iter().next()),
        None => (None, None),
    }
}

/// Unigram and bigram counts of passages (bigrams within a passage).
fn counts(passages: &[String]) -> (BTreeMap<String, u64>, BTreeMap<(String, String), u64>) {
    let (mut unigrams, mut bigrams) = (BTreeMap::new(), BTreeMap::new());
    for passage in passages {
        let w = words(passage);
        for word in &w {
            *unigrams.entry(word.clone()).or_insert(0) += 1;
        }
        for pair in w.windows(2) {
            *bigrams
                .entry((pair[0].clone(), pair[1].clone()))
                .or_insert(0) += 1;
        }
    }
    (unigrams, bigrams)
}

/// Refuses settings that cannot rate: thresholds not 0 < first ≤ second, a prior total not a
/// finite number above 0, a log-odds floor not a finite number ≥ 0.
pub fn check_settings(
    alpha0: f64,
    thresholds: Thresholds,
    min_log_odds: f64,
) -> Result<(), CorpusValenceError> {
    if !(min_log_odds.is_finite() && min_log_odds >= 0.0) {
        return Err(CorpusValenceError::Settings(format!(
            "the log-odds floor {min_log_odds} must be a finite number ≥ 0"
        )));
    }
    if !(thresholds.half > 0.0 && thresholds.full >= thresholds.half && thresholds.full.is_finite())
    {
        return Err(CorpusValenceError::Settings(format!(
            "thresholds {} and {} must satisfy 0 < first ≤ second",
            thresholds.half, thresholds.full
        )));
    }
    if !(alpha0.is_finite() && alpha0 > 0.0) {
        return Err(CorpusValenceError::Settings(format!(
            "the prior's total α0 {alpha0} must be a finite number above 0"
        )));
    }
    Ok(())
}

impl CorpusValence {
    /// The log-odds of every word and word pair of the Early Modern and Modern passages, with
    /// a prior of total `alpha0`; bigrams count as context from `min_context` occurrences; a
    /// word or pair whose |δ| is below `min_log_odds` is rated 0 whatever its z (the effect-size
    /// floor: corpora of 10^5 words make a small difference of rate significant).
    pub fn new(
        early_modern: &[String],
        modern: &[String],
        alpha0: f64,
        thresholds: Thresholds,
        min_context: u64,
        min_log_odds: f64,
    ) -> Result<CorpusValence, CorpusValenceError> {
        check_settings(alpha0, thresholds, min_log_odds)?;
        let (eme_words, eme_pairs) = counts(early_modern);
        let (me_words, me_pairs) = counts(modern);
        if eme_words.is_empty() {
            return Err(CorpusValenceError::Empty("Early Modern"));
        }
        if me_words.is_empty() {
            return Err(CorpusValenceError::Empty("Modern"));
        }
        if !eme_words.keys().any(|w| me_words.contains_key(w)) {
            return Err(CorpusValenceError::Disjoint);
        }
        let settings = |e: LogOddsError| CorpusValenceError::Settings(e.to_string());
        // Positive z: more Modern.
        let words = log_odds(&me_words, &eme_words, alpha0).map_err(settings)?;
        let pairs = if eme_pairs.is_empty() || me_pairs.is_empty() {
            BTreeMap::new()
        } else {
            log_odds(&me_pairs, &eme_pairs, alpha0).map_err(settings)?
        };
        let mut pair_counts = eme_pairs;
        for (pair, n) in me_pairs {
            *pair_counts.entry(pair).or_insert(0) += n;
        }
        Ok(CorpusValence {
            words,
            pairs,
            pair_counts,
            thresholds,
            min_context,
            min_log_odds,
        })
    }

    /// Bigram occurrences (both corpora) from which a word is rated with its neighbour.
    pub fn min_context(&self) -> u64 {
        self.min_context
    }

    /// `word` (a proposal) rated where it stands, between `left` and `right` (the sentence's
    /// words beside the mask, if any).
    pub fn rate(&self, left: Option<&str>, word: &str, right: Option<&str>) -> Rating {
        // A WordPiece continuation ("##eth") is part of a word, not the word its letters spell.
        if word.starts_with("##") {
            return Rating {
                valence: 0.0,
                z: 0.0,
                context: Context::Unseen,
            };
        }
        let key = |s: &str| words(s).join(" ");
        let word = key(word);
        let pair = |a: String, b: String| {
            let count = self.pair_counts.get(&(a.clone(), b.clone())).copied()?;
            (count >= self.min_context).then(|| (count, self.pairs.get(&(a, b)).copied()))
        };
        let mut contexts: Vec<(u64, Option<LogOdds>, Context)> = Vec::new();
        if let Some(left) = left.map(key).filter(|l| !l.is_empty())
            && let Some((n, odds)) = pair(left, word.clone())
        {
            contexts.push((n, odds, Context::Left));
        }
        if let Some(right) = right.map(key).filter(|r| !r.is_empty())
            && let Some((n, odds)) = pair(word.clone(), right)
        {
            contexts.push((n, odds, Context::Right));
        }
        // The better-attested neighbour first; left before right on a tie.
        contexts.sort_by_key(|(n, _, _)| std::cmp::Reverse(*n));
        let (odds, context) = match contexts.first() {
            Some((_, Some(odds), context)) => (Some(*odds), *context),
            _ => match self.words.get(&word) {
                Some(odds) => (Some(*odds), Context::Word),
                None => (None, Context::Unseen),
            },
        };
        let z = odds.map_or(0.0, |o| o.z);
        let large = odds.is_some_and(|o| o.delta.abs() >= self.min_log_odds);
        Rating {
            valence: if large { self.thresholds.level(z) } else { 0.0 },
            z,
            context,
        }
    }
}

/// How corpus-derived valence agrees with hand annotations, rated in context and word alone.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Agreement {
    /// Annotated (sentence, word) pairs compared.
    pub pairs: usize,
    /// Pairs rated from a word pair of the corpora rather than the word alone.
    pub in_context: usize,
    /// The ratings as the study uses them (in context where the corpora support it).
    pub with_context: Scores,
    /// Every word rated alone: what the context changes.
    pub word_alone: Scores,
}

/// Agreement of two raters on the five-point scale.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Scores {
    /// Weighted Cohen's κ, linear weights.
    pub kappa_linear: Option<f64>,
    /// Weighted Cohen's κ, quadratic weights.
    pub kappa_quadratic: Option<f64>,
    /// Spearman's ρ of the two ratings.
    pub rho: Option<f64>,
}

/// The five-point scale's level as a category index, −1 → 0 … 1 → 4.
fn category(valence: f64) -> usize {
    ((valence + 1.0) * 2.0).round() as usize
}

fn scores(pairs: &[(f64, f64)]) -> Scores {
    let categories: Vec<(usize, usize)> = pairs
        .iter()
        .map(|&(a, b)| (category(a), category(b)))
        .collect();
    let (hand, corpus): (Vec<f64>, Vec<f64>) = pairs.iter().copied().unzip();
    Scores {
        kappa_linear: weighted_kappa(&categories, 5, Weights::Linear),
        kappa_quadratic: weighted_kappa(&categories, 5, Weights::Quadratic),
        rho: spearman(&hand, &corpus),
    }
}

/// Agreement of `corpora`'s ratings with every sentence annotation of `dataset`, each word
/// rated beside the mask's neighbours in its sentence, as the study rates a proposal.
pub fn agreement(dataset: &ValenceDataset, corpora: &CorpusValence) -> Agreement {
    let (mut with_context, mut word_alone, mut in_context) = (Vec::new(), Vec::new(), 0);
    for sentence in dataset.sentences() {
        let (left, right) = neighbours(sentence.text(), dataset.mask());
        for (word, hand) in sentence.annotations() {
            let rated = corpora.rate(left.as_deref(), word, right.as_deref());
            in_context += usize::from(matches!(rated.context, Context::Left | Context::Right));
            with_context.push((hand.value(), rated.valence));
            word_alone.push((hand.value(), corpora.rate(None, word, None).valence));
        }
    }
    Agreement {
        pairs: with_context.len(),
        in_context,
        with_context: scores(&with_context),
        word_alone: scores(&word_alone),
    }
}

/// How the raters of a dataset's annotated (sentence, word) pairs agree with a lexicon (issue
/// #46): the sentence annotations (in context, by hand) and each corpus rater (in context and
/// word alone), each against the lexicon's rating of the word.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LexiconAgreement {
    /// Annotated pairs compared.
    pub pairs: usize,
    /// Pairs on which the lexicon lists the word (the rest it rates 0 by its rule).
    pub listed: usize,
    /// The hand annotations against the lexicon.
    pub hand: Scores,
    /// Each corpus rater against the lexicon, in the order given.
    pub corpora: Vec<CorpusRaterAgreement>,
}

/// One corpus rater against a lexicon.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CorpusRaterAgreement {
    /// The rater's name, as the report gives it.
    pub rater: String,
    /// In context, as proposals are rated.
    pub in_context: Scores,
    /// The word alone.
    pub word_alone: Scores,
}

/// Agreement of `dataset`'s annotations and of each named corpus rater of `corpora` with
/// `lexicon`.
pub fn lexicon_agreement(
    dataset: &ValenceDataset,
    lexicon: &Lexicon,
    corpora: &[(&str, &CorpusValence)],
) -> LexiconAgreement {
    let (mut hand, mut listed) = (Vec::new(), 0);
    let mut rated: Vec<(Vec<(f64, f64)>, Vec<(f64, f64)>)> =
        vec![Default::default(); corpora.len()];
    for sentence in dataset.sentences() {
        let (left, right) = neighbours(sentence.text(), dataset.mask());
        for (word, annotation) in sentence.annotations() {
            let by_lexicon = lexicon.valence(word).value();
            listed += usize::from(lexicon.rule(word).is_some());
            hand.push((by_lexicon, annotation.value()));
            for ((_, rater), (in_context, alone)) in corpora.iter().zip(&mut rated) {
                let r = rater.rate(left.as_deref(), word, right.as_deref());
                in_context.push((by_lexicon, r.valence));
                alone.push((by_lexicon, rater.rate(None, word, None).valence));
            }
        }
    }
    LexiconAgreement {
        pairs: hand.len(),
        listed,
        hand: scores(&hand),
        corpora: corpora
            .iter()
            .zip(&rated)
            .map(|((name, _), (in_context, alone))| CorpusRaterAgreement {
                rater: (*name).to_owned(),
                in_context: scores(in_context),
                word_alone: scores(alone),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passages(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn words_are_letters_lowercased_with_inner_apostrophes() {
        assert_eq!(
            words("Thou hast; 'tis the LORD’S  o'er-ripe, 12 apples'"),
            [
                "thou", "hast", "tis", "the", "lord's", "o'er", "ripe", "apples"
            ]
        );
    }

    /// "thou" only in the Early Modern corpus, "you" in both but "fare you" only there.
    fn corpora() -> CorpusValence {
        let eme = passages(&["thou art here and thou art there"; 40]);
        let mut me = passages(&["you are here and you are there"; 40]);
        let mut eme = eme;
        eme.extend(passages(&["fare you well my friend"; 30]));
        me.extend(passages(&["you are my friend"; 30]));
        CorpusValence::new(&eme, &me, 100.0, Thresholds::default(), 5, 0.0).unwrap()
    }

    #[test]
    fn a_word_and_its_context_are_rated_by_the_corpora() {
        let c = corpora();
        let thou = c.rate(None, "thou", None);
        assert_eq!((thou.valence, thou.context), (-1.0, Context::Word));
        assert!(thou.z < -3.3, "{thou:?}");
        let you = c.rate(None, "you", None);
        assert_eq!((you.valence, you.context), (1.0, Context::Word));
        // Beside "fare", "you" is an Early Modern form: the bigram outweighs the word.
        let fare = c.rate(Some("fare"), "you", Some("well"));
        assert_eq!(fare.valence, -1.0, "{fare:?}");
        assert!(matches!(fare.context, Context::Left | Context::Right));
        // A neighbour the corpora never saw with the word: the word alone.
        let alone = c.rate(Some("zebra"), "you", None);
        assert_eq!(alone.context, Context::Word);
        // Shared evenly: no lean.
        let and = c.rate(None, "and", None);
        assert_eq!(and.valence, 0.0, "{and:?}");
        // A piece inside a word is not the word its letters spell.
        assert_eq!(c.rate(None, "##thou", None).context, Context::Unseen);
        let unseen = c.rate(None, "email", None);
        assert_eq!(
            (unseen.valence, unseen.z, unseen.context),
            (0.0, 0.0, Context::Unseen)
        );
        // Case and the typographer's apostrophe do not matter.
        assert_eq!(c.rate(None, "Thou", None).valence, -1.0);
    }

    /// In context the corpora agree with the hand ratings here ("fare you well" is Early
    /// Modern); the word alone gets that *you* wrong, and the agreement says so.
    #[test]
    fn agreement_with_hand_annotations_in_context_and_word_alone() {
        let dataset = ValenceDataset::from_json(
            r#"{"name": "a", "sentences": [
              {"id": "1", "group": "EME", "valence": -1, "source": "c",
               "text": "Why wilt [MASK] be so?", "annotations": {"thou": -1, "you": 1, "and": 0}},
              {"id": "2", "group": "EME", "valence": -1, "source": "c",
               "text": "Fare [MASK] well.", "annotations": {"you": -1}}]}"#,
            std::path::Path::new("a.json"),
        )
        .unwrap();
        let a = agreement(&dataset, &corpora());
        assert_eq!((a.pairs, a.in_context), (4, 1));
        assert_eq!(a.with_context.kappa_linear, Some(1.0));
        assert_eq!(a.with_context.rho, Some(1.0));
        // Word alone: hand (−1, 1, 0, −1) against corpora (−1, 1, 0, 1).
        let alone = a.word_alone;
        assert!(
            alone.kappa_linear.unwrap() < 1.0 && alone.rho.unwrap() < 1.0,
            "{alone:?}"
        );
        // As categories 0 (−1) … 4 (+1): and, thou, you; then "fare you".
        let categories = [(2, 2), (0, 0), (4, 4), (0, 4)];
        assert_eq!(
            alone.kappa_linear,
            weighted_kappa(&categories, 5, Weights::Linear)
        );
    }

    /// A word both corpora use, 10 % more often in the Modern one, over corpora so large that
    /// its z passes 3.29: without a floor it is a full +1; with the floor of ln 2 (odds at
    /// least doubled) it is 0, while *thou* (in one corpus only) keeps its −1.
    #[test]
    fn the_log_odds_floor_keeps_a_small_difference_of_rate_from_being_a_period() {
        let mut eme = passages(&["that man and the house"; 4000]);
        eme.extend(passages(&["thou art"; 50]));
        let mut me = passages(&["that man and the house"; 4000]);
        me.extend(passages(&["that one"; 400]));
        let t = Thresholds::default();
        let without = CorpusValence::new(&eme, &me, 1000.0, t, 5, 0.0).unwrap();
        let that = without.rate(None, "that", None);
        assert_eq!(that.valence, 1.0, "{that:?}");
        let delta = without.words["that"].delta;
        assert!(delta > 0.0 && delta < std::f64::consts::LN_2, "{delta}");
        let with = CorpusValence::new(&eme, &me, 1000.0, t, 5, std::f64::consts::LN_2).unwrap();
        let floored = with.rate(None, "that", None);
        assert_eq!((floored.valence, floored.z), (0.0, that.z));
        assert_eq!(with.rate(None, "thou", None).valence, -1.0);
        assert_eq!(
            CorpusValence::new(&eme, &me, 1000.0, t, 5, -0.1).unwrap_err(),
            CorpusValenceError::Settings(
                "the log-odds floor -0.1 must be a finite number ≥ 0".into()
            )
        );
    }

    /// The lexicon rates *thou* −1 and leaves *you* and *and* at 0; the hand annotations rate
    /// "fare you" −1 in context, which the lexicon cannot see.
    #[test]
    fn raters_against_the_lexicon() {
        let dataset = ValenceDataset::from_json(
            r#"{"name": "a", "sentences": [
              {"id": "1", "group": "EME", "valence": -1, "source": "c",
               "text": "Why wilt [MASK] be so?", "annotations": {"thou": -1, "you": 0, "and": 0}},
              {"id": "2", "group": "EME", "valence": -1, "source": "c",
               "text": "Fare [MASK] well.", "annotations": {"you": -1}}]}"#,
            std::path::Path::new("a.json"),
        )
        .unwrap();
        let lexicon =
            Lexicon::parse("thou\t-1\tonly EME\n", std::path::Path::new("l.tsv")).unwrap();
        let rater = corpora();
        let a = lexicon_agreement(&dataset, &lexicon, &[("Bibles", &rater)]);
        assert_eq!((a.pairs, a.listed), (4, 1));
        // Lexicon (and, thou, you; fare you) = (0, −1, 0, 0) against hand (0, −1, 0, −1).
        let expected = [(2, 2), (0, 0), (2, 2), (2, 0)];
        assert_eq!(
            a.hand.kappa_linear,
            weighted_kappa(&expected, 5, Weights::Linear)
        );
        assert!(a.hand.kappa_linear.unwrap() < 1.0);
        // The corpora rate *you* +1 alone: against the lexicon's 0.
        let alone = [(2, 2), (0, 0), (2, 4), (2, 4)];
        assert_eq!(a.corpora[0].rater, "Bibles");
        assert_eq!(
            a.corpora[0].word_alone.kappa_linear,
            weighted_kappa(&alone, 5, Weights::Linear)
        );
    }

    #[test]
    fn corpora_that_cannot_be_two_periods_are_refused() {
        let some = passages(&["thou art"]);
        let none = passages(&["  ", "12"]);
        let t = Thresholds::default();
        assert_eq!(
            CorpusValence::new(&none, &some, 1.0, t, 5, 0.0).unwrap_err(),
            CorpusValenceError::Empty("Early Modern")
        );
        assert_eq!(
            CorpusValence::new(&some, &passages(&["you are"]), 1.0, t, 5, 0.0).unwrap_err(),
            CorpusValenceError::Disjoint
        );
        let bad = Thresholds {
            half: 3.0,
            full: 2.0,
        };
        assert!(matches!(
            CorpusValence::new(&some, &some, 1.0, bad, 5, 0.0),
            Err(CorpusValenceError::Settings(_))
        ));
    }
}
