//! `cargo xtask reproduce-paper --models paper` on the tiny fixtures, arranged in a
//! private Hugging Face cache as if they were three of the papers' checkpoints:
//! the paper set must resolve them without network, skip the rest with a reason,
//! and write the SEAT and probe tables (pinned by insta) and figures. (The valence
//! study's tables on the tiny fixture are pinned in `lmbias-cli`'s valence tests
//! with a dataset the tiny vocabulary can produce.)

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/models")
        .join(name)
}

/// Copies a fixture folder to `$HF_HOME/hub/models--ORG--NAME/snapshots/REV/`.
fn place_in_cache(hub: &Path, id: &str, fixture_name: &str) {
    let snapshot = hub
        .join(format!("models--{}", id.replace('/', "--")))
        .join("snapshots/0123abcd");
    std::fs::create_dir_all(&snapshot).unwrap();
    for entry in std::fs::read_dir(fixture(fixture_name)).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), snapshot.join(entry.file_name())).unwrap();
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn paper_set_resolves_from_the_hf_cache_and_writes_every_study() {
    let root = std::env::temp_dir().join(format!("lmbias-reproduce-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let hub = root.join("hf/hub");
    place_in_cache(&hub, "bert-base-uncased", "tiny-bert-mlm");
    place_in_cache(&hub, "dbmdz/bert-base-turkish-cased", "tiny-bert-cased-tr");
    place_in_cache(&hub, "google/mt5-base", "tiny-mt5");
    let out = root.join("results");

    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args([
            "reproduce-paper",
            "--models",
            "paper",
            "--n-samples",
            "2000",
            "--out",
        ])
        .arg(&out)
        .env("HF_HOME", root.join("hf"))
        .env_remove("HF_HUB_CACHE")
        // Built with the `hub` feature (the test build unifies it in), the paper set
        // would otherwise try to download the missing checkpoints.
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");

    // Found in the cache: the three we placed; every other paper model is listed as skipped.
    for id in [
        "bert-base-uncased",
        "dbmdz/bert-base-turkish-cased",
        "google/mt5-base",
    ] {
        assert!(
            stderr.contains(&format!("using {id} from {}", hub.display())),
            "{id} not used:\n{stderr}"
        );
    }
    for id in [
        "emanjavacas/MacBERTh",
        "dbmdz/bert-large-turkish-uncased",
        "bert-base-multilingual-cased",
    ] {
        assert!(
            stderr.contains(&format!("skipped {id} (")),
            "{id} not skipped:\n{stderr}"
        );
    }
    let report = read(&out.join("REPORT.md"));
    assert!(
        report.contains("| emanjavacas/MacBERTh | valence |"),
        "{report}"
    );
    // The tiny vocabulary (1000 pieces) cannot produce the valence set's annotated
    // tokens, and the tiny BERT's 64 positions cannot hold the long vignettes: each
    // study refuses, says why in one line, and the run goes on with the others.
    assert!(
        report.contains("| valence | bert-base-uncased |") && report.contains("is not one piece"),
        "{report}"
    );
    assert!(
        report.contains("| seat | dbmdz/bert-base-turkish-cased | battery tr: ")
            && report.contains("more than the model's 64 positions"),
        "{report}"
    );
    assert!(!out.join("valence").exists());

    // Figures exist and are SVG.
    for figure in [
        "seat/tr/seat-heatmap.svg",
        "seat/en/seat-heatmap-holm.svg",
        "probe/bert-base-uncased-p-vs-n.svg",
    ] {
        assert!(
            read(&out.join(figure)).starts_with("<svg"),
            "{figure} is not an SVG"
        );
    }

    insta::assert_snapshot!("seat_tr", read(&out.join("seat/tr/results.md")));
    insta::assert_snapshot!("probe_summary", read(&out.join("probe/summary.md")));
    let _ = std::fs::remove_dir_all(&root);
}
