//! `word_tokenize` against NLTK 3.4's (sent-bias's pinned version), from
//! `tests/fixtures/static/nltk34_reference.py`.

use lmbias_static::word_tokenize;

use crate::fixture;

/// Every `TEXT<TAB>TOKENS` line of a fixture whose tokens differ from ours.
fn mismatches(name: &str) -> (usize, Vec<String>) {
    let table = std::fs::read_to_string(fixture(name)).unwrap();
    let mut lines = 0;
    let mut wrong = Vec::new();
    for line in table.lines() {
        lines += 1;
        let (text, tokens) = line.split_once('\t').expect("TEXT<TAB>TOKENS");
        let expected: Vec<&str> = tokens.split(' ').filter(|t| !t.is_empty()).collect();
        let found = word_tokenize(text);
        if found != expected {
            wrong.push(format!("{text:?}: NLTK {expected:?}, ours {found:?}"));
        }
    }
    (lines, wrong)
}

#[test]
fn static_tokenize_matches_nltk_on_every_english_seat_example() {
    let (lines, wrong) = mismatches("nltk34_seat_en.tsv");
    assert_eq!(lines, 4985);
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn static_tokenize_matches_nltk_on_treebank_cases() {
    // Contractions, quotes of every kind, brackets, dashes, ellipses, numbers, clitics.
    let (lines, wrong) = mismatches("nltk34_cases.tsv");
    assert_eq!(lines, 22);
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn static_tokenize_matches_nltk_on_random_strings() {
    // 3,000 seeded random strings of quotes, brackets, clitics, contractions, punctuation.
    let (lines, wrong) = mismatches("nltk34_random.tsv");
    assert_eq!(lines, 3000);
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn static_tokenize_known_difference_from_punkt() {
    // Punkt's English model knows "Mr." is an abbreviation; our sentence rule does not.
    // NLTK: ["Mr.", "Smith", "left", "."].
    assert_eq!(
        word_tokenize("Mr. Smith left."),
        ["Mr", ".", "Smith", "left", "."]
    );
}
