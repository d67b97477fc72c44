//! Choosing where the network runs, at the program's edge.

pub use tch::Device;

use crate::error::{Error, Result};

pub use dama_run::DeviceSpec;

/// The device `spec` names, on this machine.
///
/// # Errors
///
/// [`Error::Config`] when CUDA is asked for on a machine without it (or
/// without that many GPUs).
pub fn resolve(spec: DeviceSpec) -> Result<Device> {
    match spec {
        DeviceSpec::Auto => Ok(Device::cuda_if_available()),
        DeviceSpec::Cpu => Ok(Device::Cpu),
        DeviceSpec::Cuda(i) => {
            if tch::Cuda::is_available() && i < tch::Cuda::device_count().max(0) as usize {
                Ok(Device::Cuda(i))
            } else {
                Err(Error::Config(format!(
                    "device `{spec}`: CUDA is not available on this machine ({} GPU(s) seen)",
                    tch::Cuda::device_count()
                )))
            }
        }
    }
}

/// Parses and resolves a device name ([`DeviceSpec`], then
/// [`DeviceSpec::resolve`]).
///
/// # Errors
///
/// [`Error::Config`] for an unknown name, or CUDA asked for on a machine
/// without it.
pub fn parse_device(name: &str) -> Result<Device> {
    resolve(
        name.parse::<DeviceSpec>()
            .map_err(|e| Error::Config(e.to_string()))?,
    )
}

/// A human-readable description of `device`: `cpu (2 threads)` or
/// `cuda:0 (NVIDIA H100 ...)` where the name is known.
pub fn describe(device: Device) -> String {
    match device {
        Device::Cpu => format!("cpu ({} torch threads)", tch::get_num_threads()),
        Device::Cuda(i) => format!("cuda:{i}"),
        other => format!("{other:?}"),
    }
}

/// The most threads a thread-count setting (`--threads`, `[run] threads`,
/// `torch_threads`, `eval_threads`) accepts on this machine: four per core,
/// at least 8 and at most 256. More only makes threads fight over cores,
/// and tens of thousands exhaust the machine.
pub fn max_threads() -> usize {
    (4 * cores()).clamp(8, 256)
}

/// The cores this process may use (1 when the platform cannot say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// A thread-count setting where 0 means one per core.
pub fn or_cores(n: usize) -> usize {
    if n > 0 {
        n
    } else {
        cores()
    }
}

/// Checks a user-supplied thread count `n` (0 meaning "one per core")
/// against [`max_threads`].
///
/// # Errors
///
/// [`Error::Config`] naming `what`, the value and the bound.
pub fn check_threads(what: &str, n: usize) -> Result<usize> {
    let max = max_threads();
    if n > max {
        return Err(Error::Config(format!(
            "{what} is {n}, more than the limit of {max} on this machine (4 per core, at least 8, at most 256)"
        )));
    }
    Ok(n)
}

/// Sets libtorch's intra-op thread count; 0 leaves libtorch's default (one
/// per core).
pub fn set_torch_threads(n: usize) {
    if n > 0 {
        tch::set_num_threads(n as i32);
    }
}

/// Seeds libtorch's random number generator (weight initialisation), so
/// that a run started twice with the same seed starts from the same network.
pub fn manual_seed(seed: u64) {
    tch::manual_seed(seed as i64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_are_bounded() {
        assert_eq!(check_threads("threads", 0).unwrap(), 0);
        assert_eq!(check_threads("threads", 8).unwrap(), 8);
        let err = check_threads("run.torch_threads", 100_000)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("run.torch_threads") && err.contains(&max_threads().to_string()),
            "{err}"
        );
    }

    #[test]
    fn device_names_parse() {
        assert_eq!(parse_device("cpu").unwrap(), Device::Cpu);
        assert!(parse_device("auto").is_ok());
        let err = parse_device("tpu").unwrap_err().to_string();
        assert!(err.contains("tpu"), "{err}");
        assert!(parse_device("cuda:x").is_err());
        if !tch::Cuda::is_available() {
            assert!(parse_device("cuda")
                .unwrap_err()
                .to_string()
                .contains("not available"));
        }
    }
}
