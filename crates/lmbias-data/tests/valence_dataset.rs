//! The shipped temporal valence set loads under every validation rule.

use std::path::Path;

use lmbias_data::valence::{Group, ValenceDataset};

#[test]
fn eme_me_60_loads_with_one_mask_a_source_and_a_valence_per_sentence() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../datasets/valence/eme-me-60.json");
    let d = ValenceDataset::load(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(d.name(), "eme-me-60");
    assert_eq!(d.sentences().len(), 60);
    for g in Group::ALL {
        let n = d.sentences().iter().filter(|s| s.group() == g).count();
        assert_eq!(n, 20, "group {g}");
    }
    for s in d.sentences() {
        assert_eq!(s.text().matches(d.mask()).count(), 1, "{}", s.id());
        assert!(!s.source().trim().is_empty(), "{}", s.id());
        let v = s.valence().value();
        let admitted = match s.group() {
            Group::EarlyModern => v < 0.0,
            Group::Neutral => v.abs() <= 0.5,
            Group::Modern => v > 0.0,
        };
        assert!(admitted, "{}: v = {v} in group {}", s.id(), s.group());
        assert!(!s.annotations().is_empty(), "{} has no annotations", s.id());
    }
}
