//! Numerics on host slices for lmbias's CPU paths, with no Burn: the masked-LM
//! training step of a plain BERT written out by hand ([`bert::Step`]), AdamW
//! with the clipping fused in ([`AdamW`]), and the branch-free `exp`, `erf` and
//! GELU their loops need ([`math`]), and the matrix products of the opt-in bf16 forward
//! pass on the CPU's bf16 units ([`bf16`]).
//!
//! Why by hand: Burn's graph made a training step four passes over memory where
//! one does (zero-filled product outputs, an optimizer pass per elementwise
//! operation, one lock around the backward pass), and ran at 0.45× PyTorch
//! (docs/benchmarks.md). Here each product writes its output directly and every
//! elementwise pass is split across the cores.

mod adamw;
pub mod bert;
pub mod bf16;
pub mod math;
mod matmul;

pub use adamw::AdamW;
pub use matmul::{Op, matmul};
