//! The cluster path on a real Slurm (docs/cluster.md): `scripts/slurm/local-cluster.sh`
//! starts a one-node cluster on localhost, `scripts/slurm/submit.sh` queues a sweep as a
//! job array and a dependent merge, and the merged outputs must equal one
//! `reproduce-paper` run byte for byte. A cancelled shard must keep the merge from
//! running, and rerunning that shard alone must then give the same report.
//!
//! It needs root (the script installs Debian's Slurm and MUNGE packages and runs the
//! daemons), so `cargo test` skips it; `.ci/run` runs it with `--ignored`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use lmbias_testing::{model_dir, repo_root};

use crate::support::{tree, xtask};

/// How long one sweep may take on the cluster before the test gives up.
const SWEEP_BOUND: Duration = Duration::from_secs(300);

/// Resources every job asks for: the scripts' defaults (8 cores, 16 GB) do not fit a
/// small node, so this also shows that `LMBIAS_SBATCH_ARGS` wins over them.
const SMALL_JOBS: &str = "--cpus-per-task=1 --mem=1G";

/// A running one-node cluster, stopped when dropped (a failing test included).
struct Cluster {
    dir: PathBuf,
    conf: String,
    running: bool,
}

impl Cluster {
    fn start(dir: &Path) -> Cluster {
        let output = Command::new(script("local-cluster.sh"))
            .arg("start")
            .env("LMBIAS_SLURM_DIR", dir)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: String::new(),
            running: true,
        };
        assert!(
            output.status.success(),
            "local-cluster.sh start failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        cluster.conf = stdout
            .trim()
            .strip_prefix("export SLURM_CONF=")
            .unwrap_or_else(|| panic!("start printed no SLURM_CONF: {stdout}"))
            .to_string();
        cluster
    }

    /// A Slurm client command against this cluster.
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// A job's state (`JobState=` of `scontrol show job`), one line per array task.
    fn states(&self, job: &str) -> Vec<String> {
        let output = self
            .command("scontrol")
            .args(["show", "job", "-o", job])
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| {
                let state = line
                    .split_whitespace()
                    .find(|f| f.starts_with("JobState="))?;
                Some(state["JobState=".len()..].to_string())
            })
            .collect()
    }

    /// Waits (bounded) until every task of `job` has left the queue; returns their states.
    fn wait(&self, job: &str, logs: &Path) -> Vec<String> {
        let start = Instant::now();
        loop {
            let states = self.states(job);
            let pending = ["PENDING", "RUNNING", "CONFIGURING", "COMPLETING"];
            if !states.is_empty() && !states.iter().any(|s| pending.contains(&s.as_str())) {
                return states;
            }
            assert!(
                start.elapsed() < SWEEP_BOUND,
                "job {job} still {states:?} after {SWEEP_BOUND:?}; logs:\n{}",
                read_logs(logs)
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Stops every daemon `start` launched and checks that none is left.
    fn stop(&mut self) {
        if !std::mem::replace(&mut self.running, false) {
            return;
        }
        let pids: Vec<String> = ["slurmctld.pid", "slurmd.pid", "munged.pid"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(self.dir.join(f)).ok())
            .map(|pid| pid.trim().to_string())
            .collect();
        let status = Command::new(script("local-cluster.sh"))
            .arg("stop")
            .env("LMBIAS_SLURM_DIR", &self.dir)
            .status()
            .unwrap();
        assert!(status.success(), "local-cluster.sh stop failed");
        for pid in pids {
            assert!(
                !Path::new("/proc").join(&pid).exists(),
                "daemon {pid} still runs after stop"
            );
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.running {
            self.running = false;
            let _ = Command::new(script("local-cluster.sh"))
                .arg("stop")
                .env("LMBIAS_SLURM_DIR", &self.dir)
                .status();
        }
    }
}

fn script(name: &str) -> PathBuf {
    repo_root().join("scripts/slurm").join(name)
}

fn read_logs(dir: &Path) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return format!("(no {})", dir.display());
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            format!("== {}\n{text}", e.path().display())
        })
        .collect()
}

/// Runs `submit.sh ARGS` from `cwd` (not the repository) with the test's xtask binary;
/// returns (array job, merge job) from what it prints.
fn submit(
    cluster: &Cluster,
    cwd: &Path,
    hf: &Path,
    sbatch_args: &str,
    args: &[&str],
) -> (String, String) {
    let output: Output = cluster
        .command(script("submit.sh"))
        .args(args)
        .current_dir(cwd)
        .env("LMBIAS_XTASK", env!("CARGO_BIN_EXE_xtask"))
        .env("LMBIAS_SBATCH_ARGS", sbatch_args)
        .env("HF_HOME", hf)
        .env_remove("HF_HUB_CACHE")
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "submit.sh {args:?} failed:\n{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // "shards: job array A (…); merge: job M, after all of them succeed"
    let after = |key: &str| -> String {
        let rest = &stdout[stdout.find(key).unwrap_or_else(|| panic!("{stdout}")) + key.len()..];
        rest.chars().take_while(|c| c.is_ascii_digit()).collect()
    };
    (after("job array "), after("merge: job "))
}

/// The files a report consists of: everything under `out` but the sweep's own
/// bookkeeping (shards, logs, the saved settings).
fn report_files(out: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = tree(out);
    files.retain(|path, _| {
        !(path.starts_with("shards") || path.starts_with("logs") || path == Path::new("sweep.env"))
    });
    files
}

fn assert_same_report(want: &BTreeMap<PathBuf, Vec<u8>>, out: &Path) {
    let got = report_files(out);
    assert_eq!(
        want.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{}: other files than the single run's",
        out.display()
    );
    for (path, bytes) in want {
        assert!(
            got[path] == *bytes,
            "{} differs between the single run and the Slurm sweep in {}",
            path.display(),
            out.display()
        );
    }
}

#[test]
#[ignore = "needs root and Debian's Slurm packages; .ci/run runs it (scripts/slurm/local-cluster.sh)"]
fn slurm_job_array_and_merge_equal_one_run() {
    let root = std::env::temp_dir().join(format!("lmbias-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let hf = root.join("hf");
    // Five models, so the three shards hold 2, 2 and 1 of them.
    let models = [
        "tiny-bert-mlm",
        "tiny-bert-nohead",
        "tiny-mt5",
        "tiny-bert-cased-tr",
        "tiny-bert-mlm-f16",
    ]
    .map(|m| model_dir(m).display().to_string())
    .join(",");

    // The reference: one run over all models, no Slurm.
    let single = root.join("single");
    let output = xtask(
        &[
            "reproduce-paper",
            "--models",
            &models,
            "--n-samples",
            "100",
            "--out",
            single.to_str().unwrap(),
        ],
        &hf,
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let want = report_files(&single);
    assert!(want.contains_key(Path::new("REPORT.md")));

    let mut cluster = Cluster::start(&root.join("cluster"));
    // Submitted from a folder outside the repository, as from a user's scratch space.
    let cwd = root.join("elsewhere");
    std::fs::create_dir_all(&cwd).unwrap();

    // 1. The whole sweep: three shards, then the merge after them.
    let out = root.join("sweep");
    let sweep_args = ["3", &models, out.to_str().unwrap(), "--n-samples", "100"];
    let (array, merge) = submit(&cluster, &cwd, &hf, SMALL_JOBS, &sweep_args);
    let logs = out.join("logs");
    assert_eq!(
        cluster.wait(&merge, &logs),
        ["COMPLETED"],
        "{}",
        read_logs(&logs)
    );
    assert_eq!(cluster.wait(&array, &logs), ["COMPLETED"; 3]);
    assert_same_report(&want, &out);
    // One log per shard, named by K and N, and the merge's.
    for k in 1..=3 {
        let log = logs.join(format!("shard-{k}-of-3.job{array}.out"));
        assert!(
            log.exists(),
            "{} missing: {}",
            log.display(),
            read_logs(&logs)
        );
    }
    assert!(logs.join(format!("merge.job{merge}.out")).exists());

    // 2. A shard cancelled: every job is queued held, shard 2 is cancelled, the rest
    //    released. The merge's dependency can then never hold, so it never runs.
    let out = root.join("cancelled");
    let cancel_args = ["3", &models, out.to_str().unwrap(), "--n-samples", "100"];
    let held = format!("{SMALL_JOBS} --hold");
    let (array, merge) = submit(&cluster, &cwd, &hf, &held, &cancel_args);
    let logs = out.join("logs");
    let run = |program: &str, args: &[&str]| {
        let status = cluster.command(program).args(args).status().unwrap();
        assert!(status.success(), "{program} {args:?} failed");
    };
    run("scancel", &[&format!("{array}_2")]);
    run("scontrol", &["release", &array]);
    run("scontrol", &["release", &merge]);
    // A task cancelled while pending leaves the array's record: tasks 1 and 3 remain.
    assert_eq!(
        cluster.wait(&array, &logs),
        ["COMPLETED"; 2],
        "{}",
        read_logs(&logs)
    );
    assert_eq!(cluster.wait(&merge, &logs), ["CANCELLED"]);
    assert!(!out.join("REPORT.md").exists(), "the merge ran");
    assert!(
        !logs.join(format!("merge.job{merge}.out")).exists(),
        "the merge ran"
    );
    let saved: Vec<_> = tree(&out.join("shards")).into_keys().collect();
    assert_eq!(
        saved,
        [PathBuf::from("1-of-3.cbor"), PathBuf::from("3-of-3.cbor")]
    );

    // 3. Shard 2 alone again, then the merge: the same report as the single run.
    let (array, merge) = submit(
        &cluster,
        &cwd,
        &hf,
        SMALL_JOBS,
        &["--rerun", "2", out.to_str().unwrap()],
    );
    assert_eq!(
        cluster.wait(&merge, &logs),
        ["COMPLETED"],
        "{}",
        read_logs(&logs)
    );
    assert_eq!(cluster.wait(&array, &logs), ["COMPLETED"]);
    assert_same_report(&want, &out);

    cluster.stop();
    let _ = std::fs::remove_dir_all(&root);
}

/// submit.sh refuses, in one line and before building or writing anything: no `sbatch` on
/// PATH, an empty model list (given, or a file of blank lines and comments), a list file
/// that is not there, and more shards than models (10^23 included, past bash's
/// arithmetic). Needs no Slurm: a stand-in `sbatch` that must never be called (#35).
#[test]
fn submit_refuses_what_cannot_be_a_sweep_before_doing_anything() {
    let dir = std::env::temp_dir().join(format!("lmbias-submit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let sbatch = bin.join("sbatch");
    std::fs::write(&sbatch, "#!/bin/sh\necho called >&2\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&sbatch, std::fs::Permissions::from_mode(0o755)).unwrap();
    let blank = dir.join("blank.txt");
    std::fs::write(&blank, "\n  \n# a comment\n").unwrap();
    let out = dir.join("out");
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let refused = |path: &str, args: &[&str], message: &str| {
        let output = Command::new(script("submit.sh"))
            .args(args)
            .env("PATH", path)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert_eq!(
            String::from_utf8(output.stderr).unwrap(),
            format!("submit.sh: {message}\n")
        );
        assert!(!out.exists(), "{args:?} wrote {}", out.display());
    };
    let o = out.to_str().unwrap();
    // A machine with Slurm installed (CI installs it after this test) has sbatch there.
    if !["/usr/bin/sbatch", "/bin/sbatch"]
        .iter()
        .any(|p| Path::new(p).exists())
    {
        refused(
            "/usr/bin:/bin",
            &["2", "a,b", o],
            "sbatch: not found on PATH (run this on a Slurm login node)",
        );
    }
    refused(
        &path,
        &["2", ",", o],
        "MODELS: ,: no model (give a comma-separated list or @FILE, one per line)",
    );
    let at_blank = format!("@{}", blank.display());
    refused(
        &path,
        &["2", &at_blank, o],
        &format!(
            "MODELS: {at_blank}: no model (give a comma-separated list or @FILE, one per line)"
        ),
    );
    refused(
        &path,
        &["2", "@/nonexistent/models.txt", o],
        "MODELS: /nonexistent/models.txt: not a readable file",
    );
    refused(
        &path,
        &["100000000000000000000000", "a,b", o],
        "N: 100000000000000000000000 shards for 2 models: at most one shard per model",
    );
    refused(
        &path,
        &["3", "a,b", o],
        "N: 3 shards for 2 models: at most one shard per model",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
