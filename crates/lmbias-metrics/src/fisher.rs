//! Fisher's exact test of a 2×2 table, two-sided, as `scipy.stats.fisher_exact(table)`
//! computes it: the probability, under the hypergeometric law of the top-left count given
//! the margins, of every table no more probable than the observed one (scipy's relative
//! tolerance 1e-14 counts ties of probability as "no more probable").

use serde::Serialize;
use statrs::function::factorial::ln_factorial;

/// Margins beyond this are refused: the test sums over every value the top-left count can
/// take, and a table of billions of counts is no table this test serves.
pub const MAX_SUPPORT: u64 = 10_000_000;

/// Why a table has no exact test.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum FisherError {
    /// The top-left count can take more than [`MAX_SUPPORT`] values.
    #[error(
        "the table's top-left count can take {values} values given its margins; Fisher's exact test sums over at most {MAX_SUPPORT}"
    )]
    TooLarge {
        /// How many values it can take.
        values: u64,
    },
}

/// The two-sided p of `table` (`table[r][c]`, observed counts).
pub fn fisher_exact_2x2(table: [[u64; 2]; 2]) -> Result<f64, FisherError> {
    let [[a, b], [c, d]] = table;
    // Counts whose sums overflow are far past the limit.
    let too_large = FisherError::TooLarge { values: u64::MAX };
    let (Some(row0), Some(column0), Some(total)) = (
        a.checked_add(b),
        a.checked_add(c),
        a.checked_add(b)
            .and_then(|ab| ab.checked_add(c))
            .and_then(|abc| abc.checked_add(d)),
    ) else {
        return Err(too_large);
    };
    // The top-left count x runs from max(0, row0 + column0 − total) to min(row0, column0).
    let low = (row0 + column0).saturating_sub(total);
    let high = row0.min(column0);
    let values = high - low + 1;
    if values > MAX_SUPPORT {
        return Err(FisherError::TooLarge { values });
    }
    // ln P(x) = ln C(column0, x) + ln C(total − column0, row0 − x) − ln C(total, row0).
    let ln_choose = |n: u64, k: u64| ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k);
    let ln_p = |x: u64| {
        ln_choose(column0, x) + ln_choose(total - column0, row0 - x) - ln_choose(total, row0)
    };
    let observed = ln_p(a).exp();
    let p: f64 = (low..=high)
        .map(|x| ln_p(x).exp())
        .filter(|&p| p <= observed * (1.0 + 1e-14))
        .sum();
    Ok(p.min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against scipy 1.17's `fisher_exact`, Dusi's Table 1 first.
    #[test]
    fn agrees_with_scipy() {
        let cases: [([[u64; 2]; 2], f64); 6] = [
            ([[80, 40], [39, 81]], 1.8670665335695879e-07),
            ([[3, 1], [1, 3]], 0.48571428571428565),
            ([[10, 2], [3, 15]], 0.0005367241191434357),
            ([[0, 5], [5, 0]], 0.007936507936507938),
            ([[31, 28], [5, 58]], 4.0941016374785465e-08),
            ([[7, 7], [7, 7]], 1.0),
        ];
        for (table, want) in cases {
            let p = fisher_exact_2x2(table).unwrap();
            assert!(
                (p - want).abs() <= 1e-9 * want,
                "{table:?}: {p} against {want}"
            );
        }
    }

    #[test]
    fn huge_margins_are_refused_not_summed() {
        let err = fisher_exact_2x2([[u64::MAX / 8, 1], [1, u64::MAX / 8]]).unwrap_err();
        assert!(matches!(err, FisherError::TooLarge { .. }), "{err}");
        let overflow = fisher_exact_2x2([[u64::MAX, 1], [1, 1]]).unwrap_err();
        assert_eq!(overflow, FisherError::TooLarge { values: u64::MAX });
        assert!(
            err.to_string()
                .starts_with("the table's top-left count can take")
        );
    }
}
