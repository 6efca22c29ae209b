use std::path::PathBuf;

use lmbias_runs::RunError;
use lmbias_runs::shards::{self, ShardFile};
use lmbias_runs::shards::{Shard, Stamp};

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
    #[derive(serde::Serialize)]
    struct Seeded {
        seed: u64,
    }
    stamp.settings(&Seeded { seed: stamp_seed }).unwrap();
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

/// A sweep of M checkpoint folders over N shards, as `reproduce-paper --shard K/N` runs one:
/// every shard opens the whole list (so that all agree on its order) and runs its slice. A
/// folder is digested when its provenance is first asked for, and never again: a file
/// added after opening is in the digest (so opening digested nothing), and one added after
/// the first digest is not (so the digest is not worked out twice). Each folder is in one
/// slice, so over the sweep each is digested once.
#[test]
fn a_sweep_digests_each_folder_once_in_the_shard_that_runs_it() {
    const M: usize = 5;
    const N: usize = 2;
    let folders: Vec<PathBuf> = (0..M)
        .map(|i| lmbias_testing::copy_fixture("tiny-bert-mlm", &format!("sweep-{i}")))
        .collect();
    let spec = |dir: &PathBuf| dir.to_str().unwrap().to_owned();
    let touch = |dir: &PathBuf, text: &str| std::fs::write(dir.join("notes.txt"), text).unwrap();
    let digest = |model: &lmbias_runs::Model| match &model.provenance().unwrap().origin {
        lmbias_runs::ModelOrigin::Folder { sha256 } => sha256.clone(),
        other => panic!("not a folder: {other:?}"),
    };
    let mut digested = vec![0; M];
    for k in 1..=N {
        let shard = Shard::new(k, N).unwrap();
        let opened: Vec<lmbias_runs::Model> = folders
            .iter()
            .map(|dir| lmbias_runs::open(&spec(dir), lmbias_runs::DeviceKind::Cpu).unwrap())
            .collect();
        for dir in &folders {
            touch(dir, &format!("after shard {k} opened it"));
        }
        for (i, model) in opened
            .iter()
            .enumerate()
            .filter(|(i, _)| shard.contains(*i))
        {
            let first = digest(model);
            // What a fresh digest of the folder as it is now gives: the one taken here.
            let fresh =
                lmbias_runs::open(&spec(&folders[i]), lmbias_runs::DeviceKind::Cpu).unwrap();
            assert_eq!(first, digest(&fresh), "model {i} was digested when opened");
            touch(&folders[i], "after the digest");
            assert_eq!(digest(model), first, "model {i} was digested twice");
            digested[i] += 1;
        }
    }
    assert_eq!(digested, vec![1; M]);
    for dir in folders {
        let _ = std::fs::remove_dir_all(dir);
    }
}
