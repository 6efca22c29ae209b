//! numpy's float64 summation, replicated bit for bit.
//!
//! sent-bias sums `s(w, A, B)` with `ndarray.sum()`/`mean()`, which use numpy's pairwise
//! summation (8 accumulators per block of up to 128, halving above). A permutation test counts
//! ties (`si == s`), and whether two sums of the same numbers tie depends on the order of the
//! additions, so we reproduce that order exactly. Checked against numpy 2.4 on 3000 random
//! arrays of lengths 1..400 (see `tests/fixtures/sent-bias-ref/numpy_sums.json`).

/// `np.add.reduce` of a contiguous float64 array.
pub(crate) fn numpy_sum(a: &[f64]) -> f64 {
    // The reduction starts from the identity -0.0 (numpy ≥ 2 keeps -0.0 sums negative).
    -0.0 + pairwise(a)
}

/// `np.mean` of a contiguous float64 array (sum, then one division).
pub(crate) fn numpy_mean(a: &[f64]) -> f64 {
    numpy_sum(a) / a.len() as f64
}

/// numpy's `pairwise_sum` (numpy/_core/src/umath/loops_utils.h.src).
fn pairwise(a: &[f64]) -> f64 {
    const BLOCK: usize = 128;
    let n = a.len();
    if n < 8 {
        a.iter().fold(-0.0, |acc, &v| acc + v)
    } else if n <= BLOCK {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let body = n - n % 8;
        for chunk in a[8..body].chunks_exact(8) {
            for (acc, &v) in r.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[body..] {
            res += v;
        }
        res
    } else {
        let half = n / 2;
        let half = half - half % 8;
        pairwise(&a[..half]) + pairwise(&a[half..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_sums_are_sequential() {
        // 0.1 + 0.2 + 0.3 sequentially is 0.6000000000000001; pairwise would not change that,
        // but a different grouping (0.2 + 0.3 first) gives 0.6.
        assert_eq!(numpy_sum(&[0.1, 0.2, 0.3]), 0.6000000000000001);
        assert_eq!(numpy_sum(&[0.2, 0.3, 0.1]), 0.6);
    }

    #[test]
    fn nine_values_use_eight_accumulators() {
        // With 8 accumulators, 1e16 and -1e16 cancel in one group before the 1.0s are added.
        let a = [1e16, 1.0, -1e16, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        // ((1e16+1)+(-1e16+1)) + ((1+1)+(1+1)) then + 1 (the 9th, sequential tail)
        let expected = ((1e16f64 + 1.0) + (-1e16 + 1.0)) + ((1.0 + 1.0) + (1.0 + 1.0)) + 1.0;
        assert_eq!(numpy_sum(&a), expected);
        assert_ne!(numpy_sum(&a), a.iter().sum::<f64>());
    }

    #[test]
    fn empty_sum_is_zero() {
        assert_eq!(numpy_sum(&[]), 0.0);
    }
}
