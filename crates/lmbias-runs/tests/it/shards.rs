use std::path::PathBuf;

use lmbias_runs::RunError;
use lmbias_runs::shards::{self, ShardFile};
use lmbias_runs::studies::shard::{Shard, Stamp};

use crate::scratch;

const KIND: &str = "lmbias-runs test";

/// Shard K of 3 over five models, each result the model's position squared, halved.
fn save(dir: &std::path::Path, k: usize, shared: &str, stamp_seed: u64) -> PathBuf {
    let models: Vec<String> = (0..5).map(|i| format!("m{i}")).collect();
    let shard = Shard::new(k, 3).unwrap();
    let results = shard
        .select(0..models.len())
        .into_iter()
        .map(|i| (i, (i * i) as f64 / 2.0 + 0.1))
        .collect();
    let file = ShardFile {
        shard,
        models,
        shared: shared.to_owned(),
        results,
    };
    let mut stamp = Stamp::new(KIND);
    stamp.option("seed", stamp_seed);
    let path = dir.join(format!("{k}-{shared}-{stamp_seed}.cbor"));
    shards::save(&path, &stamp, &file).unwrap();
    path
}

#[test]
fn three_shards_merge_into_the_whole_list_in_order() {
    let dir = scratch("shards");
    let paths: Vec<PathBuf> = [3, 1, 2].iter().map(|&k| save(&dir, k, "s", 0)).collect();
    let merged = shards::merge::<String, String, f64>(&paths, KIND).unwrap();
    assert_eq!(merged.shared, "s");
    assert_eq!(merged.models.len(), 5);
    let expected: Vec<(usize, f64)> = (0..5).map(|i| (i, (i * i) as f64 / 2.0 + 0.1)).collect();
    assert_eq!(merged.results, expected, "every f64 exact, in list order");
    // No temporary file is left beside the shards.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| n.ends_with(".cbor")), "{names:?}");

    // Missing a shard.
    let err = shards::merge::<String, String, f64>(&paths[..2], KIND).unwrap_err();
    assert!(matches!(err, RunError::ShardSet(_)), "{err}");
    // Another run's shared part.
    let other = save(&dir, 2, "t", 0);
    let err = shards::merge::<String, String, f64>(
        &[paths[0].clone(), paths[1].clone(), other.clone()],
        KIND,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: its models differ from those of {} (the shards of one run are given the same \
             models, and find the same ones)",
            other.display(),
            paths[0].display()
        )
    );
    // Another run's options.
    let other = save(&dir, 2, "s", 1);
    let err =
        shards::merge::<String, String, f64>(&[paths[0].clone(), paths[1].clone(), other], KIND)
            .unwrap_err();
    assert!(matches!(err, RunError::Stamps(_)), "{err}");
    // Written by another command.
    let err = shards::merge::<String, String, f64>(&paths, "another").unwrap_err();
    assert!(matches!(err, RunError::ShardFile { .. }), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One of three shards damaged (cut short, bytes flipped, inserted, removed, repeated, or
/// random bytes): the merge refuses it with one line naming that file, or merges the same
/// results (an edit CBOR reads back unchanged); never a panic (#35).
#[test]
fn a_damaged_shard_is_refused_in_one_line_naming_it() {
    use lmbias_testing::hostile::{cases, damaged};
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};

    let dir = scratch("shards-hostile");
    let paths: Vec<PathBuf> = [1, 2, 3].iter().map(|&k| save(&dir, k, "s", 0)).collect();
    let whole = shards::merge::<String, String, f64>(&paths, KIND).unwrap();
    let original = std::fs::read(&paths[1]).unwrap();
    let broken = dir.join("2-broken.cbor");
    let damaged_paths = [paths[0].clone(), broken.clone(), paths[2].clone()];
    let mut runner = TestRunner::new(Config::with_cases(cases(256)));
    runner
        .run(&damaged(original), |bytes| {
            std::fs::write(&broken, &bytes).unwrap();
            match shards::merge::<String, String, f64>(&damaged_paths, KIND) {
                Ok(merged) => {
                    prop_assert_eq!(&merged.results, &whole.results);
                    prop_assert_eq!(&merged.models, &whole.models);
                }
                Err(e) => {
                    let message = e.to_string();
                    prop_assert!(!message.contains('\n'), "{}", message);
                    prop_assert!(message.len() < 2000, "{}", message);
                    prop_assert!(
                        message.contains(&*broken.to_string_lossy()),
                        "does not name the damaged file: {}",
                        message
                    );
                }
            }
            Ok(())
        })
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
