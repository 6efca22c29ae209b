//! One tokenized text: pieces with their ids, byte offsets, special-token flags and words.

use std::ops::Range;

use crate::TextError;

/// A text as the model sees it. All per-piece vectors have the same length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoding {
    ids: Vec<u32>,
    tokens: Vec<String>,
    offsets: Vec<Range<usize>>,
    /// Where each piece's text starts: its offset's start past any whitespace it carries.
    text_starts: Vec<usize>,
    special: Vec<bool>,
    word_ids: Vec<Option<u32>>,
}

impl Encoding {
    /// `encoding` of `text`. Offsets stay as the tokenizer reports them (transformers'
    /// `offset_mapping`); a piece's text start skips the whitespace it may carry (a
    /// byte-level BPE that does not trim offsets, as ModernBERT's, spans `Ġchristian`
    /// over the space before the word; T5's `▁art` too), so a word is found where its
    /// text starts.
    pub(crate) fn from_hf(encoding: tokenizers::Encoding, text: &str) -> Self {
        let text_start = |&(start, end): &(usize, usize)| {
            let lead = text
                .get(start..end)
                .map_or(0, |piece| piece.len() - piece.trim_start().len());
            // A piece that is only whitespace starts where it starts.
            if start + lead < end {
                start + lead
            } else {
                start
            }
        };
        Encoding {
            ids: encoding.get_ids().to_vec(),
            tokens: encoding.get_tokens().to_vec(),
            offsets: encoding.get_offsets().iter().map(|&(s, e)| s..e).collect(),
            text_starts: encoding.get_offsets().iter().map(text_start).collect(),
            special: encoding
                .get_special_tokens_mask()
                .iter()
                .map(|&m| m == 1)
                .collect(),
            word_ids: encoding.get_word_ids().to_vec(),
        }
    }

    /// Vocabulary ids, the model's `input_ids`.
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// The pieces as vocabulary strings (`##` marks a WordPiece continuation).
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// Byte range of each piece in the input text; `0..0` for added special tokens.
    pub fn offsets(&self) -> &[Range<usize>] {
        &self.offsets
    }

    /// True for the tokens the template adds (`[CLS]`, `[SEP]`, `</s>`), like
    /// transformers' `special_tokens_mask`: a `[MASK]` written in the text is not one.
    pub fn special_mask(&self) -> &[bool] {
        &self.special
    }

    /// The pre-tokenizer word each piece belongs to (`None` for added special
    /// tokens), like transformers' `word_ids()`. BERT splits punctuation into words
    /// of its own: "don't" is three words.
    pub fn word_ids(&self) -> &[Option<u32>] {
        &self.word_ids
    }

    /// Number of pieces, special tokens included: the model's sequence length.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when the text became no piece at all (an empty text without a template).
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The indices of the pieces that make up the byte range `bytes` of the input
    /// text (a word, or several words), for averaging a word's pieces.
    ///
    /// The range must start where a piece starts, or where its text starts past a space
    /// the piece carries, and end where a piece ends: a range that cuts a piece, or
    /// covers no piece, is an error.
    pub fn pieces_in(&self, bytes: Range<usize>) -> Result<Range<usize>, TextError> {
        let fail = |reason: String| TextError::WordRange {
            start: bytes.start,
            end: bytes.end,
            reason,
        };
        if bytes.start >= bytes.end {
            return Err(fail("is empty".into()));
        }
        let overlapping: Vec<usize> = (0..self.len())
            .filter(|&i| !self.special[i])
            .filter(|&i| self.text_starts[i] < bytes.end && bytes.start < self.offsets[i].end)
            .collect();
        let (Some(&first), Some(&last)) = (overlapping.first(), overlapping.last()) else {
            return Err(fail("covers no token of the text".into()));
        };
        let describe =
            |i: usize| format!("token {i} {:?} spans {:?}", self.tokens[i], self.offsets[i]);
        if ![self.offsets[first].start, self.text_starts[first]].contains(&bytes.start) {
            return Err(fail(format!("starts inside a token: {}", describe(first))));
        }
        if self.offsets[last].end != bytes.end {
            return Err(fail(format!("ends inside a token: {}", describe(last))));
        }
        Ok(first..last + 1)
    }
}
