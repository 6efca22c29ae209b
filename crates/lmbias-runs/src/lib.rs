//! The application layer of lmbias: what the CLI, the Python package and xtask share, so
//! that each of them only parses, calls this and prints (as ripgrep's `rg` builds
//! arguments and calls the `grep` facade).
//!
//! - [`open`] decides once whether a name is static word vectors or a checkpoint and
//!   keeps what it loads ([`Model`]);
//! - every study runs as `STUDY::run(model, inputs, &settings, &ctx)` — [`seat::run`],
//!   [`valence::run`], [`probe::run`], [`crows::run`], and [`weat::run`] with a file of
//!   vectors for its model: the inputs kept with their files ([`inputs`] holds those that
//!   several studies read), settings whose defaults come from the model (pooling, lost
//!   examples, word vectors or templates), a [`Ctx`] that stops and follows the run; it
//!   returns one serializable result that JSON, CBOR and Python all use, with its
//!   [`Provenance`], whose options are the settings as applied;
//! - [`draw`] draws valence sentences and period minimal pairs from parallel corpora;
//! - [`shards`] saves a slice of a run and merges N slices into the whole.
//!
//! ```no_run
//! use lmbias_runs::{Ctx, DeviceKind, inputs::Tests, open, seat};
//!
//! let model = open("bert-base-uncased", DeviceKind::Cpu)?;
//! let tests = Tests::load(&["datasets/seat/en".into()])?;
//! let run = seat::run(&model, &tests, &seat::SeatSettings::default(), &Ctx::none())?;
//! println!("{} rows, model revision: {}", run.rows.len(), run.provenance.model.origin);
//! # Ok::<(), lmbias_runs::RunError>(())
//! ```
//!
//! The library crates a front-end needs for types and plain calls are re-exported, so a
//! front-end depends on this crate and lmbias-report only.

pub mod crows;
mod ctx;
pub mod draw;
mod error;
pub mod fill_mask;
pub mod inputs;
mod model;
mod output;
pub mod probe;
mod provenance;
pub mod seat;
pub mod shards;
pub mod train;
pub mod valence;
pub mod weat;

pub use ctx::Ctx;
pub use error::RunError;
pub use model::{
    Model, SharedEmbedder, SharedMaskedLm, checkpoint, compute, minilm_from_pypi, names_static,
    normalize, open, open_with,
};
pub use output::{check_dir, check_output, temporary_beside, write_atomically};
pub use provenance::{FileDigest, ModelOrigin, ModelProvenance, Provenance, short};

pub use lmbias_core as encoder;
pub use lmbias_core::{Layer, Pooling};
pub use lmbias_data as data;
pub use lmbias_fetch as fetch;
pub use lmbias_metrics as metrics;
pub use lmbias_model::{
    Checkpoint, Compute, DeviceKind, HubMiss, HubSettings, ModelError, Precision,
};
pub use lmbias_static::StaticError;
pub use lmbias_studies as studies;
pub use lmbias_text as text;
