//! Writing a result so that nothing half-written is ever taken for a whole one: the bytes go
//! to a hidden temporary file beside the target, which is renamed into place; and, before
//! any work, checking that an output can be written without destroying anything (the CLI's
//! and Python's outputs alike).

use std::path::Path;

use crate::RunError;

/// Creates `dir` (for `flag`, e.g. `--figures`) and checks that a file can be made in it.
pub fn check_dir(flag: &str, dir: &Path) -> Result<(), RunError> {
    if let Ok(meta) = std::fs::metadata(dir)
        && !meta.is_dir()
    {
        return Err(RunError::Output {
            flag: flag.to_owned(),
            path: dir.to_path_buf(),
            problem: "not a folder: the files go into a folder of this name".to_owned(),
        });
    }
    probe(dir).map_err(|source| RunError::OutputPlace {
        flag: flag.to_owned(),
        path: dir.to_path_buf(),
        source,
    })
}

/// Creates `dir`, then a file in it, and removes the file.
fn probe(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let file = dir.join(format!(".lmbias-probe.{}.tmp", std::process::id()));
    std::fs::File::create(&file)?;
    std::fs::remove_file(&file)
}

/// Checks that `file` (for `flag`, e.g. `--save`) can be written without destroying
/// anything: its folder is created and writable; the path is new or a regular file (a
/// folder, a device, a FIFO or a socket would be replaced by the rename, and a link to
/// nothing or a loop of links names no file); and it is none of `inputs` (each named by its
/// flag), nor a file directly inside an input folder, compared by device and inode.
pub fn check_output(flag: &str, file: &Path, inputs: &[(&str, &Path)]) -> Result<(), RunError> {
    let refuse = |problem: String| RunError::Output {
        flag: flag.to_owned(),
        path: file.to_path_buf(),
        problem,
    };
    if let Ok(entry) = std::fs::symlink_metadata(file) {
        let target = match std::fs::metadata(file) {
            Ok(target) => target,
            Err(_) if entry.file_type().is_symlink() => {
                return Err(refuse(
                    "a link to no file (missing, or a loop of links)".to_owned(),
                ));
            }
            Err(source) => {
                return Err(RunError::OutputPlace {
                    flag: flag.to_owned(),
                    path: file.to_path_buf(),
                    source,
                });
            }
        };
        if !target.is_file() {
            return Err(refuse(
                lmbias_data::read::not_regular(
                    &target,
                    "lmbias writes only a new name or a regular file",
                )
                .to_string(),
            ));
        }
        for (input_flag, input) in inputs {
            if same_file(&target, input) {
                return Err(refuse(format!(
                    "the same file as {input_flag} {}: writing it would destroy that input",
                    input.display()
                )));
            }
            let inside = file.parent().filter(|p| !p.as_os_str().is_empty());
            if input.is_dir()
                && let Ok(dir) = std::fs::metadata(inside.unwrap_or(Path::new(".")))
                && same_file(&dir, input)
            {
                return Err(refuse(format!(
                    "a file of the input folder {input_flag} {}: writing it would change that \
                     input",
                    input.display()
                )));
            }
        }
    }
    let parent = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    probe(parent).map_err(|source| RunError::OutputPlace {
        flag: flag.to_owned(),
        path: file.to_path_buf(),
        source,
    })
}

/// Whether `other` names the file `meta` describes (same device and inode).
fn same_file(meta: &std::fs::Metadata, other: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(other).is_ok_and(|o| o.dev() == meta.dev() && o.ino() == meta.ino())
}

/// Writes `bytes` to `path` under a hidden temporary name beside it (`.NAME.XXXXXX.tmp`,
/// unique, made by `tempfile`), then renames it into place; on failure the temporary file is
/// removed, `path` is left as it was, and the error names `path` ("PATH: cannot write", the
/// system's reason as its source). The file is created as `std::fs::write` creates one, so it
/// has the permissions the umask gives, not a temporary file's owner-only ones. Every result
/// lmbias writes goes through here (the CLI's, xtask's, shards).
pub fn write_atomically(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), crate::RunError> {
    written(path, bytes.as_ref()).map_err(|source| crate::RunError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn written(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // Dropped on an error (a full disk), the temporary file is removed (issue #47).
    let mut temporary = temporary_beside(path)?;
    std::io::Write::write_all(temporary.as_file_mut(), bytes)?;
    temporary.persist(path).map(drop).map_err(|e| e.error)
}

/// A new, empty file under a hidden temporary name beside `path` (`.NAME.XXXXXX.tmp`), with
/// the permissions the umask gives (not a temporary file's owner-only ones), for a result
/// written in pieces and renamed to `path` when whole (`persist`); dropped, it is removed.
pub fn temporary_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "lmbias".into(), |n| n.to_string_lossy().into_owned());
    tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        // `create_new`: a name already taken is tried again under another.
        .make_in(dir, |temporary| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(temporary)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_appears_whole_and_a_failed_write_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("lmbias-runs-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("r.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        // A folder where the file should go: the rename fails, no temporary is left.
        let blocked = dir.join("sub");
        std::fs::create_dir_all(blocked.join("x")).unwrap();
        let err = write_atomically(&blocked, b"three").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: cannot write", blocked.display())
        );
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
