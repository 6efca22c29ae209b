//! Binary L2-regularised logistic regression: the problem of scikit-learn's
//! `LogisticRegression(solver="liblinear")` (liblinear's `L2R_LR` primal solver), which
//! WEFE's RNSB fits (Sweeney & Najafian 2019).
//!
//! ```text
//! min_w  ½‖w‖² + C Σ_i ln(1 + exp(−y_i w·x̃_i))      x̃_i = [x_i, 1]
//! ```
//!
//! As in liblinear the intercept is the weight of a constant feature and is regularised. The
//! objective is smooth and strictly convex: one optimum, which Newton's method (conjugate
//! gradients on the Hessian, Armijo backtracking) reaches to a gradient far below
//! scikit-learn's `tol`, so our weights are the optimum, not liblinear's stopping point.

use crate::error::FitError;
use crate::newton::{Design, axpy, dot, newton_direction, norm};

/// Stop when ‖∇f‖ is this far below its value at w = 0.
const GRADIENT_TOLERANCE: f64 = 1e-12;
/// A gradient this small relative to its start is accepted when rounding stops progress.
const ROUNDING_TOLERANCE: f64 = 1e-8;
const MAX_NEWTON_STEPS: usize = 100;
const HALVINGS: usize = 50;
const ARMIJO: f64 = 0.01;

/// Training settings of `LogisticRegression(solver="liblinear", C=c)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogisticRegression {
    c: f64,
}

impl Default for LogisticRegression {
    /// C = 1, scikit-learn's default and WEFE's.
    fn default() -> Self {
        LogisticRegression { c: 1.0 }
    }
}

/// A fitted binary model: P(y = +1 | x) = σ(w·x + b).
#[derive(Debug, Clone, PartialEq)]
pub struct LogisticModel {
    coef: Vec<f64>,
    intercept: f64,
}

impl LogisticRegression {
    /// Fits `positive[i]` (label +1 when true, −1 when false) on `samples`. Both labels must
    /// occur; every sample must have the same, non-zero number of finite features.
    pub fn fit(&self, samples: &[Vec<f64>], positive: &[bool]) -> Result<LogisticModel, FitError> {
        if samples.is_empty() {
            return Err(FitError::Empty);
        }
        if samples.len() != positive.len() {
            return Err(FitError::LabelCount {
                samples: samples.len(),
                labels: positive.len(),
            });
        }
        if positive.iter().all(|&p| p) || positive.iter().all(|&p| !p) {
            return Err(FitError::OneClass);
        }
        let design = Design::new(samples)?;
        let y: Vec<f64> = positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        let mut w = solve(&design, &y, self.c)?;
        let intercept = w.pop().expect("width is features + 1");
        Ok(LogisticModel { coef: w, intercept })
    }
}

impl LogisticModel {
    /// The weights of the features (scikit-learn's `coef_[0]`).
    pub fn coef(&self) -> &[f64] {
        &self.coef
    }

    /// The intercept (scikit-learn's `intercept_[0]`).
    pub fn intercept(&self) -> f64 {
        self.intercept
    }

    /// P(y = −1 | x), scikit-learn's `predict_proba(x)[:, 0]` for labels {−1, +1}.
    pub fn probability_negative(&self, sample: &[f64]) -> Result<f64, FitError> {
        if sample.len() != self.coef.len() {
            return Err(FitError::Width {
                index: 0,
                expected: self.coef.len(),
                found: sample.len(),
            });
        }
        let z = dot(&self.coef, sample) + self.intercept;
        Ok(sigmoid(-z))
    }
}

/// 1 / (1 + e^−z), without overflow for large |z|.
fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

/// ln(1 + e^−m), without overflow.
fn log_loss(m: f64) -> f64 {
    if m > 0.0 {
        (-m).exp().ln_1p()
    } else {
        -m + m.exp().ln_1p()
    }
}

fn objective(w: &[f64], margins: &[f64], y: &[f64], c: f64) -> f64 {
    let loss: f64 = margins.iter().zip(y).map(|(m, yi)| log_loss(yi * m)).sum();
    0.5 * dot(w, w) + c * loss
}

/// ∇f = w − C Σ y_i σ(−y_i m_i) x̃_i.
fn gradient_of(design: &Design, w: &[f64], margins: &[f64], y: &[f64], c: f64) -> Vec<f64> {
    let mut g = w.to_vec();
    for (i, (&m, &yi)) in margins.iter().zip(y).enumerate() {
        axpy(-c * yi * sigmoid(-yi * m), design.row(i), &mut g);
    }
    g
}

fn solve(design: &Design, y: &[f64], c: f64) -> Result<Vec<f64>, FitError> {
    let mut w = vec![0.0; design.width];
    let mut margins = design.margins(&w);
    let mut gradient = gradient_of(design, &w, &margins, y, c);
    let initial_norm = norm(&gradient);
    for _ in 0..MAX_NEWTON_STEPS {
        let gradient_norm = norm(&gradient);
        if gradient_norm <= GRADIENT_TOLERANCE * initial_norm {
            return Ok(w);
        }
        // The Hessian I + C Xᵀ D X, D_i = σ(m_i) σ(−m_i).
        let weights: Vec<(usize, f64)> = margins
            .iter()
            .enumerate()
            .map(|(i, &m)| (i, c * sigmoid(m) * sigmoid(-m)))
            .collect();
        let step = newton_direction(design, &weights, &gradient);
        let value = objective(&w, &margins, y, c);
        let slope = dot(&gradient, &step);
        let mut t = 1.0;
        let mut next = None;
        for _ in 0..=HALVINGS {
            let candidate: Vec<f64> = w.iter().zip(&step).map(|(a, b)| a + t * b).collect();
            let candidate_margins = design.margins(&candidate);
            let trial = objective(&candidate, &candidate_margins, y, c);
            if trial <= value + ARMIJO * t * slope {
                next = Some((candidate, candidate_margins));
                break;
            }
            t *= 0.5;
        }
        let Some((candidate, candidate_margins)) = next else {
            // No step lowers the objective: rounding, not the problem, stops here.
            return if gradient_norm <= ROUNDING_TOLERANCE * initial_norm {
                Ok(w)
            } else {
                Err(FitError::Stalled(gradient_norm / initial_norm))
            };
        };
        let candidate_gradient = gradient_of(design, &candidate, &candidate_margins, y, c);
        if norm(&candidate_gradient) >= gradient_norm
            && gradient_norm <= ROUNDING_TOLERANCE * initial_norm
        {
            return Ok(w);
        }
        (w, margins, gradient) = (candidate, candidate_margins, candidate_gradient);
    }
    Err(FitError::NotConverged(MAX_NEWTON_STEPS))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At the optimum the gradient vanishes: w = C Σ y_i σ(−y_i m_i) x̃_i, checked on a
    /// problem no line separates, and the probabilities of the two classes sum to 1.
    #[test]
    fn the_fit_is_the_stationary_point() {
        let samples = vec![
            vec![0.0, 1.0],
            vec![1.0, 0.5],
            vec![2.0, -1.0],
            vec![0.5, 0.0],
            vec![1.5, 1.5],
        ];
        let positive = [true, true, false, false, true];
        let model = LogisticRegression::default()
            .fit(&samples, &positive)
            .unwrap();
        let design = Design::new(&samples).unwrap();
        let mut w = model.coef().to_vec();
        w.push(model.intercept());
        let y: Vec<f64> = positive
            .iter()
            .map(|&p| if p { 1.0 } else { -1.0 })
            .collect();
        let g = gradient_of(&design, &w, &design.margins(&w), &y, 1.0);
        assert!(norm(&g) < 1e-10, "gradient {g:?}");
        let p = model.probability_negative(&samples[2]).unwrap();
        assert!(p > 0.5 && p < 1.0, "{p}");
    }

    #[test]
    fn one_class_is_refused() {
        let err = LogisticRegression::default()
            .fit(&[vec![1.0], vec![2.0]], &[true, true])
            .unwrap_err();
        assert_eq!(err, FitError::OneClass);
    }
}
