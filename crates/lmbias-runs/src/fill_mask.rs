//! Fill-mask answers in the shape of transformers' `pipeline("fill-mask")`, so that code
//! written for it reads lmbias's: each proposal `{score, token, token_str, sequence}`, a list
//! of them for a text of one mask and a list per mask for a text of several.
//!
//! Where the shapes agree and the contents may not: `token_str` is the piece as text without
//! the space a word-initial marker stands for (`thou` for RoBERTa's `Ġthou`, where
//! transformers' `decode` gives " thou"), and `sequence` is the text as given with that mask
//! replaced by `token_str` (transformers decodes the ids instead: lower-cased by an uncased
//! tokenizer, and with special tokens when the text has several masks).

use lmbias_core::Prediction;
use serde::Serialize;

/// One proposal at one mask.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Filled {
    /// Its softmax probability at the mask (an f32, written as the f64 it is, as the pipeline's
    /// Python float is).
    pub score: f64,
    /// Its vocabulary id.
    pub token: u32,
    /// The piece as text.
    pub token_str: String,
    /// The text with this mask filled by `token_str` (any other mask left as it is).
    pub sequence: String,
}

/// One text's answer, as the pipeline gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    /// A text with one mask: its proposals.
    One(Vec<Filled>),
    /// A text with several: each mask's proposals, in the order of the masks.
    Several(Vec<Vec<Filled>>),
}

/// `text`'s answer from each of its masks' proposals (`mask` as the text writes it).
pub fn answer(text: &str, mask: &str, per_mask: Vec<Vec<Prediction>>) -> Answer {
    let mut filled: Vec<Vec<Filled>> = per_mask
        .into_iter()
        .enumerate()
        .map(|(i, predictions)| {
            predictions
                .into_iter()
                .map(|p| Filled {
                    score: f64::from(p.prob),
                    token: p.id,
                    sequence: fill_nth(text, mask, i, &p.text),
                    token_str: p.text,
                })
                .collect()
        })
        .collect();
    if filled.len() == 1 {
        Answer::One(filled.remove(0))
    } else {
        Answer::Several(filled)
    }
}

/// `text` with its `n`-th `mask` (from 0) replaced by `with`.
fn fill_nth(text: &str, mask: &str, n: usize, with: &str) -> String {
    match text.match_indices(mask).nth(n) {
        Some((at, _)) => format!("{}{with}{}", &text[..at], &text[at + mask.len()..]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str, id: u32, prob: f32) -> Prediction {
        Prediction {
            token: format!("Ġ{text}"),
            text: text.to_owned(),
            id,
            prob,
        }
    }

    #[test]
    fn one_mask_is_a_list_and_several_a_list_per_mask() {
        let one = answer(
            "Why wilt <mask> be?",
            "<mask>",
            vec![vec![p("thou", 7, 0.5)]],
        );
        assert_eq!(
            serde_json::to_value(&one).unwrap(),
            serde_json::json!([{"score": 0.5, "token": 7, "token_str": "thou", "sequence": "Why wilt thou be?"}])
        );
        let two = answer(
            "<mask> art <mask>.",
            "<mask>",
            vec![
                vec![p("thou", 7, 0.5)],
                vec![p("fair", 9, 0.25), p("kind", 3, 0.125)],
            ],
        );
        let Answer::Several(masks) = &two else {
            panic!("{two:?}")
        };
        assert_eq!(masks.len(), 2);
        assert_eq!(masks[0][0].sequence, "thou art <mask>.");
        assert_eq!(masks[1][1].sequence, "<mask> art kind.");
        assert_eq!(masks[1][1].token, 3);
    }
}
