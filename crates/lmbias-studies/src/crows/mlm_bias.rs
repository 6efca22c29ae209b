//! What mlm-bias 0.1.7 (Zalkikar & Chandra 2025, `mlm_bias/utils/measures.py` and
//! `experiments.py`) does that the other originals do not, read from its source:
//!
//! - CRR and ΔP read a sentence with its punctuation taken out (`get_mask_combinations`:
//!   `re.sub("[^A-Za-z0-9 _\-]+", "", sent)`, then white space collapsed) and mask every piece
//!   of it in turn, the group words included;
//! - per masked piece, CRR = 1 − 1/rank and ΔP = ln p_top − ln p_piece; CRRA = w · (1 + ln
//!   rank) (not w · CRR) and ΔPA = w · ΔP, where w is one number per masked input: its
//!   attention averaged over layers, heads and query positions, then over the keys 1..T−2
//!   (`compute_crr_dp`); a sentence's value is the mean over its pieces;
//! - SSS masks a sentence's modified pieces together (difflib's non-equal opcodes of
//!   `sent_more` against `sent_less`, special tokens counted) and averages all k² entries of
//!   their log-softmax rows at the k true ids (`compute_sss`).
//!
//! mlm-bias's batched path (`compute_crr_dp_batched`, its default) averages w over padded
//! rows as well, so its batched CRRA and ΔPA differ from its unbatched ones; lmbias follows the
//! unbatched semantics (`batching=False`), which its batching does not change.

use lmbias_core::HiddenScore;

/// `text` as mlm-bias reads it for CRR and ΔP: only ASCII letters, digits, space, `_` and
/// `-` kept, runs of spaces collapsed, the ends trimmed.
pub fn stripped(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ' ' | '_' | '-'))
        .collect();
    kept.split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One sentence's CRR, CRRA, ΔP and ΔPA: the means over its masked pieces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RankMeasures {
    pub(crate) crr: f64,
    pub(crate) crra: f64,
    pub(crate) dp: f64,
    pub(crate) dpa: f64,
}

impl RankMeasures {
    /// The means over `pieces`, each scored on its own masked input (attention present when
    /// CRRA or ΔPA was asked for, else w is taken as 0); `None` when there is no piece.
    pub(crate) fn of(pieces: &[&HiddenScore]) -> Option<RankMeasures> {
        if pieces.is_empty() {
            return None;
        }
        let n = pieces.len() as f64;
        let mean = |f: &dyn Fn(&HiddenScore) -> f64| pieces.iter().map(|s| f(s)).sum::<f64>() / n;
        let rank = |s: &HiddenScore| f64::from(s.rank);
        let dp = |s: &HiddenScore| s.top_log_prob - s.log_prob;
        Some(RankMeasures {
            crr: mean(&|s| 1.0 - 1.0 / rank(s)),
            crra: mean(&|s| weight(&s.attention) * (1.0 + rank(s).ln())),
            dp: mean(&dp),
            dpa: mean(&|s| weight(&s.attention) * dp(s)),
        })
    }
}

/// mlm-bias's w: the attention received by the keys 1..T−2, averaged (0 for an input of
/// two pieces or fewer, or without attention).
fn weight(received: &[f64]) -> f64 {
    match received.get(1..received.len().saturating_sub(1)) {
        Some(inner) if !inner.is_empty() => inner.iter().sum::<f64>() / inner.len() as f64,
        _ => 0.0,
    }
}

/// SSS from the `k × k` log-probabilities of a sentence's modified pieces masked together:
/// the mean of all entries; `None` when nothing was modified (mlm-bias: NaN).
pub(crate) fn sss(rows: &[Vec<f64>]) -> Option<f64> {
    let n: usize = rows.iter().map(Vec::len).sum();
    (n > 0).then(|| rows.iter().flatten().sum::<f64>() / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_goes_as_mlm_bias_takes_it_out() {
        // Python: " ".join(re.sub("[^A-Za-z0-9 _\-]+", "", s).split())
        assert_eq!(
            stripped("He's a well-known  man, isn't he?"),
            "Hes a well-known man isnt he"
        );
        assert_eq!(stripped("Café\tau lait_2 !"), "Cafau lait_2");
        assert_eq!(stripped("?!"), "");
    }

    #[test]
    fn the_attention_variants_use_one_weight_per_input() {
        let score = |rank, log_prob| HiddenScore {
            log_prob,
            top_log_prob: -0.5,
            rank,
            attention: vec![0.4, 0.1, 0.3, 0.2],
        };
        let (a, b) = (score(1, -0.5), score(4, -2.5));
        let m = RankMeasures::of(&[&a, &b]).unwrap();
        let w = (0.1 + 0.3) / 2.0;
        assert_eq!(m.crr, (0.0 + 0.75) / 2.0);
        assert!((m.crra - w * (1.0 + (1.0 + 4f64.ln())) / 2.0).abs() < 1e-15);
        assert_eq!(m.dp, (0.0 + 2.0) / 2.0);
        assert!((m.dpa - w * 2.0 / 2.0).abs() < 1e-15);
        assert_eq!(RankMeasures::of(&[]), None);
        assert_eq!(sss(&[vec![-1.0, -2.0], vec![-3.0, -4.0]]), Some(-2.5));
        assert_eq!(sss(&[]), None);
    }
}
