//! WEFE 1.0.1's association metrics beyond WEAT (Badilla et al. 2020, `wefe/metrics/*.py`),
//! computed as WEFE computes them, each with the significance test WEFE does not give where
//! the metric admits one:
//!
//! | metric | paper | WEFE query | value | test here |
//! |---|---|---|---|---|
//! | RND | Garg et al. 2018 | 2 targets, 1 attribute | mean over a ∈ A of ‖a − x̄‖ − ‖a − ȳ‖ | split permutation, two-sided |
//! | RNSB | Sweeney & Najafian 2019 | n targets, 2 attributes | KL(normalised P(B \| t) ‖ uniform) | none (see below) |
//! | MAC | Manzini et al. 2019 | n targets, n attributes | mean over t and sets of mean cosine distance | none (see below) |
//! | ECT | Dev & Phillips 2019 | 2 targets, 1 attribute | Spearman ρ of cos(x̄, a) and cos(ȳ, a) | split permutation, lower tail |
//! | RIPA | Ethayarajh et al. 2019 | 2 targets, 1 attribute | mean over a of mean over i of a · (xᵢ − yᵢ)/‖xᵢ − yᵢ‖ | pair sign flip, two-sided |
//!
//! On a WEAT-shaped test (X, Y, A, B) the two-target, one-attribute metrics run once per
//! attribute set (X, Y wrt A and X, Y wrt B): WEFE's template refuses a query with two
//! attribute sets for them, and which one to give is the caller's reading, so both are
//! reported. RNSB takes X and Y as its targets and A, B as its two attribute sets (WEFE labels
//! the first +1 and the second −1, and RNSB reads P(−1), i.e. of B); MAC takes all four sets.
//!
//! Tests. Under "X and Y are exchangeable" every split of X ∪ Y into sets of sizes |X| and
//! |Y| is as likely as the observed one, so a metric that contrasts X with Y has a
//! permutation test over those splits ([`split_test`]): RND (two-sided: its sign says which
//! target is closer, neither is the hypothesis) and ECT (lower tail: a low correlation is the
//! bias ECT looks for; ρ ≤ observed counts). RIPA pairs xᵢ with yᵢ, so its exchangeable unit is
//! the pair: swapping xᵢ and yᵢ flips bᵢ's sign, and the test is the paired sign-flip test over
//! the per-pair means (two-sided: twice the smaller one-sided p, at most 1). RNSB pools all
//! target words and MAC averages over all target sets: neither changes when X and Y trade
//! words, so a permutation over target words tests nothing, and they get no p-value.
//! A tie counts as extreme when within 1e-12 (relative) of the observed value.

mod ect;
mod error;
mod mac;
mod ripa;
mod rnd;
mod rnsb;
pub mod split_test;
mod vectors;

use lmbias_core::Role;
use serde::{Deserialize, Serialize};

pub use ect::ect;
pub use error::WefeError;
pub use mac::mac;
pub use ripa::ripa;
pub use rnd::rnd;
pub use rnsb::{Rnsb, RnsbHoldout, rnsb};
pub use split_test::{SplitTest, Tail};

use crate::sign_flip::{self, SignFlipOptions};

/// One of WEFE's metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Relative Norm Distance (Garg et al. 2018).
    Rnd,
    /// Relative Negative Sentiment Bias (Sweeney & Najafian 2019).
    Rnsb,
    /// Mean Average Cosine distance (Manzini et al. 2019).
    Mac,
    /// Embedding Coherence Test (Dev & Phillips 2019).
    Ect,
    /// Relational Inner Product Association (Ethayarajh et al. 2019).
    Ripa,
}

impl Metric {
    /// In the order every table lists them.
    pub const ALL: [Metric; 5] = [
        Metric::Rnd,
        Metric::Rnsb,
        Metric::Mac,
        Metric::Ect,
        Metric::Ripa,
    ];

    /// The name `--metric` takes and the tables print.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Rnd => "rnd",
            Metric::Rnsb => "rnsb",
            Metric::Mac => "mac",
            Metric::Ect => "ect",
            Metric::Ripa => "ripa",
        }
    }

    /// True for the metrics WEFE runs on two targets and one attribute set: here once per
    /// attribute set.
    pub fn per_attribute(self) -> bool {
        matches!(self, Metric::Rnd | Metric::Ect | Metric::Ripa)
    }

    /// The paper that defines it, for tables and docs.
    pub fn source(self) -> &'static str {
        match self {
            Metric::Rnd => "Garg et al. 2018",
            Metric::Rnsb => "Sweeney & Najafian 2019",
            Metric::Mac => "Manzini et al. 2019",
            Metric::Ect => "Dev & Phillips 2019",
            Metric::Ripa => "Ethayarajh et al. 2019",
        }
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown name given to [`Metrics::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown metric {name:?}: expected rnd, rnsb, mac, ect, ripa or all")]
pub struct UnknownMetric {
    /// The name as given.
    pub name: String,
}

/// A set of metrics, listed in [`Metric::ALL`] order (serialized as that list).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Metrics(u8);

impl Metrics {
    /// None: WEAT alone.
    pub const NONE: Metrics = Metrics(0);
    /// All five.
    pub const ALL: Metrics = Metrics(0b1_1111);

    fn bit(metric: Metric) -> u8 {
        1 << Metric::ALL
            .iter()
            .position(|&m| m == metric)
            .expect("listed")
    }

    /// True when `metric` is in the set.
    pub fn contains(self, metric: Metric) -> bool {
        self.0 & Metrics::bit(metric) != 0
    }

    /// True when no metric is.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The metrics, in [`Metric::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Metric> {
        Metric::ALL.into_iter().filter(move |&m| self.contains(m))
    }

    /// `rnd,ect` or `all` (case-insensitive, spaces ignored).
    pub fn parse(list: &str) -> Result<Metrics, UnknownMetric> {
        let mut chosen = Metrics::NONE;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let lower = name.to_ascii_lowercase();
            if lower == "all" {
                chosen = Metrics::ALL;
                continue;
            }
            match Metric::ALL.into_iter().find(|m| m.name() == lower) {
                Some(m) => chosen.0 |= Metrics::bit(m),
                None => {
                    return Err(UnknownMetric {
                        name: name.to_owned(),
                    });
                }
            }
        }
        Ok(chosen)
    }
}

impl FromIterator<Metric> for Metrics {
    fn from_iter<I: IntoIterator<Item = Metric>>(iter: I) -> Self {
        Metrics(iter.into_iter().fold(0, |bits, m| bits | Metrics::bit(m)))
    }
}

impl Serialize for Metrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Metrics {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Metric>::deserialize(d)?.into_iter().collect())
    }
}

impl std::str::FromStr for Metrics {
    type Err = UnknownMetric;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Metrics::parse(s)
    }
}

/// How the tests are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WefeOptions {
    /// Split tests: exact when there are at most this many splits, else this many sampled
    /// (the observed one included); the sign-flip test samples this many beyond 24 pairs.
    pub n_samples: u64,
    /// Seed of the sampled splits and patterns, and of RNSB's held-out split.
    pub seed: u64,
    /// RNSB's classifier: fitted on all attribute words (WEFE's `holdout=False`, the default
    /// here, deterministic), or on a seeded stratified 80 % of them with the accuracy on the
    /// other 20 % reported (WEFE's default `holdout=True` draws its split unseeded).
    pub rnsb_holdout: bool,
}

/// A test's value for one metric (and, for the per-attribute metrics, one attribute set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricValue {
    /// Which metric.
    pub metric: Metric,
    /// The attribute set, for RND, ECT and RIPA; `None` for RNSB and MAC, which use both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribute: Option<Role>,
    /// The metric's value; `None` where it is undefined (see `undefined`).
    pub value: Option<f64>,
    /// Why the value is undefined, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undefined: Option<String>,
    /// The permutation or sign-flip test; `None` for RNSB and MAC (see the module docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<SplitTest>,
    /// Holm-adjusted p across the tests of one battery (set by the battery).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_holm: Option<f64>,
    /// RNSB: the classifier's accuracy on the attribute words (held-out ones with
    /// `rnsb_holdout`), the `score` WEFE computes and does not return.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accuracy: Option<f64>,
}

impl MetricValue {
    /// A value of `metric` (on `attribute`) not computed yet: `evaluate` fills it in.
    fn empty(metric: Metric, attribute: Option<Role>) -> MetricValue {
        MetricValue {
            metric,
            attribute,
            value: None,
            undefined: None,
            test: None,
            p_holm: None,
            accuracy: None,
        }
    }
}

/// The four sets of a test as f64 vectors, checked: non-empty, one width, finite.
pub struct Sets {
    sets: [Vec<Vec<f64>>; 4],
}

impl Sets {
    /// X, Y, A, B in [`Role::ALL`] order, f32 (a model's) or f64 (a vectors file's).
    pub fn new<T: Copy + Into<f64>, V: AsRef<[T]>>(sets: [&[V]; 4]) -> Result<Sets, WefeError> {
        let width = sets[0].first().map(|v| v.as_ref().len());
        let mut out: [Vec<Vec<f64>>; 4] = Default::default();
        for ((role, set), into) in Role::ALL.into_iter().zip(sets).zip(&mut out) {
            if set.is_empty() {
                return Err(WefeError::EmptySet(role));
            }
            for (index, v) in set.iter().enumerate() {
                let v = v.as_ref();
                if Some(v.len()) != width {
                    return Err(WefeError::BadVector {
                        set: role,
                        index,
                        problem: format!(
                            "has {} values, the first of X {}",
                            v.len(),
                            width.unwrap_or(0)
                        ),
                    });
                }
                let v: Vec<f64> = v.iter().map(|&x| x.into()).collect();
                if v.iter().any(|x| !x.is_finite()) {
                    return Err(WefeError::BadVector {
                        set: role,
                        index,
                        problem: "is not finite".to_owned(),
                    });
                }
                into.push(v);
            }
        }
        Ok(Sets { sets: out })
    }

    /// The vectors of one set.
    pub fn get(&self, role: Role) -> &[Vec<f64>] {
        let i = Role::ALL
            .iter()
            .position(|&r| r == role)
            .expect("four roles");
        &self.sets[i]
    }
}

/// Every requested metric on one test, in [`Metric::ALL`] order, the per-attribute ones for
/// A then B. `p_holm` is left for the battery to set.
pub fn evaluate(
    sets: &Sets,
    metrics: Metrics,
    options: &WefeOptions,
) -> Result<Vec<MetricValue>, WefeError> {
    if options.n_samples == 0 {
        return Err(WefeError::NoSamples);
    }
    let (x, y) = (sets.get(Role::Targ1), sets.get(Role::Targ2));
    let mut values = Vec::new();
    for metric in metrics.iter() {
        if metric.per_attribute() {
            for attribute in [Role::Attr1, Role::Attr2] {
                let a = sets.get(attribute);
                let mut value = MetricValue::empty(metric, Some(attribute));
                match metric {
                    Metric::Rnd => {
                        value.value = Some(rnd(x, y, a));
                        value.test = Some(split_test::run(
                            x,
                            y,
                            Tail::TwoSided,
                            (options.n_samples, options.seed),
                            |mx, my| rnd::from_means(mx, my, a),
                        ));
                    }
                    Metric::Ect => match ect(x, y, a) {
                        Some(rho) => {
                            value.value = Some(rho);
                            value.test = Some(split_test::run(
                                x,
                                y,
                                Tail::Lower,
                                (options.n_samples, options.seed),
                                |mx, my| ect::from_means(mx, my, a).unwrap_or(f64::NAN),
                            ));
                        }
                        None => {
                            value.undefined = Some(if a.len() < 2 {
                                format!(
                                    "{attribute} has {} word: Spearman's ρ needs at least two",
                                    a.len()
                                )
                            } else {
                                "a list of similarities is constant (Spearman's ρ is 0/0)"
                                    .to_owned()
                            });
                        }
                    },
                    Metric::Ripa => match ripa(x, y, a) {
                        Ok((ripa, per_pair)) => {
                            value.value = Some(ripa);
                            value.test = Some(sign_flip_two_sided(&per_pair, options));
                        }
                        Err(why) => value.undefined = Some(why),
                    },
                    Metric::Rnsb | Metric::Mac => unreachable!("not per attribute"),
                }
                values.push(value);
            }
        } else {
            let mut value = MetricValue::empty(metric, None);
            match metric {
                Metric::Mac => {
                    let attributes = [sets.get(Role::Attr1), sets.get(Role::Attr2)];
                    value.value = Some(mac(&[x, y], &attributes));
                }
                Metric::Rnsb => {
                    let holdout = options
                        .rnsb_holdout
                        .then_some(RnsbHoldout { seed: options.seed });
                    let fit = rnsb(
                        &[x, y],
                        sets.get(Role::Attr1),
                        sets.get(Role::Attr2),
                        holdout,
                    )?;
                    value.value = Some(fit.divergence);
                    value.accuracy = Some(fit.accuracy);
                }
                _ => unreachable!("per attribute"),
            }
            values.push(value);
        }
    }
    Ok(values)
}

/// The two-sided sign-flip test of per-pair values: twice the smaller one-sided p, at most 1.
fn sign_flip_two_sided(per_pair: &[f64], options: &WefeOptions) -> SplitTest {
    let flip = SignFlipOptions {
        n_samples: options.n_samples,
        seed: options.seed,
    };
    let one = |alternative| {
        sign_flip::sign_flip_test(per_pair, alternative, &flip)
            .expect("finite, non-empty, n_samples ≥ 1: checked by the caller")
    };
    let (greater, less) = (
        one(sign_flip::Alternative::Greater),
        one(sign_flip::Alternative::Less),
    );
    SplitTest {
        kind: split_test::Kind::PairSignFlip,
        tail: Tail::TwoSided,
        p_value: (2.0 * greater.p_value.min(less.p_value)).min(1.0),
        exact: greater.exact,
        n_evaluated: greater.n_evaluated,
    }
}

/// Holm's adjustment of every tested value's p across `tests` (one battery's tests on one
/// model), within each (metric, attribute set): those are the families.
pub fn holm_across(tests: &mut [Vec<MetricValue>]) {
    let mut families: Vec<(Metric, Option<Role>)> = tests
        .iter()
        .flatten()
        .filter(|v| v.test.is_some())
        .map(|v| (v.metric, v.attribute))
        .collect();
    families.sort_by_key(|&(m, a)| (m, a.map(|r| r.key())));
    families.dedup();
    for family in families {
        let places: Vec<(usize, usize)> = tests
            .iter()
            .enumerate()
            .flat_map(|(t, values)| {
                values
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| (v.metric, v.attribute) == family && v.test.is_some())
                    .map(move |(i, _)| (t, i))
            })
            .collect();
        let p: Vec<f64> = places
            .iter()
            .map(|&(t, i)| tests[t][i].test.as_ref().expect("filtered").p_value)
            .collect();
        let adjusted = crate::correction::holm(&p).expect("p-values lie in [0, 1]");
        for ((t, i), p_holm) in places.into_iter().zip(adjusted) {
            tests[t][i].p_holm = Some(p_holm);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> WefeOptions {
        WefeOptions {
            n_samples: 100_000,
            seed: 42,
            rnsb_holdout: false,
        }
    }

    /// X near A, Y near B, two words each: RND < 0 wrt A (A nearer X), RIPA > 0 wrt A. Of the
    /// C(4, 2) = 6 splits only the observed one and its mirror (X and Y swapped, RND negated)
    /// reach |RND|: p = 2/6. RIPA's 2² sign patterns: both pairs flipped together is the
    /// mirror, so the two-sided p is 2 · (1/4) = 1/2.
    #[test]
    fn known_answers_on_four_words() {
        let x = [[1.0f32, 0.0], [0.9, 0.1]];
        let y = [[0.0f32, 1.0], [0.1, 0.9]];
        let a = [[1.0f32, 0.1], [0.8, 0.0]];
        let b = [[0.0f32, 0.9], [0.1, 1.0]];
        let sets = Sets::new([&x[..], &y[..], &a[..], &b[..]]).unwrap();
        let values = evaluate(&sets, Metrics::parse("rnd,ripa").unwrap(), &options()).unwrap();
        let rnd_a = &values[0];
        assert_eq!(
            (rnd_a.metric, rnd_a.attribute),
            (Metric::Rnd, Some(Role::Attr1))
        );
        assert!(rnd_a.value.unwrap() < 0.0);
        let test = rnd_a.test.as_ref().unwrap();
        assert!(test.exact && test.n_evaluated == 6);
        assert!((test.p_value - 2.0 / 6.0).abs() < 1e-15, "{test:?}");
        let ripa_a = &values[2];
        assert_eq!(ripa_a.metric, Metric::Ripa);
        assert!(ripa_a.value.unwrap() > 0.0);
        assert!((ripa_a.test.as_ref().unwrap().p_value - 0.5).abs() < 1e-15);
    }

    #[test]
    fn names_parse_and_unknown_ones_are_named() {
        assert_eq!(Metrics::parse("all").unwrap(), Metrics::ALL);
        let two = Metrics::parse(" RIPA, rnd ").unwrap();
        assert_eq!(two.iter().collect::<Vec<_>>(), [Metric::Rnd, Metric::Ripa]);
        let err = Metrics::parse("rnd,weat").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown metric \"weat\": expected rnd, rnsb, mac, ect, ripa or all"
        );
    }

    /// RIPA pairs X and Y by position: unequal sizes leave it undefined, with the reason, as
    /// one attribute word leaves ECT; RNSB and every mean refuse an empty set.
    #[test]
    fn unequal_targets_and_empty_sets() {
        let x = [[1.0f32, 0.0], [0.9, 0.1]];
        let y = [[0.0f32, 1.0]];
        let a = [[1.0f32, 0.1]];
        let sets = Sets::new([&x[..], &y[..], &a[..], &a[..]]).unwrap();
        let values = evaluate(&sets, Metrics::parse("ripa,ect").unwrap(), &options()).unwrap();
        assert_eq!(values[2].value, None);
        assert_eq!(
            values[2].undefined.as_deref(),
            Some("RIPA pairs X and Y word by word; they have 2 and 1 words")
        );
        // One attribute word: ECT's ρ has nothing to rank, and says so.
        assert_eq!((values[0].metric, values[0].value), (Metric::Ect, None));
        assert_eq!(
            values[0].undefined.as_deref(),
            Some("attr1 has 1 word: Spearman's ρ needs at least two")
        );
        let empty: [[f32; 2]; 0] = [];
        let err = Sets::new([&x[..], &y[..], &a[..], &empty[..]])
            .err()
            .unwrap();
        assert_eq!(err.to_string(), "set attr2 is empty");
        let vecs = |s: &[[f32; 2]]| -> Vec<Vec<f64>> {
            s.iter()
                .map(|v| v.iter().map(|&t| f64::from(t)).collect())
                .collect()
        };
        let err = rnsb(&[&vecs(&x)], &vecs(&a), &[], None).unwrap_err();
        assert_eq!(err, WefeError::EmptySet(Role::Attr2));
    }

    /// A value and its tests' Holm adjustment are per (metric, attribute set) across tests.
    #[test]
    fn holm_adjusts_within_each_column() {
        let value = |metric, attribute, p: f64| MetricValue {
            metric,
            attribute,
            value: Some(0.0),
            undefined: None,
            test: Some(SplitTest {
                kind: split_test::Kind::TargetSplits,
                tail: Tail::TwoSided,
                p_value: p,
                exact: true,
                n_evaluated: 10,
            }),
            p_holm: None,
            accuracy: None,
        };
        let mut tests = vec![
            vec![
                value(Metric::Rnd, Some(Role::Attr1), 0.01),
                value(Metric::Ect, Some(Role::Attr1), 0.04),
            ],
            vec![
                value(Metric::Rnd, Some(Role::Attr1), 0.03),
                value(Metric::Ect, Some(Role::Attr1), 0.5),
            ],
        ];
        holm_across(&mut tests);
        assert_eq!(tests[0][0].p_holm, Some(0.02));
        assert_eq!(tests[1][0].p_holm, Some(0.03));
        assert_eq!(tests[0][1].p_holm, Some(0.08));
        assert_eq!(tests[1][1].p_holm, Some(0.5));
    }
}
