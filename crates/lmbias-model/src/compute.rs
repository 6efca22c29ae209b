//! How a model computes: on which device, and in which precision its matrix products run.

use lmbias_kernels::bf16::Bf16Units;

use crate::device::DeviceKind;
use crate::error::ModelError;

/// The precision of a forward pass's matrix products.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// f32 throughout: the default, and the reference every other precision is measured
    /// against.
    #[default]
    F32,
    /// Weights stored in bf16 and every linear layer's product on the CPU's bf16 units
    /// (AVX512-BF16) with f32 accumulation; embeddings, attention scores, LayerNorm,
    /// softmax and activations stay f32, as under `torch.autocast("cpu", dtype=torch.bfloat16)`.
    Bf16,
}

impl Precision {
    /// Whether this is f32, the default (reports name only other precisions).
    pub fn is_f32(&self) -> bool {
        *self == Precision::F32
    }

    /// The name used on the command line (`--precision`), in Python and in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Precision {
    type Err = ModelError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "f32" => Ok(Precision::F32),
            "bf16" => Ok(Precision::Bf16),
            other => Err(ModelError::UnknownPrecision(other.to_string())),
        }
    }
}

/// A device and the precision a model really runs in there: bf16 only on a CPU with bf16
/// units, checked when this is built, so a report records what was computed.
#[derive(Debug, Clone, Copy)]
pub struct Compute {
    device: DeviceKind,
    /// `Some` exactly when the products run in bf16.
    bf16: Option<Bf16Units>,
}

impl Compute {
    /// `precision` on `device`. A device this build or machine lacks is an error (wgpu without
    /// its feature or an adapter); bf16 on a CPU without bf16 units runs in f32
    /// ([`Compute::fallback_notice`] says so, for a front-end to print); bf16 on a GPU is an
    /// error.
    pub fn new(device: DeviceKind, precision: Precision) -> Result<Self, ModelError> {
        let bf16 = match (precision, device) {
            (Precision::F32, _) => None,
            (Precision::Bf16, DeviceKind::Wgpu) => {
                return Err(ModelError::PrecisionUnavailable {
                    precision: precision.as_str(),
                    device: device.as_str(),
                    why: "lmbias's bf16 kernel runs on the CPU".into(),
                });
            }
            (Precision::Bf16, DeviceKind::Cpu) => Bf16Units::detect(),
        };
        device.check()?;
        Ok(Self { device, bf16 })
    }

    /// What a front-end tells its user when `asked` could not be had (bf16 on a CPU without
    /// bf16 units, which runs f32); `None` when the products run as asked.
    pub fn fallback_notice(&self, asked: Precision) -> Option<&'static str> {
        (asked != self.precision()).then_some(
            "lmbias: this CPU has no bf16 units (AVX512-BF16): --precision bf16 runs in f32",
        )
    }

    /// The device.
    pub fn device(&self) -> DeviceKind {
        self.device
    }

    /// The precision the products run in (f32 where bf16 was asked for but is unavailable).
    pub fn precision(&self) -> Precision {
        match self.bf16 {
            Some(_) => Precision::Bf16,
            None => Precision::F32,
        }
    }

    /// The bf16 units, when the products run on them.
    pub(crate) fn bf16_units(&self) -> Option<Bf16Units> {
        self.bf16
    }
}

/// A device alone computes in f32.
impl From<DeviceKind> for Compute {
    fn from(device: DeviceKind) -> Self {
        Self { device, bf16: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for precision in [Precision::F32, Precision::Bf16] {
            assert_eq!(precision.as_str().parse::<Precision>().unwrap(), precision);
        }
        let err = "fp16".parse::<Precision>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown precision \"fp16\": expected f32 or bf16"
        );
    }

    #[test]
    fn bf16_is_what_the_cpu_can_do_and_never_a_gpu() {
        let cpu = Compute::new(DeviceKind::Cpu, Precision::Bf16).unwrap();
        let expected = match Bf16Units::detect() {
            Some(_) => Precision::Bf16,
            None => Precision::F32,
        };
        assert_eq!(cpu.precision(), expected);
        assert_eq!(Compute::from(DeviceKind::Cpu).precision(), Precision::F32);
        let err = Compute::new(DeviceKind::Wgpu, Precision::Bf16).unwrap_err();
        assert_eq!(
            err.to_string(),
            "precision bf16 is not available on wgpu: lmbias's bf16 kernel runs on the CPU"
        );
    }
}
