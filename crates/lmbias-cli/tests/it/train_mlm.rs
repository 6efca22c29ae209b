//! `lmbias train-mlm` as a user meets it: a trained folder that `lmbias
//! fill-mask` reads, and bad input refused in one line (the library's tests in
//! lmbias-model cover the trainer itself).

use std::path::PathBuf;

use crate::support::lmbias;

fn tiny() -> String {
    lmbias_testing::model_dir("tiny-bert-mlm")
        .display()
        .to_string()
}

fn corpus() -> String {
    lmbias_testing::fixtures()
        .join("generate/corpus.txt")
        .display()
        .to_string()
}

fn scratch_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lmbias-cli-train-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_trained_folder_serves_fill_mask() {
    let dir = scratch_dir("ok");
    let out = dir.join("model");
    let (ok, stdout, stderr) = lmbias(&[
        "train-mlm",
        "--from",
        &tiny(),
        "--corpus",
        &corpus(),
        "--output",
        out.to_str().unwrap(),
        "--steps",
        "4",
        "--batch",
        "4",
        "--log-every",
        "2",
    ]);
    assert!(ok, "{stderr}");
    // Not a terminal: one line per --log-every steps, and a summary on stdout.
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with("step ")).count(),
        2,
        "{stderr}"
    );
    assert!(
        stdout.contains("4 steps") && stdout.contains("pseudo-perplexity"),
        "{stdout}"
    );
    let (ok, stdout, stderr) = lmbias(&[
        "fill-mask",
        "--model",
        out.to_str().unwrap(),
        "Thou art [MASK].",
    ]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("rank"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A model trained from scratch with each kind of tokenizer lmbias reads (vocab.txt alone,
/// tokenizer.json, DeBERTa's spm.model, ALBERT's spiece.model) carries the tokenizer's files
/// and loads again (a DeBERTa-v3 tokenizer's spm.model was not copied: "no tokenizer found").
#[test]
fn a_scratch_model_keeps_every_kind_of_tokenizer() {
    let dir = scratch_dir("kinds");
    // ALBERT's folder without its tokenizer.json: spiece.model is then the tokenizer.
    let albert = dir.join("albert-spiece");
    std::fs::create_dir_all(&albert).unwrap();
    for name in ["spiece.model", "tokenizer_config.json"] {
        std::fs::copy(
            lmbias_testing::model_dir("tiny-albert-mlm").join(name),
            albert.join(name),
        )
        .unwrap();
    }
    for (kind, tokenizer, file) in [
        (
            "wordpiece",
            lmbias_testing::model_dir("tiny-bert-mlm-bin"),
            "vocab.txt",
        ),
        (
            "json",
            lmbias_testing::model_dir("tiny-modernbert-mlm"),
            "tokenizer.json",
        ),
        (
            "spm",
            lmbias_testing::model_dir("tiny-deberta-v3-mlm"),
            "spm.model",
        ),
        ("spiece", albert.clone(), "spiece.model"),
    ] {
        let out = dir.join(kind);
        let (ok, _, stderr) = lmbias(&[
            "train-mlm",
            "--scratch",
            "--tokenizer",
            tokenizer.to_str().unwrap(),
            "--corpus",
            &corpus(),
            "--output",
            out.to_str().unwrap(),
            "--steps",
            "1",
            "--batch",
            "2",
            "--max-len",
            "32",
            "--held-out",
            "0",
        ]);
        assert!(ok, "{kind}: {stderr}");
        assert!(out.join(file).is_file(), "{kind}: {file} not copied");
        let input = dir.join("input.txt");
        std::fs::write(&input, "Thou art more lovely.\n").unwrap();
        let (ok, stdout, stderr) = lmbias(&[
            "embed",
            "--model",
            out.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
        ]);
        assert!(ok && !stdout.is_empty(), "{kind}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two trainings on one --output: the second is refused at once, naming the first's process
/// (it trained all its steps, then failed "Directory not empty", leaving a folder behind);
/// once the first has gone, however it ended, the output is free again.
#[test]
fn a_second_training_on_the_same_output_is_refused_at_once() {
    let dir = scratch_dir("lock");
    let out = dir.join("model");
    let args = |steps: &str| -> Vec<String> {
        [
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            out.to_str().unwrap(),
            "--steps",
            steps,
            "--batch",
            "2",
            "--max-len",
            "32",
            "--checkpoint-every",
            "0",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .args(args("1000000"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The first holds the lock once its process id is in the lock file.
    let lock = dir.join("model.lock");
    let pid = first.id().to_string();
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&lock).ok().as_deref() != Some(pid.as_str()) {
        assert!(
            started.elapsed().as_secs() < 60,
            "the first run never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let args_two = args("2");
    let refs: Vec<&str> = args_two.iter().map(String::as_str).collect();
    let started = std::time::Instant::now();
    let (ok, _, stderr) = lmbias(&refs);
    assert!(!ok && started.elapsed().as_secs() < 30, "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "model: another training (process {pid}) is writing it: wait for it to end or choose \
             another --output"
        )),
        "{stderr}"
    );
    // Killed outright, the first leaves its lock file unlocked: the next run takes it.
    first.kill().unwrap();
    first.wait().unwrap();
    let (ok, _, stderr) = lmbias(&refs);
    assert!(ok, "{stderr}");
    assert!(out.join("config.json").is_file() && !lock.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Interrupted (SIGINT, as Ctrl-C sends, and SIGKILL, in turn) at moments spread over the
/// run, checkpointing every step: once a complete checkpoint is on disk (its digest.json
/// verifying every file, checked here from the files) there is always one, whatever the
/// moment; no relaunch is ever refused; and the resumed runs end with the uninterrupted
/// run's weights (#35).
#[test]
fn a_run_interrupted_at_any_moment_resumes_to_the_uninterrupted_weights() {
    let dir = scratch_dir("kill");
    let args = |out: &std::path::Path, resume: bool| -> Vec<String> {
        let mut args: Vec<String> = [
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            out.to_str().unwrap(),
            "--steps",
            "200",
            "--batch",
            "2",
            "--max-len",
            "32",
            "--checkpoint-every",
            "1",
        ]
        .map(str::to_owned)
        .to_vec();
        if resume {
            args.push("--resume".into());
        }
        args
    };
    let whole = dir.join("whole");
    let refs = |a: &[String]| a.iter().map(String::clone).collect::<Vec<_>>();
    let plain = refs(&args(&whole, false));
    let (ok, _, stderr) = lmbias(&plain.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(ok, "{stderr}");

    let cut = dir.join("cut");
    let (mut kills, mut resumed_kills) = (0, 0);
    for round in 0..40 {
        let started = lmbias_testing::complete_checkpoint(&cut).is_some();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"));
        command
            .args(args(&cut, started))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        // A shell without job control starts background commands with SIGINT ignored, and a
        // child inherits that: the suite run as `… &` would never interrupt. Ctrl-C reaches a
        // foreground run with the default action, which this restores.
        // SAFETY: `signal` is async-signal-safe, as `pre_exec` requires, and touches nothing of
        // the parent's.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                Ok(())
            });
        }
        let child = command.spawn().unwrap();
        // Moments spread over start-up, steps and checkpoint writes (a fixed sequence;
        // 200 steps take about a second and a half here).
        let wait_ms = 40 + (round * 97) % 400;
        std::thread::sleep(std::time::Duration::from_millis(wait_ms as u64));
        let pid = child.id();
        let signal = if round % 2 == 0 { "-INT" } else { "-KILL" };
        let _ = std::process::Command::new("kill")
            .args([signal, &pid.to_string()])
            .status();
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        // Killed, or finished before the signal: never refused.
        assert!(
            output.status.success() || output.status.code().is_none(),
            "round {round}: {stderr}"
        );
        if output.status.code().is_none() {
            kills += 1;
            resumed_kills += usize::from(started);
            // A run killed just after its output folder was complete has removed its
            // checkpoints, as it should.
            let finished = cut.join("model.safetensors").is_file();
            assert!(
                !started || finished || lmbias_testing::complete_checkpoint(&cut).is_some(),
                "round {round} ({signal}): no complete checkpoint left"
            );
        }
        if cut.join("model.safetensors").is_file() {
            break;
        }
    }
    assert!(
        kills >= 3 && resumed_kills >= 2,
        "{kills} kills, {resumed_kills} of resumed runs: the test did not interrupt the run"
    );
    if !cut.join("model.safetensors").is_file() {
        let last = args(&cut, true);
        let (ok, _, stderr) = lmbias(&last.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(ok, "{stderr}");
    }
    let bytes = |d: &std::path::Path| std::fs::read(d.join("model.safetensors")).unwrap();
    assert!(bytes(&whole) == bytes(&cut), "the resumed weights differ");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(cut.join("training.json")).unwrap()).unwrap();
    assert!(report["resumed_from"].as_u64().is_some(), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Exit 1 and one line on stderr containing `names`; no output folder.
fn refused(args: &[&str], out: &std::path::Path, names: &str) {
    let (ok, _, stderr) = lmbias(args);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ") && stderr.contains(names),
        "{stderr:?} lacks {names:?}"
    );
    assert!(!out.exists());
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = scratch_dir("bad");
    let out = dir.join("model");
    let o = out.to_str().unwrap();
    let (tiny_dir, corpus_file) = (tiny(), corpus());
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, "\n  \n").unwrap();
    let e = empty.to_str().unwrap();
    refused(
        &["train-mlm", "--from", &tiny(), "--corpus", e, "--output", o],
        &out,
        "empty.txt: the corpus has no passage",
    );
    let short = dir.join("short.txt");
    std::fs::write(&short, "Thou art.\n").unwrap();
    let s = short.to_str().unwrap();
    refused(
        &["train-mlm", "--from", &tiny(), "--corpus", s, "--output", o],
        &out,
        "short.txt: 1 passage(s)",
    );
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            o,
            "--max-len",
            "600",
        ],
        &out,
        "--max-len 600: above the model's 64 positions",
    );
    // A batch larger than the training set would repeat each sequence many times a step
    // (it ran 81 s at 12 GB for --batch 100000 on 223 sequences): refused before training.
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            o,
            "--batch",
            "100000",
        ],
        &out,
        "--batch 100000: larger than the ",
    );
    // Shapes whose training cannot fit in memory are refused before any allocation (a
    // trillion positions aborted the process; 48 layers of 4096 × 10^6 climbed toward TB);
    // a zero-sized shape in one line naming its option (`--hidden 0` panicked with
    // "chunk_size must not be zero", issue #47).
    let too_large = "GB to train (f32 weights, gradients and AdamW's two moments)";
    let mut shapes: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["--max-positions", "1000000000000"],
            too_large.to_owned(),
        ),
        (
            vec![
                "--hidden",
                "4096",
                "--heads",
                "32",
                "--intermediate",
                "1000000",
                "--layers",
                "48",
            ],
            too_large.to_owned(),
        ),
    ];
    for option in [
        "--layers",
        "--hidden",
        "--heads",
        "--intermediate",
        "--max-positions",
    ] {
        shapes.push((vec![option, "0"], format!("{option} 0: must be at least 1")));
    }
    for (shape, names) in shapes {
        let mut args = vec![
            "train-mlm",
            "--scratch",
            "--tokenizer",
            tiny_dir.as_str(),
            "--corpus",
            corpus_file.as_str(),
            "--output",
            o,
        ];
        args.extend(shape);
        refused(&args, &out, &names);
    }
    let no_tokenizer = dir.join("no-tokenizer");
    std::fs::create_dir_all(&no_tokenizer).unwrap();
    refused(
        &[
            "train-mlm",
            "--scratch",
            "--tokenizer",
            no_tokenizer.to_str().unwrap(),
            "--corpus",
            &corpus(),
            "--output",
            o,
        ],
        &out,
        "no-tokenizer",
    );
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let under_file = file.join("model");
    refused(
        &[
            "train-mlm",
            "--from",
            &tiny(),
            "--corpus",
            &corpus(),
            "--output",
            under_file.to_str().unwrap(),
        ],
        &under_file,
        "cannot create the output folder",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An output that cannot be made is named as given, not by the internal staging name
/// (`OUTPUT.tmp-PID`), and the system's reason is said once (#35, MINOR list).
#[test]
fn an_output_that_cannot_be_made_is_named_as_given() {
    let dir = scratch_dir("unmakeable");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    let out = file.join("model");
    let o = out.to_str().unwrap();
    let (_, _, stderr) = lmbias(&[
        "train-mlm",
        "--from",
        &tiny(),
        "--corpus",
        &corpus(),
        "--output",
        o,
    ]);
    assert_eq!(
        stderr,
        format!("error: {o}: cannot create the output folder: Not a directory (os error 20)\n")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Issue #47, smaller faults: a legal 250-byte `--output` was refused, its `.tmp-PID` name too
/// long, and a 240-byte one failed at its first checkpoint naming the staging path. Both, and
/// a 255-byte one, now train and checkpoint: what goes beside them fits the file system's 255
/// bytes.
#[test]
fn a_long_legal_output_name_trains_and_checkpoints() {
    let dir = scratch_dir("long-name");
    for length in [240, 250, 255] {
        let out = dir.join("m".repeat(length));
        let o = out.to_str().unwrap();
        let steps = |n: &str| {
            let args = vec![
                "train-mlm",
                "--from",
                &tiny(),
                "--corpus",
                &corpus(),
                "--output",
                o,
                "--steps",
                n,
                "--batch",
                "2",
                "--max-len",
                "32",
                "--checkpoint-every",
                "1",
            ]
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>();
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            lmbias(&refs)
        };
        let (ok, _, stderr) = steps("4");
        assert!(ok, "{length}: {stderr}");
        assert!(out.join("model.safetensors").is_file(), "{length}");
        // Nothing but the folder is left beside it.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [out.file_name().unwrap()], "{length}");
        std::fs::remove_dir_all(&out).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
