//! `--device wgpu` (issue #51): each study's command gives the CPU's results on the tiny
//! fixture and the quickstart's files, and the device's errors are one line. The parity
//! tests compile only with `--features wgpu` and need an adapter (`.ci/run` installs
//! lavapipe, a software Vulkan device).
//!
//! Fixed before the first run: every string, count and verdict of the JSON equal (so every
//! significance mark and decision), every number within 1e-4 (absolute, or relative to the
//! value where it exceeds 1), except where the JSON names the device.

use lmbias_testing::fixtures;

use crate::support::lmbias;

fn tiny() -> String {
    fixtures()
        .join("models/tiny-bert-mlm")
        .display()
        .to_string()
}

/// A build without the feature says how to build one with it, before any work.
#[cfg(not(feature = "wgpu"))]
#[test]
fn wgpu_in_a_build_without_it_says_how_to_build_it() {
    let model = tiny();
    let (ok, stdout, stderr) = lmbias(&["embed", "--model", &model, "--device", "wgpu", "x"]);
    assert!(!ok && stdout.is_empty());
    assert_eq!(
        stderr.trim_end(),
        "error: --device wgpu --precision f32: device \"wgpu\" is not in this build of lmbias: \
         build it with `--features wgpu` (`cargo install --locked --path crates/lmbias-cli \
         --features wgpu`; the Python package: `maturin build --release -m \
         crates/lmbias-py/Cargo.toml --features wgpu`)"
    );
}

/// `a` and `b` agree as the module's header says; `at` names the place for the message.
#[cfg(feature = "wgpu")]
fn assert_same(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-4 * x.abs().max(1.0),
                "{at}: cpu {x}, wgpu {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: lengths");
            for (i, (x, y)) in x.iter().zip(y).enumerate() {
                assert_same(x, y, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |o: &serde_json::Map<String, Value>| -> Vec<String> {
                o.keys().filter(|k| *k != "device").cloned().collect()
            };
            assert_eq!(keys(x), keys(y), "{at}: keys");
            for (key, x) in x {
                if key != "device" {
                    assert_same(x, &y[key], &format!("{at}.{key}"));
                }
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

/// The quickstart's study commands, each on the CPU and on wgpu, as JSON.
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_studies_give_the_cpus_tables() {
    let model = tiny();
    let quick = |file: &str| {
        lmbias_testing::repo_root()
            .join("examples/quickstart")
            .join(file)
            .display()
            .to_string()
    };
    let commands: Vec<Vec<String>> = [
        vec!["crows", "--pairs", &quick("pairs.csv")],
        vec!["seat", "--test", &quick("my_weat.jsonl")],
        vec!["valence", "--dataset", &quick("sentences.json")],
        vec![
            "probe",
            "--templates",
            &quick("templates.txt"),
            "--protected",
            &quick("protected.csv"),
            "--stereotyped",
            &quick("stereotyped.csv"),
            "--n",
            "4",
        ],
    ]
    .into_iter()
    .map(|c| c.into_iter().map(str::to_owned).collect())
    .collect();
    for command in commands {
        let run = |device: &str| -> serde_json::Value {
            let mut args: Vec<&str> = command.iter().map(String::as_str).collect();
            args.extend(["--model", &model, "--device", device, "--json"]);
            let (ok, stdout, stderr) = lmbias(&args);
            assert!(ok, "{} on {device}: {stderr}", command[0]);
            // The adapter is named on wgpu, never on the CPU.
            assert_eq!(
                stderr.contains("lmbias: wgpu runs on "),
                device == "wgpu",
                "{stderr}"
            );
            serde_json::from_str(&stdout).unwrap()
        };
        let (cpu, gpu) = (run("cpu"), run("wgpu"));
        assert!(
            gpu.to_string().contains("\"wgpu\""),
            "{}: the provenance does not name the device",
            command[0]
        );
        assert_same(&cpu, &gpu, &command[0]);
    }
}

/// With no adapter to be found (the Vulkan loader pointed at no driver, OpenGL's vendor
/// libraries at none), one line names the packages that provide one.
#[cfg(feature = "wgpu")]
#[test]
fn wgpu_without_an_adapter_names_the_packages() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lmbias"))
        .args(["embed", "--model", &tiny(), "--device", "wgpu", "x"])
        .env("VK_ICD_FILENAMES", "/nonexistent.json")
        .env("VK_DRIVER_FILES", "/nonexistent.json")
        .env("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent.json")
        .env("WAYLAND_DISPLAY", "")
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "error: --device wgpu --precision f32: wgpu found no adapter (Vulkan, Metal, DX12 or \
         OpenGL) on this machine: install the GPU's driver, or for a software one on the CPU \
         (slow, but the same code path) Debian's or Ubuntu's `mesa-vulkan-drivers` and \
         `libvulkan1`"
    );
}
