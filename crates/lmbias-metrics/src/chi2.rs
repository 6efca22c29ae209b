//! Pearson's χ² test of independence on an r×c contingency table (no Yates correction),
//! as `scipy.stats.chi2_contingency(table, correction=False)`, and the fit of each row to
//! equal probabilities across its cells; both used for Dusi (2024)'s categorical-association
//! probe, whose stated null is the second and whose printed p is nearest the first's. Beside
//! them, the other common readings of "a χ² test" of a table, so that a published p can be
//! set beside each: Yates's continuity correction (scipy's default) and the G-test.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// The test's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Chi2Result {
    /// Pearson's statistic `Σ (O − E)² / E`.
    pub chi2: f64,
    /// `(r − 1)(c − 1)`.
    pub df: usize,
    /// Upper tail of χ²(df) at `chi2`.
    pub p_value: f64,
}

/// Which margin of the table, so an error can say which category to drop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Axis {
    /// `table[r]`.
    Row,
    /// `table[..][c]`.
    Column,
}

impl std::fmt::Display for Axis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Axis::Row => "row",
            Axis::Column => "column",
        })
    }
}

/// Why a table has no χ² statistic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Chi2Error {
    /// With too few rows or one column there are 0 degrees of freedom.
    #[error(
        "a contingency table needs at least {min_rows} row(s) and 2 columns, got {rows}×{columns}"
    )]
    TooSmall {
        /// Rows the test needs: 2 for independence, 1 for a fit within rows.
        min_rows: usize,
        /// Rows given.
        rows: usize,
        /// Cells in row 0.
        columns: usize,
    },
    /// Rows of different lengths are not a table.
    #[error("row {row} has {found} cells, row 0 has {expected}")]
    Ragged {
        /// The first row that differs, counting from 0.
        row: usize,
        /// Its length.
        found: usize,
        /// Row 0's length.
        expected: usize,
    },
    /// A whole category is unobserved: its expected counts are 0, so χ² would divide by zero.
    #[error(
        "{axis} {index} sums to zero: its expected counts are 0, so χ² is undefined (drop that {axis})"
    )]
    ZeroMargin {
        /// Row or column.
        axis: Axis,
        /// Which one, counting from 0.
        index: usize,
    },
}

/// `(rows, columns)` of a table with at least `min_rows` rows and 2 columns, every row as
/// long as the first.
fn shape(table: &[Vec<u64>], min_rows: usize) -> Result<(usize, usize), Chi2Error> {
    let rows = table.len();
    let columns = table.first().map_or(0, Vec::len);
    if rows < min_rows || columns < 2 {
        return Err(Chi2Error::TooSmall {
            min_rows,
            rows,
            columns,
        });
    }
    if let Some((row, r)) = table.iter().enumerate().find(|(_, r)| r.len() != columns) {
        return Err(Chi2Error::Ragged {
            row,
            found: r.len(),
            expected: columns,
        });
    }
    Ok((rows, columns))
}

/// The counts independence expects, `row sum × column sum / total`, cell by cell, and the
/// degrees of freedom `(r − 1)(c − 1)`.
fn expected_counts(table: &[Vec<u64>]) -> Result<(Vec<Vec<f64>>, usize), Chi2Error> {
    let (rows, columns) = shape(table, 2)?;
    // Summed in u128, which no table of u64 counts overflows; then one rounding to f64, as the
    // u64 sums it replaces gave whenever they did not overflow.
    let sum = |counts: &mut dyn Iterator<Item = u64>| counts.map(u128::from).sum::<u128>() as f64;
    let row_sums: Vec<f64> = table.iter().map(|r| sum(&mut r.iter().copied())).collect();
    let column_sums: Vec<f64> = (0..columns)
        .map(|c| sum(&mut table.iter().map(|r| r[c])))
        .collect();
    for (axis, sums) in [(Axis::Row, &row_sums), (Axis::Column, &column_sums)] {
        if let Some(index) = sums.iter().position(|&s| s == 0.0) {
            return Err(Chi2Error::ZeroMargin { axis, index });
        }
    }
    let total: f64 = row_sums.iter().sum();
    let expected = row_sums
        .iter()
        .map(|r| column_sums.iter().map(|c| r * c / total).collect())
        .collect();
    Ok((expected, (rows - 1) * (columns - 1)))
}

/// `statistic` with its upper tail of χ²(df).
fn upper_tail(statistic: f64, df: usize) -> Chi2Result {
    let distribution = ChiSquared::new(df as f64).expect("df ≥ 1 is a valid χ² parameter");
    Chi2Result {
        chi2: statistic,
        df,
        p_value: distribution.sf(statistic),
    }
}

/// Σ over the cells of `term(observed, expected)`.
fn sum_cells(table: &[Vec<u64>], expected: &[Vec<f64>], term: impl Fn(f64, f64) -> f64) -> f64 {
    table
        .iter()
        .zip(expected)
        .flat_map(|(o, e)| o.iter().zip(e))
        .map(|(&o, &e)| term(o as f64, e))
        .sum()
}

/// χ² test of independence of rows and columns; `table[r][c]` are observed counts.
pub fn chi2_independence(table: &[Vec<u64>]) -> Result<Chi2Result, Chi2Error> {
    let (expected, df) = expected_counts(table)?;
    let chi2 = sum_cells(table, &expected, |o, e| (o - e).powi(2) / e);
    Ok(upper_tail(chi2, df))
}

/// The same test with Yates's continuity correction, as `scipy.stats.chi2_contingency(table)`
/// (its default `correction=True`) applies it: only where df = 1 (a 2×2 table), each
/// `|O − E|` reduced by 0.5, or to 0 where it is smaller; otherwise the uncorrected test.
pub fn chi2_independence_yates(table: &[Vec<u64>]) -> Result<Chi2Result, Chi2Error> {
    let (expected, df) = expected_counts(table)?;
    if df != 1 {
        return chi2_independence(table);
    }
    let chi2 = sum_cells(table, &expected, |o, e| {
        let gap = (o - e).abs();
        (gap - gap.min(0.5)).powi(2) / e
    });
    Ok(upper_tail(chi2, df))
}

/// The G-test of independence (the log-likelihood ratio), as
/// `scipy.stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")`:
/// G = 2 Σ O ln(O / E), an empty cell adding nothing, referred to χ²(df).
pub fn g_test_independence(table: &[Vec<u64>]) -> Result<Chi2Result, Chi2Error> {
    let (expected, df) = expected_counts(table)?;
    let g = 2.0
        * sum_cells(table, &expected, |o, e| {
            if o > 0.0 { o * (o / e).ln() } else { 0.0 }
        });
    Ok(upper_tail(g, df))
}

/// χ² goodness of fit of each row of `table` to equal probabilities across its cells,
/// statistics and degrees of freedom summed over the rows: Σ_r Σ_c (O_rc − n_r/C)² / (n_r/C)
/// with R·(C − 1) degrees of freedom (`scipy.stats.chisquare` on each row, added up).
/// Dusi (2024) states this null for its probe: "equal probabilities for each predicted
/// class", within each stereotyped value.
pub fn chi2_equal_within_rows(table: &[Vec<u64>]) -> Result<Chi2Result, Chi2Error> {
    let (rows, columns) = shape(table, 1)?;
    let mut chi2 = 0.0;
    for (index, row) in table.iter().enumerate() {
        let n = row.iter().map(|&c| u128::from(c)).sum::<u128>() as f64;
        if n == 0.0 {
            return Err(Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index,
            });
        }
        let expected = n / columns as f64;
        chi2 += row
            .iter()
            .map(|&observed| (observed as f64 - expected).powi(2) / expected)
            .sum::<f64>();
    }
    Ok(upper_tail(chi2, rows * (columns - 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dusi_table_1() {
        // Dusi (2024), Table 1: χ² = 28.0186, p = 1.2015e-7 for [[80, 40], [39, 81]].
        let result = chi2_independence(&[vec![80, 40], vec![39, 81]]).unwrap();
        assert_eq!(result.df, 1);
        assert!((result.chi2 - 28.0186).abs() < 5e-5, "{result:?}");
        assert!((result.p_value - 1.2015e-7).abs() < 5e-12, "{result:?}");
    }

    /// The other readings of a χ² test on Dusi's Table 1 and on tables of other shapes,
    /// against scipy 1.17's `chi2_contingency` (correction=True; lambda_="log-likelihood").
    #[test]
    fn yates_and_g_test_agree_with_scipy() {
        /// A table, then Yates's χ² and p, then G and its p.
        type Case = ([[u64; 2]; 2], f64, f64, f64, f64);
        let cases: [Case; 4] = [
            // table, Yates χ², its p, G, its p
            (
                [[80, 40], [39, 81]],
                26.668518647128273,
                2.4152477645763265e-07,
                28.59113260580189,
                8.939060506903409e-08,
            ),
            (
                [[3, 1], [1, 3]],
                0.5,
                0.47950012218695337,
                2.0929925750581915,
                0.14797595938502317,
            ),
            (
                [[10, 2], [3, 15]],
                10.45814479638009,
                0.001221098516311509,
                14.020233375839739,
                0.00018085403546125192,
            ),
            (
                [[0, 5], [5, 0]],
                6.4,
                0.01141203638600166,
                13.862943611198906,
                0.00019663765560209797,
            ),
        ];
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-300);
        for (table, yates, yates_p, g, g_p) in cases {
            let table: Vec<Vec<u64>> = table.iter().map(|r| r.to_vec()).collect();
            let y = chi2_independence_yates(&table).unwrap();
            assert!(
                close(y.chi2, yates) && close(y.p_value, yates_p),
                "{table:?} {y:?}"
            );
            let t = g_test_independence(&table).unwrap();
            assert!(close(t.chi2, g) && close(t.p_value, g_p), "{table:?} {t:?}");
        }
        // Yates's correction is scipy's only for df = 1: a 2×3 table gets the plain test.
        let wide = [vec![10, 20, 5], vec![20, 5, 10]];
        assert_eq!(
            chi2_independence_yates(&wide).unwrap(),
            chi2_independence(&wide).unwrap()
        );
        assert_eq!(
            g_test_independence(&[vec![0, 0], vec![1, 2]]).unwrap_err(),
            Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index: 0
            }
        );
    }

    #[test]
    fn independent_table_has_zero_statistic() {
        let result = chi2_independence(&[vec![10, 20, 30], vec![20, 40, 60]]).unwrap();
        assert_eq!(result.df, 2);
        assert!(result.chi2.abs() < 1e-12);
        assert!((result.p_value - 1.0).abs() < 1e-12);
    }

    #[test]
    fn degenerate_tables_are_explained() {
        let err = chi2_independence(&[vec![0, 0], vec![3, 4]]).unwrap_err();
        assert_eq!(
            err,
            Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index: 0
            }
        );
        assert_eq!(
            err.to_string(),
            "row 0 sums to zero: its expected counts are 0, so χ² is undefined (drop that row)"
        );
        let err = chi2_independence(&[vec![1, 0], vec![3, 0]]).unwrap_err();
        assert_eq!(
            err,
            Chi2Error::ZeroMargin {
                axis: Axis::Column,
                index: 1
            }
        );
        assert_eq!(
            chi2_independence(&[vec![1, 2]]).unwrap_err(),
            Chi2Error::TooSmall {
                min_rows: 2,
                rows: 1,
                columns: 2
            }
        );
        assert_eq!(
            chi2_independence(&[vec![1, 2], vec![3]]).unwrap_err(),
            Chi2Error::Ragged {
                row: 1,
                found: 1,
                expected: 2
            }
        );
    }

    #[test]
    fn counts_whose_sums_overflow_u64_do_not_panic() {
        let m = u64::MAX;
        let result = chi2_independence(&[vec![m, m], vec![m, 1]]).unwrap();
        assert!(result.chi2.is_finite() && result.chi2 > 0.0, "{result:?}");
        // Proportional rows: independent, however large the counts.
        let result = chi2_independence(&[vec![m, m], vec![m, m]]).unwrap();
        assert_eq!(result.chi2, 0.0);
        assert_eq!(result.p_value, 1.0);
    }

    /// Dusi (2024), Table 1 read as the paper states its null: within each adjective
    /// value, the two predicted classes equally likely. χ² is the same 28.0186 (both
    /// rows of the paper's table total 120), with 2 degrees of freedom: p = 8.24e-7,
    /// not the 1.1e-7 the paper prints: 14.1261 + 13.8926, and for 2 degrees of freedom
    /// the upper tail is exp(−χ²/2) = 8.2383e-7.
    #[test]
    fn dusi_table_1_as_a_fit_to_equal_predicted_classes() {
        let fit = chi2_equal_within_rows(&[vec![80, 39], vec![40, 81]]).unwrap();
        assert_eq!(fit.df, 2);
        assert!((fit.chi2 - 28.0186).abs() < 5e-5, "{fit:?}");
        assert!((fit.p_value - 8.2383e-7).abs() < 5e-11, "{fit:?}");
        // Rows of different totals: the two readings part (our table at n = 235, MiniLM).
        let ours = [vec![31, 28], vec![5, 58]];
        let fit = chi2_equal_within_rows(&ours).unwrap();
        let independence = chi2_independence(&ours).unwrap();
        // Row 1: 59 words, 29.5 expected each: 2 × 1.5² / 29.5; row 2: 63, 31.5: 2 × 26.5² / 31.5.
        let want = 2.0 * 1.5f64.powi(2) / 29.5 + 2.0 * 26.5f64.powi(2) / 31.5;
        assert!((fit.chi2 - want).abs() < 1e-9, "{fit:?}");
        assert!(
            (independence.chi2 - fit.chi2).abs() > 1.0,
            "{independence:?} {fit:?}"
        );
        assert_eq!(
            chi2_equal_within_rows(&[vec![0, 0], vec![1, 2]]).unwrap_err(),
            Chi2Error::ZeroMargin {
                axis: Axis::Row,
                index: 0
            }
        );
        assert!(matches!(
            chi2_equal_within_rows(&[vec![3]]),
            Err(Chi2Error::TooSmall { .. })
        ));
    }
}
