//! The download itself: `HEAD`s for the commit and each file's blob, `GET`s resumed with
//! `Range`, locks shared with huggingface_hub, links made last.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::{DownloadError, HubError, HubFiles, HubMiss, HubSettings, Stall, Transfer};

/// [`super::download`] with the client compiled in.
pub(super) fn download(
    model: &str,
    files: &HubFiles,
    settings: &HubSettings,
) -> Result<PathBuf, DownloadError> {
    let absent = |miss: HubMiss| DownloadError::Absent {
        model: model.to_owned(),
        cache: settings.cache.clone(),
        miss,
    };
    if !super::is_hub_id(model) {
        return Err(absent(HubMiss::NotAHubId));
    }
    if settings.offline {
        return Err(absent(HubMiss::Offline));
    }
    if let Some(why) = unreachable_before(&settings.endpoint) {
        return Err(absent(HubMiss::Unreachable {
            endpoint: settings.endpoint.clone(),
            why,
            asked: false,
        }));
    }
    Fetch::new(model, files, settings).run()
}

/// Hubs this process could not reach, with why: asked once, then refused at once.
static UNREACHABLE: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new());

fn unreachable_before(endpoint: &str) -> Option<String> {
    let seen = UNREACHABLE.lock().unwrap_or_else(|e| e.into_inner());
    seen.iter()
        .find(|(e, _)| e == endpoint)
        .map(|(_, why)| why.clone())
}

fn remember_unreachable(endpoint: &str, why: &str) {
    let mut seen = UNREACHABLE.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|(e, _)| e == endpoint) {
        seen.push((endpoint.to_owned(), why.to_owned()));
    }
}

/// What the hub says about one file.
struct Meta {
    file: &'static str,
    commit: String,
    /// The blob's name: the LFS sha256, or the git blob id.
    etag: String,
    /// The sha256 to check the bytes against (LFS files).
    sha256: Option<String>,
    size: Option<u64>,
    /// Where the bytes are: the hub itself, or (LFS) the host it redirects to.
    location: String,
}

/// Why a HEAD gave no file.
enum Head {
    Found(Meta),
    /// The hub has the model but not this file.
    NoSuchFile,
}

struct Fetch<'a> {
    model: &'a str,
    files: &'a HubFiles,
    settings: &'a HubSettings,
    agent: ureq::Agent,
    repo: PathBuf,
}

impl<'a> Fetch<'a> {
    fn new(model: &'a str, files: &'a HubFiles, settings: &'a HubSettings) -> Self {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_resolve(Some(settings.connect_timeout))
            .timeout_connect(Some(settings.connect_timeout))
            .timeout_recv_response(Some(settings.read_timeout))
            .timeout_per_read(Some(settings.read_timeout))
            .user_agent(concat!("lmbias/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Self {
            model,
            files,
            settings,
            agent,
            repo: settings.cache.join(super::repo_folder(model)),
        }
    }

    fn absent(&self, miss: HubMiss) -> DownloadError {
        DownloadError::Absent {
            model: self.model.to_owned(),
            cache: self.settings.cache.clone(),
            miss,
        }
    }

    fn failed(&self, url: &str, source: HubError) -> DownloadError {
        DownloadError::Failed {
            model: self.model.to_owned(),
            url: url.to_owned(),
            source: Box::new(source),
        }
    }

    /// A cache file or folder that could not be `doing`.
    fn io(path: &Path, doing: &'static str) -> impl FnOnce(io::Error) -> DownloadError {
        let path = path.to_path_buf();
        move |source| DownloadError::Io {
            path,
            doing,
            source,
        }
    }

    fn url(&self, revision: &str, file: &str) -> String {
        format!(
            "{}/{}/resolve/{revision}/{file}",
            self.settings.endpoint, self.model
        )
    }

    fn run(&self) -> Result<PathBuf, DownloadError> {
        let marker = match self.head("main", self.files.marker)? {
            Head::Found(meta) => meta,
            Head::NoSuchFile => {
                return Err(self.absent(HubMiss::NoConfig {
                    endpoint: self.settings.endpoint.clone(),
                }));
            }
        };
        // Every other file at the commit the marker came from, so a push during
        // the download cannot mix two revisions in one snapshot.
        let commit = marker.commit.clone();
        let mut files = Vec::new();
        for choices in self.files.one_of {
            files.push(self.first_of(&commit, choices)?);
        }
        for file in self.files.optional {
            if let Head::Found(meta) = self.head(&commit, file)? {
                files.push(meta);
            }
        }
        // The marker last: its link marks the snapshot complete.
        files.push(marker);
        for meta in &files {
            self.blob(meta)?;
        }
        let snapshot = self.repo.join("snapshots").join(&commit);
        fs::create_dir_all(&snapshot).map_err(Self::io(&snapshot, "create"))?;
        for meta in &files {
            link(&snapshot, meta.file, &meta.etag)
                .map_err(Self::io(&snapshot.join(meta.file), "link to its blob"))?;
        }
        let refs = self.repo.join("refs");
        fs::create_dir_all(&refs).map_err(Self::io(&refs, "create"))?;
        // Made as `fs::write` makes a file (the umask's permissions: a shared cache stays
        // readable), under a temporary name, then renamed.
        tempfile::Builder::new()
            .make_in(&refs, |tmp| {
                let mut file = OpenOptions::new().write(true).create_new(true).open(tmp)?;
                file.write_all(commit.as_bytes())
            })
            .and_then(|tmp| tmp.persist(refs.join("main")).map_err(|e| e.error))
            .map_err(Self::io(&refs.join("main"), "write"))?;
        Ok(snapshot)
    }

    /// The first of `files` the model has; an error naming them all when it has none.
    fn first_of(
        &self,
        revision: &str,
        files: &'static [&'static str],
    ) -> Result<Meta, DownloadError> {
        for file in files {
            if let Head::Found(meta) = self.head(revision, file)? {
                return Ok(meta);
            }
        }
        Err(self.failed(&self.url(revision, files[0]), HubError::NoneOf { files }))
    }

    /// `HEAD` one file, following only redirects within the hub (a renamed repository).
    fn head(&self, revision: &str, file: &'static str) -> Result<Head, DownloadError> {
        let mut url = self.url(revision, file);
        for _ in 0..5 {
            let mut request = self
                .agent
                .head(&url)
                .config()
                .max_redirects(0)
                .build()
                .header("Accept-Encoding", "identity");
            if let Some(token) = &self.settings.token {
                request = request.header("Authorization", format!("Bearer {token}"));
            }
            let response = match request.call() {
                Ok(response) => response,
                // Something answered, but not in HTTP: reached, and not a hub.
                Err(source @ ureq::Error::Protocol(_)) => {
                    return Err(self.failed(
                        &url,
                        HubError::NotHttp {
                            endpoint: self.settings.endpoint.clone(),
                            source: source.into(),
                        },
                    ));
                }
                Err(e) if is_network_failure(&e) => {
                    let why = e.to_string();
                    remember_unreachable(&self.settings.endpoint, &why);
                    return Err(self.absent(HubMiss::Unreachable {
                        endpoint: self.settings.endpoint.clone(),
                        why,
                        asked: true,
                    }));
                }
                Err(e) => return Err(self.failed(&url, HubError::Request(e.into()))),
            };
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let status = response.status().as_u16();
            let error_code = header("x-error-code").unwrap_or_default();
            let location = match status {
                200..=299 => url.clone(),
                300..=399 => {
                    let Some(target) = header("location") else {
                        return Err(self.failed(&url, HubError::NoLocation { status }));
                    };
                    if !target.contains("://") {
                        // Within the hub: ask again there.
                        url = join_origin(&url, &target);
                        continue;
                    }
                    target
                }
                404 if error_code != "RepoNotFound" => return Ok(Head::NoSuchFile),
                _ => {
                    return Err(self.refused(&url, status, &error_code, header("x-error-message")));
                }
            };
            let not_a_hub = |header| {
                self.failed(
                    &url,
                    HubError::NotAHub {
                        header,
                        endpoint: self.settings.endpoint.clone(),
                    },
                )
            };
            let commit = header("x-repo-commit").ok_or_else(|| not_a_hub("X-Repo-Commit"))?;
            let linked = header("x-linked-etag");
            let etag = linked
                .clone()
                .or_else(|| header("etag"))
                .map(|e| normalize_etag(&e))
                .filter(|e| is_safe_name(e))
                .ok_or_else(|| not_a_hub("ETag"))?;
            if !is_safe_name(&commit) {
                return Err(not_a_hub("usable X-Repo-Commit"));
            }
            // A redirect's own Content-Length is its body's, not the file's.
            let size = header("x-linked-size")
                .or_else(|| {
                    (location == url)
                        .then(|| header("content-length"))
                        .flatten()
                })
                .and_then(|s| s.parse().ok());
            // An LFS file's etag is its sha256.
            let sha256 = linked
                .is_some()
                .then(|| etag.clone())
                .filter(|e| e.len() == 64 && e.bytes().all(|b| b.is_ascii_hexdigit()));
            return Ok(Head::Found(Meta {
                file,
                commit,
                etag,
                sha256,
                size,
                location,
            }));
        }
        Err(self.failed(&url, HubError::Redirects))
    }

    /// The error for a 4xx/5xx answer, by the hub's `X-Error-Code`.
    fn refused(
        &self,
        url: &str,
        status: u16,
        error_code: &str,
        message: Option<String>,
    ) -> DownloadError {
        match (status, error_code) {
            (_, "RepoNotFound") => self.absent(HubMiss::NoSuchModel {
                endpoint: self.settings.endpoint.clone(),
            }),
            (_, "GatedRepo") | (401 | 403, _) => DownloadError::Gated {
                model: self.model.to_owned(),
                page: format!("{}/{}", self.settings.endpoint, self.model),
                token_sent: self.settings.token.is_some(),
            },
            _ => self.failed(url, HubError::Status { status, message }),
        }
    }

    /// `blobs/{etag}`, fetched unless present; one process at a time per blob.
    fn blob(&self, meta: &Meta) -> Result<(), DownloadError> {
        let blobs = self.repo.join("blobs");
        let blob = blobs.join(&meta.etag);
        if blob.is_file() {
            return Ok(());
        }
        let locks = self
            .settings
            .cache
            .join(".locks")
            .join(super::repo_folder(self.model));
        for dir in [&blobs, &locks] {
            fs::create_dir_all(dir).map_err(Self::io(dir, "create"))?;
        }
        let lock_path = locks.join(format!("{}.lock", meta.etag));
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(Self::io(&lock_path, "open"))?;
        // Released when `lock` is dropped, or by the OS if this process dies.
        lock.lock().map_err(Self::io(&lock_path, "lock"))?;
        if blob.is_file() {
            // Another process fetched it while we waited.
            return Ok(());
        }
        let partial = blobs.join(format!("{}.incomplete", meta.etag));
        self.transfer(meta, &partial)?;
        fs::rename(&partial, &blob).map_err(Self::io(&blob, "move into place"))
    }

    /// The file's bytes into `partial`, resuming from its length; checked
    /// against the hub's size and (LFS) sha256.
    fn transfer(&self, meta: &Meta, partial: &Path) -> Result<(), DownloadError> {
        let url = &meta.location;
        let mut out = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(partial)
            .map_err(Self::io(partial, "open"))?;
        let mut have = out.metadata().map_err(Self::io(partial, "read"))?.len();
        if meta.size.is_some_and(|size| have > size) {
            out.set_len(0).map_err(Self::io(partial, "write"))?;
            have = 0;
        }
        let mut hasher = Sha256::new();
        if have > 0 && meta.sha256.is_some() {
            std::io::copy(&mut (&out).take(have), &mut hasher)
                .map_err(Self::io(partial, "read"))?;
        }
        if meta.size != Some(have) {
            let mut request = self.agent.get(url);
            // The token goes to the hub only, never to the host an LFS file redirects to.
            if let Some(token) = &self.settings.token
                && origin(url) == origin(&self.settings.endpoint)
            {
                request = request.header("Authorization", format!("Bearer {token}"));
            }
            if have > 0 {
                request = request.header("Range", format!("bytes={have}-"));
            }
            let response = request.call().map_err(|source| {
                self.failed(
                    url,
                    HubError::Get {
                        have,
                        source: source.into(),
                    },
                )
            })?;
            match response.status().as_u16() {
                206 => {}
                200 => {
                    // The server ignored the range: start over.
                    if have > 0 {
                        out.set_len(0).map_err(Self::io(partial, "write"))?;
                        have = 0;
                        hasher = Sha256::new();
                    }
                }
                status => {
                    return Err(self.failed(
                        url,
                        HubError::Status {
                            status,
                            message: None,
                        },
                    ));
                }
            }
            self.tell(meta, have, false);
            let mut body = response.into_body().into_reader();
            let mut buf = vec![0u8; 1 << 16];
            let mut window = Window::new(have);
            // Every way out of the loop passes the last `tell`.
            let received = loop {
                let n = match body.read(&mut buf) {
                    Ok(0) => break Ok(()),
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => break Err(self.interrupted(meta, partial, have, Stall::Read(e))),
                };
                if let Err(e) = out.write_all(&buf[..n]) {
                    break Err(Self::io(partial, "write")(e));
                }
                hasher.update(&buf[..n]);
                have += n as u64;
                self.tell(meta, have, false);
                if let Some(slow) = window.too_slow(have, self.settings) {
                    break Err(self.interrupted(meta, partial, have, slow));
                }
            };
            self.tell(meta, have, true);
            received?;
            out.flush().map_err(Self::io(partial, "write"))?;
        }
        if let Some(size) = meta.size {
            if have < size {
                return Err(self.interrupted(meta, partial, have, Stall::ClosedEarly));
            }
            if have > size {
                let _ = fs::remove_file(partial);
                return Err(self.failed(
                    url,
                    HubError::TooLong {
                        file: meta.file,
                        have,
                        size,
                    },
                ));
            }
        }
        if let Some(expected) = &meta.sha256 {
            let got = format!("{:x}", hasher.finalize());
            if &got != expected {
                let _ = fs::remove_file(partial);
                return Err(self.failed(
                    url,
                    HubError::Corrupt {
                        file: meta.file,
                        got,
                        expected: expected.clone(),
                    },
                ));
            }
        }
        Ok(())
    }

    fn interrupted(&self, meta: &Meta, partial: &Path, have: u64, why: Stall) -> DownloadError {
        self.failed(
            &meta.location,
            HubError::Interrupted {
                file: meta.file,
                have,
                size: meta.size,
                partial: partial.to_path_buf(),
                source: why,
            },
        )
    }

    /// Tells the front-end how `meta`'s transfer is getting on.
    fn tell(&self, meta: &Meta, have: u64, done: bool) {
        if let Some(progress) = &self.settings.progress {
            progress(&Transfer {
                model: self.model,
                file: meta.file,
                have,
                size: meta.size,
                done,
            });
        }
    }
}

/// The minimum-progress rule of one transfer ([`HubSettings::min_speed`]): bytes
/// counted over consecutive windows of `min_speed_time`.
struct Window {
    start: std::time::Instant,
    at_start: u64,
}

impl Window {
    fn new(have: u64) -> Self {
        Self {
            start: std::time::Instant::now(),
            at_start: have,
        }
    }

    /// Why to give up, once a window has passed with fewer bytes than the rule asks;
    /// else a new window starts.
    fn too_slow(&mut self, have: u64, settings: &HubSettings) -> Option<Stall> {
        let elapsed = self.start.elapsed();
        if settings.min_speed == 0 || elapsed < settings.min_speed_time {
            return None;
        }
        let got = have - self.at_start;
        let needed = settings.min_speed as f64 * elapsed.as_secs_f64();
        if (got as f64) < needed {
            return Some(Stall::TooSlow {
                got,
                secs: elapsed.as_secs_f64(),
                min_speed: settings.min_speed,
                window: settings.min_speed_time.as_secs_f64(),
            });
        }
        *self = Window::new(have);
        None
    }
}

/// Whether a request failed for want of a network (no name, no route, no answer,
/// a broken connection), not for what was asked.
fn is_network_failure(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Io(_)
            | ureq::Error::Timeout(_)
            | ureq::Error::HostNotFound
            | ureq::Error::ConnectionFailed
            | ureq::Error::Tls(_)
            | ureq::Error::Rustls(_)
    )
}

/// `snapshots/{commit}/{file}` → `../../blobs/{etag}`, replaced atomically (a
/// concurrent process links the same name to the same blob).
fn link(snapshot: &Path, file: &str, etag: &str) -> std::io::Result<()> {
    let blob = Path::new("../../blobs").join(etag);
    let tmp = tempfile::Builder::new().make_in(snapshot, |tmp| {
        #[cfg(unix)]
        return std::os::unix::fs::symlink(&blob, tmp);
        // Where symlinks need privileges, a copy, as huggingface_hub falls back to.
        #[cfg(not(unix))]
        return fs::copy(snapshot.join(&blob), tmp).map(drop);
    })?;
    tmp.persist(snapshot.join(file))
        .map(drop)
        .map_err(|e| e.error)
}

/// An etag without quotes or the weak prefix, as huggingface_hub normalises it.
fn normalize_etag(etag: &str) -> String {
    etag.trim()
        .trim_start_matches("W/")
        .trim_matches('"')
        .to_owned()
}

/// A header value usable as a file name in the cache (no separators, no `..`).
fn is_safe_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `scheme://host[:port]` of a URL.
fn origin(url: &str) -> &str {
    let start = url.find("://").map_or(0, |i| i + 3);
    match url[start..].find('/') {
        Some(end) => &url[..start + end],
        None => url,
    }
}

/// A relative redirect target resolved against the URL it came from.
fn join_origin(url: &str, target: &str) -> String {
    if target.starts_with('/') {
        format!("{}{target}", origin(url))
    } else {
        let base = url.rsplit_once('/').map_or(url, |(b, _)| b);
        format!("{base}/{target}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etags_and_urls_are_read_as_huggingface_hub_reads_them() {
        assert_eq!(normalize_etag("W/\"abc-1\""), "abc-1");
        assert_eq!(normalize_etag("\"0f1e\""), "0f1e");
        assert!(is_safe_name("0123abcdef"));
        for bad in ["", "../x", "a/b", "a b", "x.lock"] {
            assert!(!is_safe_name(bad), "{bad}");
        }
        assert_eq!(
            origin("http://127.0.0.1:8080/org/m/resolve/main/x"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(origin("https://huggingface.co"), "https://huggingface.co");
        assert_eq!(
            join_origin(
                "https://hf.co/bert/resolve/main/config.json",
                "/google/bert/resolve/main/config.json"
            ),
            "https://hf.co/google/bert/resolve/main/config.json"
        );
        assert_eq!(
            join_origin("https://hf.co/a/resolve/main/config.json", "other.json"),
            "https://hf.co/a/resolve/main/other.json"
        );
    }
}
