//! Finding the Python interpreter that has PyTorch.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The torch version `tch` is built for (see `scripts/setup-torch.sh`).
const TORCH_VERSION: &str = "2.13.0";

/// The Python interpreter to run PyTorch scripts with, in this order:
/// `explicit`; `$DAMA_VENV/bin/python`; a `venv-torch-2.13.0-py*` venv in
/// `$DAMA_CACHE` (default `~/.cache/dama`, where `scripts/setup-torch.sh`
/// installs it); `python3`, then `python`, on `PATH`. `None` if none runs.
pub fn find_python(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    let mut candidates = Vec::new();
    if let Some(venv) = std::env::var_os("DAMA_VENV") {
        candidates.push(PathBuf::from(venv).join("bin").join("python"));
    }
    let cache = std::env::var_os("DAMA_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("dama")));
    if let Some(cache) = cache {
        if let Ok(entries) = std::fs::read_dir(&cache) {
            let mut venvs: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&format!("venv-torch-{TORCH_VERSION}-py")))
                })
                .collect();
            venvs.sort();
            candidates.extend(venvs.into_iter().map(|v| v.join("bin").join("python")));
        }
    }
    if let Some(found) = candidates.into_iter().find(|p| p.is_file()) {
        return Some(found);
    }
    ["python3", "python"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| {
            Command::new(p)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}
