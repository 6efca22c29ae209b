//! Writing a result so that nothing half-written is ever taken for a whole one: the bytes go
//! to a hidden temporary file beside the target, which is renamed into place.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` under a temporary name, then renames it into place; on failure
/// the temporary file is removed and `path` is left as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temporary = temporary(path);
    let written =
        std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// `.NAME.PID-N.tmp` beside `path`: hidden, and unique to this process and this call (two
/// threads writing one path do not share a temporary file).
fn temporary(path: &Path) -> PathBuf {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let name = path
        .file_name()
        .map_or_else(|| "lmbias".into(), |n| n.to_string_lossy().into_owned());
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{call}.tmp", std::process::id()))
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
        assert_ne!(temporary(&path), temporary(&path), "unique per call");
        // A folder where the file should go: the rename fails, no temporary is left.
        let blocked = dir.join("sub");
        std::fs::create_dir_all(blocked.join("x")).unwrap();
        assert!(write_atomically(&blocked, b"three").is_err());
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
