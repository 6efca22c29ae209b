//! The Hugging Face cache, and downloading a checkpoint into it the way
//! `huggingface_hub` does, so that either tool finds what the other fetched.
//!
//! A hub id resolves to `CACHE/models--ORG--NAME/snapshots/REV/`, REV being the
//! one `refs/main` names. A download asks `HEAD {endpoint}/{id}/resolve/main/{file}`
//! (redirects not followed) for the commit (`X-Repo-Commit`), the blob's name
//! (`X-Linked-Etag`, an LFS file's sha256, else `ETag`), its size and where its
//! bytes are (an LFS file redirects to another host); it fetches the bytes into
//! `blobs/{etag}.incomplete` (resumed with a `Range` request after an
//! interruption), checks an LFS file's sha256, renames it to `blobs/{etag}`, and
//! only when every file is in `blobs/` links `snapshots/{commit}/{file}` to it
//! (relative symlinks) and writes `refs/main`. One blob is fetched by one process
//! at a time (an OS lock on `.locks/models--ORG--NAME/{etag}.lock`, the file
//! huggingface_hub locks too). Only the files the caller names are fetched ([`HubFiles`]:
//! lmbias-model names those it reads). A transfer
//! slower than [`HubSettings::min_speed`] over [`HubSettings::min_speed_time`] is
//! abandoned as an interrupted one is: with a message naming the file and its
//! progress, its bytes kept to resume from.
//!
//! Offline machines pay once: a hub that cannot be reached is remembered for the
//! rest of the process, and every model after the first is refused at once.
//!
//! Progress is a callback ([`HubSettings::progress`]) the front-ends draw; nothing here
//! writes to a terminal.
//!
//! Why this is ours and not Hugging Face's `hf-hub` crate: docs/decisions.md, "The hub
//! client".

#[cfg(feature = "download")]
mod download;
mod error;
mod settings;

use std::fs;
use std::path::{Path, PathBuf};

pub use error::{DownloadError, HubError, HubMiss, Stall, Transport};
pub use settings::{HubSettings, OnTransfer, Transfer, progress_bars_disabled};

/// Downloads `files` of hub id `model` (its `main` revision) into `settings.cache` and
/// returns the snapshot folder. A model the hub cannot give (offline, unreachable, no such
/// model) is [`DownloadError::Absent`] saying why; a gated model without access is
/// [`DownloadError::Gated`]; a failed or corrupt transfer is [`DownloadError::Failed`].
/// Without the `download` feature (no HTTP client compiled in) every model is
/// [`HubMiss::NoClient`]: a library that only reads folders and the cache needs no network.
pub fn download(
    model: &str,
    files: &HubFiles,
    settings: &HubSettings,
) -> Result<PathBuf, DownloadError> {
    #[cfg(feature = "download")]
    return download::download(model, files, settings);
    #[cfg(not(feature = "download"))]
    {
        let _ = files;
        Err(DownloadError::Absent {
            model: model.to_owned(),
            cache: settings.cache.clone(),
            miss: HubMiss::NoClient,
        })
    }
}

/// The files of a repository a download fetches: the caller knows which it reads.
#[derive(Debug, Clone, Copy)]
pub struct HubFiles {
    /// The file that must be there (else the model is [`HubMiss::NoConfig`]): asked first,
    /// its commit pins every other file, and its link, made last, marks a snapshot complete.
    pub marker: &'static str,
    /// Groups of alternatives in order of preference: the first the model has of each is
    /// fetched, and a group it has none of fails the download ([`HubError::NoneOf`]).
    pub one_of: &'static [&'static [&'static str]],
    /// Fetched when the model has them.
    pub optional: &'static [&'static str],
}

/// `models--ORG--NAME`, the folder of hub id `model` in the cache.
fn repo_folder(model: &str) -> String {
    format!("models--{}", model.replace('/', "--"))
}

/// The snapshot of hub id `model` in `cache`: the one `refs/main` names, else the
/// most recently modified one; `None` when the cache has none.
pub fn cached_snapshot(cache: &Path, model: &str) -> Option<PathBuf> {
    let repo = cache.join(repo_folder(model));
    let snapshots = repo.join("snapshots");
    if let Ok(rev) = fs::read_to_string(repo.join("refs").join("main")) {
        let dir = snapshots.join(rev.trim());
        if dir.is_dir() {
            return Some(dir);
        }
    }
    fs::read_dir(&snapshots)
        .ok()?
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .max_by_key(|e| e.metadata().and_then(|m| m.modified()).ok())
        .map(|e| e.path())
}

/// Whether `model` is a valid hub id (`name` or `org/name`, by the hub's rules:
/// letters, digits, `-`, `_`, `.`, no `--` or `..`, neither `-` nor `.` at either
/// end, at most 96 characters), so that a path such as `./models/x` or a typo with
/// a space is never sent to the hub.
pub fn is_hub_id(model: &str) -> bool {
    let part_ok = |part: &str| {
        (1..=96).contains(&part.len())
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
            && !part.contains("--")
            && !part.contains("..")
            && !part.starts_with(['-', '.'])
            && !part.ends_with(['-', '.'])
    };
    let parts: Vec<&str> = model.split('/').collect();
    parts.len() <= 2 && parts.iter().all(|p| part_ok(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
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
        fs::remove_file(repo.join("refs/main")).unwrap();
        fs::remove_dir_all(repo.join("snapshots/aaa")).unwrap();
        assert_eq!(
            cached_snapshot(&cache, "org/tiny"),
            Some(repo.join("snapshots/bbb"))
        );
        assert_eq!(cached_snapshot(&cache, "org/other"), None);
        fs::remove_dir_all(&cache).unwrap();
    }
}
