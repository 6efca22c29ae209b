//! Whether lmbias may fetch anything at all: `--offline` (a front-end's switch) or
//! `LMBIAS_OFFLINE` forbids every fetch, from the Hugging Face hub and from PyPI alike, and a
//! folder that is not there yet is then an error saying what would have been fetched.

use std::sync::atomic::{AtomicBool, Ordering};

static OFFLINE: AtomicBool = AtomicBool::new(false);

/// Forbids every fetch for the rest of the process (a front-end's `--offline`).
pub fn set_offline() {
    OFFLINE.store(true, Ordering::Relaxed);
}

/// What forbids fetching, for a message (`--offline`, `LMBIAS_OFFLINE`); `None` when nothing
/// does.
pub fn offline() -> Option<&'static str> {
    if OFFLINE.load(Ordering::Relaxed) {
        Some("--offline")
    } else if env_true("LMBIAS_OFFLINE") {
        Some("LMBIAS_OFFLINE")
    } else {
        None
    }
}

/// Whether the variable `name` is set to 1, on, yes or true (any case), as huggingface_hub
/// reads its switches.
pub(crate) fn env_true(name: &str) -> bool {
    std::env::var(name)
        .is_ok_and(|v| ["1", "ON", "YES", "TRUE"].contains(&v.trim().to_uppercase().as_str()))
}
