//! Caliskan's WEAT on GloVe 6B 50d (lmbias-static, fetched from PyPI) against sent-bias's own
//! `weat.py` on the same vectors (`tests/fixtures/generate/glove_weat_reference.py` →
//! `reference/glove-weat.json`): for every word-level test whose words are all in GloVe, the
//! effect size within 1e-6 relative (GloVe's vectors are f32; weat.py widens them to f64, as
//! lmbias does) and the exact p identical; sampled p within ±0.005. The tests GloVe cannot
//! fully cover are the ones the reference lists (`gladiola` in WEAT 1; the two-word group
//! terms of 3b/5b), and lmbias-static agrees on which words those are.

use lmbias_core::{Embedder, Layer, Pooling};
use lmbias_data::{AssociationTest, LoadOptions};
use lmbias_metrics::weat::{Associations, Options, weat};
use lmbias_static::StaticEmbeddings;

#[test]
fn weat_on_glove_equals_sent_bias_weat_py() {
    let reference = lmbias_testing::reference("glove-weat");
    let glove = StaticEmbeddings::glove_6b_50d().unwrap();
    let mut compared = 0;
    let mut worst: f64 = 0.0;
    for record in reference["tests"].as_array().unwrap() {
        let name = record["test"].as_str().unwrap();
        let path = lmbias_testing::repo_root().join(format!("datasets/seat/en/{name}.jsonl"));
        let test = AssociationTest::from_path(&path, &LoadOptions::default()).unwrap();
        let sets = [test.targ1(), test.targ2(), test.attr1(), test.attr2()];
        let missing: Vec<&str> = sets
            .iter()
            .flat_map(|s| s.examples())
            .filter(|e| e.contains(' ') || !glove.known(e))
            .map(String::as_str)
            .collect();
        let expected_missing: Vec<&str> = record["missing"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(missing, expected_missing, "{name}: words GloVe lacks");
        let Some(d) = record["effect_size"].as_f64() else {
            continue;
        };
        let [x, y, a, b] = sets.map(|s| {
            let texts: Vec<&str> = s.examples().iter().map(String::as_str).collect();
            glove.embed(&texts, Pooling::Mean, Layer::Last).unwrap()
        });
        let result = weat(
            &Associations::from_vectors(&x, &y, &a, &b).unwrap(),
            &Options::default(),
        )
        .unwrap();
        let ours = result.effect_size.unwrap();
        worst = worst.max(((ours - d) / d).abs());
        assert!(
            ((ours - d) / d).abs() < 1e-6,
            "{name}: d {ours} vs weat.py {d}"
        );
        let p = record["p_value"].as_f64().unwrap();
        if result.permutation.exact {
            assert!(
                (result.permutation.p_value - p).abs() < 1e-12,
                "{name}: exact p {} vs {p}",
                result.permutation.p_value
            );
        } else {
            assert!(
                (result.permutation.p_value - p).abs() < 5e-3,
                "{name}: sampled p {} vs {p}",
                result.permutation.p_value
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 12, "tests compared with weat.py");
    eprintln!("worst relative |d − weat.py d| over {compared} tests: {worst:e}");
}
