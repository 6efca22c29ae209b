//! Cuscito, Ferrara & Ruskov, "How BERT Speaks Shakespearean English?": the checkpoints it
//! compares, what its Discussion concludes from its Figures 1–2, and the example tables of
//! its Tables 1–3. The method (fill-mask, B = x·p, A = 1 − |v(s) − B| / 2) is
//! lmbias-studies' `valence`; our known-answer check of it is [`crate::known_answer`].

use crate::Reported;

/// The checkpoint the paper calls "BL Books", its reference [9]:
/// Schweter, *Pretrained Language Models on British Library Corpus* (19th-century books). The hub
/// id is our reading: the paper names no checkpoint, and says BL Books "was only fine-tuned on
/// texts from the modern period".
pub const BL_BOOKS: &str = "bigscience-historical-texts/bert-base-blbooks-cased";

/// The paper's three models, by hub id, with what the paper calls each.
pub const CHECKPOINTS: [(&str, &str); 3] = [
    ("bert-base-uncased", "the Modern English model"),
    (
        "emanjavacas/MacBERTh",
        "MacBERTh, a diachronic model (the paper: \"trained on texts spanning a time range that \
         takes into account the evolution of the English language from EME to ME\")",
    ),
    (
        BL_BOOKS,
        "BL Books, their reference [9] (British Library books; the paper: \"only fine-tuned on \
         texts from the modern period\"; the hub id is our reading, the paper gives none)",
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
    Reported {
        what: "Temporally neutral sentences: what A tells",
        value: "A \"is less informative when … completing temporally-neutral sentences\"",
        source: "Cuscito, Ferrara & Ruskov, Discussion",
    },
];

/// The paper's third finding, set beside our numbers: each model's mean A over the
/// temporally neutral sentences (v = 0), with how many sentences; `None` when no model scored
/// a neutral sentence. Numbers only: the paper's finding is about A as a measure, and these
/// show where A sits on neutral sentences, not whether it informs.
pub fn neutral_adequacy(results: &[lmbias_studies::valence::ModelResult]) -> Option<String> {
    use lmbias_data::valence::Group;
    let per_model: Vec<(String, f64, usize)> = results
        .iter()
        .filter_map(|r| {
            let summary = r.groups.iter().find(|g| g.group == Group::Neutral)?;
            Some((r.model.clone(), summary.adequacy.mean, summary.adequacy.n))
        })
        .collect();
    let (lo, hi) = per_model
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
            (lo.min(m.1), hi.max(m.1))
        });
    let listed: Vec<String> = per_model
        .iter()
        .map(|(model, a, n)| format!("{model} {a:.3} ({n} sentences)"))
        .collect();
    (!listed.is_empty()).then(|| {
        format!(
            "The paper's third finding, A \"is less informative when … completing \
             temporally-neutral sentences\" (Discussion), beside ours: mean A over the neutral \
             sentences (v = 0) ranges {lo:.3}–{hi:.3} across the {} models: {}. Numbers, not a \
             verdict on the finding.",
            listed.len(),
            listed.join("; ")
        )
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_data::valence::Group;

    #[test]
    fn the_third_finding_is_reported_and_set_beside_neutral_a() {
        assert!(
            REPORTED
                .iter()
                .any(|r| r.value.contains("temporally-neutral sentences"))
        );
        use lmbias_studies::valence::{Distribution, GroupSummary};
        let result = |model: &str, a: f64| {
            let mut r = lmbias_studies::testing::valence_result(model, vec![]);
            r.groups.push(GroupSummary {
                group: Group::Neutral,
                bias: Distribution::of(&[0.0]).unwrap(),
                adequacy: Distribution::of(&[a, a]).unwrap(),
                mean_unannotated_share: 0.0,
                excluded: 0,
            });
            r
        };
        let text = neutral_adequacy(&[result("one", 0.95), result("two", 1.0)]).unwrap();
        assert!(
            text.contains("ranges 0.950–1.000 across the 2 models: one 0.950 (2 sentences); two"),
            "{text}"
        );
        assert!(
            text.ends_with("Numbers, not a verdict on the finding."),
            "{text}"
        );
        assert_eq!(neutral_adequacy(&[]), None);
    }
}
