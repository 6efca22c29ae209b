//! `cargo xtask reproduce-paper` with the hub on (the default, no feature flag):
//! the paper's checkpoints are downloaded from a loopback hub (`HF_ENDPOINT`)
//! serving the tiny fixtures under the papers' ids into an empty `HF_HOME`, and a
//! hub that cannot be reached costs one quick attempt, after which the run goes on.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use lmbias_testing::hub_server::{Host, HubRepo, HubServer, closing_endpoint};

const COMMIT: &str = "a1b2c3d4e5f60718293a4b5c6d7e8f9001122334";

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-xtask-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `cargo xtask reproduce-paper ARGS --out ROOT/results` with `HF_HOME=ROOT/hf` and
/// `HF_ENDPOINT=endpoint`, and no other hub setting of the caller's environment.
fn reproduce(root: &Path, endpoint: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .arg("reproduce-paper")
        .args(args)
        .args(["--n-samples", "200", "--out"])
        .arg(root.join("results"))
        .env("HF_HOME", root.join("hf"))
        .env("HF_ENDPOINT", endpoint)
        .env_remove("HF_HUB_CACHE")
        .env_remove("HF_HUB_OFFLINE")
        .env_remove("TRANSFORMERS_OFFLINE")
        .env_remove("HF_TOKEN")
        .output()
        .unwrap()
}

/// The tiny MLM as bert-base-uncased in `ROOT/hf`'s cache, as if fetched before; its snapshot.
fn cache_bert(root: &Path) -> PathBuf {
    let snapshot = root.join("hf/hub/models--bert-base-uncased/snapshots/0123abcd");
    std::fs::create_dir_all(&snapshot).unwrap();
    for entry in std::fs::read_dir(lmbias_testing::model_dir("tiny-bert-mlm")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), snapshot.join(entry.file_name())).unwrap();
    }
    snapshot
}

#[test]
fn paper_set_is_downloaded_from_the_hub_into_an_empty_cache() {
    let fixture = |name: &str| lmbias_testing::model_dir(name);
    let served = [
        ("bert-base-uncased", "tiny-bert-mlm"),
        (
            "bigscience-historical-texts/bert-base-blbooks-cased",
            "tiny-bert-mlm",
        ),
        ("dbmdz/bert-base-turkish-cased", "tiny-bert-cased-tr"),
        ("google/mt5-base", "tiny-mt5"),
    ];
    let server = HubServer::start(
        served
            .iter()
            .map(|(id, name)| HubRepo::from_folder(id, COMMIT, &fixture(name)))
            .collect(),
    );
    let root = scratch("hub");
    let output = reproduce(&root, server.endpoint(), &["--models", "paper"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");

    let hub = root.join("hf/hub");
    for (id, name) in served {
        let repo = hub.join(format!("models--{}", id.replace('/', "--")));
        let snapshot = repo.join("snapshots").join(COMMIT);
        assert!(
            stderr.contains(&format!("using {id} from HF cache, revision {COMMIT} (")),
            "{id} not used from the downloaded snapshot:\n{stderr}"
        );
        // Issue #49, item 4: no download is silent, off a terminal too: each file is said as
        // it starts, with the size the hub gave, and as it ends.
        let size = std::fs::metadata(fixture(name).join("model.safetensors"))
            .unwrap()
            .len() as f64
            / 1e6;
        for line in [
            format!(
                "lmbias: downloading {id}/model.safetensors from the Hugging Face hub ({size:.1} MB)"
            ),
            format!("lmbias: {id}/model.safetensors: {size:.1} MB here"),
        ] {
            assert!(stderr.lines().any(|l| l == line), "{line}:\n{stderr}");
        }
        assert_eq!(
            std::fs::read_to_string(repo.join("refs/main")).unwrap(),
            COMMIT
        );
        assert_eq!(
            std::fs::read(snapshot.join("model.safetensors")).unwrap(),
            std::fs::read(fixture(name).join("model.safetensors")).unwrap(),
            "{id}"
        );
    }
    // Each model's weights came once from the host the hub redirected to.
    let cdn = server
        .requests()
        .iter()
        .filter(|r| r.host == Host::Cdn)
        .count();
    assert_eq!(cdn, served.len(), "{:?}", server.requests());
    // The paper's other checkpoints are not on this hub: skipped, saying so.
    for id in [
        "emanjavacas/MacBERTh",
        "dbmdz/bert-base-turkish-128k-uncased",
        "bert-base-multilingual-cased",
    ] {
        assert!(
            stderr.contains(&format!("skipped {id} (")) && stderr.contains("has no such model"),
            "{id} not skipped:\n{stderr}"
        );
    }
    let report = std::fs::read_to_string(root.join("results/REPORT.md")).unwrap();
    assert!(
        report.contains("| seat | dbmdz/bert-base-turkish-cased | battery tr: "),
        "{report}"
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn an_unreachable_hub_is_asked_once_and_the_run_goes_on() {
    // Accepts each connection and closes it at once: the hub is not there.
    let (endpoint, connections) = closing_endpoint();
    let root = scratch("unreachable");
    let snapshot = cache_bert(&root);
    let output = reproduce(
        &root,
        &endpoint,
        &[
            "--models",
            "org/missing-a,bert-base-uncased,org/missing-b",
            "--study",
            "probe",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");
    assert_eq!(connections.load(Ordering::SeqCst), 1, "{stderr}");
    // Each model gets a short reason; the cause they share is said once.
    for id in ["org/missing-a", "org/missing-b"] {
        assert!(
            stderr.contains(&format!(
                "skipped {id} (probe): not on this machine; the hub could not be reached\n"
            )),
            "{stderr}"
        );
    }
    let cause = format!("why the hub gave nothing: the hub at {endpoint} could not be reached: ");
    assert_eq!(stderr.matches(&cause).count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "using bert-base-uncased from HF cache, revision {} (",
            snapshot.file_name().unwrap().to_string_lossy()
        )),
        "{stderr}"
    );
    assert!(root.join("results/probe/summary.md").is_file(), "{stderr}");
    // REPORT.md: the same, and no path of this machine.
    let report = std::fs::read_to_string(root.join("results/REPORT.md")).unwrap();
    assert_eq!(
        report
            .matches(&format!(
                "Why the hub gave nothing: the hub at {endpoint} could not be reached: "
            ))
            .count(),
        1,
        "{report}"
    );
    assert!(
        report.contains("| org/missing-a | probe | named on the command line | not on this machine; the hub could not be reached |"),
        "{report}"
    );
    assert!(!report.contains(root.to_str().unwrap()), "{report}");
    let _ = std::fs::remove_dir_all(&root);
}

/// As on a machine without network: the hub's name does not resolve (`.invalid`
/// never does, RFC 6761). The run gives up on the hub within seconds, not a hang.
#[test]
fn without_network_the_first_failure_takes_seconds() {
    let root = scratch("offline");
    cache_bert(&root);
    let start = Instant::now();
    let output = reproduce(
        &root,
        "http://hub.invalid",
        &[
            "--models",
            "org/missing-a,org/missing-b,bert-base-uncased",
            "--study",
            "probe",
        ],
    );
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "xtask failed:\n{stderr}");
    assert_eq!(
        stderr
            .matches(
                "why the hub gave nothing: the hub at http://hub.invalid could not be reached: "
            )
            .count(),
        1,
        "{stderr}"
    );
    // The bound: the resolver's own limit is 5 s.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}:\n{stderr}");
    let _ = std::fs::remove_dir_all(&root);
}
