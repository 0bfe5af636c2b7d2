//! The one error type of the store: a message in the project's `PLACE: reason` form.

use std::fmt;
use std::path::Path;

/// Why a run's files could not be written: `PATH: reason` for file-system errors,
/// `TABLE.COLUMN: reason` for a value that does not fit its column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError(pub String);

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// `PATH: reason` from an I/O or Parquet error on `path`.
    pub fn at(path: &Path, e: impl fmt::Display) -> Self {
        StoreError(format!("{}: {e}", path.display()))
    }
}
