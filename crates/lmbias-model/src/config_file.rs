//! A model folder's JSON files (config.json, modules.json, a pooling config), read capped and
//! parsed with the file named in any error, and the check their numbers share.

use std::path::Path;

use serde::Deserialize;

use crate::error::ModelError;

/// `Err` naming `field` when a LayerNorm epsilon (or another value that must be a finite
/// number ≥ 0) is not one: a negative epsilon makes every output NaN for some inputs.
pub(crate) fn nonnegative(field: &str, value: f64) -> Result<(), String> {
    if value.is_finite() && value >= 0.0 {
        Ok(())
    } else {
        Err(format!("{field} {value} must be a finite number ≥ 0"))
    }
}

/// Parse a JSON file, naming the file in any error.
pub(crate) fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ModelError> {
    let text = lmbias_core::read::read_capped(path, lmbias_core::read::CONFIG).map_err(|e| {
        ModelError::Io {
            path: path.to_path_buf(),
            doing: "read",
            source: e.source,
        }
    })?;
    serde_json::from_slice(&text).map_err(|source| ModelError::Config {
        path: path.to_path_buf(),
        source,
    })
}
