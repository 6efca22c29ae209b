//! Downloading a checkpoint from the Hugging Face hub into the HF cache layout
//! (feature `hub`; off by default, so offline builds never pull in an HTTP stack).
//!
//! Only the files lmbias reads are fetched: config.json, the tokenizer files that
//! exist, and one weight file (model.safetensors, else pytorch_model.bin). They land
//! in `CACHE/models--ORG--NAME/snapshots/REV/` with `refs/main` naming REV, which
//! [`crate::checkpoint::cached_snapshot`] finds next time without the network.
//! Files are written whole (a temporary name, then a rename), so an interrupted
//! download never leaves a half file that looks complete.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::ModelError;

/// The tokenizer files transformers may read; each is optional.
const TOKENIZER_FILES: [&str; 5] = [
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "spiece.model",
];
/// Weight files in order of preference; the first that exists is fetched.
const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];

/// `$HF_ENDPOINT`, else the public hub.
pub fn endpoint() -> String {
    std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".to_owned())
}

/// True when `$HF_HUB_OFFLINE` asks for no network (as huggingface_hub reads it).
pub fn offline() -> bool {
    std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
}

/// `name` or `org/name`: a missing path such as `./models/x` is not sent to the hub.
pub fn is_hub_id(model: &str) -> bool {
    !model.is_empty()
        && !model.starts_with(['.', '/', '~'])
        && model.matches('/').count() <= 1
        && !model.contains('\\')
}

/// Downloads hub id `model` (revision `main`) from `endpoint` into `cache` and
/// returns the snapshot folder.
pub fn download(model: &str, endpoint: &str, cache: &Path) -> Result<PathBuf, ModelError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(3600)))
        .build()
        .into();
    let url = |file: &str| {
        format!(
            "{}/{model}/resolve/main/{file}",
            endpoint.trim_end_matches('/')
        )
    };
    let hub_error = |file: &str, message: String| ModelError::Hub {
        name: model.to_owned(),
        url: url(file),
        message,
    };

    let repo = cache.join(format!("models--{}", model.replace('/', "--")));
    let mut config = fetch(&agent, &url("config.json")).map_err(|m| hub_error("config.json", m))?;
    let Some(config_body) = config.body.take() else {
        return Err(hub_error(
            "config.json",
            "no such model on the hub (404)".to_owned(),
        ));
    };
    // The commit the hub served, so two revisions never share a folder.
    let revision = config.commit.clone().unwrap_or_else(|| "main".to_owned());
    let snapshot = repo.join("snapshots").join(&revision);
    let io = |path: &Path, e: std::io::Error| ModelError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(&snapshot).map_err(|e| io(&snapshot, e))?;
    write_whole(&snapshot.join("config.json"), &config_body).map_err(|e| io(&snapshot, e))?;

    for file in TOKENIZER_FILES {
        let got = fetch(&agent, &url(file)).map_err(|m| hub_error(file, m))?;
        if let Some(body) = got.body {
            write_whole(&snapshot.join(file), &body).map_err(|e| io(&snapshot, e))?;
        }
    }
    let mut weights = false;
    for file in WEIGHT_FILES {
        let got = fetch(&agent, &url(file)).map_err(|m| hub_error(file, m))?;
        if let Some(body) = got.body {
            write_whole(&snapshot.join(file), &body).map_err(|e| io(&snapshot, e))?;
            weights = true;
            break;
        }
    }
    if !weights {
        return Err(hub_error(
            WEIGHT_FILES[0],
            format!("the model has none of {}", WEIGHT_FILES.join(", ")),
        ));
    }
    let refs = repo.join("refs");
    std::fs::create_dir_all(&refs).map_err(|e| io(&refs, e))?;
    std::fs::write(refs.join("main"), &revision).map_err(|e| io(&refs, e))?;
    Ok(snapshot)
}

/// A file's bytes (`None` for a 404) and the commit the hub says it came from.
struct Fetched {
    body: Option<Vec<u8>>,
    commit: Option<String>,
}

fn fetch(agent: &ureq::Agent, url: &str) -> Result<Fetched, String> {
    let response = agent.get(url).call().map_err(|e| e.to_string())?;
    let status = response.status().as_u16();
    let commit = response
        .headers()
        .get("x-repo-commit")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match status {
        200 => {
            let mut body = Vec::new();
            response
                .into_body()
                .into_reader()
                .read_to_end(&mut body)
                .map_err(|e| e.to_string())?;
            Ok(Fetched {
                body: Some(body),
                commit,
            })
        }
        404 => Ok(Fetched { body: None, commit }),
        401 | 403 => Err(format!(
            "HTTP {status}: the model is gated or private (log in on the hub, then download it with huggingface-cli)"
        )),
        other => Err(format!("HTTP {other}")),
    }
}

fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let partial = path.with_extension("partial");
    std::fs::write(&partial, bytes)?;
    std::fs::rename(&partial, path)
}
