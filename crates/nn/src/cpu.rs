//! Which inference precision suits this machine: bf16 where the CPU has
//! bf16 matrix instructions (AMX-BF16 or AVX-512-BF16), fp32 elsewhere.
//!
//! On CPUs without them libtorch still runs bf16, by converting, and is
//! several times slower than fp32; with them the nn benchmark measured bf16
//! up to 3× faster than fp32 with the same best move 99% of the time.
//!
//! # Examples
//!
//! ```
//! use dama_nn::cpu::{CpuFeatures, PrecisionChoice};
//! use dama_nn::Precision;
//!
//! let avx2_only = CpuFeatures::default();
//! let sapphire_rapids = CpuFeatures { avx512_bf16: true, amx_bf16: true };
//! let cpu = tch::Device::Cpu;
//! assert_eq!(PrecisionChoice::Auto.resolve(cpu, avx2_only), Precision::F32);
//! assert_eq!(PrecisionChoice::Auto.resolve(cpu, sapphire_rapids), Precision::Bf16);
//! assert_eq!(PrecisionChoice::Bf16.resolve(cpu, avx2_only), Precision::Bf16);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};
use tch::Device;

use crate::evaluator::Precision;

/// The CPU's bf16 matrix instructions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuFeatures {
    /// AVX-512 BF16 (`avx512_bf16`: Cooper Lake, Sapphire Rapids, Zen 4 and later).
    pub avx512_bf16: bool,
    /// AMX with bf16 tiles (`amx_bf16`: Sapphire Rapids and later).
    pub amx_bf16: bool,
}

impl CpuFeatures {
    /// The features of the CPU this runs on: `is_x86_feature_detected!` for
    /// AVX-512 BF16, the flags of `/proc/cpuinfo` for AMX (whose detection
    /// macro is not stable) and as a second opinion. All false off x86-64.
    #[must_use]
    pub fn detect() -> CpuFeatures {
        let flags = cpuinfo().map(|t| parse_cpuinfo(&t).1).unwrap_or_default();
        CpuFeatures::from_flags(&flags, detect_avx512_bf16())
    }

    /// The features named by `/proc/cpuinfo` flags, or'ed with a runtime
    /// check of AVX-512 BF16 (pure: the testable half of [`detect`](Self::detect)).
    #[must_use]
    pub fn from_flags(flags: &[String], avx512_bf16_detected: bool) -> CpuFeatures {
        let has = |f: &str| flags.iter().any(|x| x == f);
        CpuFeatures {
            avx512_bf16: avx512_bf16_detected || has("avx512_bf16"),
            amx_bf16: has("amx_bf16"),
        }
    }

    /// Whether bf16 inference is fast here (either instruction set).
    #[must_use]
    pub fn bf16_fast(self) -> bool {
        self.avx512_bf16 || self.amx_bf16
    }
}

/// Whether this CPU runs bf16 inference faster than fp32 (it has AMX-BF16
/// or AVX-512-BF16).
#[must_use]
pub fn cpu_bf16_fast() -> bool {
    CpuFeatures::detect().bf16_fast()
}

#[cfg(target_arch = "x86_64")]
fn detect_avx512_bf16() -> bool {
    std::is_x86_feature_detected!("avx512bf16")
}

#[cfg(not(target_arch = "x86_64"))]
fn detect_avx512_bf16() -> bool {
    false
}

/// The text of `/proc/cpuinfo`, if readable (the module's only I/O).
fn cpuinfo() -> Option<String> {
    std::fs::read_to_string("/proc/cpuinfo").ok()
}

/// The model name and the flags of the first processor in `/proc/cpuinfo`
/// text (`model name : …`, `flags : …`).
#[must_use]
pub fn parse_cpuinfo(text: &str) -> (Option<String>, Vec<String>) {
    let mut model = None;
    let mut flags = None;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "model name" if model.is_none() => model = Some(value.trim().to_owned()),
            "flags" if flags.is_none() => {
                flags = Some(value.split_whitespace().map(str::to_owned).collect());
            }
            _ => {}
        }
        if model.is_some() && flags.is_some() {
            break;
        }
    }
    (model, flags.unwrap_or_default())
}

/// The CPU's model name from `/proc/cpuinfo` (`None` where there is none).
#[must_use]
pub fn cpu_model() -> Option<String> {
    cpuinfo().and_then(|t| parse_cpuinfo(&t).0)
}

/// The inference precision a config asks for: `"auto"`, `"f32"` or `"bf16"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PrecisionChoice {
    /// bf16 on a CPU with AMX-BF16 or AVX-512-BF16, fp32 elsewhere (CUDA
    /// included: bf16 there is not measured yet).
    #[default]
    Auto,
    /// Always fp32.
    F32,
    /// Always bf16; on a CPU without bf16 instructions it works, slower
    /// than fp32 (the caller should warn, see [`PrecisionChoice::warning`]).
    Bf16,
}

impl PrecisionChoice {
    /// The precision to run on `device` with a CPU that has `cpu`.
    #[must_use]
    pub fn resolve(self, device: Device, cpu: CpuFeatures) -> Precision {
        match self {
            PrecisionChoice::F32 => Precision::F32,
            PrecisionChoice::Bf16 => Precision::Bf16,
            PrecisionChoice::Auto => match device {
                Device::Cpu if cpu.bf16_fast() => Precision::Bf16,
                _ => Precision::F32,
            },
        }
    }

    /// A warning when bf16 was asked for on a CPU that lacks the
    /// instructions that make it fast.
    #[must_use]
    pub fn warning(self, device: Device, cpu: CpuFeatures) -> Option<String> {
        (self == PrecisionChoice::Bf16 && device == Device::Cpu && !cpu.bf16_fast()).then(|| {
            "precision = \"bf16\" on a CPU without AMX-BF16 or AVX-512-BF16: it works, \
             but is slower than fp32 (use \"auto\")"
                .to_owned()
        })
    }
}

impl fmt::Display for PrecisionChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PrecisionChoice::Auto => "auto",
            PrecisionChoice::F32 => "f32",
            PrecisionChoice::Bf16 => "bf16",
        })
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPYC: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n\
        flags\t\t: fpu sse2 avx avx2 fma\nprocessor\t: 1\nmodel name\t: other\n";
    const SPR: &str = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Platinum 8480+\n\
        flags\t\t: avx2 avx512f avx512_bf16 amx_bf16 amx_tile amx_int8\n";

    #[test]
    fn cpuinfo_is_parsed() {
        let (model, flags) = parse_cpuinfo(EPYC);
        assert_eq!(model.as_deref(), Some("AMD EPYC 7B13"));
        assert_eq!(flags, ["fpu", "sse2", "avx", "avx2", "fma"]);
        assert_eq!(parse_cpuinfo(""), (None, vec![]));
    }

    #[test]
    fn auto_picks_bf16_only_where_it_is_fast() {
        let epyc = CpuFeatures::from_flags(&parse_cpuinfo(EPYC).1, false);
        let spr = CpuFeatures::from_flags(&parse_cpuinfo(SPR).1, false);
        assert_eq!(epyc, CpuFeatures::default());
        assert!(spr.amx_bf16 && spr.avx512_bf16 && spr.bf16_fast());
        // The runtime check alone is enough.
        assert!(CpuFeatures::from_flags(&[], true).bf16_fast());
        let cpu = Device::Cpu;
        assert_eq!(PrecisionChoice::Auto.resolve(cpu, epyc), Precision::F32);
        assert_eq!(PrecisionChoice::Auto.resolve(cpu, spr), Precision::Bf16);
        assert_eq!(
            PrecisionChoice::Auto.resolve(Device::Cuda(0), spr),
            Precision::F32
        );
        assert_eq!(PrecisionChoice::F32.resolve(cpu, spr), Precision::F32);
        assert_eq!(PrecisionChoice::Bf16.resolve(cpu, epyc), Precision::Bf16);
        assert!(PrecisionChoice::Bf16.warning(cpu, epyc).is_some());
        assert!(PrecisionChoice::Bf16.warning(cpu, spr).is_none());
        assert!(PrecisionChoice::Auto.warning(cpu, epyc).is_none());
    }

    #[test]
    fn this_machine_agrees_with_its_cpuinfo() {
        // Whatever the machine: detection equals the pure function of its
        // flags (this project's AMD EPYC has AVX2 only, so fp32).
        let flags = cpuinfo().map(|t| parse_cpuinfo(&t).1).unwrap_or_default();
        let detected = CpuFeatures::detect();
        assert_eq!(
            detected,
            CpuFeatures::from_flags(&flags, detect_avx512_bf16())
        );
        if !flags.iter().any(|f| f.contains("bf16")) && !detect_avx512_bf16() {
            assert_eq!(
                PrecisionChoice::Auto.resolve(Device::Cpu, detected),
                Precision::F32
            );
        }
    }

    #[test]
    fn choice_reads_from_config_strings() {
        for (s, want) in [
            ("auto", PrecisionChoice::Auto),
            ("f32", PrecisionChoice::F32),
            ("bf16", PrecisionChoice::Bf16),
        ] {
            let got: PrecisionChoice = serde_json::from_str(&format!("\"{s}\"")).unwrap();
            assert_eq!(got, want);
            assert_eq!(want.to_string(), s);
        }
        assert!(serde_json::from_str::<PrecisionChoice>("\"fp16\"").is_err());
    }
}
