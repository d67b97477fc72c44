//! A deterministic mutation fuzzer over every parser of outside input.
//!
//! `cargo fuzz` needs a nightly toolchain; this harness needs none. Each
//! [`Target`] is a parser (positions, moves, game records, rules, player
//! specs, run configs, the bot protocol, game chunks, checkpoint sidecars,
//! `bundle.json`, openings, `state.json`) wrapped in a function that must
//! never panic and whose successful results must round-trip where the
//! format allows it. [`run`] feeds a target mutations of its seed corpus
//! (`fuzz/corpus/<target>/`): bit flips, random bytes, insertions, deletions,
//! duplications, splices of two inputs, interesting integers and tokens of
//! the format, stacked one to eight deep, from a fixed seed, so a run is
//! reproducible. Inputs that parse join the corpus (a cheap stand-in for
//! coverage feedback). A panic is caught with [`std::panic::catch_unwind`]
//! and reported with the input that caused it.

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

mod targets;

pub use targets::{builtin_seeds, TARGETS};

/// One fuzz target: a name, the format's interesting tokens, and the
/// function that parses one input. The function returns `true` when the
/// input was accepted (it then joins the corpus) and panics on a bug.
#[derive(Clone, Copy)]
pub struct Target {
    /// Name, also the corpus directory.
    pub name: &'static str,
    /// Tokens worth inserting (keywords, separators, extreme numbers).
    pub tokens: &'static [&'static str],
    /// Parses one input.
    pub run: fn(&[u8]) -> bool,
}

/// The target named `name`.
pub fn target(name: &str) -> Option<Target> {
    TARGETS.iter().copied().find(|t| t.name == name)
}

/// A small, fast, seedable generator (SplitMix64): the run must not depend
/// on anything but its seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    1 << 36,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    u64::MAX,
];

const NUMBER_TOKENS: &[&str] = &[
    "0",
    "-1",
    "1",
    "255",
    "65536",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e309",
    "NaN",
    "inf",
];

/// Longest input a mutation may produce, in bytes.
pub const MAX_INPUT: usize = 64 * 1024;

/// Mutates `data` in place: one to eight stacked mutations, one of them
/// possibly a splice with `other`.
pub fn mutate(data: &mut Vec<u8>, other: &[u8], tokens: &[&str], rng: &mut Rng) {
    let n = 1 + rng.below(8);
    for _ in 0..n {
        let len = data.len();
        match rng.below(11) {
            // Flip a bit.
            0 if len > 0 => {
                let i = rng.below(len);
                data[i] ^= 1 << rng.below(8);
            }
            // Set a random byte.
            1 if len > 0 => {
                let i = rng.below(len);
                data[i] = rng.next_u64() as u8;
            }
            // Insert random bytes.
            2 => {
                let i = rng.below(len + 1);
                let k = 1 + rng.below(8);
                for j in 0..k {
                    data.insert(i + j, rng.next_u64() as u8);
                }
            }
            // Delete a range.
            3 if len > 0 => {
                let i = rng.below(len);
                let k = 1 + rng.below((len - i).min(16));
                data.drain(i..i + k);
            }
            // Duplicate a range.
            4 if len > 0 => {
                let i = rng.below(len);
                let k = 1 + rng.below((len - i).min(32));
                let chunk: Vec<u8> = data[i..i + k].to_vec();
                let at = rng.below(data.len() + 1);
                data.splice(at..at, chunk);
            }
            // Splice: a prefix of this input and a suffix of the other.
            5 if !other.is_empty() => {
                let cut = rng.below(len + 1);
                let from = rng.below(other.len());
                data.truncate(cut);
                data.extend_from_slice(&other[from..]);
            }
            // Overwrite with an interesting integer (1, 2, 4 or 8 bytes,
            // either endianness).
            6 if len > 0 => {
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let width = [1, 2, 4, 8][rng.below(4)];
                let bytes = if rng.below(2) == 0 {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                let i = rng.below(len);
                for (j, b) in bytes.iter().take(width).enumerate() {
                    if let Some(slot) = data.get_mut(i + j) {
                        *slot = *b;
                    }
                }
            }
            // Insert a token of the format, or an extreme number.
            7 | 8 => {
                let t = if !tokens.is_empty() && rng.below(3) > 0 {
                    tokens[rng.below(tokens.len())]
                } else {
                    NUMBER_TOKENS[rng.below(NUMBER_TOKENS.len())]
                };
                let i = rng.below(len + 1);
                data.splice(i..i, t.bytes());
            }
            // Replace a run of ASCII digits with an extreme number.
            9 if len > 0 => {
                let i = rng.below(len);
                if let Some(start) = (i..len).find(|&j| data[j].is_ascii_digit()) {
                    let end = (start..len)
                        .find(|&j| !data[j].is_ascii_digit())
                        .unwrap_or(len);
                    let t = NUMBER_TOKENS[rng.below(NUMBER_TOKENS.len())];
                    data.splice(start..end, t.bytes());
                }
            }
            // Truncate.
            _ if len > 0 => data.truncate(rng.below(len)),
            _ => data.push(rng.next_u64() as u8),
        }
    }
    data.truncate(MAX_INPUT);
}

/// How a run ends.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Inputs to try (after the seeds).
    pub iters: u64,
    /// Stop earlier after this long.
    pub time: Option<Duration>,
    /// The generator's seed.
    pub seed: u64,
}

/// A panic found by a run.
#[derive(Clone, Debug)]
pub struct Crash {
    /// The input.
    pub input: Vec<u8>,
    /// The panic message and location.
    pub message: String,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Report {
    /// The target.
    pub target: &'static str,
    /// Inputs tried (seeds included).
    pub inputs: u64,
    /// Inputs the parser accepted.
    pub accepted: u64,
    /// Corpus size at the end.
    pub corpus: usize,
    /// Wall time.
    pub elapsed: Duration,
    /// The slowest single input.
    pub slowest: Duration,
    /// Panics (at most a few are kept).
    pub crashes: Vec<Crash>,
}

impl Report {
    /// Inputs per second.
    pub fn per_sec(&self) -> f64 {
        self.inputs as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Largest corpus a run grows to (accepted inputs beyond it are dropped).
const MAX_CORPUS: usize = 4096;
/// Crashes kept per run.
const MAX_CRASHES: usize = 8;

/// Reads the seed corpus of `target` from `dir/<target>/` (every file),
/// falling back to the built-in seeds when the directory is missing.
pub fn load_corpus(dir: &Path, target: &Target) -> Vec<Vec<u8>> {
    let sub = dir.join(target.name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&sub)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    let mut out: Vec<Vec<u8>> = files.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    if out.is_empty() {
        out = builtin_seeds(target.name);
    }
    out
}

/// Fuzzes `target` from `seeds` within `limits`.
pub fn run(target: &Target, seeds: Vec<Vec<u8>>, limits: &Limits) -> Report {
    install_panic_hook();
    let _capturing = Capturing::start();
    let mut corpus = if seeds.is_empty() {
        vec![Vec::new()]
    } else {
        seeds
    };
    let mut rng = Rng::new(limits.seed ^ fnv(target.name.as_bytes()));
    let mut report = Report {
        target: target.name,
        inputs: 0,
        accepted: 0,
        corpus: 0,
        elapsed: Duration::ZERO,
        slowest: Duration::ZERO,
        crashes: Vec::new(),
    };
    let start = Instant::now();
    let try_one = |input: &[u8], report: &mut Report| -> bool {
        let t = Instant::now();
        let result = panic::catch_unwind(AssertUnwindSafe(|| (target.run)(input)));
        report.slowest = report.slowest.max(t.elapsed());
        report.inputs += 1;
        match result {
            Ok(accepted) => {
                report.accepted += u64::from(accepted);
                accepted
            }
            Err(_) => {
                if report.crashes.len() < MAX_CRASHES {
                    let m = CAPTURED
                        .with(|c| c.borrow_mut().as_mut().map(std::mem::take))
                        .unwrap_or_default();
                    report.crashes.push(Crash {
                        input: input.to_vec(),
                        message: m,
                    });
                }
                false
            }
        }
    };
    for seed in corpus.clone() {
        try_one(&seed, &mut report);
    }
    let mut input = Vec::new();
    for i in 0..limits.iters {
        if i.is_multiple_of(256) && limits.time.is_some_and(|t| start.elapsed() >= t) {
            break;
        }
        let a = rng.below(corpus.len());
        let b = rng.below(corpus.len());
        input.clear();
        input.extend_from_slice(&corpus[a]);
        mutate(&mut input, &corpus[b], target.tokens, &mut rng);
        if try_one(&input, &mut report) && corpus.len() < MAX_CORPUS {
            corpus.push(input.clone());
        }
    }
    report.elapsed = start.elapsed();
    report.corpus = corpus.len();
    report
}

thread_local! {
    /// While this thread fuzzes, the message of its last panic (`Some`);
    /// `None` when it does not fuzz, so its panics reach the previous hook.
    static CAPTURED: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs, once per process, a panic hook that records the message of a
/// panic on a fuzzing thread and hands every other panic to the hook that
/// was there before. The hook is process-global, so one installed and
/// removed per [`run`] would race between runs on parallel threads (two
/// tests of one test binary): a panic could be recorded by the other run.
fn install_panic_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let recorded = CAPTURED
                .try_with(|c| {
                    let Ok(mut c) = c.try_borrow_mut() else {
                        return false;
                    };
                    c.as_mut().map(|m| *m = info.to_string()).is_some()
                })
                .unwrap_or(false);
            if !recorded {
                previous(info);
            }
        }));
    });
}

/// Marks the current thread as fuzzing for its lifetime.
struct Capturing;

impl Capturing {
    fn start() -> Self {
        CAPTURED.with(|c| *c.borrow_mut() = Some(String::new()));
        Capturing
    }
}

impl Drop for Capturing {
    fn drop(&mut self) {
        let _ = CAPTURED.try_with(|c| c.borrow_mut().take());
    }
}

/// FNV-1a 64 of `bytes` (to derive per-target seeds and crash file names).
pub fn fnv(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The repository's corpus directory (`fuzz/corpus`).
pub fn default_corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus")
}
