//! Writing a result so that nothing half-written is ever taken for a whole one: the bytes go
//! to a hidden temporary file beside the target, which is renamed into place.

use std::path::Path;

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
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "lmbias".into(), |n| n.to_string_lossy().into_owned());
    let temporary = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .make_in(dir, |temporary| {
            // `create_new`: a name already taken is tried again under another.
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(temporary)?;
            // tempfile owns the name only once this returns Ok: a write that fails (a full
            // disk) removes its own file, or it stays behind (issue #47).
            std::io::Write::write_all(&mut file, bytes).inspect_err(|_| {
                let _ = std::fs::remove_file(temporary);
            })
        })?;
    temporary.persist(path).map(drop).map_err(|e| e.error)
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
