//! Which Burn device runs the model: chosen at run time, compiled in by features.

use burn::tensor::Device;

use crate::error::ModelError;

/// A device a user can name on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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
    /// Whether this is the CPU (a provenance leaves the CPU out).
    pub fn is_cpu(&self) -> bool {
        *self == DeviceKind::Cpu
    }

    /// The name used on the command line (`--device`) and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Cpu => "cpu",
            DeviceKind::Wgpu => "wgpu",
        }
    }

    /// Whether this device can run here: the CPU always, wgpu in a build with its feature on
    /// a machine with an adapter. Asked before any work, so that a run fails at once.
    pub fn check(self) -> Result<(), ModelError> {
        match self {
            DeviceKind::Cpu => cpu_device().map(drop),
            DeviceKind::Wgpu => wgpu_adapter().map(drop),
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
    wgpu_adapter()?;
    Ok(Device::wgpu(Default::default()))
}

/// The adapter wgpu would run on, as `name (type, graphics API)`, or the error of a machine
/// with none: Burn would panic at the first tensor. Asked once a process.
#[cfg(feature = "wgpu")]
pub fn wgpu_adapter() -> Result<&'static str, ModelError> {
    use burn::backend::wgpu::wgpu;
    static ADAPTER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ADAPTER
        .get_or_init(|| {
            let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
                backends: wgpu::Backends::all(),
                ..wgpu::InstanceDescriptor::new_without_display_handle()
            });
            let adapters =
                futures_lite::future::block_on(instance.enumerate_adapters(wgpu::Backends::all()));
            // A GPU before a software rasteriser, as Burn's own choice goes.
            let mut infos: Vec<wgpu::AdapterInfo> = adapters.iter().map(|a| a.get_info()).collect();
            infos.sort_by_key(|i| i.device_type == wgpu::DeviceType::Cpu);
            infos.first().map(|i| {
                let kind = match i.device_type {
                    wgpu::DeviceType::Cpu => "software, on the CPU",
                    wgpu::DeviceType::DiscreteGpu => "discrete GPU",
                    wgpu::DeviceType::IntegratedGpu => "integrated GPU",
                    wgpu::DeviceType::VirtualGpu => "virtual GPU",
                    wgpu::DeviceType::Other => "other",
                };
                format!("{} ({kind}, {:?})", i.name, i.backend)
            })
        })
        .as_deref()
        .ok_or(ModelError::NoAdapter)
}

/// Without the `wgpu` feature there is no adapter to ask for.
#[cfg(not(feature = "wgpu"))]
pub fn wgpu_adapter() -> Result<&'static str, ModelError> {
    Err(ModelError::DeviceUnavailable("wgpu".into()))
}

#[cfg(not(feature = "wgpu"))]
fn wgpu_device() -> Result<Device, ModelError> {
    Err(ModelError::DeviceUnavailable("wgpu".into()))
}
