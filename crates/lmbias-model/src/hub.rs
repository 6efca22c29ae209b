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
//! huggingface_hub locks too). Only the files lmbias reads are fetched. A transfer
//! slower than [`HubSettings::min_speed`] over [`HubSettings::min_speed_time`] is
//! abandoned as an interrupted one is: with a message naming the file and its
//! progress, its bytes kept to resume from.
//!
//! Offline machines pay once: a hub that cannot be reached is remembered for the
//! rest of the process, and every model after the first is refused at once.
//!
//! Why this is ours and not Hugging Face's `hf-hub` crate: docs/architecture.md, "Where
//! models come from". Public: [`HubSettings`], [`HubMiss`] and [`HubError`]; the rest is
//! reached through [`crate::Checkpoint::resolve_with`] (and the `testing` feature).

use std::fs::{self, OpenOptions};
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lmbias_text::TOKENIZER_FILES;
use sha2::{Digest, Sha256};

use crate::error::ModelError;

/// The public hub, used when `$HF_ENDPOINT` is not set.
const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// Weight files in order of preference; the first the model has is fetched.
const WEIGHT_FILES: [&str; 2] = ["model.safetensors", "pytorch_model.bin"];
/// Tokenizer settings, fetched when the model has them.
const OPTIONAL_FILES: [&str; 2] = ["tokenizer_config.json", "special_tokens_map.json"];

/// Where and how to download: built from the environment in one place
/// ([`HubSettings::from_env`]), or by hand (tests, embedding applications).
#[derive(Clone)]
pub struct HubSettings {
    /// The hub's address, without a trailing `/` (`$HF_ENDPOINT`).
    pub endpoint: String,
    /// The hub cache folder ([`lmbias_fetch::hf_cache_dir`]).
    pub cache: PathBuf,
    /// An access token for gated and private models, sent as `Authorization: Bearer`.
    pub token: Option<String>,
    /// No network at all (`$HF_HUB_OFFLINE`): a model not in the cache is not found.
    pub offline: bool,
    /// The limit on resolving the hub's name and connecting to it.
    pub connect_timeout: Duration,
    /// The limit on waiting for an answer, or for the next bytes of a file
    /// (`$HF_HUB_DOWNLOAD_TIMEOUT`, 10 s by default as in huggingface_hub).
    pub read_timeout: Duration,
    /// The least progress a file download must make: under `min_speed` bytes per
    /// second over `min_speed_time` it is abandoned (resumable), as curl's
    /// `--speed-limit`/`--speed-time` (`$LMBIAS_HUB_MIN_SPEED`, 1024 B/s by default; 0
    /// turns the rule off). A server that trickles a byte per read passes the per-read
    /// timeout forever.
    pub min_speed: u64,
    /// The window `min_speed` is measured over (`$LMBIAS_HUB_MIN_SPEED_TIME`, 30 s by default).
    pub min_speed_time: Duration,
    /// A progress bar per file on standard error.
    pub progress: bool,
}

impl std::fmt::Debug for HubSettings {
    // Never print the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HubSettings")
            .field("endpoint", &self.endpoint)
            .field("cache", &self.cache)
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("offline", &self.offline)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("min_speed", &self.min_speed)
            .field("min_speed_time", &self.min_speed_time)
            .field("progress", &self.progress)
            .finish()
    }
}

impl HubSettings {
    /// `endpoint` and `cache` with no token, online, the default timeouts and no progress bar.
    pub fn new(endpoint: impl Into<String>, cache: impl Into<PathBuf>) -> Self {
        Self {
            endpoint: endpoint.into().trim_end_matches('/').to_owned(),
            cache: cache.into(),
            token: None,
            offline: false,
            connect_timeout: Duration::from_secs(5),
            read_timeout: Duration::from_secs(10),
            min_speed: 1024,
            min_speed_time: Duration::from_secs(30),
            progress: false,
        }
    }

    /// The settings huggingface_hub would use: `$HF_ENDPOINT`, the cache of
    /// [`lmbias_fetch::hf_cache_dir`], `$HF_TOKEN` (else the token file `huggingface-cli login`
    /// writes, `$HF_TOKEN_PATH` or `$HF_HOME/token`), `$HF_HUB_OFFLINE` (or
    /// `$TRANSFORMERS_OFFLINE`), `$HF_HUB_DOWNLOAD_TIMEOUT`, lmbias's own
    /// `$LMBIAS_HUB_MIN_SPEED` and `$LMBIAS_HUB_MIN_SPEED_TIME`, and progress bars when
    /// standard error is a terminal (unless `$HF_HUB_DISABLE_PROGRESS_BARS`).
    pub fn from_env() -> Self {
        let mut settings = Self::new(
            env("HF_ENDPOINT").unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned()),
            lmbias_fetch::hf_cache_dir(),
        );
        settings.token = env("HF_TOKEN")
            .or_else(|| env("HUGGING_FACE_HUB_TOKEN"))
            .or_else(|| {
                let path = env("HF_TOKEN_PATH")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| lmbias_fetch::hf_home().join("token"));
                let token = fs::read_to_string(path).ok()?.trim().to_owned();
                (!token.is_empty()).then_some(token)
            });
        settings.offline = env_true("HF_HUB_OFFLINE") || env_true("TRANSFORMERS_OFFLINE");
        if let Some(secs) = env("HF_HUB_DOWNLOAD_TIMEOUT").and_then(|s| s.parse::<f64>().ok())
            && secs.is_finite()
            && secs > 0.0
        {
            settings.read_timeout = Duration::from_secs_f64(secs);
        }
        if let Some(speed) = env("LMBIAS_HUB_MIN_SPEED").and_then(|s| s.parse::<u64>().ok()) {
            settings.min_speed = speed;
        }
        if let Some(secs) = env("LMBIAS_HUB_MIN_SPEED_TIME").and_then(|s| s.parse::<f64>().ok())
            && secs.is_finite()
            && secs > 0.0
        {
            settings.min_speed_time = Duration::from_secs_f64(secs);
        }
        settings.progress =
            std::io::stderr().is_terminal() && !env_true("HF_HUB_DISABLE_PROGRESS_BARS");
        settings
    }
}

/// A set, non-empty environment variable.
fn env(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// A boolean environment variable as huggingface_hub reads one (1, ON, YES, TRUE).
fn env_true(name: &str) -> bool {
    env(name).is_some_and(|v| ["1", "ON", "YES", "TRUE"].contains(&v.to_uppercase().as_str()))
}

/// `models--ORG--NAME`, the folder of hub id `model` in the cache.
fn repo_folder(model: &str) -> String {
    format!("models--{}", model.replace('/', "--"))
}

/// The snapshot of hub id `model` in `cache`: the one `refs/main` names, else the
/// most recently modified one; `None` when the cache has none.
pub(crate) fn cached_snapshot(cache: &Path, model: &str) -> Option<PathBuf> {
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

/// Whether a snapshot holds a config and weights (a download links config.json
/// last), so a half-fetched one is completed rather than loaded.
pub(crate) fn is_complete(snapshot: &Path) -> bool {
    snapshot.join("config.json").is_file()
        && WEIGHT_FILES.iter().any(|w| snapshot.join(w).is_file())
}

/// Whether `model` is a valid hub id (`name` or `org/name`, by the hub's rules:
/// letters, digits, `-`, `_`, `.`, no `--` or `..`, neither `-` nor `.` at either
/// end, at most 96 characters), so that a path such as `./models/x` or a typo with
/// a space is never sent to the hub.
pub(crate) fn is_hub_id(model: &str) -> bool {
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

/// Why the hub did not give a model that is not on this machine: the tail of
/// [`ModelError::NotFound`]'s message, typed so that a report can state a cause
/// shared by many models once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubMiss {
    /// The name is not a hub id (a path that does not exist), so the hub was not asked.
    NotAHubId,
    /// `HF_HUB_OFFLINE` is set, so the hub was not asked.
    Offline,
    /// The hub could not be reached: by this request (`asked`), or by an earlier one
    /// in this process, so it was not asked again.
    Unreachable {
        /// The hub's address.
        endpoint: String,
        /// The network error.
        why: String,
        /// Whether this request was the one that failed.
        asked: bool,
    },
    /// The hub has the repository but no config.json in it.
    NoConfig {
        /// The hub's address.
        endpoint: String,
    },
    /// The hub has no such repository (or a private one without a token).
    NoSuchModel {
        /// The hub's address.
        endpoint: String,
    },
}

/// The clause [`ModelError::NotFound`] appends to "… nor in the Hugging Face cache".
impl std::fmt::Display for HubMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HubMiss::NotAHubId => Ok(()),
            HubMiss::Offline => {
                f.write_str(", and HF_HUB_OFFLINE is set, so the hub was not asked")
            }
            HubMiss::Unreachable {
                endpoint,
                why,
                asked: true,
            } => write!(
                f,
                ", and the hub at {endpoint} could not be reached ({why}; set HF_HUB_OFFLINE=1 not to try)"
            ),
            HubMiss::Unreachable { endpoint, why, .. } => write!(
                f,
                ", and the hub at {endpoint} could not be reached earlier in this run ({why}), so it was not asked again"
            ),
            HubMiss::NoConfig { endpoint } => {
                write!(f, ", and the hub at {endpoint} has no config.json for it")
            }
            HubMiss::NoSuchModel { endpoint } => write!(
                f,
                ", and the hub at {endpoint} has no such model (if it is private, set HF_TOKEN to a token with access)"
            ),
        }
    }
}

/// Why a download from the hub failed, the cause of [`ModelError::Hub`] (which names the
/// model and the URL).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// Something answered, but not in HTTP: reached, and not a hub.
    #[error("the answer is not HTTP: is {endpoint} a Hugging Face hub (HF_ENDPOINT)?")]
    NotHttp {
        /// The hub's address.
        endpoint: String,
        /// ureq's reason.
        #[source]
        source: ureq::Error,
    },
    /// A request failed for another reason than a missing network.
    #[error("the request failed")]
    Request(#[source] ureq::Error),
    /// The request for a file's bytes failed; the bytes already kept stay.
    #[error("the request failed; run again to resume from byte {have}")]
    Get {
        /// Bytes already in the `.incomplete` file.
        have: u64,
        /// ureq's reason.
        #[source]
        source: ureq::Error,
    },
    /// An HTTP error status the hub did not explain otherwise.
    #[error("HTTP {status}{}", message.as_ref().map(|m| format!(": {m}")).unwrap_or_default())]
    Status {
        /// The status code.
        status: u16,
        /// The hub's `X-Error-Message`, if any.
        message: Option<String>,
    },
    /// A redirect without a target.
    #[error("HTTP {status} without a Location")]
    NoLocation {
        /// The status code.
        status: u16,
    },
    /// More redirects within the hub than a renamed repository needs.
    #[error("too many redirects")]
    Redirects,
    /// An answer without a header every hub sends.
    #[error("the answer has no {header} header: is {endpoint} a Hugging Face hub (HF_ENDPOINT)?")]
    NotAHub {
        /// The header, as the hub spells it.
        header: &'static str,
        /// The hub's address.
        endpoint: String,
    },
    /// The model has none of the files lmbias can read for a part (weights, tokenizer).
    #[error("the model has none of {}", files.join(", "))]
    NoneOf {
        /// The files asked for, in order of preference.
        files: &'static [&'static str],
    },
    /// A transfer stopped before its end; its bytes are kept to resume from.
    #[error(
        "{file} interrupted after {have}{} bytes; run again to resume from {}",
        size.map(|s| format!(" of {s}")).unwrap_or_default(),
        partial.display()
    )]
    Interrupted {
        /// The file in the repository.
        file: &'static str,
        /// Bytes received so far.
        have: u64,
        /// The file's size, when the hub said it.
        size: Option<u64>,
        /// The `.incomplete` file holding them.
        partial: PathBuf,
        /// Why it stopped.
        #[source]
        source: Stall,
    },
    /// More bytes than the hub said the file has.
    #[error("{file} has {have} bytes, the hub said {size}; the download was removed")]
    TooLong {
        /// The file in the repository.
        file: &'static str,
        /// Bytes received.
        have: u64,
        /// The size the hub said.
        size: u64,
    },
    /// The bytes are not the ones the hub's etag names.
    #[error(
        "{file} is corrupt: its sha256 is {got}, the hub's etag says {expected}; \
         the download was removed, run again"
    )]
    Corrupt {
        /// The file in the repository.
        file: &'static str,
        /// The sha256 of the bytes received.
        got: String,
        /// The sha256 the hub's etag names.
        expected: String,
    },
}

/// Why a transfer stopped before its end ([`HubError::Interrupted`]).
#[derive(Debug, thiserror::Error)]
pub enum Stall {
    /// Reading the answer failed.
    #[error("reading the answer failed")]
    Read(#[source] io::Error),
    /// The server closed the connection before the file's end.
    #[error("the connection closed early")]
    ClosedEarly,
    /// Fewer bytes than [`HubSettings::min_speed`] asks over [`HubSettings::min_speed_time`].
    #[error(
        "{got} bytes in the last {secs:.1} s, under the minimum of {min_speed} bytes/s over {window} s \
         (LMBIAS_HUB_MIN_SPEED, LMBIAS_HUB_MIN_SPEED_TIME)"
    )]
    TooSlow {
        /// Bytes received in the window.
        got: u64,
        /// The window's length.
        secs: f64,
        /// The rule's bytes per second.
        min_speed: u64,
        /// The rule's window, in seconds.
        window: f64,
    },
}

/// Downloads hub id `model` (its `main` revision) into `settings.cache` and returns
/// the snapshot folder. A model the hub cannot give (offline, unreachable, no such
/// model) is [`ModelError::NotFound`] saying why; a gated model without access is
/// [`ModelError::Gated`]; a failed or corrupt transfer is [`ModelError::Hub`].
pub(crate) fn download(model: &str, settings: &HubSettings) -> Result<PathBuf, ModelError> {
    let absent = |why: HubMiss| ModelError::NotFound {
        name: model.to_owned(),
        cache: settings.cache.clone(),
        download: why,
    };
    if !is_hub_id(model) {
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
    Fetch::new(model, settings).run()
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
    settings: &'a HubSettings,
    agent: ureq::Agent,
    repo: PathBuf,
}

/// Unique temporary names for threads of one process (the pid tells processes apart).
static TEMP: AtomicU64 = AtomicU64::new(0);

fn temp_name(base: &str) -> String {
    let n = TEMP.fetch_add(1, Ordering::Relaxed);
    format!(".{base}.{}-{n}.tmp", std::process::id())
}

impl<'a> Fetch<'a> {
    fn new(model: &'a str, settings: &'a HubSettings) -> Self {
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
            settings,
            agent,
            repo: settings.cache.join(repo_folder(model)),
        }
    }

    fn absent(&self, why: HubMiss) -> ModelError {
        ModelError::NotFound {
            name: self.model.to_owned(),
            cache: self.settings.cache.clone(),
            download: why,
        }
    }

    fn failed(&self, url: &str, source: HubError) -> ModelError {
        ModelError::Hub {
            name: self.model.to_owned(),
            url: url.to_owned(),
            source: Box::new(source),
        }
    }

    /// A cache file or folder that could not be `doing`.
    fn io(path: &Path, doing: &'static str) -> impl FnOnce(io::Error) -> ModelError {
        let path = path.to_path_buf();
        move |source| ModelError::Io {
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

    fn run(&self) -> Result<PathBuf, ModelError> {
        let config = match self.head("main", "config.json")? {
            Head::Found(meta) => meta,
            Head::NoSuchFile => {
                return Err(self.absent(HubMiss::NoConfig {
                    endpoint: self.settings.endpoint.clone(),
                }));
            }
        };
        // Every other file at the commit config.json came from, so a push during
        // the download cannot mix two revisions in one snapshot.
        let commit = config.commit.clone();
        let weights = self.first_of(&commit, &WEIGHT_FILES)?;
        let tokenizer = self.first_of(&commit, &TOKENIZER_FILES)?;
        let mut files = vec![tokenizer, weights];
        for file in OPTIONAL_FILES {
            if let Head::Found(meta) = self.head(&commit, file)? {
                files.push(meta);
            }
        }
        // config.json last: its link marks the snapshot complete.
        files.push(config);
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
        let tmp = refs.join(temp_name("main"));
        fs::write(&tmp, &commit)
            .and_then(|()| fs::rename(&tmp, refs.join("main")))
            .map_err(Self::io(&refs.join("main"), "write"))?;
        Ok(snapshot)
    }

    /// The first of `files` the model has; an error naming them all when it has none.
    fn first_of(&self, revision: &str, files: &'static [&'static str]) -> Result<Meta, ModelError> {
        for file in files {
            if let Head::Found(meta) = self.head(revision, file)? {
                return Ok(meta);
            }
        }
        Err(self.failed(&self.url(revision, files[0]), HubError::NoneOf { files }))
    }

    /// `HEAD` one file, following only redirects within the hub (a renamed repository).
    fn head(&self, revision: &str, file: &'static str) -> Result<Head, ModelError> {
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
                            source,
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
                Err(e) => return Err(self.failed(&url, HubError::Request(e))),
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
    ) -> ModelError {
        match (status, error_code) {
            (_, "RepoNotFound") => self.absent(HubMiss::NoSuchModel {
                endpoint: self.settings.endpoint.clone(),
            }),
            (_, "GatedRepo") | (401 | 403, _) => ModelError::Gated {
                name: self.model.to_owned(),
                page: format!("{}/{}", self.settings.endpoint, self.model),
                token_sent: self.settings.token.is_some(),
            },
            _ => self.failed(url, HubError::Status { status, message }),
        }
    }

    /// `blobs/{etag}`, fetched unless present; one process at a time per blob.
    fn blob(&self, meta: &Meta) -> Result<(), ModelError> {
        let blobs = self.repo.join("blobs");
        let blob = blobs.join(&meta.etag);
        if blob.is_file() {
            return Ok(());
        }
        let locks = self
            .settings
            .cache
            .join(".locks")
            .join(repo_folder(self.model));
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
    fn transfer(&self, meta: &Meta, partial: &Path) -> Result<(), ModelError> {
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
            let response = request
                .call()
                .map_err(|source| self.failed(url, HubError::Get { have, source }))?;
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
            let bar = self.progress_bar(meta, have);
            let mut body = response.into_body().into_reader();
            let mut buf = vec![0u8; 1 << 16];
            let mut window = Progress::new(have);
            loop {
                let n = match body.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(self.interrupted(meta, partial, have, Stall::Read(e))),
                };
                out.write_all(&buf[..n])
                    .map_err(Self::io(partial, "write"))?;
                hasher.update(&buf[..n]);
                have += n as u64;
                if let Some(bar) = &bar {
                    bar.set_position(have);
                }
                if let Some(slow) = window.too_slow(have, self.settings) {
                    return Err(self.interrupted(meta, partial, have, slow));
                }
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
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
            let got: String = hasher
                .finalize()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
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

    fn interrupted(&self, meta: &Meta, partial: &Path, have: u64, why: Stall) -> ModelError {
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

    fn progress_bar(&self, meta: &Meta, have: u64) -> Option<indicatif::ProgressBar> {
        if !self.settings.progress {
            return None;
        }
        let bar = indicatif::ProgressBar::new(meta.size.unwrap_or(0));
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} {eta}",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(format!("{}/{}", self.model, meta.file));
        bar.set_position(have);
        Some(bar)
    }
}

/// The minimum-progress rule of one transfer ([`HubSettings::min_speed`]): bytes
/// counted over consecutive windows of `min_speed_time`.
struct Progress {
    start: std::time::Instant,
    at_start: u64,
}

impl Progress {
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
        *self = Progress::new(have);
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
    let tmp = snapshot.join(temp_name(file));
    let _ = fs::remove_file(&tmp);
    #[cfg(unix)]
    std::os::unix::fs::symlink(Path::new("../../blobs").join(etag), &tmp)?;
    // Where symlinks need privileges, a copy, as huggingface_hub falls back to.
    #[cfg(not(unix))]
    fs::copy(snapshot.join("../../blobs").join(etag), &tmp)?;
    fs::rename(&tmp, snapshot.join(file))
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
        // A config without weights is not a complete snapshot.
        assert!(!is_complete(&repo.join("snapshots/bbb")));
        write(&repo.join("snapshots/bbb/model.safetensors"), "");
        assert!(is_complete(&repo.join("snapshots/bbb")));
        fs::remove_dir_all(&cache).unwrap();
    }

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
