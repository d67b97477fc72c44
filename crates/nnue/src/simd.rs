//! Which instruction set the quantized network runs with, detected at run
//! time. Every level runs the same Rust kernels (`crate::quant`), compiled
//! once per level with `#[target_feature]`, but for L1 and L2, which each
//! level writes with its own intrinsics in the portable kernel's order of
//! operations; so they give identical results. The scalar level is the
//! portable fallback.

/// An instruction-set level for the network's kernels.
///
/// Only [`Simd::detect`], [`Simd::scalar`] and [`Simd::available`] make
/// one, so a level is never used on a CPU that lacks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Simd(pub(crate) Level);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Level {
    Scalar,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Simd {
    /// The best level this CPU has (AVX-512BW, AVX2 + FMA, or scalar; on
    /// AArch64 the scalar kernels are compiled with NEON, which is baseline
    /// there).
    pub fn detect() -> Simd {
        *Simd::available().last().unwrap_or(&Simd::scalar())
    }

    /// The portable kernels.
    pub const fn scalar() -> Simd {
        Simd(Level::Scalar)
    }

    /// Every level this CPU can run, worst first.
    pub fn available() -> Vec<Simd> {
        #[allow(unused_mut)]
        let mut levels = vec![Simd::scalar()];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                levels.push(Simd(Level::Avx2));
            }
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512bw")
            {
                levels.push(Simd(Level::Avx512));
            }
        }
        levels
    }

    /// The level's name: `scalar`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self.0 {
            Level::Scalar => "scalar",
            #[cfg(target_arch = "x86_64")]
            Level::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Level::Avx512 => "avx512",
        }
    }

    /// The level named `name`, if this CPU has it.
    pub fn by_name(name: &str) -> Option<Simd> {
        Simd::available().into_iter().find(|s| s.name() == name)
    }
}

impl std::fmt::Display for Simd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
