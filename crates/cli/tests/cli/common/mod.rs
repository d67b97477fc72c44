//! Helpers of the command-line tests (`mod common;`): running `dama` and
//! checking how it ended, and the tiny networks the tests play with.

// Each test crate uses some of them.
#![allow(dead_code)]

use std::borrow::BorrowMut;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use dama_nn::{device::Device, ModelConfig, Network};

/// The `dama` binary under test.
pub const DAMA: &str = env!("CARGO_BIN_EXE_dama");

/// `dama` with `args`.
pub fn dama(args: &[&str]) -> Command {
    let mut c = Command::new(DAMA);
    c.args(args);
    c
}

/// Checks that a command did not panic.
pub fn check(out: &Output) {
    assert_ne!(
        out.status.code(),
        Some(101),
        "panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `cmd` (no input); its output, once checked it did not panic.
pub fn run(mut cmd: impl BorrowMut<Command>) -> Output {
    let out = cmd.borrow_mut().output().expect("spawn");
    check(&out);
    out
}

/// Runs `cmd`; its stdout, which must be a success.
pub fn ok(mut cmd: impl BorrowMut<Command>) -> String {
    let cmd = cmd.borrow_mut();
    let out = run(&mut *cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed:\nstdout: {}\nstderr: {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `cmd`; its stderr, which must be a failure.
pub fn err(mut cmd: impl BorrowMut<Command>) -> String {
    let cmd = cmd.borrow_mut();
    let out = run(&mut *cmd);
    assert!(!out.status.success(), "{cmd:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `cmd` with `input` on stdin; its stdout, which must be a success.
pub fn ok_with(mut cmd: impl BorrowMut<Command>, input: &str) -> String {
    let cmd = cmd.borrow_mut();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    check(&out);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// A tiny network (of Turkish draughts' shape).
pub fn small() -> ModelConfig {
    ModelConfig {
        blocks: 1,
        channels: 8,
        se_channels: 0,
        policy_channels: 4,
        value_channels: 2,
        value_hidden: 8,
        ..ModelConfig::default()
    }
}

/// Saves a tiny random Turkish Tafl network at `path` as a checkpoint of
/// training step `step`.
pub fn save_tafl_network(path: &Path, step: u64) {
    let net = Network::new(
        &small().with_shape(dama_tafl::encode::TAFL_SHAPE),
        Device::Cpu,
    )
    .unwrap();
    dama_nn::save_network(&net, dama_tafl::TaflRules::default(), step, path).unwrap();
}

/// `tafl.safetensors` in `root`: a tiny random Turkish Tafl network.
pub fn tafl_checkpoint(root: &Path) -> PathBuf {
    dama_nn::device::manual_seed(11);
    let path = root.join("tafl.safetensors");
    save_tafl_network(&path, 3);
    path
}

/// `draughts.safetensors` in `root`: a tiny random Turkish draughts
/// network.
pub fn draughts_checkpoint(root: &Path) -> PathBuf {
    let net = Network::new(&small(), Device::Cpu).unwrap();
    let path = root.join("draughts.safetensors");
    dama_nn::save_network(&net, dama_engine::Rules::default(), 3, &path).unwrap();
    path
}
