//! Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?": the checkpoints it
//! compares, what its Discussion concludes from its Figures 1–2, and the example tables of
//! its Tables 1–3. The method (fill-mask, B = x·p, A = 1 − |v(s) − B| / 2) is
//! lmbias-studies' `valence`; our known-answer check of it is [`crate::known_answer`].

use crate::Reported;

/// The checkpoint the paper calls "BL Books", its reference [9]:
/// Schweter, *Pretrained Language Models on British Library Corpus* (19th-century books).
pub const BL_BOOKS: &str = "bigscience-historical-texts/bert-base-blbooks-cased";

/// The paper's three models, by hub id, with what the paper calls each.
pub const CHECKPOINTS: [(&str, &str); 3] = [
    ("bert-base-uncased", "the Modern English model"),
    (
        "emanjavacas/MacBERTh",
        "MacBERTh, the Early Modern English model",
    ),
    (
        BL_BOOKS,
        "BL Books, their reference [9] (British Library books)",
    ),
];

/// Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?": what its Discussion
/// concludes from its Figures 1–2 (distributions of B and A per group, the models side by
/// side), quoted where the paper words it, and its ordering of the models on the Modern
/// sentences (issue #34: the direction, not a figure's numbers, is what it reports).
pub const REPORTED: &[Reported] = &[
    Reported {
        what: "Early Modern English sentences: the models compared",
        value: "\"MacBERTh is better at representing the EME historical context than BL Books\"",
        source: "Cuscito, Ferrara & Ruskov, Discussion",
    },
    Reported {
        what: "Modern English sentences: the three models in order",
        value: "BERT Base (bert-base-uncased) > BL Books > MacBERTh",
        source: "Cuscito, Ferrara & Ruskov, Discussion",
    },
];

/// The example tables, one per group as in Cuscito et al.'s Tables 1–3, by our ids
/// in `datasets/valence/eme-me-60.json`: the paper's two sentences we have (annotated
/// as the paper annotates them) and, for Modern English, one of ours.
pub const EXAMPLES: [(&str, &str); 3] = [
    (
        "eme-01",
        "The paper's Early Modern example, \"Why wilt [MASK] be offended by that?\" (v = −1; \
         thou −1, not 0)",
    ),
    (
        "neu-01",
        "The paper's neutral example, \"Have you come [MASK] to torment us before the time?\" \
         (v = 0)",
    ),
    (
        "me-05",
        "Ours, not the paper's (its Modern English example is not among the sentences we \
         have): \"Can you [MASK] me the report by Friday?\" (v = 1; email, text 1; mail 0.5; \
         send 0)",
    ),
];
