//! Newton's method for the L2-regularised squared hinge loss (one binary problem).

use crate::error::SvmError;

/// Stop when ‖∇f‖ falls this far below its value at w = 0. scikit-learn's
/// liblinear stops at `tol` (1e-4 by default) relative; we go much further so
/// our answer is the optimum, not one particular stopping point.
const GRADIENT_TOLERANCE: f64 = 1e-12;
/// Where float rounding ends the search before GRADIENT_TOLERANCE (the
/// objective stops changing in its last bits; seen at ~3e-10 on nearly
/// degenerate word vectors): about √ε, the tolerance of our scikit-learn parity
/// fixtures (tol=1e-8), four orders of magnitude below scikit-learn's default.
const ROUNDING_TOLERANCE: f64 = 1e-8;
const MAX_NEWTON_STEPS: usize = 200;
const MIN_STEP: f64 = 1e-12;
/// Armijo sufficient-decrease constant, as in liblinear's line search.
const ARMIJO: f64 = 0.01;

/// Row-major samples with the constant intercept feature appended.
pub(crate) struct Design {
    pub rows: Vec<f64>,
    pub width: usize,
}

impl Design {
    fn row(&self, i: usize) -> &[f64] {
        &self.rows[i * self.width..(i + 1) * self.width]
    }

    fn len(&self) -> usize {
        self.rows.len() / self.width
    }

    /// All margins `x̃_i · w`.
    fn margins(&self, w: &[f64]) -> Vec<f64> {
        (0..self.len()).map(|i| dot(self.row(i), w)).collect()
    }
}

/// The minimiser of ½‖w‖² + C Σ max(0, 1 − y_i w·x̃_i)², `y_i = ±1`.
pub(crate) fn solve(design: &Design, y: &[f64], c: f64) -> Result<Vec<f64>, SvmError> {
    let mut w = vec![0.0; design.width];
    let mut margins = design.margins(&w);
    let mut value = objective(&w, &margins, y, c);
    let mut gradient = gradient_of(design, &w, &margins, y, c);
    let initial_norm = norm(&gradient);
    let stop = GRADIENT_TOLERANCE * initial_norm;
    for _ in 0..MAX_NEWTON_STEPS {
        let gradient_norm = norm(&gradient);
        if gradient_norm <= stop {
            return Ok(w);
        }
        // The generalised Hessian I + 2C X_Iᵀ X_I on the samples inside the margin.
        let active: Vec<usize> = (0..y.len()).filter(|&i| y[i] * margins[i] < 1.0).collect();
        let step = conjugate_gradient(design, &active, c, &gradient);
        let step_margins = design.margins(&step);
        let slope = dot(&gradient, &step);
        let mut t = 1.0;
        loop {
            let trial: Vec<f64> = w.iter().zip(&step).map(|(a, b)| a + t * b).collect();
            let trial_margins: Vec<f64> = margins
                .iter()
                .zip(&step_margins)
                .map(|(m, s)| m + t * s)
                .collect();
            let trial_value = objective(&trial, &trial_margins, y, c);
            if trial_value <= value + ARMIJO * t * slope {
                w = trial;
                value = trial_value;
                break;
            }
            t *= 0.5;
            if t < MIN_STEP {
                // Rounding, not the problem, stops progress: accept a gradient
                // that is already negligible, refuse anything else.
                return if gradient_norm <= ROUNDING_TOLERANCE * initial_norm {
                    Ok(w)
                } else {
                    Err(SvmError::Stalled(gradient_norm / initial_norm))
                };
            }
        }
        // Recompute margins exactly so rounding does not accumulate across steps.
        margins = design.margins(&w);
        gradient = gradient_of(design, &w, &margins, y, c);
    }
    Err(SvmError::NotConverged(MAX_NEWTON_STEPS))
}

fn objective(w: &[f64], margins: &[f64], y: &[f64], c: f64) -> f64 {
    let loss: f64 = margins
        .iter()
        .zip(y)
        .map(|(m, yi)| (1.0 - yi * m).max(0.0).powi(2))
        .sum();
    0.5 * dot(w, w) + c * loss
}

/// ∇f = w − 2C Σ_{i: y_i m_i < 1} y_i (1 − y_i m_i) x̃_i.
fn gradient_of(design: &Design, w: &[f64], margins: &[f64], y: &[f64], c: f64) -> Vec<f64> {
    let mut g = w.to_vec();
    for (i, (&m, &yi)) in margins.iter().zip(y).enumerate() {
        let slack = 1.0 - yi * m;
        if slack > 0.0 {
            axpy(-2.0 * c * yi * slack, design.row(i), &mut g);
        }
    }
    g
}

/// Solves (I + 2C X_Iᵀ X_I) d = −g by conjugate gradients. The matrix is
/// symmetric positive definite with at most |I| + 1 distinct eigenvalues, so CG
/// needs about that many iterations; rounding may ask for a few more, up to the width.
fn conjugate_gradient(design: &Design, active: &[usize], c: f64, g: &[f64]) -> Vec<f64> {
    let hessian_times = |v: &[f64]| {
        let mut out = v.to_vec();
        for &i in active {
            let row = design.row(i);
            axpy(2.0 * c * dot(row, v), row, &mut out);
        }
        out
    };
    let mut d = vec![0.0; g.len()];
    let mut r: Vec<f64> = g.iter().map(|x| -x).collect();
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let target = (1e-14 * rr.sqrt()).powi(2);
    for _ in 0..g.len() + 1 {
        if rr <= target {
            break;
        }
        let hp = hessian_times(&p);
        let alpha = rr / dot(&p, &hp);
        axpy(alpha, &p, &mut d);
        axpy(-alpha, &hp, &mut r);
        let rr_next = dot(&r, &r);
        let beta = rr_next / rr;
        rr = rr_next;
        for (pi, ri) in p.iter_mut().zip(&r) {
            *pi = ri + beta * *pi;
        }
    }
    d
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

fn axpy(alpha: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += alpha * xi;
    }
}
