//! The Hugging Face cache, and (feature `hub`) downloading a checkpoint into it.
//!
//! A hub id resolves to `CACHE/models--ORG--NAME/snapshots/REV/`, REV being the
//! one `refs/main` names: the layout `huggingface-cli download` fills, so a
//! folder copied from a machine with network is found as is. The downloader
//! (off by default, so offline builds never pull in an HTTP stack) fetches only
//! the files lmbias reads: config.json, the tokenizer files that exist, and one
//! weight file (model.safetensors, else pytorch_model.bin). Files are written
//! whole (a temporary name, then a rename), so an interrupted download never
//! leaves a half file that looks complete.

use std::path::{Path, PathBuf};

#[cfg(feature = "hub")]
use crate::error::ModelError;

/// The hub cache folder, as huggingface_hub computes it: `$HF_HUB_CACHE`, else
/// `$HF_HOME/hub`, else `$XDG_CACHE_HOME/huggingface/hub` (default `~/.cache`).
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HF_HUB_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(home) = std::env::var_os("HF_HOME") {
        return PathBuf::from(home).join("hub");
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("huggingface").join("hub")
}

/// The snapshot of hub id `model` in `cache`: the one `refs/main` names, else the
/// most recently modified one; `None` when the cache has none.
pub fn cached_snapshot(cache: &Path, model: &str) -> Option<PathBuf> {
    let repo = cache.join(format!("models--{}", model.replace('/', "--")));
    let snapshots = repo.join("snapshots");
    if let Ok(rev) = std::fs::read_to_string(repo.join("refs").join("main")) {
        let dir = snapshots.join(rev.trim());
        if dir.is_dir() {
            return Some(dir);
        }
    }
    std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}

/// Whether `model` reads as a hub id (`name` or `org/name`), so that a missing
/// path such as `./models/x` is never sent to the hub.
pub fn is_hub_id(model: &str) -> bool {
    !model.is_empty()
        && !model.starts_with(['.', '/', '~'])
        && model.matches('/').count() <= 1
        && !model.contains('\\')
}

#[cfg(feature = "hub")]
pub use download::download;
#[cfg(feature = "hub")]
pub(crate) use download::{endpoint, offline};

#[cfg(feature = "hub")]
mod download {
    use std::io::Read;
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use super::ModelError;

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
    pub(crate) fn endpoint() -> String {
        std::env::var("HF_ENDPOINT").unwrap_or_else(|_| "https://huggingface.co".to_owned())
    }

    /// True when `$HF_HUB_OFFLINE` asks for no network (as huggingface_hub reads it).
    pub(crate) fn offline() -> bool {
        std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"))
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
        let mut config =
            fetch(&agent, &url("config.json")).map_err(|m| hub_error("config.json", m))?;
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn cache_lookup_follows_refs_main() {
        let cache = std::env::temp_dir().join(format!("lmbias-hub-{}", std::process::id()));
        let repo = cache.join("models--org--tiny");
        write(&repo.join("snapshots/aaa/config.json"), "{}");
        write(&repo.join("snapshots/bbb/config.json"), "{}");
        write(&repo.join("refs/main"), "aaa\n");
        assert_eq!(
            cached_snapshot(&cache, "org/tiny"),
            Some(repo.join("snapshots/aaa"))
        );
        // Without refs/main the only remaining snapshot is taken.
        std::fs::remove_file(repo.join("refs/main")).unwrap();
        std::fs::remove_dir_all(repo.join("snapshots/aaa")).unwrap();
        assert_eq!(
            cached_snapshot(&cache, "org/tiny"),
            Some(repo.join("snapshots/bbb"))
        );
        assert_eq!(cached_snapshot(&cache, "org/other"), None);
        std::fs::remove_dir_all(&cache).unwrap();
    }
}
