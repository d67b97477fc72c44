//! Small file helpers.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::Error;

/// Writes `path` through `write` into `path.tmp`, then renames it into place.
pub(crate) fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> Result<(), Error>,
) -> Result<(), Error> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir)?;
        }
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let mut w = BufWriter::new(File::create(&tmp)?);
    write(&mut w)?;
    w.flush()?;
    drop(w);
    std::fs::rename(&tmp, path)?;
    Ok(())
}
