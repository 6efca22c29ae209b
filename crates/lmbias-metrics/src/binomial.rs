//! The exact binomial test and the Clopper–Pearson interval as `scipy.stats.binomtest`
//! computes them (`scipy/stats/_binomtest.py`: `binomtest`, `_binom_exact_conf_int`), and the
//! exact McNemar test of two raters on the same items: a score against 50 % with its
//! interval, and two models compared on the pairs where they disagree.

use serde::Serialize;
use statrs::distribution::{Binomial, Discrete, DiscreteCDF};
use statrs::function::beta::beta_reg;

/// Which outcomes count as at least as extreme as the one observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Alternative {
    /// Every outcome no more likely than the observed one (scipy's two-sided rule).
    TwoSided,
    /// As many successes or more.
    Greater,
    /// As many successes or fewer.
    Less,
}

/// Why a count has no test or interval.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BinomialError {
    /// A proportion of no trials.
    #[error("no trials: a proportion of none has no test")]
    NoTrials,
    /// More successes than trials.
    #[error(
        "{successes} successes out of {trials} trials: there cannot be more successes than trials"
    )]
    TooManySuccesses {
        /// The successes given.
        successes: u64,
        /// The trials given.
        trials: u64,
    },
    /// A null proportion outside [0, 1].
    #[error("the null proportion {0} is not in [0, 1]")]
    Proportion(f64),
    /// A confidence level outside (0, 1).
    #[error("the confidence level {0} is not in (0, 1)")]
    Level(f64),
}

/// An exact binomial test of `successes` out of `trials` against the proportion `null`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BinomialTest {
    /// The successes counted.
    pub successes: u64,
    /// The trials.
    pub trials: u64,
    /// `successes / trials`.
    pub proportion: f64,
    /// The proportion under the null hypothesis.
    pub null: f64,
    /// Which outcomes count as extreme.
    pub alternative: Alternative,
    /// The exact p-value.
    pub p_value: f64,
}

fn check(successes: u64, trials: u64) -> Result<(), BinomialError> {
    if trials == 0 {
        return Err(BinomialError::NoTrials);
    }
    if successes > trials {
        return Err(BinomialError::TooManySuccesses { successes, trials });
    }
    Ok(())
}

/// `scipy.stats.binomtest(successes, trials, null, alternative).pvalue`, with scipy's
/// two-sided rule: the probability of every outcome whose probability is at most the observed
/// one's (within a relative 1e-7), found on the far side of the mode by scipy's binary search.
pub fn binomial_test(
    successes: u64,
    trials: u64,
    null: f64,
    alternative: Alternative,
) -> Result<BinomialTest, BinomialError> {
    check(successes, trials)?;
    if !(0.0..=1.0).contains(&null) {
        return Err(BinomialError::Proportion(null));
    }
    let dist = Binomial::new(null, trials).map_err(|_| BinomialError::Proportion(null))?;
    let (k, n) = (successes as i64, trials as i64);
    // scipy's pmf, cdf and sf at any integer: 0 and 1 outside 0..=n.
    let pmf = |x: i64| {
        if (0..=n).contains(&x) {
            dist.pmf(x as u64)
        } else {
            0.0
        }
    };
    let cdf = |x: i64| match x {
        x if x < 0 => 0.0,
        x if x >= n => 1.0,
        x => dist.cdf(x as u64),
    };

    let p_value = match alternative {
        Alternative::Less => cdf(k),
        Alternative::Greater => upper(&dist, k),
        Alternative::TwoSided => {
            let d = pmf(k);
            let rerr = 1.0 + 1e-7;
            let expected = null * n as f64;
            let p = if k as f64 == expected {
                1.0
            } else if (k as f64) < expected {
                let ix = search(|x| -pmf(x), -d * rerr, expected.ceil() as i64, n);
                let y = n - ix + i64::from(d * rerr == pmf(ix));
                cdf(k) + upper(&dist, n - y + 1)
            } else {
                let ix = search(pmf, d * rerr, 0, expected.floor() as i64);
                let y = ix + 1;
                cdf(y - 1) + upper(&dist, k)
            };
            p.min(1.0)
        }
    };
    Ok(BinomialTest {
        successes,
        trials,
        proportion: k as f64 / n as f64,
        null,
        alternative,
        p_value,
    })
}

/// P(X ≥ x), scipy's `sf(x - 1)`: its own upper tail, not 1 − cdf, so a small p keeps its
/// digits.
fn upper(dist: &Binomial, x: i64) -> f64 {
    match x {
        x if x <= 0 => 1.0,
        x if x as u64 > dist.n() => 0.0,
        x => dist.sf(x as u64 - 1),
    }
}

/// scipy's `_binary_search_for_binom_tst`: the `i` in `lo..=hi` with `a(i) <= d < a(i + 1)`,
/// `a` ascending there (the pmf on one side of the mode), or `lo − 1` when `a(lo) > d`; in
/// `i64`, as Python's integers, since that can be −1.
fn search(a: impl Fn(i64) -> f64, d: f64, mut lo: i64, mut hi: i64) -> i64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let value = a(mid);
        if value < d {
            lo = mid + 1;
        } else if value > d {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    if a(lo) <= d { lo } else { lo - 1 }
}

/// The Clopper–Pearson ("exact") interval of `successes / trials` at `level` (two-sided),
/// as `binomtest(k, n).proportion_ci(level, method="exact")`: the proportions whose
/// one-sided tails at the observed count are `(1 − level) / 2`, solved by bisection on the
/// regularized incomplete beta function to machine precision (scipy's `brentq` stops at
/// 2e-12).
pub fn clopper_pearson(
    successes: u64,
    trials: u64,
    level: f64,
) -> Result<(f64, f64), BinomialError> {
    check(successes, trials)?;
    if !(level > 0.0 && level < 1.0) {
        return Err(BinomialError::Level(level));
    }
    let alpha = (1.0 - level) / 2.0;
    let (k, n) = (successes as f64, trials as f64);
    // P(X ≥ k | p) = I_p(k, n − k + 1) rises with p; P(X ≤ k | p) = 1 − I_p(k + 1, n − k) falls.
    let low = if successes == 0 {
        0.0
    } else {
        root(|p| beta_reg(k, n - k + 1.0, p) - alpha)
    };
    let high = if successes == trials {
        1.0
    } else {
        root(|p| alpha - (1.0 - beta_reg(k + 1.0, n - k, p)))
    };
    Ok((low, high))
}

/// The root in (0, 1) of `f`, rising from negative to positive, by bisection until the
/// bracket no longer narrows.
fn root(f: impl Fn(f64) -> f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    loop {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            return mid;
        }
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
}

/// The exact McNemar test of two raters on the same items: of the `b + c` items they
/// disagree on, `b` went one way; the two-sided binomial test of `b` of `b + c` at 1/2
/// (statsmodels' `mcnemar(exact=True)`). 1 when they never disagree.
pub fn mcnemar_exact(b: u64, c: u64) -> f64 {
    match binomial_test(b, b + c, 0.5, Alternative::TwoSided) {
        Ok(test) => test.p_value,
        // No discordant pair: nothing tells the raters apart.
        Err(_) => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_counts_are_errors() {
        assert_eq!(
            binomial_test(0, 0, 0.5, Alternative::TwoSided),
            Err(BinomialError::NoTrials)
        );
        assert_eq!(
            clopper_pearson(3, 2, 0.95).unwrap_err().to_string(),
            "3 successes out of 2 trials: there cannot be more successes than trials"
        );
        assert_eq!(
            binomial_test(1, 2, 1.5, Alternative::Less),
            Err(BinomialError::Proportion(1.5))
        );
        assert_eq!(clopper_pearson(1, 2, 1.0), Err(BinomialError::Level(1.0)));
        assert_eq!(mcnemar_exact(0, 0), 1.0);
    }
}
