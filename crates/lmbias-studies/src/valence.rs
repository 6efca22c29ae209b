//! Temporal valence (Cuscito, Ferrara, Ruskov, "How BERT Speaks Shakespearean
//! English?"): how Early Modern or Modern a masked model's proposals are.
//!
//! For a sentence s with valence v(s) the model proposes its top-k tokens with
//! probabilities p; each token has a valence x(t, s) judged in context. Then
//!
//! * bias B(m, s) = Σ x(t, s) · p(t) over the top k (p is the full-vocabulary
//!   softmax probability, as the transformers fill-mask pipeline reports it; it
//!   is not renormalised over the k tokens, so |B| ≤ Σ p ≤ 1), and
//! * adequacy A(m, s) = 1 − |v(s) − B(m, s)| / 2, in [0, 1].
//!
//! A proposed token without an annotation (neither in the sentence nor in the
//! dataset's optional lexicon) is rated from two period corpora when they are given
//! ([`run_with_corpora`], [`crate::corpus_valence`]); without them it counts as x = 0, its
//! share of the top-k probability is the sentence's *unannotated share*, and the token is
//! listed in [`ModelResult::unannotated`], so that a researcher can annotate what the
//! models actually propose and rerun (the paper's own workflow). A sentence whose
//! unannotated share exceeds [`Scoring::max_unannotated_share`] (0.5 by default; our rule,
//! not the paper's) gets no B and no A and is left out of the group summaries: a B that
//! rests mostly on zeros nobody rated would read as "neutral". An annotation
//! key may be any word; one a model cannot propose as one piece is skipped for
//! that model and counted in its [`Coverage`], never refused.

use std::collections::BTreeMap;
use std::num::NonZeroUsize;

use lmbias_data::valence::{AnnotationSource, Group, ValenceDataset, ValenceSentence};

use crate::corpus_valence::{CorpusValence, neighbours};
use lmbias_core::{EncoderError, MaskedLm, Prediction, check_finite};
use serde::{Deserialize, Serialize};

/// The transformers fill-mask pipeline's default `top_k`.
pub const DEFAULT_TOP_K: NonZeroUsize = NonZeroUsize::new(5).unwrap();

/// The largest unannotated share of a sentence's top-k mass at which it is still scored,
/// unless the caller says otherwise ([`Scoring::max_unannotated_share`]).
pub const DEFAULT_MAX_UNANNOTATED_SHARE: f64 = 0.5;

/// How proposals become B and A: how many, and how much of their mass may be unrated.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scoring {
    /// Proposals scored per sentence.
    pub top_k: NonZeroUsize,
    /// A sentence whose unannotated share of the top-k mass exceeds this gets no B and no A;
    /// 1 scores every sentence, unannotated proposals as 0.
    pub max_unannotated_share: f64,
}

impl Scoring {
    /// `top_k` proposals, guarded at [`DEFAULT_MAX_UNANNOTATED_SHARE`].
    pub fn new(top_k: NonZeroUsize) -> Scoring {
        Scoring {
            top_k,
            max_unannotated_share: DEFAULT_MAX_UNANNOTATED_SHARE,
        }
    }

    /// `top_k` proposals, every sentence scored whatever its unannotated share (x = 0 for
    /// an unrated proposal), as the paper's formula reads alone.
    pub fn unguarded(top_k: NonZeroUsize) -> Scoring {
        Scoring {
            top_k,
            max_unannotated_share: 1.0,
        }
    }
}

/// The k at which [`ModelResult::k_sweep`] reports group means. The paper
/// fixes k; how B moves with k shows how much the conclusion depends on it.
pub const K_SWEEP: [usize; 3] = [5, 10, 20];

/// One proposed token, scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenScore {
    /// The proposed piece as text (its vocabulary form without a word-initial marker:
    /// `thou` for RoBERTa's `Ġthou`), as annotations are matched.
    pub token: String,
    /// Its vocabulary id.
    pub id: u32,
    /// p(t): its full-vocabulary softmax probability at the mask.
    pub prob: f64,
    /// x(t, s); 0 when unannotated.
    pub valence: f64,
    /// Where x came from (the sentence, the lexicon, or nowhere).
    pub annotation: AnnotationSource,
}

/// B and A of one sentence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SentenceScore {
    /// The sentence's id in the dataset.
    pub id: String,
    /// Its group (Early Modern, neutral, Modern).
    pub group: Group,
    /// v(s).
    pub valence: f64,
    /// B(m, s) = Σ x(t, s) · p(t) over the top k; `None` when the unannotated share
    /// exceeds the guard ([`Scoring::max_unannotated_share`]).
    pub bias: Option<f64>,
    /// A(m, s) = 1 − |v(s) − B(m, s)| / 2; `None` with B.
    pub adequacy: Option<f64>,
    /// Total probability of the proposed tokens that had no annotation.
    pub unannotated_mass: f64,
    /// `unannotated_mass` over the top-k proposals' total probability (0 when they carry
    /// none): how much of B no source rated.
    pub unannotated_share: f64,
    /// The top-k proposals, most probable first.
    pub tokens: Vec<TokenScore>,
}

/// Location and spread of one measure over a group's sentences.
///
/// Quantiles use numpy's default (`method="linear"`, Hyndman & Fan type 7):
/// the p-quantile of sorted x₀…xₙ₋₁ interpolates linearly at rank (n − 1)·p.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// The 0.5-quantile.
    pub median: f64,
    /// The 0.25-quantile, the box's lower edge.
    pub q1: f64,
    /// The 0.75-quantile, the box's upper edge.
    pub q3: f64,
    /// q3 − q1.
    pub iqr: f64,
}

impl Distribution {
    /// `None` for no values: an empty group has no mean to report.
    pub fn of(values: &[f64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (q1, q3) = (quantile(&sorted, 0.25), quantile(&sorted, 0.75));
        Some(Distribution {
            n: sorted.len(),
            mean: total(sorted.iter().copied()) / sorted.len() as f64,
            median: quantile(&sorted, 0.5),
            q1,
            q3,
            iqr: q3 - q1,
        })
    }
}

/// A sum starting from +0.0: `Iterator::sum` of f64 starts from −0.0, and a
/// "−0" in a report reads like a tiny negative bias.
fn total(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, |a, b| a + b)
}

/// numpy's `quantile(x, p)` with the default linear method, on sorted, non-empty x.
fn quantile(sorted: &[f64], p: f64) -> f64 {
    let rank = (sorted.len() - 1) as f64 * p;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (rank - lo as f64) * (sorted[hi] - sorted[lo])
}

/// The per-group summary the paper plots (its Figures 1 and 2 are box plots of these), over
/// the group's scored sentences; a group none of whose sentences was scored is absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GroupSummary {
    /// The group summarised.
    pub group: Group,
    /// B over the group's scored sentences.
    pub bias: Distribution,
    /// A over the group's scored sentences.
    pub adequacy: Distribution,
    /// How much of B rests on proposals without an annotation: the mean unannotated share
    /// over the scored sentences.
    pub mean_unannotated_share: f64,
    /// The group's sentences left out: their unannotated share exceeded the guard.
    pub excluded: usize,
}

/// Group means at one k of [`K_SWEEP`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    /// Proposals scored per sentence.
    pub k: usize,
    /// The group.
    pub group: Group,
    /// Mean B over the group's scored sentences at this k; `None` when the guard left out all.
    pub mean_bias: Option<f64>,
    /// Mean A over the group's scored sentences at this k; `None` with B.
    pub mean_adequacy: Option<f64>,
    /// Mean unannotated share over the group's scored sentences at this k; `None` with B.
    pub mean_unannotated_share: Option<f64>,
    /// Sentences scored at this k (the guard may leave out more, or fewer, than at top_k).
    pub n: usize,
    /// Sentences left out at this k.
    pub excluded: usize,
}

/// A proposed token no annotation covered, over all sentences of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnannotatedToken {
    /// Lowercased, as annotations are matched.
    pub token: String,
    /// How many sentences proposed it in their top k.
    pub count: usize,
    /// Its probability summed over those sentences.
    pub total_prob: f64,
    /// Ids of those sentences, in dataset order, so an annotator can find them.
    pub sentences: Vec<String>,
}

/// How much of the dataset's annotation one model can use. A key the model's
/// vocabulary cannot produce as one piece (bert-base-uncased has no "hath",
/// MacBERTh no "email") can never be proposed, so it never contributes to B: it
/// is skipped for that model, and counted here so that a reader sees how much
/// of the annotation was in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Lexicon keys.
    pub lexicon_keys: usize,
    /// Lexicon keys the model can propose.
    pub lexicon_usable: usize,
    /// Per-sentence annotation keys (counted per sentence).
    pub annotation_keys: usize,
    /// Per-sentence annotation keys the model can propose.
    pub annotation_usable: usize,
    /// The distinct keys the model cannot propose, sorted.
    pub unusable: Vec<String>,
}

impl Coverage {
    /// Whether every key is usable.
    pub fn is_complete(&self) -> bool {
        self.unusable.is_empty()
    }
}

/// Which annotation and lexicon keys `lm` can propose (see [`Coverage`]).
pub fn coverage(lm: &dyn MaskedLm, dataset: &ValenceDataset) -> Coverage {
    let mut unusable = std::collections::BTreeSet::new();
    let mut count = |keys: &mut dyn Iterator<Item = &String>| -> (usize, usize) {
        let (mut all, mut usable) = (0, 0);
        for key in keys {
            all += 1;
            if is_one_piece(lm, key) {
                usable += 1;
            } else {
                unusable.insert(key.clone());
            }
        }
        (all, usable)
    };
    let (lexicon_keys, lexicon_usable) = count(&mut dataset.lexicon().keys());
    let (annotation_keys, annotation_usable) = count(
        &mut dataset
            .sentences()
            .iter()
            .flat_map(|s| s.annotations().keys()),
    );
    Coverage {
        lexicon_keys,
        lexicon_usable,
        annotation_keys,
        annotation_usable,
        unusable: unusable.into_iter().collect(),
    }
}

/// Everything the study measures for one model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelResult {
    /// The model's name.
    pub model: String,
    /// The dataset's name.
    pub dataset: String,
    /// Proposals scored per sentence.
    pub top_k: usize,
    /// The guard: a sentence whose unannotated share exceeds it has no B and no A.
    pub max_unannotated_share: f64,
    /// The annotation keys this model can propose.
    pub coverage: Coverage,
    /// Every sentence, in dataset order.
    pub sentences: Vec<SentenceScore>,
    /// Groups in scale order (EME, neutral, ME); groups without scored sentences are absent.
    pub groups: Vec<GroupSummary>,
    /// Group means at each k of [`K_SWEEP`], k by k, groups in scale order: every group
    /// with sentences, its means `None` at a k where the guard left out all of them.
    pub k_sweep: Vec<SweepPoint>,
    /// Most total probability first.
    pub unannotated: Vec<UnannotatedToken>,
}

impl ModelResult {
    /// The sentences left out by the guard (no B, no A), in dataset order.
    pub fn excluded(&self) -> impl Iterator<Item = &SentenceScore> {
        self.sentences.iter().filter(|s| s.bias.is_none())
    }

    /// The share of the top-k probability mass, over all sentences, that fell on
    /// proposals no annotation covers (scored 0): how far B rests on tokens the
    /// annotator never judged. `None` when the proposals carry no mass at all.
    pub fn unannotated_share(&self) -> Option<f64> {
        let of = |s: &SentenceScore| total(s.tokens.iter().map(|t| t.prob));
        let mass = total(self.sentences.iter().map(of));
        (mass > 0.0).then(|| total(self.sentences.iter().map(|s| s.unannotated_mass)) / mass)
    }

    /// The share of the top-k probability mass, over all sentences, that each source rated
    /// (the sentence's annotations, the lexicon, the corpora, none), in that order; all 0
    /// when the proposals carry no mass.
    pub fn source_shares(&self) -> [(AnnotationSource, f64); 4] {
        let sources = [
            AnnotationSource::Sentence,
            AnnotationSource::Lexicon,
            AnnotationSource::Corpus,
            AnnotationSource::None,
        ];
        let tokens = || self.sentences.iter().flat_map(|s| &s.tokens);
        let mass = total(tokens().map(|t| t.prob));
        sources.map(|source| {
            let of = total(tokens().filter(|t| t.annotation == source).map(|t| t.prob));
            (source, if mass > 0.0 { of / mass } else { 0.0 })
        })
    }
}

/// Why the study could not run on a model. One line, naming the model and
/// the sentence id at fault; the encoder's error is the
/// [`source`](std::error::Error::source), never repeated in the message.
#[derive(Debug, thiserror::Error)]
pub enum ValenceStudyError {
    /// The model refused one sentence (e.g. it sees a second mask in it).
    #[error("{model}: sentence {}", lmbias_core::shorten(id))]
    Sentence {
        /// The model's name.
        model: String,
        /// The sentence's id.
        id: String,
        /// The encoder's reason.
        #[source]
        source: EncoderError,
    },
    /// The model failed on the dataset as a whole, not on one sentence of it.
    #[error("{model}: fill-mask failed")]
    Encoder {
        /// The model's name.
        model: String,
        /// The encoder's reason.
        #[source]
        source: EncoderError,
    },
    /// The guard is not a share.
    #[error("max_unannotated_share {0}: expected a share from 0 to 1")]
    Guard(f64),
    /// The model broke the `MaskedLm` contract of one answer per text.
    #[error("{model}: fill-mask answered {got} texts for {expected} sentences")]
    AnswerCount {
        /// The model's name.
        model: String,
        /// Answers returned.
        got: usize,
        /// Sentences sent.
        expected: usize,
    },
}

/// Whether `lm` can propose `lowercase` as one piece. Keys are stored lowercased
/// and matched case-insensitively, so a key is usable when the vocabulary holds
/// it lowercased or capitalised ("thou" or "Thou"): `piece_id` of an uncased
/// model normalises like its tokenizer does, and a cased model may hold either.
fn is_one_piece(lm: &dyn MaskedLm, lowercase: &str) -> bool {
    let mut chars = lowercase.chars();
    let capitalised: String = chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default();
    lm.piece_id(lowercase).is_some() || lm.piece_id(&capitalised).is_some()
}

/// Runs the study on one model at `scoring.top_k` (and at every k of [`K_SWEEP`]).
///
/// The dataset's mask string is replaced by the model's own mask token.
/// Annotation keys the model cannot propose are skipped and counted in
/// [`ModelResult::coverage`]; B and A do not change, since such a token never
/// appears among the proposals.
pub fn run(
    lm: &dyn MaskedLm,
    dataset: &ValenceDataset,
    scoring: &Scoring,
) -> Result<ModelResult, ValenceStudyError> {
    run_with_corpora(lm, dataset, scoring, None)
}

/// [`run`], with every proposal no annotation covers rated from two period corpora
/// ([`CorpusValence`], in its sentence's context; [`AnnotationSource::Corpus`]): then no
/// proposal is left unannotated, whatever the model.
pub fn run_with_corpora(
    lm: &dyn MaskedLm,
    dataset: &ValenceDataset,
    scoring: &Scoring,
    corpora: Option<&CorpusValence>,
) -> Result<ModelResult, ValenceStudyError> {
    let guard = scoring.max_unannotated_share;
    if !(0.0..=1.0).contains(&guard) {
        return Err(ValenceStudyError::Guard(guard));
    }
    let top_k = scoring.top_k;
    let coverage = coverage(lm, dataset);
    let model = lm.model_name().to_owned();
    let texts: Vec<String> = dataset
        .sentences()
        .iter()
        .map(|s| s.text().replace(dataset.mask(), lm.mask_token()))
        .collect();
    let text_refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let fetch = K_SWEEP.into_iter().fold(top_k.get(), usize::max);
    // B and A are sums of valence × probability: a NaN probability would make them NaN,
    // so any model's is refused here, naming the sentence.
    let answers = lm
        .fill_mask(&text_refs, fetch)
        .and_then(|answers| {
            let probs = answers
                .iter()
                .map(|a| a.iter().map(|p| p.prob).collect())
                .collect();
            check_finite(probs).map(|_| answers)
        })
        .map_err(
            |source| match source.index().and_then(|i| dataset.sentences().get(i)) {
                Some(sentence) => ValenceStudyError::Sentence {
                    model: model.clone(),
                    id: sentence.id().to_owned(),
                    source,
                },
                None => ValenceStudyError::Encoder {
                    model: model.clone(),
                    source,
                },
            },
        )?;
    if answers.len() != texts.len() {
        return Err(ValenceStudyError::AnswerCount {
            model,
            got: answers.len(),
            expected: texts.len(),
        });
    }

    let score_at = |k: usize| -> Vec<SentenceScore> {
        dataset
            .sentences()
            .iter()
            .zip(&answers)
            .map(|(s, preds)| score(dataset, s, &preds[..k.min(preds.len())], corpora, guard))
            .collect()
    };
    let sentences = score_at(top_k.get());
    let groups = Group::ALL
        .into_iter()
        .filter_map(|g| summarise(&sentences, g))
        .collect();
    let k_sweep = K_SWEEP
        .into_iter()
        .flat_map(|k| {
            let scored = score_at(k);
            Group::ALL
                .into_iter()
                .filter_map(|group| {
                    let all = scored.iter().filter(|s| s.group == group).count();
                    let summary = summarise(&scored, group);
                    (all > 0).then(|| SweepPoint {
                        k,
                        group,
                        mean_bias: summary.as_ref().map(|s| s.bias.mean),
                        mean_adequacy: summary.as_ref().map(|s| s.adequacy.mean),
                        mean_unannotated_share: summary.as_ref().map(|s| s.mean_unannotated_share),
                        n: summary.as_ref().map_or(0, |s| s.bias.n),
                        excluded: summary.as_ref().map_or(all, |s| s.excluded),
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let unannotated = unannotated(&sentences);
    Ok(ModelResult {
        model,
        dataset: dataset.name().to_owned(),
        top_k: top_k.get(),
        max_unannotated_share: guard,
        coverage,
        sentences,
        groups,
        k_sweep,
        unannotated,
    })
}

/// B, A and the unannotated share of one sentence from its top-k proposals; a proposal no
/// annotation covers is rated from `corpora` when given, beside the mask's neighbours. B and
/// A are `None` when the unannotated share exceeds `max_unannotated_share`.
pub fn score(
    dataset: &ValenceDataset,
    sentence: &ValenceSentence,
    predictions: &[Prediction],
    corpora: Option<&CorpusValence>,
    max_unannotated_share: f64,
) -> SentenceScore {
    let (left, right) = neighbours(sentence.text(), dataset.mask());
    let tokens: Vec<TokenScore> = predictions
        .iter()
        .map(|p| {
            let (valence, annotation) = match (dataset.token_valence(sentence, &p.text), corpora) {
                ((None, AnnotationSource::None), Some(corpora)) => {
                    let rating = corpora.rate(left.as_deref(), &p.text, right.as_deref());
                    (rating.valence, AnnotationSource::Corpus)
                }
                ((valence, source), _) => (valence.map_or(0.0, |v| v.value()), source),
            };
            TokenScore {
                token: p.text.clone(),
                id: p.id,
                prob: f64::from(p.prob),
                valence,
                annotation,
            }
        })
        .collect();
    let bias = total(tokens.iter().map(|t| t.valence * t.prob));
    let unannotated_mass = total(
        tokens
            .iter()
            .filter(|t| t.annotation == AnnotationSource::None)
            .map(|t| t.prob),
    );
    let mass = total(tokens.iter().map(|t| t.prob));
    let unannotated_share = if mass > 0.0 {
        unannotated_mass / mass
    } else {
        0.0
    };
    let v = sentence.valence().value();
    let scored = unannotated_share <= max_unannotated_share;
    SentenceScore {
        id: sentence.id().to_owned(),
        group: sentence.group(),
        valence: v,
        bias: scored.then_some(bias),
        adequacy: scored.then(|| 1.0 - (v - bias).abs() / 2.0),
        unannotated_mass,
        unannotated_share,
        tokens,
    }
}

/// The group's summary over its scored sentences; `None` when it has none.
fn summarise(sentences: &[SentenceScore], group: Group) -> Option<GroupSummary> {
    let members = || sentences.iter().filter(|s| s.group == group);
    let scored: Vec<&SentenceScore> = members().filter(|s| s.bias.is_some()).collect();
    let column = |f: fn(&SentenceScore) -> Option<f64>| -> Vec<f64> {
        scored.iter().filter_map(|s| f(s)).collect()
    };
    let shares: Vec<f64> = scored.iter().map(|s| s.unannotated_share).collect();
    Some(GroupSummary {
        group,
        bias: Distribution::of(&column(|s| s.bias))?,
        adequacy: Distribution::of(&column(|s| s.adequacy))?,
        mean_unannotated_share: total(shares.iter().copied()) / shares.len() as f64,
        excluded: members().count() - scored.len(),
    })
}

fn unannotated(sentences: &[SentenceScore]) -> Vec<UnannotatedToken> {
    let mut by_token: BTreeMap<String, UnannotatedToken> = BTreeMap::new();
    for s in sentences {
        for t in s
            .tokens
            .iter()
            .filter(|t| t.annotation == AnnotationSource::None)
        {
            let key = t.token.to_lowercase();
            let entry = by_token.entry(key.clone()).or_insert(UnannotatedToken {
                token: key,
                count: 0,
                total_prob: 0.0,
                sentences: Vec::new(),
            });
            entry.total_prob += t.prob;
            // A cased model may propose "Thou" and "thou" in one sentence: count the sentence once.
            if entry.sentences.last() != Some(&s.id) {
                entry.count += 1;
                entry.sentences.push(s.id.clone());
            }
        }
    }
    let mut list: Vec<UnannotatedToken> = by_token.into_values().collect();
    list.sort_by(|a, b| {
        b.total_prob
            .total_cmp(&a.total_prob)
            .then_with(|| a.token.cmp(&b.token))
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_numpy_linear() {
        // numpy 2.4.6: np.quantile([0.3, -1, 0.5, 2], [0.25, 0.5, 0.75]) = [-0.025, 0.4, 0.875]
        let d = Distribution::of(&[0.3, -1.0, 0.5, 2.0]).unwrap();
        assert!((d.q1 - -0.025).abs() < 1e-12, "{d:?}");
        assert!((d.median - 0.4).abs() < 1e-12, "{d:?}");
        assert!((d.q3 - 0.875).abs() < 1e-12, "{d:?}");
        assert!((d.iqr - 0.9).abs() < 1e-12, "{d:?}");
        assert!((d.mean - 0.45).abs() < 1e-12, "{d:?}");
        let one = Distribution::of(&[0.7]).unwrap();
        assert_eq!((one.q1, one.median, one.q3, one.iqr), (0.7, 0.7, 0.7, 0.0));
        assert_eq!(Distribution::of(&[]), None);
    }
}
