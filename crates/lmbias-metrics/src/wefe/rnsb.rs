//! Relative Negative Sentiment Bias (Sweeney & Najafian 2019), as WEFE 1.0.1's `RNSB`: a
//! logistic regression (scikit-learn's `LogisticRegression(solver="liblinear")`, C = 1) learns
//! attribute set A (label +1) against B (label −1); every target word of every target set gets
//! P(−1 | t), the probability of B; those probabilities, normalised to sum to 1, are compared
//! with the uniform distribution by Kullback–Leibler divergence (natural log, scipy's
//! `entropy`). 0: every target word is as likely to be read as B.
//!
//! WEFE's default fits on a random 80 % (`holdout=True`, unseeded); its `holdout=False` fits
//! on every attribute word, which is a strictly convex problem with one optimum, so the value
//! is reproducible: our default. With [`RnsbHoldout`] we hold out, per attribute set,
//! ⌈20 %⌉ of its words drawn with a seeded ChaCha8 shuffle (our split, not scikit-learn's) and
//! report the accuracy on them.

use lmbias_core::Role;
use lmbias_linear::LogisticRegression;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::wefe::error::WefeError;

/// A seeded held-out split of the attribute words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RnsbHoldout {
    /// Seed of the shuffle.
    pub seed: u64,
}

/// RNSB's value and its classifier's accuracy.
#[derive(Debug, Clone, PartialEq)]
pub struct Rnsb {
    /// KL divergence of the normalised P(B | t) from uniform.
    pub divergence: f64,
    /// Accuracy on the attribute words the classifier was fitted on, or on the held-out
    /// ones.
    pub accuracy: f64,
    /// P(B | t) per target word, target sets in order.
    pub probabilities: Vec<f64>,
}

/// RNSB of the target sets wrt attribute sets A (+1) and B (−1).
pub fn rnsb(
    targets: &[&[Vec<f64>]],
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    holdout: Option<RnsbHoldout>,
) -> Result<Rnsb, WefeError> {
    for (role, set) in [(Role::Attr1, a), (Role::Attr2, b)] {
        if set.is_empty() {
            return Err(WefeError::EmptySet(role));
        }
        if holdout.is_some() && set.len() < 2 {
            return Err(WefeError::HoldoutTooSmall(role));
        }
    }
    let labelled: Vec<(&Vec<f64>, bool)> = a
        .iter()
        .map(|v| (v, true))
        .chain(b.iter().map(|v| (v, false)))
        .collect();
    let (train, test): (Vec<_>, Vec<_>) = match holdout {
        None => (labelled.clone(), labelled),
        Some(RnsbHoldout { seed }) => {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let (mut train, mut test) = (Vec::new(), Vec::new());
            for class in [true, false] {
                let mut members: Vec<_> = labelled.iter().filter(|(_, c)| *c == class).collect();
                members.shuffle(&mut rng);
                let held = members.len().div_ceil(5);
                test.extend(members[..held].iter().copied().copied());
                train.extend(members[held..].iter().copied().copied());
            }
            (train, test)
        }
    };
    let samples: Vec<Vec<f64>> = train.iter().map(|(v, _)| (*v).clone()).collect();
    let labels: Vec<bool> = train.iter().map(|(_, c)| *c).collect();
    let model = LogisticRegression::default().fit(&samples, &labels)?;
    let correct = test
        .iter()
        .filter(|(v, positive)| {
            let p_negative = model.probability_negative(v).expect("same width");
            // scikit-learn predicts +1 when the decision value is > 0, i.e. P(−1) < ½.
            (p_negative < 0.5) == *positive
        })
        .count();
    let probabilities: Vec<f64> = targets
        .iter()
        .flat_map(|set| set.iter())
        .map(|t| model.probability_negative(t))
        .collect::<Result<_, _>>()?;
    let total: f64 = probabilities.iter().sum();
    let uniform = 1.0 / probabilities.len() as f64;
    let divergence = probabilities
        .iter()
        .map(|p| p / total)
        .filter(|&q| q > 0.0)
        .map(|q| q * (q / uniform).ln())
        .sum();
    Ok(Rnsb {
        divergence,
        accuracy: correct as f64 / test.len() as f64,
        probabilities,
    })
}
