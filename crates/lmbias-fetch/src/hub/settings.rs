//! Where and how the hub is asked: one set of settings, read from the environment the
//! way huggingface_hub reads it.

use crate::offline::env_true;
use std::fs;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The public hub, used when `$HF_ENDPOINT` is not set.
const DEFAULT_ENDPOINT: &str = "https://huggingface.co";

/// How far one file's transfer has got, as [`HubSettings::progress`] is told it.
#[derive(Debug, Clone, Copy)]
pub struct Transfer<'a> {
    /// The hub id.
    pub model: &'a str,
    /// The file in the repository.
    pub file: &'a str,
    /// Bytes on disk so far (a resumed transfer starts above 0).
    pub have: u64,
    /// The file's size, when the hub said it.
    pub size: Option<u64>,
    /// Whether the transfer has ended, completed or not: the last call for this file.
    pub done: bool,
}

/// A front-end's progress callback, shared by the threads of one download.
pub type OnTransfer = Arc<dyn Fn(&Transfer<'_>) + Send + Sync>;

/// Where and how to download: built from the environment in one place
/// ([`HubSettings::from_env`]), or by hand (tests, embedding applications).
#[derive(Clone)]
pub struct HubSettings {
    /// The hub's address, without a trailing `/` (`$HF_ENDPOINT`).
    pub endpoint: String,
    /// The hub cache folder ([`crate::hf_cache_dir`]).
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
    /// Told how each file's transfer is getting on: the front-end draws it (the library
    /// never writes to a terminal). `None` tells nobody.
    pub progress: Option<OnTransfer>,
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
            .field("progress", &self.progress.as_ref().map(|_| "<callback>"))
            .finish()
    }
}

impl HubSettings {
    /// `endpoint` and `cache` with no token, online, the default timeouts and nobody told of progress.
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
            progress: None,
        }
    }

    /// The settings huggingface_hub would use: `$HF_ENDPOINT`, the cache of
    /// [`crate::hf_cache_dir`], `$HF_TOKEN` (else the token file `huggingface-cli login`
    /// writes, `$HF_TOKEN_PATH` or `$HF_HOME/token`), `$HF_HUB_OFFLINE` (or
    /// `$TRANSFORMERS_OFFLINE`), `$HF_HUB_DOWNLOAD_TIMEOUT`, lmbias's own
    /// `$LMBIAS_HUB_MIN_SPEED` and `$LMBIAS_HUB_MIN_SPEED_TIME`. Progress is the front-end's to
    /// ask for ([`HubSettings::progress`]; [`progress_bars_disabled`] is huggingface_hub's switch).
    pub fn from_env() -> Self {
        let mut settings = Self::new(
            env("HF_ENDPOINT").unwrap_or_else(|| DEFAULT_ENDPOINT.to_owned()),
            crate::hf_cache_dir(),
        );
        settings.token = env("HF_TOKEN")
            .or_else(|| env("HUGGING_FACE_HUB_TOKEN"))
            .or_else(|| {
                let path = env("HF_TOKEN_PATH")
                    .map(PathBuf::from)
                    .unwrap_or_else(|| crate::hf_home().join("token"));
                let token = fs::read_to_string(path).ok()?.trim().to_owned();
                (!token.is_empty()).then_some(token)
            });
        settings.offline = env_true("HF_HUB_OFFLINE")
            || env_true("TRANSFORMERS_OFFLINE")
            || crate::offline().is_some();
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

/// Whether `$HF_HUB_DISABLE_PROGRESS_BARS` asks for no progress bars, as huggingface_hub reads it.
pub fn progress_bars_disabled() -> bool {
    env_true("HF_HUB_DISABLE_PROGRESS_BARS")
}
