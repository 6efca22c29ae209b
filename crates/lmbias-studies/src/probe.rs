//! The categorical-association probe of Dusi 2024 ("Discrimination Bias
//! Detection through Categorical Association in Pre-trained Language Models").
//!
//! 1. A linear SVM (`LinearSVC(dual=False)`, C = 1) learns the protected classes
//!    (e.g. christian / muslim) from the protected words' vectors. The relevance
//!    of dimension j is |w_j| (Dusi's); with more than two classes, |w_j|
//!    averaged over the one-vs-rest weight vectors (our choice: the paper's
//!    pairs all have two classes).
//! 2. For a size n, a second SVM learns the protected classes from the n most
//!    relevant dimensions only, and predicts a protected class for every
//!    stereotyped word (e.g. positive / negative adjectives).
//! 3. A χ² test of independence (no Yates correction) on the stereotyped-class ×
//!    predicted-class table: a small p means the stereotyped classes are not
//!    spread evenly over the protected classes, i.e. a categorical association.
//!
//! A table in which some protected class is never predicted has a zero expected
//! count, where the χ² statistic is undefined (scipy raises an error there).
//! We report such a size as *not testable*, with the class named, instead of a
//! p-value; figures leave a gap at that n.
//!
//! Word vectors from a model ([`embed_words`]) are the mean over a word's pieces
//! in one template, then the mean over the word's templates. Unlike Dusi's code,
//! which embeds one sentence at a time, templates are embedded in padded batches
//! with an attention mask; the results agree within float noise.
//!
//! A [`ProbeRun`] is one pair of lists swept on one model; the paper's three pairs, each
//! with the n at which it reports it, are what the paper says (lmbias-papers' `dusi`).

use std::collections::BTreeSet;

use lmbias_core::{Embedder, EncoderError, Layer, WordInContext, check_finite, quote};
use lmbias_data::probe::{Template, WordList};
use lmbias_linear::{FitError, LinearSvc, LinearSvcModel};
use lmbias_metrics::chi2::{
    Axis, Chi2Error, Chi2Result, chi2_equal_within_rows, chi2_independence,
};
use serde::{Deserialize, Serialize};

/// A word, its class and its vector.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeWord {
    /// The word as the list spells it.
    pub word: String,
    /// Its class (e.g. "christian"), the label the SVM learns or the row it counts in.
    pub class: String,
    /// Its vector: from a model ([`embed_words`]) or a file of embeddings.
    pub vector: Vec<f64>,
}

/// Vectors for every word of `words`: each word is put into every template that
/// accepts it, embedded (mean over its pieces), and averaged over templates.
///
/// All sentences go to the model in one call (it batches internally); a
/// sentence it refuses is named with its word, from the index the encoder reports.
pub fn embed_words(
    embedder: &dyn Embedder,
    words: &WordList,
    templates: &[Template],
    layer: Layer,
) -> Result<Vec<ProbeWord>, ProbeError> {
    let mut sentences: Vec<(usize, String, std::ops::Range<usize>)> = Vec::new();
    for (index, entry) in words.entries().iter().enumerate() {
        let before = sentences.len();
        for template in templates.iter().filter(|t| t.accepts(entry)) {
            let (text, range) = template.fill(&entry.word);
            sentences.push((index, text, range));
        }
        if sentences.len() == before {
            return Err(ProbeError::NoTemplate {
                word: entry.word.clone(),
                descriptor: entry.descriptor.clone().unwrap_or_default(),
            });
        }
    }
    let model = || embedder.model_name().to_owned();
    let word = |index: usize| words.entries()[index].word.clone();
    let items: Vec<WordInContext<'_>> = sentences
        .iter()
        .map(|(_, text, range)| WordInContext {
            text,
            word: range.clone(),
        })
        .collect();
    // A NaN vector would silently poison the probe's means and fit: refused, naming the text.
    let vectors = embedder
        .embed_words(&items, layer)
        .and_then(check_finite)
        .map_err(
            |source| match source.index().and_then(|i| sentences.get(i)) {
                Some((index, text, _)) => ProbeError::Embed {
                    model: model(),
                    word: word(*index),
                    text: text.clone(),
                    source: Box::new(source),
                },
                None => ProbeError::Encoder {
                    model: model(),
                    source: Box::new(source),
                },
            },
        )?;
    if vectors.len() != sentences.len() {
        return Err(ProbeError::VectorCount {
            model: model(),
            found: vectors.len(),
            expected: sentences.len(),
        });
    }
    let width = embedder.hidden_size();
    let mut sums = vec![vec![0.0f64; width]; words.entries().len()];
    let mut counts = vec![0usize; words.entries().len()];
    for ((index, text, _), vector) in sentences.iter().zip(vectors) {
        if vector.len() != width {
            return Err(ProbeError::VectorWidth {
                model: model(),
                word: word(*index),
                text: text.clone(),
                found: vector.len(),
                expected: width,
            });
        }
        for (sum, v) in sums[*index].iter_mut().zip(&vector) {
            *sum += f64::from(*v);
        }
        counts[*index] += 1;
    }
    Ok(words
        .entries()
        .iter()
        .zip(sums)
        .zip(counts)
        .map(|((entry, sum), count)| ProbeWord {
            word: entry.word.clone(),
            class: entry.class.clone(),
            vector: sum.into_iter().map(|s| s / count as f64).collect(),
        })
        .collect())
}

/// Vectors for every word of `words` embedded alone, with no template: what a
/// static model (GloVe, word2vec), which has no context, gives for a word — its
/// own vector, or for a word of several tokens the mean of theirs. The model's
/// default pooling is used; a word it refuses is named (for a static model, a
/// word without a vector).
pub fn word_vectors(
    embedder: &dyn Embedder,
    words: &WordList,
    layer: Layer,
) -> Result<Vec<ProbeWord>, ProbeError> {
    let model = || embedder.model_name().to_owned();
    let texts: Vec<&str> = words.entries().iter().map(|e| e.word.as_str()).collect();
    let vectors = embedder
        .embed(&texts, embedder.default_pooling(), layer)
        .and_then(check_finite)
        .map_err(|source| match source.index().and_then(|i| texts.get(i)) {
            Some(word) => ProbeError::EmbedWord {
                model: model(),
                word: (*word).to_owned(),
                source: Box::new(source),
            },
            None => ProbeError::Encoder {
                model: model(),
                source: Box::new(source),
            },
        })?;
    if vectors.len() != texts.len() {
        return Err(ProbeError::VectorCount {
            model: model(),
            found: vectors.len(),
            expected: texts.len(),
        });
    }
    let width = embedder.hidden_size();
    words
        .entries()
        .iter()
        .zip(vectors)
        .map(|(entry, vector)| {
            if vector.len() != width {
                return Err(ProbeError::VectorWidth {
                    model: model(),
                    word: entry.word.clone(),
                    text: entry.word.clone(),
                    found: vector.len(),
                    expected: width,
                });
            }
            Ok(ProbeWord {
                word: entry.word.clone(),
                class: entry.class.clone(),
                vector: vector.into_iter().map(f64::from).collect(),
            })
        })
        .collect()
}

/// The probe after step 1: the relevance order is fixed, sizes can be tested.
#[derive(Debug, Clone)]
pub struct Probe {
    protected: Vec<ProbeWord>,
    stereotyped: Vec<ProbeWord>,
    relevance_order: Vec<usize>,
}

impl Probe {
    /// Trains the first SVM on the protected words. All vectors must have the same width.
    pub fn fit(
        protected: Vec<ProbeWord>,
        stereotyped: Vec<ProbeWord>,
    ) -> Result<Probe, ProbeError> {
        let width = protected.first().map_or(0, |w| w.vector.len());
        if width < 2 {
            return Err(ProbeError::TooNarrow(width));
        }
        for (set, words) in [("protected", &protected), ("stereotyped", &stereotyped)] {
            for w in words {
                if w.vector.len() != width {
                    return Err(ProbeError::Width {
                        set,
                        word: w.word.clone(),
                        found: w.vector.len(),
                        expected: width,
                    });
                }
                if let Some(dimension) = w.vector.iter().position(|v| !v.is_finite()) {
                    return Err(ProbeError::NonFinite {
                        set,
                        word: w.word.clone(),
                        dimension,
                    });
                }
            }
        }
        let stereotyped_classes = sorted_classes(&stereotyped).len();
        if stereotyped_classes < 2 {
            return Err(ProbeError::StereotypedClasses(stereotyped_classes));
        }
        let model = train(&protected, None)?;
        Ok(Probe {
            relevance_order: model.relevance_order(),
            protected,
            stereotyped,
        })
    }

    /// Dimension indices, most relevant first.
    pub fn relevance_order(&self) -> &[usize] {
        &self.relevance_order
    }

    /// Width of the vectors: the largest size that can be tested.
    pub fn hidden_size(&self) -> usize {
        self.relevance_order.len()
    }

    /// Steps 2 and 3 for the `n` most relevant dimensions.
    pub fn step(&self, n: usize) -> Result<ProbeStep, ProbeError> {
        if n == 0 || n > self.hidden_size() {
            return Err(ProbeError::Size {
                n,
                hidden: self.hidden_size(),
            });
        }
        let dims = self.relevance_order[..n].to_vec();
        let model = train(&self.protected, Some(&dims))?;
        let rows: Vec<String> = sorted_classes(&self.stereotyped);
        let cols: Vec<String> = model.classes().to_vec();
        let mut table = vec![vec![0u64; cols.len()]; rows.len()];
        for word in &self.stereotyped {
            let reduced: Vec<f64> = dims.iter().map(|&j| word.vector[j]).collect();
            let predicted = model.predict(&reduced)?;
            let r = rows.binary_search(&word.class).expect("row of every class");
            let c = cols.binary_search(predicted).expect("col of every class");
            table[r][c] += 1;
        }
        let association = Association::of_table(&rows, &cols, &table);
        Ok(ProbeStep {
            n,
            dims,
            rows,
            cols,
            table,
            association,
        })
    }

    /// Every size from 2 to the hidden size, as in Dusi 2024's Figure 1.
    pub fn sweep(&self) -> Result<Vec<ProbeStep>, ProbeError> {
        (2..=self.hidden_size()).map(|n| self.step(n)).collect()
    }
}

fn sorted_classes(words: &[ProbeWord]) -> Vec<String> {
    words
        .iter()
        .map(|w| w.class.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// An SVM on the protected words, on all dimensions or on `dims` only.
fn train(
    protected: &[ProbeWord],
    dims: Option<&[usize]>,
) -> Result<LinearSvcModel<String>, ProbeError> {
    let samples: Vec<Vec<f64>> = protected
        .iter()
        .map(|w| match dims {
            Some(dims) => dims.iter().map(|&j| w.vector[j]).collect(),
            None => w.vector.clone(),
        })
        .collect();
    let labels: Vec<String> = protected.iter().map(|w| w.class.clone()).collect();
    Ok(LinearSvc::default().fit(&samples, &labels)?)
}

/// The χ² test of one table, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(into = "AssociationFields")]
pub enum Association {
    /// The χ² test of independence, without Yates' correction (as Dusi 2024).
    Tested {
        /// The χ² statistic.
        chi2: f64,
        /// Degrees of freedom: (rows − 1)(columns − 1).
        dof: usize,
        /// Upper-tail p of χ² with `dof` degrees of freedom.
        p_value: f64,
    },
    /// Some protected class was never predicted (zero expected counts).
    NotTestable {
        /// Which class or margin made the test undefined, for the reader.
        reason: String,
    },
}

impl Association {
    /// The test of `table` (rows: stereotyped classes, columns: the protected
    /// classes `cols`, both sorted).
    pub fn of_table(rows: &[String], cols: &[String], table: &[Vec<u64>]) -> Association {
        let name = |names: &[String], index: usize| {
            names
                .get(index)
                .map_or_else(|| index.to_string(), |n| format!("{n:?}"))
        };
        match chi2_independence(table) {
            Ok(test) => Association::Tested {
                chi2: test.chi2,
                dof: test.df,
                p_value: test.p_value,
            },
            Err(Chi2Error::ZeroMargin {
                axis: Axis::Column,
                index,
            }) => Association::NotTestable {
                reason: format!("protected class {} was never predicted", name(cols, index)),
            },
            Err(Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index,
            }) => Association::NotTestable {
                reason: format!("stereotyped class {} has no words", name(rows, index)),
            },
            Err(other) => Association::NotTestable {
                reason: other.to_string(),
            },
        }
    }

    /// The p-value, when the table was testable.
    pub fn p_value(&self) -> Option<f64> {
        match self {
            Association::Tested { p_value, .. } => Some(*p_value),
            Association::NotTestable { .. } => None,
        }
    }
}

/// One size of the probe: the table (rows = stereotyped classes, columns =
/// predicted protected classes, both sorted) and its test. Serialized as `{n, dims, rows,
/// cols, table, chi2, dof, p_value}`, an untestable size with those three null and a
/// `not_testable` reason.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeStep {
    /// How many of the most relevant dimensions the second SVM saw.
    pub n: usize,
    /// The dimensions used, most relevant first.
    pub dims: Vec<usize>,
    /// The stereotyped classes, sorted.
    pub rows: Vec<String>,
    /// The protected classes, sorted.
    pub cols: Vec<String>,
    /// `table[r][c]`: stereotyped words of class `rows[r]` predicted as `cols[c]`.
    pub table: Vec<Vec<u64>>,
    /// The χ² test of `table`, or why there is none.
    #[serde(flatten)]
    pub association: Association,
}

/// An [`Association`] as files hold it: `chi2`, `dof` and `p_value`, or those null and a
/// `not_testable` reason.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct AssociationFields {
    chi2: Option<f64>,
    dof: Option<usize>,
    p_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    not_testable: Option<String>,
}

impl From<Association> for AssociationFields {
    fn from(association: Association) -> AssociationFields {
        match association {
            Association::Tested { chi2, dof, p_value } => AssociationFields {
                chi2: Some(chi2),
                dof: Some(dof),
                p_value: Some(p_value),
                not_testable: None,
            },
            Association::NotTestable { reason } => AssociationFields {
                chi2: None,
                dof: None,
                p_value: None,
                not_testable: Some(reason),
            },
        }
    }
}

impl AssociationFields {
    /// The association, when the fields are one of the two shapes.
    fn association(self) -> Option<Association> {
        match (self.chi2, self.dof, self.p_value, self.not_testable) {
            (Some(chi2), Some(dof), Some(p_value), None) => {
                Some(Association::Tested { chi2, dof, p_value })
            }
            (None, None, None, Some(reason)) => Some(Association::NotTestable { reason }),
            _ => None,
        }
    }
}

impl ProbeStep {
    /// The p-value, when this size was testable.
    pub fn p_value(&self) -> Option<f64> {
        self.association.p_value()
    }

    /// The table tested against the null Dusi (2024) states, "equal probabilities for each
    /// predicted class" within each stereotyped value (each row's fit to equal columns,
    /// summed); `None` where a row is empty. The paper's printed p is the test of
    /// independence ([`Association`]); lmbias-report shows both.
    pub fn fit_equal_within_rows(&self) -> Option<Chi2Result> {
        chi2_equal_within_rows(&self.table).ok()
    }
}

/// One pair of lists on one model, swept over every size; saved as [`SavedRun`] lays it out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "SavedRun", try_from = "SavedRun")]
pub struct ProbeRun {
    /// The model's name.
    pub model: String,
    /// The pair's name: one of Dusi's (lmbias-papers' `dusi::PAIRS`), or
    /// "PROTECTED × STEREOTYPED" for other lists.
    pub pair: String,
    /// Dimension indices, most relevant first ([`Probe::relevance_order`]).
    pub relevance_order: Vec<usize>,
    /// Every size from 2 to the hidden size ([`Probe::sweep`]).
    pub sweep: Vec<ProbeStep>,
}

impl ProbeRun {
    /// The smallest p over the sweep and the n where it occurs.
    pub fn min_p(&self) -> Option<(usize, f64)> {
        self.sweep
            .iter()
            .filter_map(|s| s.p_value().map(|p| (s.n, p)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The step at size `n`, or `None` when the sweep has none.
    pub fn at(&self, n: usize) -> Option<&ProbeStep> {
        self.sweep.iter().find(|s| s.n == n)
    }

    /// The model's width: the largest size swept.
    pub fn width(&self) -> usize {
        self.relevance_order.len()
    }
}

/// A [`ProbeRun`] as its files hold it, `{model, pair, rows, cols, relevance_order, sweep:
/// [{n, table, chi2, dof, p_value}]}`: the dimensions of size n are the first n of
/// `relevance_order`, and rows/cols are the same at every size, so neither is repeated per
/// step (that would be O(hidden²)). Read back, each step gets both again, so that runs
/// saved by one process (a shard of a checkpoint sweep) can be reported by another.
#[derive(Serialize, Deserialize)]
struct SavedRun {
    model: String,
    pair: String,
    rows: Option<Vec<String>>,
    cols: Option<Vec<String>>,
    relevance_order: Vec<usize>,
    sweep: Vec<SavedStep>,
}

/// One size of a [`SavedRun`]: its table and test, or why it has none.
#[derive(Serialize, Deserialize)]
struct SavedStep {
    n: usize,
    table: Vec<Vec<u64>>,
    #[serde(flatten)]
    association: AssociationFields,
}

impl From<ProbeRun> for SavedRun {
    fn from(run: ProbeRun) -> SavedRun {
        let first = run.sweep.first();
        let (rows, cols) = (first.map(|f| f.rows.clone()), first.map(|f| f.cols.clone()));
        let sweep = run
            .sweep
            .into_iter()
            .map(|step| SavedStep {
                n: step.n,
                table: step.table,
                association: step.association.into(),
            })
            .collect();
        SavedRun {
            model: run.model,
            pair: run.pair,
            rows,
            cols,
            relevance_order: run.relevance_order,
            sweep,
        }
    }
}

impl TryFrom<SavedRun> for ProbeRun {
    type Error = String;

    fn try_from(run: SavedRun) -> Result<ProbeRun, String> {
        let (rows, cols) = (run.rows.unwrap_or_default(), run.cols.unwrap_or_default());
        let sweep = run
            .sweep
            .into_iter()
            .map(|s| {
                let association = s.association.association().ok_or_else(|| {
                    format!(
                        "{} {}: step n = {}: give chi2, dof and p_value, or a not_testable reason",
                        run.model, run.pair, s.n
                    )
                })?;
                let dims = run.relevance_order.get(..s.n).ok_or_else(|| {
                    format!(
                        "{} {}: step n = {} exceeds the {} dimensions of relevance_order",
                        run.model,
                        run.pair,
                        s.n,
                        run.relevance_order.len()
                    )
                })?;
                Ok(ProbeStep {
                    n: s.n,
                    dims: dims.to_vec(),
                    rows: rows.clone(),
                    cols: cols.clone(),
                    table: s.table,
                    association,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(ProbeRun {
            model: run.model,
            pair: run.pair,
            relevance_order: run.relevance_order,
            sweep,
        })
    }
}

/// Why the probe could not run. One line, naming the model, word or set; the
/// encoder's or the SVM's error is the [`source`](std::error::Error::source),
/// never repeated in the message.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// Every word needs a template to be embedded in.
    #[error(
        "word {} (descriptor {}) fits none of the templates",
        quote(word),
        quote(descriptor)
    )]
    NoTemplate {
        /// The word.
        word: String,
        /// Its descriptor, empty when it has none.
        descriptor: String,
    },
    /// The model refused one word in one template (too long, say).
    #[error("model {model}: cannot embed word {} in {}", quote(word), quote(text))]
    Embed {
        /// The model's name.
        model: String,
        /// The word.
        word: String,
        /// The template filled with the word.
        text: String,
        /// The encoder's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The model refused one word embedded alone ([`word_vectors`]); for static
    /// vectors, a word without a vector.
    #[error("model {model}: cannot embed word {}", quote(word))]
    EmbedWord {
        /// The model's name.
        model: String,
        /// The word.
        word: String,
        /// The encoder's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The model failed on the words as a whole, not on one sentence.
    #[error("model {model}: cannot embed the words")]
    Encoder {
        /// The model's name.
        model: String,
        /// The encoder's reason.
        #[source]
        source: Box<EncoderError>,
    },
    /// The model broke the `Embedder` contract of one vector per item.
    #[error("model {model}: returned {found} vectors for {expected} words in context")]
    VectorCount {
        /// The model's name.
        model: String,
        /// Vectors returned.
        found: usize,
        /// Words in context sent.
        expected: usize,
    },
    /// The model broke the `Embedder` contract of vectors of its hidden size.
    #[error(
        "model {model}: word {} in {} has {found} values, expected hidden size {expected}",
        quote(word),
        quote(text)
    )]
    VectorWidth {
        /// The model's name.
        model: String,
        /// The word.
        word: String,
        /// The template filled with the word.
        text: String,
        /// Values returned.
        found: usize,
        /// The model's hidden size.
        expected: usize,
    },
    /// Every vector must have the first protected word's width.
    #[error(
        "{set} word {} has {found} dimensions, expected {expected}",
        quote(word)
    )]
    Width {
        /// "protected" or "stereotyped".
        set: &'static str,
        /// The word.
        word: String,
        /// Its width.
        found: usize,
        /// The first protected word's width.
        expected: usize,
    },
    /// The SVM cannot learn from NaN or infinite values.
    #[error(
        "{set} word {} has a non-finite value in dimension {dimension}",
        quote(word)
    )]
    NonFinite {
        /// "protected" or "stereotyped".
        set: &'static str,
        /// The word.
        word: String,
        /// The first non-finite dimension.
        dimension: usize,
    },
    /// The sweep starts at 2 dimensions.
    #[error("vectors need at least 2 dimensions, found {0}")]
    TooNarrow(usize),
    /// A χ² table needs two rows.
    #[error("stereotyped words need at least 2 classes, found {0}")]
    StereotypedClasses(usize),
    /// [`Probe::step`] takes 1 ..= hidden size dimensions.
    #[error("size {n} is outside 1..={hidden}")]
    Size {
        /// The size asked for.
        n: usize,
        /// The vectors' width.
        hidden: usize,
    },
    /// The linear SVM could not be trained or applied.
    #[error("linear SVM")]
    Svm(#[from] FitError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_core::Pooling;
    use lmbias_core::testing::FakeEmbedder;
    use lmbias_data::probe::WordEntry;
    use std::path::Path;

    /// A word in context: [word length, template id (1 for "A …", else 2; ∞ in a
    /// sentence with "NAN"), 1, sentence length]. A word alone ([`word_vectors`]):
    /// [length, 0, 1, length], NaN second in "NAN". "zzz" is refused as too long.
    fn fake() -> FakeEmbedder {
        FakeEmbedder::new("fake", 4)
            .with_pooling(Pooling::Mean)
            .with_text_vectors(|t| {
                let second = if t.contains("NAN") { f32::NAN } else { 0.0 };
                vec![t.len() as f32, second, 1.0, t.len() as f32]
            })
            .with_word_vectors(|item| {
                let template = if item.text.contains("NAN") {
                    f32::INFINITY
                } else if item.text.starts_with("A ") {
                    1.0
                } else {
                    2.0
                };
                vec![
                    item.word.len() as f32,
                    template,
                    1.0,
                    item.text.len() as f32,
                ]
            })
            .refusing("zzz", |index, text| EncoderError::TooLong {
                index,
                tokens: 9,
                max: 8,
                text: text.to_owned(),
            })
    }

    fn entry(word: &str, class: &str, descriptor: Option<&str>) -> WordEntry {
        WordEntry {
            word: word.into(),
            class: class.into(),
            descriptor: descriptor.map(Into::into),
        }
    }

    #[test]
    fn word_vectors_average_the_templates_that_accept_them() {
        let words = WordList::from_entries(
            Path::new("words.csv"),
            vec![
                entry("cat", "animal", Some("noun")),
                entry("horse", "animal", None),
                entry("red", "colour", Some("adj")),
                entry("blue", "colour", Some("adj")),
            ],
        )
        .unwrap();
        let templates = [
            Template::parse("A [WORD:noun] sat.").unwrap(),
            Template::parse("The [WORD] is here.").unwrap(),
        ];
        let vectors = embed_words(&fake(), &words, &templates, Layer::Last).unwrap();
        // "cat": "A cat sat." (10 bytes, template 1) and "The cat is here." (16 bytes, template 2).
        assert_eq!(vectors[0].vector, [3.0, 1.5, 1.0, 13.0]);
        assert_eq!(vectors[0].class, "animal");
        // "red" only fits the second template.
        assert_eq!(vectors[2].vector, [3.0, 2.0, 1.0, 16.0]);

        // A sentence the model refuses is named by its word, the cause printed once.
        let with_bad = WordList::from_entries(
            Path::new("words.csv"),
            vec![
                entry("cat", "animal", None),
                entry("zzz", "animal", None),
                entry("red", "colour", None),
                entry("blue", "colour", None),
            ],
        )
        .unwrap();
        let err = embed_words(&fake(), &with_bad, &templates, Layer::Last).unwrap_err();
        assert!(
            matches!(&err, ProbeError::Embed { word, .. } if word == "zzz"),
            "{err}"
        );
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(
            format!("{err}: {cause}"),
            "model fake: cannot embed word \"zzz\" in \"A zzz sat.\": \
             text 2 has 9 tokens, more than the model's 8 positions: \"A zzz sat.\""
        );

        let only_nouns = [Template::parse("A [WORD:noun] sat.").unwrap()];
        let err = embed_words(&fake(), &words, &only_nouns, Layer::Last).unwrap_err();
        assert_eq!(
            err.to_string(),
            "word \"red\" (descriptor \"adj\") fits none of the templates"
        );
    }

    #[test]
    fn word_vectors_embed_each_word_alone() {
        let list = |last: &str| {
            WordList::from_entries(
                Path::new("words.csv"),
                vec![
                    entry("cat", "animal", Some("noun")),
                    entry("horse", "animal", None),
                    entry("red", "colour", None),
                    entry(last, "colour", None),
                ],
            )
            .unwrap()
        };
        let vectors = word_vectors(&fake(), &list("blue"), Layer::Last).unwrap();
        assert_eq!(vectors[0].vector, [3.0, 0.0, 1.0, 3.0]);
        assert_eq!(
            (vectors[1].word.as_str(), vectors[1].class.as_str()),
            ("horse", "animal")
        );
        assert_eq!(vectors[1].vector, [5.0, 0.0, 1.0, 5.0]);
        let err = word_vectors(&fake(), &list("zzz"), Layer::Last).unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert!(
            format!("{err}: {cause}").starts_with("model fake: cannot embed word \"zzz\": "),
            "{err}: {cause}"
        );
    }

    /// A NaN or infinite vector is an error naming the model, the word and its
    /// sentence, not a NaN mean that the probe's fit would silently take.
    #[test]
    fn a_non_finite_vector_names_the_model_and_word() {
        let words = WordList::from_entries(
            Path::new("words.csv"),
            vec![
                entry("cat", "animal", None),
                entry("NAN", "animal", None),
                entry("red", "colour", None),
                entry("blue", "colour", None),
            ],
        )
        .unwrap();
        let templates = [Template::parse("The [WORD] is here.").unwrap()];
        let err = embed_words(&fake(), &words, &templates, Layer::Last).unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(
            format!("{err}: {cause}"),
            "model fake: cannot embed word \"NAN\" in \"The NAN is here.\": \
             text 1: the model's output value 1 is inf, not a finite number"
        );
        let err = word_vectors(&fake(), &words, Layer::Last).unwrap_err();
        let cause = std::error::Error::source(&err).unwrap().to_string();
        assert_eq!(
            format!("{err}: {cause}"),
            "model fake: cannot embed word \"NAN\": \
             text 1: the model's output value 1 is NaN, not a finite number"
        );
    }

    fn word(name: String, class: &str, vector: Vec<f64>) -> ProbeWord {
        ProbeWord {
            word: name,
            class: class.into(),
            vector,
        }
    }

    /// Deterministic noise in [-0.5, 0.5).
    fn noise(seed: u64) -> f64 {
        let x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 11) as f64 / (1u64 << 53) as f64) - 0.5
    }

    /// 10 dimensions of noise; protected classes differ on dimension 7 only;
    /// "bad" words lean towards "muslim" there, "good" words towards "christian".
    fn planted(lean: f64) -> (Vec<ProbeWord>, Vec<ProbeWord>) {
        let vector = |id: u64, signal: f64| -> Vec<f64> {
            (0..10)
                .map(|j| {
                    if j == 7 {
                        signal + 0.3 * noise(id * 10 + j)
                    } else {
                        noise(id * 10 + j)
                    }
                })
                .collect()
        };
        let mut protected = Vec::new();
        for i in 0..12 {
            protected.push(word(format!("c{i}"), "christian", vector(i, 2.0)));
            protected.push(word(format!("m{i}"), "muslim", vector(100 + i, -2.0)));
        }
        let mut stereotyped = Vec::new();
        for i in 0..20 {
            stereotyped.push(word(format!("g{i}"), "good", vector(200 + i, lean)));
            stereotyped.push(word(format!("b{i}"), "bad", vector(300 + i, -lean)));
        }
        (protected, stereotyped)
    }

    #[test]
    fn planted_association_is_found() {
        let (protected, stereotyped) = planted(1.0);
        let probe = Probe::fit(protected, stereotyped).unwrap();
        assert_eq!(probe.relevance_order()[0], 7);
        assert_eq!(probe.hidden_size(), 10);
        let step = probe.step(1).unwrap();
        assert_eq!(step.dims, [7]);
        assert_eq!(step.rows, ["bad", "good"]);
        assert_eq!(step.cols, ["christian", "muslim"]);
        // On dimension 7 alone every word lands on its planted side.
        assert_eq!(step.table, [[0, 20], [20, 0]]);
        let Association::Tested { chi2, dof, p_value } = step.association else {
            panic!("{:?}", step.association)
        };
        // χ² of a perfectly separated 2×2 table with 40 words is N = 40.
        assert!((chi2 - 40.0).abs() < 1e-9);
        assert_eq!(dof, 1);
        assert!(p_value < 1e-9);
        let sweep = probe.sweep().unwrap();
        assert_eq!(sweep.len(), 9);
        assert_eq!(
            sweep.iter().map(|s| s.n).collect::<Vec<_>>(),
            (2..=10).collect::<Vec<_>>()
        );
        assert!(
            sweep
                .iter()
                .all(|s| s.table.iter().flatten().sum::<u64>() == 40)
        );
    }

    #[test]
    fn a_class_never_predicted_is_not_testable() {
        // Every stereotyped word sits far on the christian side.
        let (protected, mut stereotyped) = planted(1.0);
        for w in &mut stereotyped {
            w.vector[7] = 5.0;
        }
        let probe = Probe::fit(protected, stereotyped).unwrap();
        let step = probe.step(1).unwrap();
        assert_eq!(step.table, [[20, 0], [20, 0]]);
        assert_eq!(
            step.association,
            Association::NotTestable {
                reason: "protected class \"muslim\" was never predicted".into()
            }
        );
        assert_eq!(step.p_value(), None);
        let json = serde_json::to_value(&step).unwrap();
        assert_eq!(json["p_value"], serde_json::Value::Null);
        assert_eq!(
            json["not_testable"],
            "protected class \"muslim\" was never predicted"
        );
    }

    #[test]
    fn bad_vectors_are_named() {
        let (protected, mut stereotyped) = planted(1.0);
        stereotyped[3].vector[2] = f64::NAN;
        let err = Probe::fit(protected.clone(), stereotyped).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stereotyped word \"b1\" has a non-finite value in dimension 2"
        );
        let (_, mut stereotyped) = planted(1.0);
        stereotyped[0].vector.pop();
        let err = Probe::fit(protected, stereotyped).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stereotyped word \"g0\" has 9 dimensions, expected 10"
        );
    }
}
