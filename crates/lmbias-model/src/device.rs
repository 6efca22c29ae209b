//! Which Burn device runs the model: chosen at run time, compiled in by features.

use burn::tensor::Device;

use crate::error::ModelError;

/// A device a user can name on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeviceKind {
    /// The default CPU backend (burn-flex; burn-ndarray when only `ndarray` is enabled).
    #[default]
    Cpu,
    /// The first wgpu adapter (feature `wgpu`).
    Wgpu,
}

impl std::fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for DeviceKind {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "cpu" => Ok(DeviceKind::Cpu),
            "wgpu" => Ok(DeviceKind::Wgpu),
            other => Err(ModelError::UnknownDevice(other.to_string())),
        }
    }
}

impl DeviceKind {
    /// The name used on the command line (`--device`) and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Wgpu => "wgpu",
        }
    }

    /// The Burn device, or an error saying which feature is missing.
    pub(crate) fn device(self) -> Result<Device, ModelError> {
        match self {
            DeviceKind::Cpu => cpu_device(),
            DeviceKind::Wgpu => wgpu_device(),
        }
    }
}

/// Whether tensors on `device` live in host memory (the CPU backends): there
/// element-wise work is cheapest on the slice, and batches run in parallel, one
/// per core; a GPU gets Burn's kernels and one batch at a time.
#[cfg(feature = "wgpu")]
pub(crate) fn on_host(device: &Device) -> bool {
    *device != Device::wgpu(Default::default())
}

/// Whether tensors on `device` live in host memory: without a GPU backend, always.
#[cfg(not(feature = "wgpu"))]
pub(crate) fn on_host(_device: &Device) -> bool {
    true
}

#[cfg(feature = "flex")]
fn cpu_device() -> Result<Device, ModelError> {
    Ok(Device::flex())
}

// burn deprecates ndarray in favour of flex; kept only to measure the two (docs/benchmarks.md).
#[cfg(all(feature = "ndarray", not(feature = "flex")))]
#[allow(deprecated)]
fn cpu_device() -> Result<Device, ModelError> {
    Ok(Device::ndarray())
}

#[cfg(not(any(feature = "flex", feature = "ndarray")))]
fn cpu_device() -> Result<Device, ModelError> {
    Err(ModelError::DeviceUnavailable("cpu".into()))
}

#[cfg(feature = "wgpu")]
fn wgpu_device() -> Result<Device, ModelError> {
    Ok(Device::wgpu(Default::default()))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device() -> Result<Device, ModelError> {
    Err(ModelError::DeviceUnavailable("wgpu".into()))
}
