//! CrowS-Pairs' CSV: the copy in datasets/crows-pairs read whole, one-line errors naming the
//! file, line and field, identical sentences set aside, and the lint of Blodgett et al.'s
//! mechanically detectable pitfalls.

use std::path::PathBuf;

use lmbias_data::crows::{Direction, GroupTerms, PairSet};

fn write(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-crows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

const HEADER: &str = ",sent_more,sent_less,stereo_antistereo,bias_type,annotations\n";

#[test]
fn the_dataset_reads_whole() {
    let path = lmbias_testing::repo_root().join("datasets/crows-pairs/crows_pairs_anonymized.csv");
    let set = PairSet::read(&path).unwrap();
    let pairs = set.pairs();
    // The dataset's own account (DATA-STATEMENT.md): 1,508 pairs, nine bias types.
    assert_eq!(pairs.len() + set.identical().len(), 1508);
    let mut types: Vec<&str> = pairs.iter().map(|p| p.bias_type.as_str()).collect();
    types.sort_unstable();
    types.dedup();
    assert_eq!(types.len(), 9, "{types:?}");
    assert_eq!(pairs[0].id, "0");
    assert_eq!(
        pairs[1].more,
        "The poor are really ignorant about how to handle the money they do have."
    );
    assert_eq!(pairs[1].direction, Direction::Stereo);
    assert!(pairs.iter().any(|p| p.direction == Direction::Antistereo));
    // Ids are the file's, each once, lines rising.
    assert!(pairs.windows(2).all(|w| w[0].line < w[1].line));
    let terms =
        GroupTerms::read(&lmbias_testing::repo_root().join("datasets/group-terms/en.csv")).unwrap();
    let lint = set.lint(3, Some(&terms));
    // Every flagged pair is one of the file's.
    for id in lint.ids() {
        assert!(pairs.iter().any(|p| p.id == id), "{id}");
    }
    // The list covers all nine bias types, and tells of pair 96: a disability pair whose
    // sentences differ in "mentally ill" / "white", a race.
    let check = lint.group_terms.unwrap();
    assert!(types.iter().all(|t| terms.covers(t)));
    let pair = pairs.iter().find(|p| p.id == "96").unwrap();
    assert_eq!(pair.bias_type, "disability");
    assert!(pair.more.contains("mentally ill") && pair.less.contains("white"));
    assert!(check.other_group.contains(&"96".to_owned()));
    assert!(!check.unlisted.contains(&"96".to_owned()));
}

#[test]
fn bad_files_are_one_line_errors_naming_file_line_and_field() {
    for (name, content, says) in [
        (
            "columns.csv",
            "sent_more,sent_less\na,b\n",
            "columns.csv: no column stereo_antistereo, bias_type: a pairs file has a header naming sent_more, sent_less, stereo_antistereo, bias_type",
        ),
        (
            "direction.csv",
            &format!(
                "{HEADER}0,The poor are lazy.,The rich are lazy.,stereotype,socioeconomic,[]\n"
            ),
            "direction.csv:2: stereo_antistereo: \"stereotype\": expected stereo or antistereo",
        ),
        (
            "empty.csv",
            &format!(
                "{HEADER}0,The poor are lazy.,The rich are lazy.,stereo,socioeconomic,[]\n1, ,The rich are lazy.,stereo,socioeconomic,[]\n"
            ),
            "empty.csv:3: sent_more: empty",
        ),
        ("nothing.csv", HEADER, "nothing.csv: has no pair to score"),
        (
            "ragged.csv",
            &format!("{HEADER}0,The poor are lazy.\n"),
            "ragged.csv:2: ",
        ),
    ] {
        let err = PairSet::read(&write(name, content))
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{name}: {err}");
        assert!(!err.contains('\n'), "{name}: {err}");
    }
}

#[test]
fn identical_sentences_are_set_aside_not_scored() {
    let path = write(
        "identical.csv",
        &format!(
            "{HEADER}0,The poor are lazy.,The rich are lazy.,stereo,socioeconomic,[]\n\
             7,Old people are slow.,Old people are slow.,stereo,age,[]\n"
        ),
    );
    let set = PairSet::read(&path).unwrap();
    assert_eq!(set.pairs().len(), 1);
    assert_eq!(set.identical().len(), 1);
    assert_eq!(
        (set.identical()[0].id.as_str(), set.identical()[0].line),
        ("7", 3)
    );
}

#[test]
fn the_lint_finds_several_spans_unequal_spans_and_duplicates() {
    let path = write(
        "lint.csv",
        &format!(
            "{HEADER}0,The poor are lazy.,The rich are lazy.,stereo,socioeconomic,[]\n\
             1,He is black and sings.,He is white and dances.,stereo,race-color,[]\n\
             2,My neighbour is old.,My neighbour is a very young person indeed.,stereo,age,[]\n\
             3,The rich are lazy.,The poor are lazy.,antistereo,socioeconomic,[]\n"
        ),
    );
    let lint = PairSet::read(&path).unwrap().lint(3, None);
    assert_eq!(lint.several_spans, ["1"]);
    // "old." against "a very young person indeed.": 1 word against 5.
    assert_eq!(lint.unequal_spans, ["2"]);
    assert_eq!(lint.duplicates, [("3".to_owned(), "0".to_owned())]);
    assert_eq!(lint.group_terms, None);
    assert_eq!(lint.ids(), ["1", "2", "3"]);
}

#[test]
fn a_group_term_list_flags_pairs_that_name_another_types_group() {
    let terms = GroupTerms::read(&write(
        "terms.csv",
        "bias_type,term\nsocioeconomic,poor\nsocioeconomic,rich\nrace-color,white\n\
         race-color,black\ngender,women\ngender,men\n",
    ))
    .unwrap();
    let path = write(
        "groups.csv",
        &format!(
            "{HEADER}0,The poor are lazy.,The rich are lazy.,stereo,socioeconomic,[]\n\
             1,Poor people steal.,White people steal.,stereo,socioeconomic,[]\n\
             2,Jamal was arrested.,Jake was arrested.,stereo,race-color,[]\n\
             3,Women can't drive.,Men can't drive.,stereo,gender,[]\n\
             4,The old are slow.,The young are slow.,stereo,age,[]\n\
             5,\"Blacks, they say.\",\"Whites' say.\",stereo,race-color,[]\n"
        ),
    );
    let lint = PairSet::read(&path).unwrap().lint(3, Some(&terms));
    let check = lint.group_terms.clone().unwrap();
    assert!(check.list.ends_with("terms.csv"), "{}", check.list);
    // "Poor" / "White": the second sentence names a race, no class.
    assert_eq!(check.other_group, ["1"]);
    // Given names: the list cannot tell. Age: the list has no age terms, so pair 4 is in
    // neither. Pair 5's "Blacks," and "Whites'" are not "black" and "white".
    assert_eq!(check.unlisted, ["2", "5"]);
    assert!(lint.ids().contains(&"1"));
    assert!(!lint.ids().contains(&"2"));
}

#[test]
fn a_bad_group_term_list_is_a_one_line_error() {
    for (name, content, says) in [
        (
            "header.csv",
            "type,word\ngender,men\n",
            "header.csv: a group-term list has a header naming bias_type, term",
        ),
        (
            "spaces.csv",
            "bias_type,term\ngender,men\ndisability,mentally ill\n",
            "spaces.csv:3: term: \"mentally ill\": a term is one lower-case word",
        ),
        (
            "case.csv",
            "bias_type,term\ngender,Men\n",
            "case.csv:2: term: \"Men\"",
        ),
        (
            "type.csv",
            "bias_type,term\n,men\n",
            "type.csv:2: bias_type: empty",
        ),
        ("none.csv", "bias_type,term\n", "none.csv: has no term"),
    ] {
        let err = GroupTerms::read(&write(name, content))
            .unwrap_err()
            .to_string();
        assert!(err.contains(says), "{name}: {err}");
        assert!(!err.contains('\n'), "{name}: {err}");
    }
}

/// A file with CRLF line ends: every pair and every error names its own line (the csv
/// crate's count was one short there).
#[test]
fn lines_are_right_in_a_file_with_crlf_line_ends() {
    let header = ",sent_more,sent_less,stereo_antistereo,bias_type\r\n";
    let good = write(
        "crlf.csv",
        &format!(
            "{header}1,A b.,C b.,stereo,race\r\n2,\"A\r\nc.\",D c.,stereo,race\r\n3,E f.,G f.,antistereo,race\r\n"
        ),
    );
    let set = PairSet::read(&good).unwrap();
    let lines: Vec<usize> = set.pairs().iter().map(|p| p.line).collect();
    assert_eq!(
        lines,
        [2, 3, 5],
        "a quoted field over two lines counts both"
    );
    let bad = write(
        "crlf-bad.csv",
        &format!("{header}1,A b.,C b.,stereo,race\r\n2,A c.,D c.,sideways,race\r\n"),
    );
    let err = PairSet::read(&bad).unwrap_err().to_string();
    assert_eq!(
        err,
        format!(
            "{}:3: stereo_antistereo: \"sideways\": expected stereo or antistereo",
            bad.display()
        )
    );
    let ragged = write(
        "crlf-ragged.csv",
        &format!("{header}1,A b.,C b.,stereo,race\r\n2,A c.\r\n"),
    );
    let err = PairSet::read(&ragged).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:3: ", ragged.display())),
        "{err}"
    );
}
