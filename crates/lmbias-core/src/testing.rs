//! Fake encoders for tests (the `testing` feature): a study's or a front-end's tests
//! run against these instead of a Burn model, and every test that needs one uses the
//! same two types, configured for what it plants.
//!
//! Both are `Send + Sync`, as the models they stand in for. A fake configured wrongly
//! (a vector of the wrong width, a text it has no answer for) panics: that is a bug in
//! the test, not an input to report.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::{
    Embedder, Encoded, EncoderError, HiddenPiece, HiddenScore, HiddenSpan, Layer, MaskedLm, Piece,
    PieceScores, Pooling, Prediction, WordInContext,
};

type TextVector = Box<dyn Fn(&str) -> Vec<f32> + Send + Sync>;
type WordVector = Box<dyn Fn(&WordInContext<'_>) -> Vec<f32> + Send + Sync>;
type Refusal = (
    String,
    Box<dyn Fn(usize, &str) -> EncoderError + Send + Sync>,
);

/// `dim` values of deterministic noise in [-0.5, 0.5) drawn from `text` (FNV-1a, then an
/// LCG): the same text always gets the same vector, different texts unrelated ones.
pub fn noise(text: &str, dim: usize) -> Vec<f32> {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    (0..dim)
        .map(|_| {
            h = h
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((h >> 40) as f32 / (1u64 << 24) as f32) - 0.5
        })
        .collect()
}

/// A fake [`Embedder`] with one layer. A text's vector is [`noise`] unless the test
/// gives its own rule ([`with_text_vectors`](Self::with_text_vectors)), a word's in
/// context likewise ([`with_word_vectors`](Self::with_word_vectors), default: the
/// noise of the word's own text); a text holding a marker is refused
/// ([`refusing`](Self::refusing)). It records what it was asked, so a test can check
/// that a study batches its texts and embeds each once.
///
/// Its tokenizer makes one piece per 4 characters of each whitespace-separated word
/// (ids count the pieces of a word), and a word holding a `q` is unknown.
pub struct FakeEmbedder {
    name: String,
    hidden_size: usize,
    pooling: Pooling,
    lowercases: bool,
    text_vector: TextVector,
    word_vector: WordVector,
    refusals: Vec<Refusal>,
    embedded: Mutex<Vec<String>>,
    calls: AtomicUsize,
}

impl FakeEmbedder {
    /// A model named `name` with vectors of width `hidden_size`, [`Pooling::Cls`] by
    /// default, cased, refusing nothing.
    pub fn new(name: &str, hidden_size: usize) -> Self {
        FakeEmbedder {
            name: name.to_owned(),
            hidden_size,
            pooling: Pooling::Cls,
            lowercases: false,
            text_vector: Box::new(move |text| noise(text, hidden_size)),
            word_vector: Box::new(move |item| noise(&item.text[item.word.clone()], hidden_size)),
            refusals: Vec::new(),
            embedded: Mutex::new(Vec::new()),
            calls: AtomicUsize::new(0),
        }
    }

    /// Its [`Embedder::default_pooling`].
    pub fn with_pooling(mut self, pooling: Pooling) -> Self {
        self.pooling = pooling;
        self
    }

    /// An uncased model: [`Embedder::lowercases`] is true.
    pub fn lowercasing(mut self) -> Self {
        self.lowercases = true;
        self
    }

    /// The vector [`Embedder::embed`] returns for a text, whatever the pooling.
    pub fn with_text_vectors(
        mut self,
        vector: impl Fn(&str) -> Vec<f32> + Send + Sync + 'static,
    ) -> Self {
        self.text_vector = Box::new(vector);
        self
    }

    /// The vector [`Embedder::embed_words`] returns for a word in its sentence.
    pub fn with_word_vectors(
        mut self,
        vector: impl Fn(&WordInContext<'_>) -> Vec<f32> + Send + Sync + 'static,
    ) -> Self {
        self.word_vector = Box::new(vector);
        self
    }

    /// A call to `embed` or `embed_words` whose texts include one holding `marker` fails
    /// with `error(index, text)` for the first such text. Refusals are checked in the order
    /// they were added, each over the whole call.
    pub fn refusing(
        mut self,
        marker: &str,
        error: impl Fn(usize, &str) -> EncoderError + Send + Sync + 'static,
    ) -> Self {
        self.refusals.push((marker.to_owned(), Box::new(error)));
        self
    }

    /// What [`Embedder::embed`] returns for `text`, without counting a call.
    pub fn text_vector(&self, text: &str) -> Vec<f32> {
        let vector = (self.text_vector)(text);
        assert_eq!(vector.len(), self.hidden_size, "fake vector of {text:?}");
        vector
    }

    /// The texts of every call that succeeded, in order (a word's sentence for `embed_words`).
    pub fn embedded(&self) -> Vec<String> {
        self.embedded.lock().unwrap().clone()
    }

    /// How many times `embed` or `embed_words` was called, failed calls included.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    fn answer(
        &self,
        texts: &[&str],
        layer: Layer,
        vector: impl Fn(usize) -> Vec<f32>,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Layer::Index(requested) = layer
            && requested > self.num_layers()
        {
            return Err(EncoderError::Layer {
                requested,
                available: self.num_layers(),
            });
        }
        for (marker, error) in &self.refusals {
            if let Some(index) = texts.iter().position(|t| t.contains(marker.as_str())) {
                return Err(error(index, texts[index]));
            }
        }
        let vectors: Vec<Vec<f32>> = (0..texts.len()).map(vector).collect();
        for (text, v) in texts.iter().zip(&vectors) {
            assert_eq!(v.len(), self.hidden_size, "fake vector of {text:?}");
        }
        let mut embedded = self.embedded.lock().unwrap();
        embedded.extend(texts.iter().map(|t| t.to_string()));
        Ok(vectors)
    }
}

impl Embedder for FakeEmbedder {
    fn model_name(&self) -> &str {
        &self.name
    }
    fn hidden_size(&self) -> usize {
        self.hidden_size
    }
    fn num_layers(&self) -> usize {
        1
    }
    fn default_pooling(&self) -> Pooling {
        self.pooling
    }
    fn embed(
        &self,
        texts: &[&str],
        _: Pooling,
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        self.answer(texts, layer, |i| (self.text_vector)(texts[i]))
    }
    fn embed_words(
        &self,
        items: &[WordInContext<'_>],
        layer: Layer,
    ) -> Result<Vec<Vec<f32>>, EncoderError> {
        let texts: Vec<&str> = items.iter().map(|item| item.text).collect();
        self.answer(&texts, layer, |i| (self.word_vector)(&items[i]))
    }
    fn tokenize(&self, text: &str) -> Result<Vec<Piece>, EncoderError> {
        Ok(text
            .split_whitespace()
            .flat_map(|w| {
                let n = w.chars().count().div_ceil(4);
                let unknown = w.contains('q');
                (0..n).map(move |i| Piece {
                    id: i as u32,
                    token: w.to_owned(),
                    unknown,
                })
            })
            .collect())
    }
    fn lowercases(&self) -> bool {
        self.lowercases
    }
}

type PieceId = Box<dyn Fn(&str) -> Option<u32> + Send + Sync>;
type LogProb = Box<dyn Fn(&[u32], usize, bool) -> f64 + Send + Sync>;

/// A fake [`MaskedLm`] whose proposals for each text are fixed by the test
/// ([`with_answer`](Self::with_answer)), most probable first; the probability of any
/// id it does not propose is 0. A text without exactly one of its mask token is
/// [`EncoderError::MaskCount`], as for a real model.
///
/// For the likelihood measures it reads a text as its space-separated words between `<s>`
/// and `</s>` (each must be in the vocabulary), and a piece's log-probability is what
/// [`with_log_probs`](Self::with_log_probs) says (by default −ln(id + 2), masked or not);
/// every position receives the same attention.
pub struct FakeMaskedLm {
    name: String,
    mask: String,
    piece_id: PieceId,
    answers: HashMap<String, Vec<(String, f32)>>,
    log_prob: LogProb,
}

impl FakeMaskedLm {
    /// A model named `name` with mask token `mask_token` whose vocabulary is `vocab`,
    /// each piece's id its position there.
    pub fn new(name: &str, mask_token: &str, vocab: &[&str]) -> Self {
        let ids: HashMap<String, u32> = vocab.iter().map(|t| t.to_string()).zip(0..).collect();
        Self::with_piece_ids(name, mask_token, move |token| ids.get(token).copied())
    }

    /// A model whose vocabulary is what `piece_id` says it is (a real tokenizer's
    /// `piece_id`, normalisation included).
    pub fn with_piece_ids(
        name: &str,
        mask_token: &str,
        piece_id: impl Fn(&str) -> Option<u32> + Send + Sync + 'static,
    ) -> Self {
        FakeMaskedLm {
            name: name.to_owned(),
            mask: mask_token.to_owned(),
            piece_id: Box::new(piece_id),
            answers: HashMap::new(),
            log_prob: Box::new(|ids, position, _| -f64::from(ids[position] + 2).ln()),
        }
    }

    /// The log-probability of `ids[position]` in `ids`, given whether it is hidden
    /// (`true`: pseudo-log-likelihood) or read unmasked (AUL).
    pub fn with_log_probs(
        mut self,
        log_prob: impl Fn(&[u32], usize, bool) -> f64 + Send + Sync + 'static,
    ) -> Self {
        self.log_prob = Box::new(log_prob);
        self
    }

    /// The proposals for `text` (written with this model's mask token), most probable
    /// first; replaces any given before. Each token must be in the vocabulary.
    pub fn with_answer(mut self, text: &str, proposals: &[(&str, f32)]) -> Self {
        let proposals = proposals.iter().map(|&(t, p)| (t.to_owned(), p)).collect();
        self.answers.insert(text.to_owned(), proposals);
        self
    }

    /// The proposals for text `index` of a call, or its mask-count error.
    fn proposals(&self, index: usize, text: &str) -> Result<&[(String, f32)], EncoderError> {
        let found = text.matches(self.mask.as_str()).count();
        if found != 1 {
            return Err(EncoderError::MaskCount {
                index,
                mask: self.mask.clone(),
                found,
                text: text.to_owned(),
            });
        }
        match self.answers.get(text) {
            Some(proposals) => Ok(proposals),
            None => panic!("the fake masked LM has no answer for {text:?}"),
        }
    }

    fn id(&self, token: &str) -> u32 {
        self.piece_id(token).unwrap_or_else(|| {
            panic!("the fake masked LM's vocabulary lacks its proposal {token:?}")
        })
    }
}

impl MaskedLm for FakeMaskedLm {
    fn model_name(&self) -> &str {
        &self.name
    }
    fn mask_token(&self) -> &str {
        &self.mask
    }
    fn fill_mask(
        &self,
        texts: &[&str],
        top_k: usize,
    ) -> Result<Vec<Vec<Prediction>>, EncoderError> {
        texts
            .iter()
            .enumerate()
            .map(|(index, text)| {
                Ok(self
                    .proposals(index, text)?
                    .iter()
                    .take(top_k)
                    .map(|(token, prob)| Prediction {
                        token: token.clone(),
                        text: token.clone(),
                        id: self.id(token),
                        prob: *prob,
                    })
                    .collect())
            })
            .collect()
    }
    fn piece_id(&self, token: &str) -> Option<u32> {
        (self.piece_id)(token)
    }
    fn token_probs(&self, text: &str, ids: &[u32]) -> Result<Vec<f32>, EncoderError> {
        let proposals = self.proposals(0, text)?;
        Ok(ids
            .iter()
            .map(|&id| {
                proposals
                    .iter()
                    .find(|(token, _)| self.id(token) == id)
                    .map_or(0.0, |&(_, prob)| prob)
            })
            .collect())
    }
    fn encode(&self, texts: &[&str]) -> Result<Vec<Encoded>, EncoderError> {
        texts
            .iter()
            .enumerate()
            .map(|(index, text)| {
                let words: Vec<&str> = text.split_whitespace().collect();
                if words.is_empty() {
                    return Err(EncoderError::EmptyText { index });
                }
                let tokens: Vec<String> = std::iter::once("<s>")
                    .chain(words)
                    .chain(std::iter::once("</s>"))
                    .map(str::to_owned)
                    .collect();
                let ids = tokens
                    .iter()
                    .map(|t| {
                        self.piece_id(t).ok_or_else(|| EncoderError::Tokenizer {
                            index,
                            message: format!("{t:?} is not in the fake's vocabulary"),
                        })
                    })
                    .collect::<Result<_, _>>()?;
                let last = tokens.len() - 1;
                Ok(Encoded {
                    ids,
                    special: (0..tokens.len()).map(|i| i == 0 || i == last).collect(),
                    tokens,
                })
            })
            .collect()
    }
    /// The piece's log-probability as [`with_log_probs`](Self::with_log_probs) says; its
    /// rank is `1 + id % 3`, the best log-probability −ln 2, and every position of the input
    /// receives the same attention.
    fn hidden_scores(
        &self,
        items: &[HiddenPiece<'_>],
        attention: bool,
    ) -> Result<Vec<HiddenScore>, EncoderError> {
        Ok(items
            .iter()
            .map(|item| HiddenScore {
                log_prob: (self.log_prob)(item.ids, item.position, true),
                top_log_prob: -(2f64.ln()),
                rank: 1 + item.ids[item.position] % 3,
                attention: if attention {
                    vec![1.0 / item.ids.len() as f64; item.ids.len()]
                } else {
                    Vec::new()
                },
            })
            .collect())
    }
    /// Row `i`, column `j`: the log-probability of `ids[positions[j]]` hidden alone, less
    /// 1 off the diagonal.
    fn hidden_span_log_probs(
        &self,
        spans: &[HiddenSpan<'_>],
    ) -> Result<Vec<Vec<Vec<f64>>>, EncoderError> {
        Ok(spans
            .iter()
            .map(|span| {
                span.positions
                    .iter()
                    .map(|i| {
                        span.positions
                            .iter()
                            .map(|j| {
                                (self.log_prob)(span.ids, *j, true) - f64::from(u8::from(i != j))
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect())
    }
    fn piece_scores(&self, sequences: &[&[u32]]) -> Result<Vec<PieceScores>, EncoderError> {
        Ok(sequences
            .iter()
            .map(|ids| PieceScores {
                log_probs: (0..ids.len())
                    .map(|p| (self.log_prob)(ids, p, false))
                    .collect(),
                attention: vec![1.0 / ids.len() as f64; ids.len()],
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fake_embedder_records_refuses_and_checks_its_layer() {
        let model = FakeEmbedder::new("fake", 3)
            .with_text_vectors(|t| vec![t.len() as f32, 0.0, 1.0])
            .refusing("FAIL", |index, _| EncoderError::EmptyText { index });
        let vectors = model
            .embed(&["ab", "abc"], Pooling::Cls, Layer::Last)
            .unwrap();
        assert_eq!(vectors, [[2.0, 0.0, 1.0], [3.0, 0.0, 1.0]]);
        let err = model
            .embed(&["ok", "FAIL"], Pooling::Cls, Layer::Last)
            .unwrap_err();
        assert_eq!(err.index(), Some(1));
        let err = model
            .embed(&["ok"], Pooling::Cls, Layer::Index(2))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "layer 2 does not exist: the model has layers 0..=1"
        );
        assert_eq!(model.embedded(), ["ab", "abc"]);
        assert_eq!(model.calls(), 3);
        // The default word vector is the noise of the word itself, whatever its sentence.
        let item = |text| WordInContext { text, word: 0..3 };
        let words = model
            .embed_words(&[item("cat sat"), item("cat ran")], Layer::Last)
            .unwrap();
        assert_eq!(words[0], noise("cat", 3));
        assert_eq!(words[0], words[1]);
        assert_ne!(noise("cat", 3), noise("cab", 3));
        let pieces = model.tokenize("a longword q").unwrap();
        let unknown: Vec<bool> = pieces.iter().map(|p| p.unknown).collect();
        assert_eq!(unknown, [false, false, false, true]);
    }

    #[test]
    fn the_fake_masked_lm_answers_what_it_was_given() {
        let lm = FakeMaskedLm::new("fake-lm", "<mask>", &["a", "b", "c"])
            .with_answer("x <mask>", &[("b", 0.5), ("a", 0.25), ("c", 0.125)]);
        let preds = lm.fill_mask(&["x <mask>"], 2).unwrap();
        let got: Vec<(&str, u32, f32)> = preds[0]
            .iter()
            .map(|p| (p.token.as_str(), p.id, p.prob))
            .collect();
        assert_eq!(got, [("b", 1, 0.5), ("a", 0, 0.25)]);
        assert_eq!(
            lm.token_probs("x <mask>", &[2, 1, 7]).unwrap(),
            [0.125, 0.5, 0.0]
        );
        let err = lm.fill_mask(&["x <mask>", "<mask> <mask>"], 1).unwrap_err();
        assert_eq!(
            err.to_string(),
            "text 1 must contain exactly one <mask>, found 2: \"<mask> <mask>\""
        );
        assert_eq!((lm.piece_id("c"), lm.piece_id("d")), (Some(2), None));
    }
}
