//! A file that starts with a UTF-8 byte-order mark (as Windows editors write them) reads
//! exactly as the same file without one, in every reader.

use std::path::{Path, PathBuf};

use lmbias_data::embeddings::Embeddings;
use lmbias_data::probe::{load_templates, load_word_list};
use lmbias_data::valence::ValenceDataset;
use lmbias_data::{AssociationTest, LoadOptions};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `original` copied into a scratch folder twice: as it is, and with a BOM in front.
fn both(dir: &Path, original: &Path, name: &str) -> (PathBuf, PathBuf) {
    let bytes = std::fs::read(original).unwrap();
    assert!(!bytes.starts_with(b"\xEF\xBB\xBF"));
    let plain = dir.join("plain");
    let bom = dir.join("bom");
    std::fs::create_dir_all(&plain).unwrap();
    std::fs::create_dir_all(&bom).unwrap();
    std::fs::write(plain.join(name), &bytes).unwrap();
    std::fs::write(
        bom.join(name),
        [b"\xEF\xBB\xBF".as_slice(), &bytes].concat(),
    )
    .unwrap();
    (plain.join(name), bom.join(name))
}

#[test]
fn every_reader_drops_a_leading_byte_order_mark() {
    let dir = std::env::temp_dir().join(format!("lmbias-data-bom-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let fixtures = repo().join("tests/fixtures/sent-bias-ref");

    let (plain, bom) = both(&dir, &fixtures.join("exact_n4.jsonl"), "t.jsonl");
    let options = LoadOptions::default();
    assert_eq!(
        AssociationTest::from_path(&bom, &options).unwrap(),
        AssociationTest::from_path(&plain, &options).unwrap()
    );

    let (plain, bom) = both(&dir, &fixtures.join("exact_n4.emb.json"), "e.json");
    let json = Embeddings::from_path(&plain).unwrap();
    let with_bom = Embeddings::from_path(&bom).unwrap();
    assert_eq!(with_bom.len(), json.len());
    for text in ["x0", "x1"] {
        assert!(json.get(text).is_some());
        assert_eq!(with_bom.get(text), json.get(text));
    }

    let glove = dir.join("glove.txt");
    std::fs::write(&glove, "the 0.5 0.25\nfox 1 2\n").unwrap();
    let (plain, bom) = both(&dir, &glove, "g.txt");
    let text = Embeddings::from_path(&bom).unwrap();
    assert_eq!(text.get("the"), Some([0.5, 0.25].as_slice()));
    assert_eq!(
        text.get("the"),
        Embeddings::from_path(&plain).unwrap().get("the")
    );

    let (plain, bom) = both(&dir, &repo().join("datasets/probe/religion.csv"), "r.csv");
    assert_eq!(
        format!("{:?}", load_word_list(&bom).unwrap().entries()),
        format!("{:?}", load_word_list(&plain).unwrap().entries())
    );

    let (plain, bom) = both(&dir, &repo().join("datasets/probe/templates.txt"), "t.txt");
    assert_eq!(
        format!("{:?}", load_templates(&bom).unwrap()),
        format!("{:?}", load_templates(&plain).unwrap())
    );

    let (plain, bom) = both(
        &dir,
        &repo().join("datasets/valence/eme-me-60.json"),
        "v.json",
    );
    assert_eq!(
        format!("{:?}", ValenceDataset::load(&bom).unwrap()),
        format!("{:?}", ValenceDataset::load(&plain).unwrap())
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
