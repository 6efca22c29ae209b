//! May, Wang, Bordia, Bowman & Rudinger (2019), "On Measuring Social Biases in Sentence
//! Encoders" (sent-bias): the English values of Caliskan Test 4 (European American vs
//! African American names, pleasant vs unpleasant) that Caglidil et al. (2024) quote beside
//! their Turkish C4 (lmbias-report's `papers::may` sets our English battery's rows of that
//! test beside them).

use crate::Reported;

/// May et al.'s English Test 4, as the Turkish paper quotes it.
pub const REPORTED: Reported = Reported {
    what: "English BERT, Caliskan Test 4 (European American vs African American names × pleasant vs unpleasant), word and sentence level",
    value: "WEAT 4 d = 1.26, SEAT 4 d = 0.69, p < 10⁻⁴",
    source: "May et al. 2019, as quoted by Caglidil et al. 2024",
};

/// Our English battery's files for the two quoted tests, with the names and the values the
/// quote gives them.
pub const TEST_4: [(&str, &str, &str); 2] = [
    ("weat4", "WEAT 4", "d = 1.26"),
    ("sent-weat4", "SEAT 4", "d = 0.69"),
];
