//! Bootstrap confidence intervals: of the WEAT effect size, and of a mean (the known-answer
//! check's mean difference over sentences).
//!
//! Targets are resampled with replacement within X and within Y (sizes kept); the attribute
//! sets stay fixed, so each target keeps its score `s(w, A, B)`. The interval is the percentile
//! interval with numpy's default (linear) quantile interpolation.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::weat::{Associations, DEFAULT_SEED, StdKind, effect_size};

/// How to bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapOptions {
    /// More resamples steady the interval's ends; 10 000 by default.
    pub n_resamples: usize,
    /// Coverage of the interval, in (0, 1).
    pub confidence: f64,
    /// Seed of the ChaCha8 resampling, so an interval can be reproduced.
    pub seed: u64,
    /// Must match the effect size the interval is reported with.
    pub std: StdKind,
}

impl Default for BootstrapOptions {
    fn default() -> Self {
        BootstrapOptions {
            n_resamples: 10_000,
            confidence: 0.95,
            seed: DEFAULT_SEED,
            std: StdKind::Sample,
        }
    }
}

/// A percentile bootstrap interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ConfidenceInterval {
    /// The `(1 − confidence)/2` quantile of the resampled effect sizes.
    pub lower: f64,
    /// The `(1 + confidence)/2` quantile.
    pub upper: f64,
    /// As asked for, so a stored interval says what it covers.
    pub confidence: f64,
    /// Resamples with a defined effect size (those where all scores coincide are dropped).
    pub n_used: usize,
    /// As asked for; `n_used` below it means some resamples were degenerate.
    pub n_resamples: usize,
}

/// Why no interval can be given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BootstrapError {
    /// 0 and 1 (and NaN) give no interval.
    #[error("confidence must be in (0, 1), got {0}")]
    Confidence(f64),
    /// Quantiles of nothing are undefined.
    #[error("n_resamples must be at least 1")]
    NoResamples,
    /// Every resample had equal scores, so d was 0/0 every time.
    #[error("no resample had a defined effect size: all scores are equal")]
    Undefined,
}

/// Percentile bootstrap interval of Cohen's d.
pub fn effect_size_interval(
    assoc: &Associations,
    options: &BootstrapOptions,
) -> Result<ConfidenceInterval, BootstrapError> {
    check(options)?;
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut resample = |values: &[f64]| -> Vec<f64> {
        (0..values.len())
            .map(|_| values[rng.random_range(0..values.len())])
            .collect()
    };
    let estimates: Vec<f64> = (0..options.n_resamples)
        .filter_map(|_| {
            let x = resample(assoc.x());
            let y = resample(assoc.y());
            let boot = Associations::from_scores(x, y).expect("resampled from valid scores");
            effect_size(&boot, options.std)
        })
        .collect();
    if estimates.is_empty() {
        return Err(BootstrapError::Undefined);
    }
    Ok(percentile_interval(estimates, options))
}

/// Percentile bootstrap interval of the mean of `values` (resampled with replacement, size
/// kept; `options.std` plays no part). An empty list has no mean.
pub fn mean_interval(
    values: &[f64],
    options: &BootstrapOptions,
) -> Result<ConfidenceInterval, BootstrapError> {
    check(options)?;
    if values.is_empty() {
        return Err(BootstrapError::Undefined);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let n = values.len();
    let estimates: Vec<f64> = (0..options.n_resamples)
        .map(|_| (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64)
        .collect();
    Ok(percentile_interval(estimates, options))
}

/// Percentile bootstrap interval of mean(`a`) − mean(`b`) for two independent samples, each
/// resampled with replacement within itself (sizes kept): a model's separation between two
/// groups of sentences. Either sample empty has no mean.
pub fn mean_difference_interval(
    a: &[f64],
    b: &[f64],
    options: &BootstrapOptions,
) -> Result<ConfidenceInterval, BootstrapError> {
    check(options)?;
    if a.is_empty() || b.is_empty() {
        return Err(BootstrapError::Undefined);
    }
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    let mut mean = |values: &[f64]| {
        let n = values.len();
        (0..n).map(|_| values[rng.random_range(0..n)]).sum::<f64>() / n as f64
    };
    let estimates: Vec<f64> = (0..options.n_resamples)
        .map(|_| mean(a) - mean(b))
        .collect();
    Ok(percentile_interval(estimates, options))
}

/// Refuses options that give no interval.
fn check(options: &BootstrapOptions) -> Result<(), BootstrapError> {
    if !(options.confidence > 0.0 && options.confidence < 1.0) {
        return Err(BootstrapError::Confidence(options.confidence));
    }
    if options.n_resamples == 0 {
        return Err(BootstrapError::NoResamples);
    }
    Ok(())
}

/// The percentile interval of non-empty resampled `estimates`.
fn percentile_interval(mut estimates: Vec<f64>, options: &BootstrapOptions) -> ConfidenceInterval {
    estimates.sort_by(f64::total_cmp);
    let alpha = 1.0 - options.confidence;
    ConfidenceInterval {
        lower: quantile(&estimates, alpha / 2.0),
        upper: quantile(&estimates, 1.0 - alpha / 2.0),
        confidence: options.confidence,
        n_used: estimates.len(),
        n_resamples: options.n_resamples,
    }
}

/// numpy's default ("linear") quantile of sorted, non-empty values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let position = q * (sorted.len() - 1) as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(sorted.len() - 1);
    let fraction = position - below as f64;
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_of_two_means_is_bracketed_and_shifts_with_them() {
        let a: Vec<f64> = (0..40).map(|i| 1.0 + 0.01 * f64::from(i % 7)).collect();
        let b: Vec<f64> = (0..30).map(|i| 0.2 + 0.01 * f64::from(i % 5)).collect();
        let options = BootstrapOptions::default();
        let ci = mean_difference_interval(&a, &b, &options).unwrap();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let d = mean(&a) - mean(&b);
        assert!(ci.lower < d && d < ci.upper, "{ci:?} {d}");
        // The spread within each sample is ±0.03: the interval is narrow around 0.8.
        assert!(
            ci.upper - ci.lower < 0.02 && (d - 0.81).abs() < 0.01,
            "{ci:?} {d}"
        );
        // Shifting a shifts the interval by as much (the same resamples, same seed).
        let shifted: Vec<f64> = a.iter().map(|x| x + 0.5).collect();
        let moved = mean_difference_interval(&shifted, &b, &options).unwrap();
        assert!((moved.lower - ci.lower - 0.5).abs() < 1e-9, "{moved:?}");
        assert_eq!(
            mean_difference_interval(&[], &b, &options),
            Err(BootstrapError::Undefined)
        );
    }

    #[test]
    fn quantile_interpolates_like_numpy() {
        // np.quantile([1, 2, 3, 4], [0.25, 0.5, 0.9]) == [1.75, 2.5, 3.7]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert!((quantile(&v, 0.9) - 3.7).abs() < 1e-15);
    }

    #[test]
    fn interval_contains_the_estimate_and_is_seeded() {
        let assoc = Associations::from_scores(
            vec![0.31, 0.12, 0.25, 0.4, 0.18, 0.22],
            vec![0.05, -0.1, 0.11, 0.02, -0.04, 0.09],
        )
        .unwrap();
        let d = effect_size(&assoc, StdKind::Sample).unwrap();
        let options = BootstrapOptions {
            n_resamples: 2000,
            ..BootstrapOptions::default()
        };
        let ci = effect_size_interval(&assoc, &options).unwrap();
        assert!(ci.lower < d && d < ci.upper, "{ci:?} vs {d}");
        assert_eq!(ci, effect_size_interval(&assoc, &options).unwrap());
        let other = effect_size_interval(&assoc, &BootstrapOptions { seed: 1, ..options }).unwrap();
        assert_ne!(ci, other);
    }

    /// The mean's interval holds the mean, narrows with more values, is seeded, and is a
    /// point for constant values.
    #[test]
    fn a_mean_interval_brackets_the_mean() {
        let options = BootstrapOptions::default();
        let values: Vec<f64> = (0..50).map(|i| f64::from(i % 7) - 2.0).collect();
        let mean = values.iter().sum::<f64>() / 50.0;
        let ci = mean_interval(&values, &options).unwrap();
        assert!(ci.lower < mean && mean < ci.upper, "{ci:?} {mean}");
        // The mean's standard error is 2.02/√50 = 0.29: a 95 % interval about ±0.56 wide.
        assert!(
            (ci.upper - ci.lower - 2.0 * 1.96 * 0.2857).abs() < 0.12,
            "{ci:?}"
        );
        assert_eq!(mean_interval(&values, &options).unwrap(), ci);
        let flat = mean_interval(&[0.5; 9], &options).unwrap();
        assert_eq!((flat.lower, flat.upper), (0.5, 0.5));
        assert_eq!(mean_interval(&[], &options), Err(BootstrapError::Undefined));
    }

    #[test]
    fn constant_scores_have_no_interval() {
        let assoc = Associations::from_scores(vec![0.5; 3], vec![0.5; 3]).unwrap();
        assert_eq!(
            effect_size_interval(&assoc, &BootstrapOptions::default()),
            Err(BootstrapError::Undefined)
        );
        let options = BootstrapOptions {
            confidence: 1.0,
            ..BootstrapOptions::default()
        };
        assert_eq!(
            effect_size_interval(&assoc, &options),
            Err(BootstrapError::Confidence(1.0))
        );
    }
}
