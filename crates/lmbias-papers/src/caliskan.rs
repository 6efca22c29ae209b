//! Caliskan, Bryson & Narayanan (2017): the WEAT results on GloVe that the static-vector
//! section of the report sets beside ours.

/// Caliskan, Bryson & Narayanan (2017), "Semantics derived automatically from language
/// corpora contain human-like biases", Science 356:183–186, Table 1: WEAT 1–10 on GloVe
/// (Common Crawl, 840B tokens): (our test, what it pairs, their d, their p).
pub const TABLE_1: [(&str, &str, f64, &str); 10] = [
    (
        "weat1",
        "flowers vs insects × pleasant vs unpleasant",
        1.50,
        "10⁻⁷",
    ),
    (
        "weat2",
        "instruments vs weapons × pleasant vs unpleasant",
        1.53,
        "10⁻⁷",
    ),
    (
        "weat3",
        "European vs African American names × pleasant vs unpleasant",
        1.41,
        "10⁻⁸",
    ),
    (
        "weat4",
        "same, Bertrand & Mullainathan's names",
        1.50,
        "10⁻⁴",
    ),
    (
        "weat5",
        "same, Nosek et al.'s pleasant/unpleasant",
        1.28,
        "10⁻³",
    ),
    (
        "weat6",
        "male vs female names × career vs family",
        1.81,
        "10⁻³",
    ),
    ("weat7", "math vs arts × male vs female terms", 1.06, ".018"),
    (
        "weat8",
        "science vs arts × male vs female terms",
        1.24,
        "10⁻²",
    ),
    (
        "weat9",
        "mental vs physical disease × temporary vs permanent",
        1.38,
        "10⁻²",
    ),
    (
        "weat10",
        "young vs old people's names × pleasant vs unpleasant",
        1.21,
        "10⁻²",
    ),
];
