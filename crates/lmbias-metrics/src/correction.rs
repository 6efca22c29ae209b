//! Multiple-test correction over a battery of p-values (e.g. all SEAT tests of one model).
//!
//! Both return adjusted p-values in the input order, as statsmodels' `multipletests` does:
//! reject hypothesis i at level α when `adjusted[i] ≤ α`.

/// Why a battery of p-values cannot be corrected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CorrectionError {
    /// A p-value outside [0, 1] (or NaN) is a bug upstream; correcting it would hide that.
    #[error("p-value {index} is {value}, not in [0, 1]")]
    OutOfRange {
        /// Its position in the input, counting from 0.
        index: usize,
        /// The value given.
        value: f64,
    },
}

fn check(p_values: &[f64]) -> Result<(), CorrectionError> {
    match p_values.iter().position(|p| !(0.0..=1.0).contains(p)) {
        Some(index) => Err(CorrectionError::OutOfRange {
            index,
            value: p_values[index],
        }),
        None => Ok(()),
    }
}

/// Indices that sort `p_values` ascending (stable, so equal p-values keep their order).
fn ascending(p_values: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..p_values.len()).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    order
}

/// Holm's step-down adjustment (Holm 1979); controls the family-wise error rate.
///
/// `adjusted_(i) = max_{j ≤ i} min(1, (m − j + 1) · p_(j))` over the ascending p-values.
pub fn holm(p_values: &[f64]) -> Result<Vec<f64>, CorrectionError> {
    check(p_values)?;
    let m = p_values.len();
    let mut adjusted = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in ascending(p_values).iter().enumerate() {
        running = running.max(((m - rank) as f64 * p_values[i]).min(1.0));
        adjusted[i] = running;
    }
    Ok(adjusted)
}

/// Benjamini–Hochberg step-up adjustment (1995); controls the false discovery rate.
///
/// `adjusted_(i) = min_{j ≥ i} min(1, m / j · p_(j))` over the ascending p-values.
pub fn benjamini_hochberg(p_values: &[f64]) -> Result<Vec<f64>, CorrectionError> {
    check(p_values)?;
    let m = p_values.len();
    let mut adjusted = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in ascending(p_values).iter().enumerate().rev() {
        running = running.min(m as f64 / (rank + 1) as f64 * p_values[i]);
        adjusted[i] = running;
    }
    Ok(adjusted)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Reference values: statsmodels.stats.multitest.multipletests(p, method="holm" / "fdr_bh"),
    // computed by hand here: p = [0.01, 0.04, 0.03, 0.005], m = 4.
    const P: [f64; 4] = [0.01, 0.04, 0.03, 0.005];

    #[test]
    fn holm_matches_hand_computation() {
        // sorted: 0.005·4 = 0.02, 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max-accumulate 0.06
        let adj = holm(&P).unwrap();
        let expected = [0.03, 0.06, 0.06, 0.02];
        for (a, e) in adj.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adj:?}");
        }
    }

    #[test]
    fn bh_matches_hand_computation() {
        // sorted: 0.005·4/1 = 0.02, 0.01·4/2 = 0.02, 0.03·4/3 = 0.04, 0.04·4/4 = 0.04
        let adj = benjamini_hochberg(&P).unwrap();
        let expected = [0.02, 0.04, 0.04, 0.02];
        for (a, e) in adj.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adj:?}");
        }
    }

    #[test]
    fn adjusted_values_are_capped_at_one() {
        assert_eq!(holm(&[0.6, 0.9]).unwrap(), vec![1.0, 1.0]);
        assert_eq!(benjamini_hochberg(&[0.6, 0.9]).unwrap(), vec![0.9, 0.9]);
    }

    #[test]
    fn invalid_p_values_are_named() {
        let err = holm(&[0.1, f64::NAN]).unwrap_err();
        assert_eq!(err.to_string(), "p-value 1 is NaN, not in [0, 1]");
        assert!(benjamini_hochberg(&[1.5]).is_err());
        assert_eq!(holm(&[]).unwrap(), Vec::<f64>::new());
    }
}
