//! `dama report`: a run's plots as PNG files and a Markdown summary, for
//! users without Jupyter.
//!
//! The plotting lives in Python (`notebooks/dama_plots.py`, shared with the
//! run notebook); this command finds the project's venv, installs the
//! plotting packages there if they are missing (`scripts/setup-notebooks.sh`)
//! and runs `scripts/report.py` on the run directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

/// The venv `scripts/setup-torch.sh` creates when `DAMA_VENV` is not set
/// (relative to the cache directory).
const DEFAULT_VENV: &str = "venv-torch-2.13.0-py311";

/// Arguments of `dama report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run (a directory under --checkpoints, or a path).
    #[arg(long)]
    run: String,
    /// Where runs live.
    #[arg(long, default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Write the PNGs and report.md here instead of the run directory.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Python interpreter with matplotlib and pandas (default: the project's
    /// venv, from $DAMA_VENV or ~/.cache/dama).
    #[arg(long)]
    python: Option<PathBuf>,
}

/// The repository root: the working directory if it has the scripts, else
/// the checkout this binary was built from.
fn repo_root() -> Result<PathBuf> {
    let here = std::env::current_dir().context("cannot read the working directory")?;
    if here.join("scripts/report.py").is_file() {
        return Ok(here);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if built.join("scripts/report.py").is_file() {
        return Ok(built);
    }
    bail!(
        "cannot find scripts/report.py (run `dama report` from the dama repository, \
         or from the checkout it was built in)"
    )
}

/// The venv's python: `$DAMA_VENV/bin/python`, else the default venv under
/// `$DAMA_CACHE` or `~/.cache/dama`.
fn venv_python() -> Option<PathBuf> {
    if let Some(v) = std::env::var_os("DAMA_VENV").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(v).join("bin/python"));
    }
    let cache = match std::env::var_os("DAMA_CACHE").filter(|v| !v.is_empty()) {
        Some(c) => PathBuf::from(c),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/dama"),
    };
    Some(cache.join(DEFAULT_VENV).join("bin/python"))
}

fn has_plotting(python: &Path) -> bool {
    Command::new(python)
        .args(["-c", "import matplotlib, pandas"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs scripts/setup-notebooks.sh and returns the python of the venv it
/// prints on its last line.
fn setup_notebooks(root: &Path) -> Result<PathBuf> {
    let script = root.join("scripts/setup-notebooks.sh");
    eprintln!(
        "report: matplotlib/pandas missing, running {}",
        script.display()
    );
    let out = Command::new("bash")
        .arg(&script)
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("cannot run {}", script.display()))?;
    if !out.status.success() {
        bail!(
            "{} failed ({}); install matplotlib and pandas into a python and pass it with --python",
            script.display(),
            out.status
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let venv = text
        .lines()
        .last()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .with_context(|| format!("{} printed no venv path", script.display()))?;
    Ok(PathBuf::from(venv).join("bin/python"))
}

/// Runs `dama report`.
pub fn run(args: &ReportArgs) -> Result<()> {
    let run_dir = {
        let p = PathBuf::from(&args.run);
        if p.is_dir() {
            p
        } else {
            args.checkpoints.join(&args.run)
        }
    };
    if !dama_selfplay::RunDir::new(&run_dir).metrics().is_file() {
        bail!(
            "{} has no metrics.jsonl: not a run directory (give --run NAME under --checkpoints, or a path)",
            run_dir.display()
        );
    }
    let root = repo_root()?;
    let python = match &args.python {
        Some(p) => p.clone(),
        None => match venv_python() {
            Some(p) if p.is_file() && has_plotting(&p) => p,
            _ => setup_notebooks(&root)?,
        },
    };
    if !has_plotting(&python) {
        bail!(
            "{} cannot import matplotlib and pandas (run scripts/setup-notebooks.sh)",
            python.display()
        );
    }
    let script = root.join("scripts/report.py");
    let mut cmd = Command::new(&python);
    cmd.arg(&script).arg(&run_dir);
    if let Some(out) = &args.out {
        cmd.arg("--out").arg(out);
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {} {}", python.display(), script.display()))?;
    if !status.success() {
        bail!(
            "{} {} {} failed ({status})",
            python.display(),
            script.display(),
            run_dir.display()
        );
    }
    Ok(())
}
