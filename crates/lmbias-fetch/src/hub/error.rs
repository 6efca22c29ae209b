//! Why a download gave no snapshot. Every message is one line; a typed cause is the
//! error's `source()`, never repeated in its message.

use std::io;
use std::path::PathBuf;

/// The HTTP client's own error, kept as the cause (its type is the client's, which only the
/// `download` feature compiles in).
pub type Transport = Box<dyn std::error::Error + Send + Sync>;

/// Why [`crate::hub::download`] gave no snapshot.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    /// The hub was not asked, could not be reached, or has no such model: nothing of it was
    /// fetched. A caller that also looked elsewhere says so around [`HubMiss`]'s clause.
    #[error("model {model:?} could not be downloaded into {}{miss}", cache.display())]
    Absent {
        /// The hub id.
        model: String,
        /// The Hugging Face cache it was to go into.
        cache: PathBuf,
        /// Why not.
        miss: HubMiss,
    },
    /// The hub refused a gated or private model: no token, or one without access.
    #[error(
        "model {model:?} is gated or private{}: accept its licence on {page} with your account, then \
         set HF_TOKEN to an access token of that account (huggingface.co/settings/tokens)",
        if *token_sent { " and HF_TOKEN has no access to it" } else { " and HF_TOKEN is not set" }
    )]
    Gated {
        /// The hub id.
        model: String,
        /// The model's page on the hub.
        page: String,
        /// Whether a token was sent (and refused).
        token_sent: bool,
    },
    /// A file could not be fetched: an HTTP error, a transfer cut short (run again to
    /// resume), or bytes whose sha256 is not the hub's.
    #[error("model {model:?}: downloading {url} failed")]
    Failed {
        /// The hub id.
        model: String,
        /// The file that could not be fetched.
        url: String,
        /// Why (HTTP status, network error, checksum).
        #[source]
        source: Box<HubError>,
    },
    /// A file or folder of the cache could not be read or written.
    #[error("{}: cannot {doing}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What was being done to it ("create", "write", …).
        doing: &'static str,
        /// The operating system's reason.
        #[source]
        source: io::Error,
    },
}

/// Why the hub did not give a model that is not on this machine: the tail of a "not found"
/// message (a clause starting ", and …"), typed so that a report can state a cause shared by
/// many models once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HubMiss {
    /// The name is not a hub id (a path that does not exist), so the hub was not asked.
    NotAHubId,
    /// Fetching is off (`HF_HUB_OFFLINE`, `LMBIAS_OFFLINE`, `--offline`), so the hub was not
    /// asked.
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
    /// This build has no hub client (lmbias-fetch's `download` feature), so the hub was not asked.
    NoClient,
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

/// The clause a "not found" message appends to "… nor in the Hugging Face cache".
impl std::fmt::Display for HubMiss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HubMiss::NotAHubId => Ok(()),
            HubMiss::Offline => f.write_str(
                ", and fetching is off (HF_HUB_OFFLINE, TRANSFORMERS_OFFLINE, LMBIAS_OFFLINE \
                     or --offline), so the hub was not asked",
            ),
            HubMiss::NoClient => f.write_str(
                ", and this build has no hub client (lmbias-fetch's `download` feature, which \
                 lmbias-runs turns on), so the hub was not asked",
            ),
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

/// Why a download from the hub failed, the cause of [`DownloadError::Failed`] (which names
/// the model and the URL).
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// Something answered, but not in HTTP: reached, and not a hub.
    #[error("the answer is not HTTP: is {endpoint} a Hugging Face hub (HF_ENDPOINT)?")]
    NotHttp {
        /// The hub's address.
        endpoint: String,
        /// The HTTP client's reason.
        #[source]
        source: Transport,
    },
    /// A request failed for another reason than a missing network.
    #[error("the request failed")]
    Request(#[source] Transport),
    /// The request for a file's bytes failed; the bytes already kept stay.
    #[error("the request failed; run again to resume from byte {have}")]
    Get {
        /// Bytes already in the `.incomplete` file.
        have: u64,
        /// The HTTP client's reason.
        #[source]
        source: Transport,
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
