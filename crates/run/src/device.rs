//! [`DeviceSpec`]: where the network runs, as configs and command lines
//! name it.

use std::fmt;
use std::str::FromStr;

/// A device name that is not `auto`, `cpu`, `cuda` or `cuda:N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("device `{0}`: expected auto, cpu, cuda or cuda:N")]
pub struct ParseDeviceError(pub String);

/// Where the network runs, as a user names it: `auto` (CUDA when present,
/// else CPU), `cpu`, `cuda` (the first GPU) or `cuda:N`.
///
/// Parsing is pure (no CUDA query), so configs and command lines parse it
/// before anything starts; `dama_nn::device::resolve` then checks it
/// against this machine (this crate does not link libtorch). Serialized as its text, so a config reads `device = "cuda:1"`.
///
/// # Examples
///
/// ```
/// use dama_run::DeviceSpec;
///
/// let spec: DeviceSpec = "cuda:1".parse()?;
/// assert_eq!(spec, DeviceSpec::Cuda(1));
/// assert_eq!(spec.to_string(), "cuda:1");
/// assert_eq!("cuda".parse::<DeviceSpec>()?, DeviceSpec::Cuda(0));
/// assert!("tpu".parse::<DeviceSpec>().is_err());
/// # Ok::<(), dama_run::ParseDeviceError>(())
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum DeviceSpec {
    /// CUDA (GPU 0) when present, else the CPU.
    #[default]
    Auto,
    /// The CPU.
    Cpu,
    /// GPU `N`.
    Cuda(usize),
}

impl FromStr for DeviceSpec {
    type Err = ParseDeviceError;

    fn from_str(name: &str) -> Result<DeviceSpec, ParseDeviceError> {
        match name {
            "auto" => Ok(DeviceSpec::Auto),
            "cpu" => Ok(DeviceSpec::Cpu),
            "cuda" => Ok(DeviceSpec::Cuda(0)),
            other => match other.strip_prefix("cuda:").map(str::parse::<usize>) {
                // 64 GPUs in one process is beyond any machine we target.
                Some(Ok(i)) if i < 64 => Ok(DeviceSpec::Cuda(i)),
                _ => Err(ParseDeviceError(other.to_owned())),
            },
        }
    }
}

impl fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSpec::Auto => f.write_str("auto"),
            DeviceSpec::Cpu => f.write_str("cpu"),
            DeviceSpec::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

impl serde::Serialize for DeviceSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for DeviceSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<DeviceSpec, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bad_names_are_named() {
        for text in ["auto", "cpu", "cuda:0", "cuda:3"] {
            let spec: DeviceSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<DeviceSpec>(&json).unwrap(), spec);
        }
        assert_eq!("cuda".parse::<DeviceSpec>().unwrap(), DeviceSpec::Cuda(0));
        for bad in ["tpu", "cuda:x", "cuda:100000", ""] {
            let err = bad.parse::<DeviceSpec>().unwrap_err().to_string();
            assert!(err.contains(&format!("`{bad}`")), "{err}");
        }
        assert!(serde_json::from_str::<DeviceSpec>("\"gpu\"").is_err());
    }
}
