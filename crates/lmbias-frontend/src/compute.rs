//! `--device` and `--precision`, declared once for the CLI's subcommands and xtask.

use anyhow::Context;
use lmbias_runs::{Compute, DeviceKind, Precision};

/// What `--precision` takes, with the parity measured for bf16 (docs/benchmarks.md).
pub const PRECISION_HELP: &str = "Precision of the linear layers' matrix products: f32 (default), or bf16: \
     weights stored in bf16 and multiplied on the CPU's bf16 units (AVX512-BF16) with f32 accumulation, \
     LayerNorm, softmax, attention and activations in f32; a CPU without bf16 units runs f32 and says so. \
     Measured against f32 (docs/benchmarks.md, \"bf16\"): all-MiniLM-L6-v2's sentence vectors of the 4,985 \
     SEAT English texts at cosine ≥ 0.99994 (median 0.99999), a bert-base-shaped model's ≥ 0.99998; the English \
     SEAT battery's d within 0.016 and p within 0.012 of f32's, no test changing significance at 0.05.";

/// Where and how a model computes: `--device` and `--precision`.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct ComputeArgs {
    /// Where to run the model: cpu, or wgpu (needs a build with `--features wgpu`).
    #[arg(long, default_value = "cpu")]
    pub device: DeviceKind,
    /// The linear layers' precision (its help is [`PRECISION_HELP`]).
    #[arg(long, default_value = "f32", help = PRECISION_HELP)]
    pub precision: Precision,
}

impl ComputeArgs {
    /// The two, checked together (bf16 is a CPU path); where bf16 was asked for and the CPU
    /// runs f32, a one-line notice on stderr, once per process.
    pub fn compute(&self) -> anyhow::Result<Compute> {
        lmbias_runs::compute(self.device, self.precision)
            .with_context(|| format!("--device {} --precision {}", self.device, self.precision))
    }
}
