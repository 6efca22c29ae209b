//! Which words tell two corpora apart, and how surely: the log-odds ratio with an informative
//! Dirichlet prior, z-scored (Monroe, Colaresi & Quinn 2008, "Fightin' Words: Lexical Feature
//! Selection and Evaluation for Identifying the Content of Political Conflict", *Political
//! Analysis* 16(4)). The temporal-valence study uses it to rate a word's association with the
//! Early Modern or the Modern period from two period corpora (Cuscito et al.'s Discussion
//! proposes deriving token valence "from a large corpus, representative for the period").
//!
//! For a word w counted y_a times in corpus a of n_a words and y_b times in b of n_b, with prior
//! pseudo-counts α_w summing to α_0 over the vocabulary:
//!
//! * δ_w = log((y_a + α_w) / (n_a + α_0 − y_a − α_w)) − log((y_b + α_w) / (n_b + α_0 − y_b − α_w)),
//! * Var(δ_w) ≈ 1/(y_a + α_w) + 1/(y_b + α_w),
//! * z_w = δ_w / √Var(δ_w).
//!
//! The prior is informative in Monroe et al.'s sense: α_w = α_0 · (y_a + y_b)/(n_a + n_b), the
//! word's share of the two corpora pooled, so a rare word's log-odds is shrunk toward 0 and its
//! z stays small unless the counts are many.

use std::collections::BTreeMap;

/// One word's estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogOdds {
    /// δ: positive when the word is more frequent in corpus a.
    pub delta: f64,
    /// The approximate variance of δ.
    pub variance: f64,
    /// δ / √variance.
    pub z: f64,
}

/// Why log-odds cannot be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LogOddsError {
    /// A corpus has no words.
    #[error("corpus {0} has no words")]
    Empty(char),
    /// The prior's total must be a finite number above 0.
    #[error("the prior's total α0 {0} must be a finite number above 0")]
    Prior(f64),
}

/// The estimate of every word of `a` or `b` (a word absent from one counts 0 there), with an
/// informative prior of total `alpha0` spread over the pooled frequencies.
pub fn log_odds<K: Ord + Clone>(
    a: &BTreeMap<K, u64>,
    b: &BTreeMap<K, u64>,
    alpha0: f64,
) -> Result<BTreeMap<K, LogOdds>, LogOddsError> {
    if !(alpha0.is_finite() && alpha0 > 0.0) {
        return Err(LogOddsError::Prior(alpha0));
    }
    let (n_a, n_b) = (size(a), size(b));
    if n_a == 0.0 {
        return Err(LogOddsError::Empty('a'));
    }
    if n_b == 0.0 {
        return Err(LogOddsError::Empty('b'));
    }
    let pooled = n_a + n_b;
    let mut out = BTreeMap::new();
    for word in a.keys().chain(b.keys()) {
        if out.contains_key(word) {
            continue;
        }
        let y_a = a.get(word).copied().unwrap_or(0) as f64;
        let y_b = b.get(word).copied().unwrap_or(0) as f64;
        let alpha = alpha0 * (y_a + y_b) / pooled;
        let odds = |y: f64, n: f64| ((y + alpha) / (n + alpha0 - y - alpha)).ln();
        let delta = odds(y_a, n_a) - odds(y_b, n_b);
        let variance = 1.0 / (y_a + alpha) + 1.0 / (y_b + alpha);
        out.insert(
            word.clone(),
            LogOdds {
                delta,
                variance,
                z: delta / variance.sqrt(),
            },
        );
    }
    Ok(out)
}

fn size<K>(counts: &BTreeMap<K, u64>) -> f64 {
    counts.values().map(|&c| c as f64).sum()
}

/// The z thresholds of a five-point scale {−1, −0.5, 0, 0.5, 1}: |z| below `half` is 0,
/// from `half` ±0.5, from `full` ±1.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Thresholds {
    /// The |z| from which a word leans to one side.
    pub half: f64,
    /// The |z| from which it belongs to it.
    pub full: f64,
}

impl Default for Thresholds {
    /// The two-sided normal critical values at 0.05 and 0.001 (1.96, 3.29): a word is rated
    /// at all only when its association is significant at the usual level, fully only when
    /// it is beyond doubt at the stricter one.
    fn default() -> Self {
        Thresholds {
            half: 1.959_963_984_540_054,
            full: 3.290_526_731_491_926,
        }
    }
}

impl Thresholds {
    /// `z` on the five-point scale, its sign kept (positive: corpus a's side).
    pub fn level(&self, z: f64) -> f64 {
        let step: f64 = if z.abs() >= self.full {
            1.0
        } else if z.abs() >= self.half {
            0.5
        } else {
            0.0
        };
        // +0.0 for the middle, never −0.0.
        if step == 0.0 { 0.0 } else { step.copysign(z) }
    }
}
