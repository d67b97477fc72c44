//! Small file helpers.

use std::path::Path;

use crate::Error;

/// Renders the file through `write`, then writes it to `path` atomically
/// ([`dama_run::files::write_atomic`]: a temporary file and a rename).
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut bytes = Vec::new();
    write(&mut bytes)?;
    dama_run::files::write_atomic(path, &bytes)?;
    Ok(())
}
