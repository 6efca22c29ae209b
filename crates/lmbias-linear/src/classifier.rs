//! One-vs-rest linear SVM over labelled samples, with scikit-learn's conventions.

use crate::error::FitError;
use crate::newton::{Design, dot, solve};

/// Training settings of `LinearSVC(dual=False, C=c)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinearSvc {
    c: f64,
}

impl Default for LinearSvc {
    /// C = 1, scikit-learn's default and the probe's setting.
    fn default() -> Self {
        LinearSvc { c: 1.0 }
    }
}

impl LinearSvc {
    /// Another C (inverse regularisation strength), checked here so `fit` cannot get a bad one.
    pub fn with_c(c: f64) -> Result<Self, FitError> {
        if c > 0.0 && c.is_finite() {
            Ok(LinearSvc { c })
        } else {
            Err(FitError::Cost(c))
        }
    }

    /// Fits one weight vector per class (one in all for two classes).
    /// Every sample must have the same, non-zero number of finite features.
    pub fn fit<L: Ord + Clone>(
        &self,
        samples: &[Vec<f64>],
        labels: &[L],
    ) -> Result<LinearSvcModel<L>, FitError> {
        if samples.is_empty() {
            return Err(FitError::Empty);
        }
        if samples.len() != labels.len() {
            return Err(FitError::LabelCount {
                samples: samples.len(),
                labels: labels.len(),
            });
        }
        let design = Design::new(samples)?;

        let mut classes: Vec<L> = labels.to_vec();
        classes.sort();
        classes.dedup();
        if classes.len() < 2 {
            return Err(FitError::OneClass);
        }
        // Binary: one problem, positive class = the second sorted label.
        let positives: Vec<&L> = if classes.len() == 2 {
            vec![&classes[1]]
        } else {
            classes.iter().collect()
        };
        let mut coef = Vec::with_capacity(positives.len());
        let mut intercept = Vec::with_capacity(positives.len());
        for positive in positives {
            let y: Vec<f64> = labels
                .iter()
                .map(|l| if l == positive { 1.0 } else { -1.0 })
                .collect();
            let mut w = solve(&design, &y, self.c)?;
            intercept.push(w.pop().expect("width is features + 1"));
            coef.push(w);
        }
        Ok(LinearSvcModel {
            classes,
            coef,
            intercept,
        })
    }
}

/// A trained one-vs-rest linear SVM.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearSvcModel<L> {
    classes: Vec<L>,
    coef: Vec<Vec<f64>>,
    intercept: Vec<f64>,
}

impl<L> LinearSvcModel<L> {
    /// The classes, sorted.
    pub fn classes(&self) -> &[L] {
        &self.classes
    }

    /// scikit-learn's `coef_`: one row for two classes, else one row per class.
    pub fn coef(&self) -> &[Vec<f64>] {
        &self.coef
    }

    /// scikit-learn's `intercept_`.
    pub fn intercept(&self) -> &[f64] {
        &self.intercept
    }

    /// The width every sample given to [`decision`](Self::decision) must have.
    pub fn n_features(&self) -> usize {
        self.coef[0].len()
    }

    /// Relevance of each feature: |w_j|, averaged over the rows of `coef`. With
    /// two classes there is one row, Dusi 2024's |w|; the average over the
    /// one-vs-rest rows for more classes is our choice, not the paper's (its
    /// pairs all have two classes).
    pub fn relevance(&self) -> Vec<f64> {
        let rows = self.coef.len() as f64;
        (0..self.n_features())
            .map(|j| self.coef.iter().map(|w| w[j].abs()).sum::<f64>() / rows)
            .collect()
    }

    /// Feature indices by decreasing relevance; equal relevance keeps the lower index first.
    pub fn relevance_order(&self) -> Vec<usize> {
        let relevance = self.relevance();
        let mut order: Vec<usize> = (0..relevance.len()).collect();
        order.sort_by(|&a, &b| relevance[b].total_cmp(&relevance[a]));
        order
    }

    /// scikit-learn's `decision_function` for one sample.
    ///
    /// A non-finite feature is an error, as in training: its decision would be NaN, and a NaN
    /// decision would silently predict the first class.
    pub fn decision(&self, sample: &[f64]) -> Result<Vec<f64>, FitError> {
        if sample.len() != self.n_features() {
            return Err(FitError::Width {
                index: 0,
                expected: self.n_features(),
                found: sample.len(),
            });
        }
        if let Some(feature) = sample.iter().position(|v| !v.is_finite()) {
            return Err(FitError::NonFinite { index: 0, feature });
        }
        Ok(self
            .coef
            .iter()
            .zip(&self.intercept)
            .map(|(w, b)| dot(w, sample) + b)
            .collect())
    }

    /// The predicted class: for two classes the second when the decision is
    /// positive, else the first; otherwise the largest decision, the earliest
    /// class on ties (numpy's argmax).
    pub fn predict(&self, sample: &[f64]) -> Result<&L, FitError> {
        let decision = self.decision(sample)?;
        let index = if decision.len() == 1 {
            usize::from(decision[0] > 0.0)
        } else {
            let mut best = 0;
            for (k, value) in decision.iter().enumerate() {
                if *value > decision[best] {
                    best = k;
                }
            }
            best
        };
        Ok(&self.classes[index])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The optimum satisfies w = 2C Σ_{margin violators} y_i (1 − y_i w·x̃_i) x̃_i;
    /// check that stationarity condition directly on a small hand-made problem.
    #[test]
    fn binary_weights_are_stationary() {
        let samples = vec![
            vec![1.0, 2.0],
            vec![2.0, 0.5],
            vec![-1.0, -1.5],
            vec![-2.0, 0.3],
            vec![0.2, -0.1],
        ];
        let labels = ["b", "b", "a", "a", "a"];
        let model = LinearSvc::default().fit(&samples, &labels).unwrap();
        assert_eq!(model.classes(), ["a", "b"]);
        let mut w = model.coef()[0].clone();
        w.push(model.intercept()[0]);
        let mut rhs = vec![0.0; 3];
        for (x, l) in samples.iter().zip(labels) {
            let y = if l == "b" { 1.0 } else { -1.0 };
            let m = x[0] * w[0] + x[1] * w[1] + w[2];
            let slack = 1.0 - y * m;
            if slack > 0.0 {
                for (r, xi) in rhs.iter_mut().zip(x.iter().chain([&1.0])) {
                    *r += 2.0 * y * slack * xi;
                }
            }
        }
        for (a, b) in w.iter().zip(&rhs) {
            assert!((a - b).abs() < 1e-10, "{w:?} vs {rhs:?}");
        }
        assert!(model.coef()[0][0] > 0.0, "class b lies at positive x");
        assert_eq!(model.predict(&[3.0, 3.0]).unwrap(), &"b");
        assert_eq!(model.predict(&[-3.0, -3.0]).unwrap(), &"a");
    }

    #[test]
    fn features_may_outnumber_samples() {
        let samples: Vec<Vec<f64>> = (0..4)
            .map(|i| {
                (0..50)
                    .map(|j| ((i * 7 + j * 3) % 11) as f64 - 5.0)
                    .collect()
            })
            .collect();
        let model = LinearSvc::default().fit(&samples, &[0, 1, 2, 1]).unwrap();
        assert_eq!(model.coef().len(), 3);
        // Separable with more features than samples: every training sample is recovered.
        for (x, l) in samples.iter().zip([0, 1, 2, 1]) {
            assert_eq!(*model.predict(x).unwrap(), l);
        }
        assert_eq!(model.relevance_order().len(), 50);
    }

    #[test]
    fn bad_input_is_named() {
        let svm = LinearSvc::default();
        assert_eq!(
            svm.fit(&[vec![1.0], vec![1.0, 2.0]], &[0, 1])
                .unwrap_err()
                .to_string(),
            "sample 1 has 2 features, expected 1"
        );
        assert_eq!(
            svm.fit(&[vec![1.0], vec![f64::NAN]], &[0, 1])
                .unwrap_err()
                .to_string(),
            "sample 1 feature 0 is not finite"
        );
        assert_eq!(svm.fit(&[vec![1.0]], &[0]).unwrap_err(), FitError::OneClass);
        assert!(LinearSvc::with_c(0.0).is_err());
        assert_eq!(
            svm.fit(&[vec![], vec![]], &[0, 1]).unwrap_err(),
            FitError::NoFeatures
        );
    }

    #[test]
    fn non_finite_samples_are_refused_when_predicting() {
        let model = LinearSvc::default()
            .fit(&[vec![1.0, 0.0], vec![-1.0, 0.0]], &["a", "b"])
            .unwrap();
        for bad in [f64::NAN, f64::INFINITY] {
            assert_eq!(
                model.predict(&[0.5, bad]).unwrap_err(),
                FitError::NonFinite {
                    index: 0,
                    feature: 1
                }
            );
        }
        assert_eq!(
            model.decision(&[1.0]).unwrap_err().to_string(),
            "sample 0 has 1 features, expected 2"
        );
    }
}
