//! The categorical-association probe of Dusi 2024 ("Discrimination Bias
//! Detection through Categorical Association in Pre-trained Language Models").
//!
//! 1. A linear SVM (`LinearSVC(dual=False)`, C = 1) learns the protected classes
//!    (e.g. christian / muslim) from the protected words' vectors. The relevance
//!    of dimension j is |w_j|, averaged over the one-vs-rest weight vectors when
//!    there are more than two classes.
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

use std::collections::BTreeSet;

use lmbias_data::probe::{Template, WordList};
use lmbias_encoder::{Embedder, EncoderError, Layer, WordInContext};
use lmbias_linear::{LinearSvc, LinearSvcModel, SvmError};
use lmbias_metrics::chi2::{Axis, Chi2Error, chi2_independence};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// How many (word, template) sentences go to the model per call.
const EMBED_BATCH: usize = 64;

/// A word, its class and its vector.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeWord {
    pub word: String,
    pub class: String,
    pub vector: Vec<f64>,
}

/// Vectors for every word of `words`: each word is put into every template that
/// accepts it, embedded (mean over its pieces), and averaged over templates.
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
    let width = embedder.hidden_size();
    let mut sums = vec![vec![0.0f64; width]; words.entries().len()];
    let mut counts = vec![0usize; words.entries().len()];
    for chunk in sentences.chunks(EMBED_BATCH) {
        let items: Vec<WordInContext<'_>> = chunk
            .iter()
            .map(|(_, text, range)| WordInContext {
                text,
                word: range.clone(),
            })
            .collect();
        let vectors = embedder.embed_words(&items, layer)?;
        for ((index, text, _), vector) in chunk.iter().zip(vectors) {
            if vector.len() != width {
                return Err(ProbeError::Encoder(EncoderError::Backend(format!(
                    "{} values for {text:?}, expected hidden size {width}",
                    vector.len()
                ))));
            }
            for (sum, v) in sums[*index].iter_mut().zip(&vector) {
                *sum += f64::from(*v);
            }
            counts[*index] += 1;
        }
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
#[derive(Debug, Clone, PartialEq)]
pub enum Association {
    Tested {
        chi2: f64,
        dof: usize,
        p_value: f64,
    },
    /// Some protected class was never predicted (zero expected counts).
    NotTestable {
        reason: String,
    },
}

impl Association {
    /// The test of `table` (rows: stereotyped classes, columns: the protected
    /// classes `cols`, both sorted).
    pub fn of_table(rows: &[String], cols: &[String], table: &[Vec<u64>]) -> Association {
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
                reason: format!("protected class {:?} was never predicted", cols[index]),
            },
            Err(Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index,
            }) => Association::NotTestable {
                reason: format!("stereotyped class {:?} has no words", rows[index]),
            },
            Err(other) => Association::NotTestable {
                reason: other.to_string(),
            },
        }
    }
}

/// One size of the probe: the table (rows = stereotyped classes, columns =
/// predicted protected classes, both sorted) and its test.
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeStep {
    pub n: usize,
    /// The dimensions used, most relevant first.
    pub dims: Vec<usize>,
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    pub table: Vec<Vec<u64>>,
    pub association: Association,
}

impl ProbeStep {
    pub fn p_value(&self) -> Option<f64> {
        match self.association {
            Association::Tested { p_value, .. } => Some(p_value),
            Association::NotTestable { .. } => None,
        }
    }
}

/// `{n, dims, rows, cols, table, chi2, dof, p_value}`; an untestable size has
/// `chi2`, `dof` and `p_value` null and a `not_testable` reason.
impl Serialize for ProbeStep {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (chi2, dof, p_value, reason) = match &self.association {
            Association::Tested { chi2, dof, p_value } => {
                (Some(*chi2), Some(*dof), Some(*p_value), None)
            }
            Association::NotTestable { reason } => (None, None, None, Some(reason)),
        };
        let mut st = s.serialize_struct("ProbeStep", 9)?;
        st.serialize_field("n", &self.n)?;
        st.serialize_field("dims", &self.dims)?;
        st.serialize_field("rows", &self.rows)?;
        st.serialize_field("cols", &self.cols)?;
        st.serialize_field("table", &self.table)?;
        st.serialize_field("chi2", &chi2)?;
        st.serialize_field("dof", &dof)?;
        st.serialize_field("p_value", &p_value)?;
        match reason {
            Some(reason) => st.serialize_field("not_testable", reason)?,
            None => st.skip_field("not_testable")?,
        }
        st.end()
    }
}

/// Why the probe could not run. One line, naming the word or set.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("word {word:?} (descriptor {descriptor:?}) fits none of the templates")]
    NoTemplate { word: String, descriptor: String },
    #[error("{set} word {word:?} has {found} dimensions, expected {expected}")]
    Width {
        set: &'static str,
        word: String,
        found: usize,
        expected: usize,
    },
    #[error("{set} word {word:?} has a non-finite value in dimension {dimension}")]
    NonFinite {
        set: &'static str,
        word: String,
        dimension: usize,
    },
    #[error("vectors need at least 2 dimensions, found {0}")]
    TooNarrow(usize),
    #[error("stereotyped words need at least 2 classes, found {0}")]
    StereotypedClasses(usize),
    #[error("size {n} is outside 1..={hidden}")]
    Size { n: usize, hidden: usize },
    #[error("linear SVM: {0}")]
    Svm(#[from] SvmError),
    #[error("encoder: {0}")]
    Encoder(#[from] EncoderError),
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_data::probe::WordEntry;
    use lmbias_encoder::{Piece, Pooling};
    use std::path::Path;

    /// Vector of a word in context: [word length, template id, 1, sentence length].
    struct FakeEmbedder;

    impl Embedder for FakeEmbedder {
        fn model_name(&self) -> &str {
            "fake"
        }
        fn hidden_size(&self) -> usize {
            4
        }
        fn num_layers(&self) -> usize {
            1
        }
        fn embed(&self, _: &[&str], _: Pooling, _: Layer) -> Result<Vec<Vec<f32>>, EncoderError> {
            unreachable!("the probe embeds words in context")
        }
        fn embed_words(
            &self,
            items: &[WordInContext<'_>],
            _: Layer,
        ) -> Result<Vec<Vec<f32>>, EncoderError> {
            Ok(items
                .iter()
                .map(|item| {
                    let template = if item.text.starts_with("A ") {
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
                .collect())
        }
        fn tokenize(&self, _: &str) -> Result<Vec<Piece>, EncoderError> {
            unreachable!()
        }
        fn lowercases(&self) -> bool {
            false
        }
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
        let vectors = embed_words(&FakeEmbedder, &words, &templates, Layer::Last).unwrap();
        // "cat": "A cat sat." (10 bytes, template 1) and "The cat is here." (16 bytes, template 2).
        assert_eq!(vectors[0].vector, [3.0, 1.5, 1.0, 13.0]);
        assert_eq!(vectors[0].class, "animal");
        // "red" only fits the second template.
        assert_eq!(vectors[2].vector, [3.0, 2.0, 1.0, 16.0]);

        let only_nouns = [Template::parse("A [WORD:noun] sat.").unwrap()];
        let err = embed_words(&FakeEmbedder, &words, &only_nouns, Layer::Last).unwrap_err();
        assert_eq!(
            err.to_string(),
            "word \"red\" (descriptor \"adj\") fits none of the templates"
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
