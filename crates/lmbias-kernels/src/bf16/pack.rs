//! A linear layer whose weight is stored once in bf16, packed in the order the kernel
//! reads it (or, with the `onednn` feature, in the layout oneDNN's matmul reads).

use crate::bf16::Bf16Units;
#[cfg(not(feature = "onednn"))]
use crate::bf16::PANEL;
#[cfg(not(feature = "onednn"))]
use crate::bf16::convert::{bf16_to_f32, f32_to_bf16};

/// A layer whose shape and values disagree.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// The weight or the bias has the wrong number of values.
    #[error("{what} has {len} values, expected {expected}")]
    Length {
        /// `weight` or `bias`.
        what: &'static str,
        /// Values given.
        len: usize,
        /// Values the shape needs.
        expected: usize,
    },
    /// No inputs or no outputs.
    #[error("a layer of {in_features} inputs and {out_features} outputs is empty")]
    Empty {
        /// Inputs per row.
        in_features: usize,
        /// Outputs per row.
        out_features: usize,
    },
    /// oneDNN refused the layer (the `onednn` feature; never returned without it).
    #[error("oneDNN's {call} failed: {status}")]
    OneDnn {
        /// The call that failed, e.g. `dnnl_primitive_desc_create`.
        call: String,
        /// oneDNN's name of its status, e.g. `unimplemented`.
        status: String,
    },
}

/// `x · W + b` on the CPU's bf16 units, `W` `[in, out]` kept in bf16 only.
///
/// Packing: the output columns in panels of 32 (the last padded with zeros), and within a
/// panel, for each pair of input rows `(2q, 2q + 1)`, 32 lanes each holding that pair's two
/// bf16 weights of one column (low half the even row): exactly the operand `vdpbf16ps`
/// multiplies with a pair of inputs broadcast to every lane.
///
/// With the `onednn` feature the product is oneDNN's matmul instead (oneDNN 2.x, found at
/// build time): the weights are reordered once, here, into the layout it prefers, and it
/// picks the instructions itself (AVX512-BF16, or AMX on Intel Sapphire Rapids and later).
/// The input is rounded to bf16 as without it; only the order of the f32 additions differs,
/// and weights below f32's normal range (|w| < 2⁻¹²⁶) are stored as 0 (oneDNN's conversion
/// reads them as zero, as `vcvtne2ps2bf16` reads the input's).
/// A [`Bf16Units`] is still required: oneDNN would emulate bf16 on a CPU without them.
#[derive(Debug, Clone)]
pub struct Linear {
    units: Bf16Units,
    in_features: usize,
    out_features: usize,
    /// `[panel][pair][lane]`, each a `u32` of two bf16.
    #[cfg(not(feature = "onednn"))]
    packed: Vec<u32>,
    /// oneDNN's copy of the weight and bias, shared by clones.
    #[cfg(feature = "onednn")]
    onednn: std::sync::Arc<crate::bf16::onednn::Weights>,
    bias: Option<Vec<f32>>,
}

impl Linear {
    /// `weight` is `[in_features, out_features]`, row-major (Burn's `Linear` layout); each
    /// value is rounded to bf16 (to nearest, ties to even). The bias stays f32, as
    /// autocast keeps it.
    ///
    /// # Errors
    /// [`ShapeError::Length`] or [`ShapeError::Empty`] where the shape and the values
    /// disagree; with the `onednn` feature, [`ShapeError::OneDnn`] where oneDNN refuses the
    /// layer.
    pub fn new(
        units: Bf16Units,
        weight: &[f32],
        in_features: usize,
        out_features: usize,
        bias: Option<&[f32]>,
    ) -> Result<Self, ShapeError> {
        if in_features == 0 || out_features == 0 {
            return Err(ShapeError::Empty {
                in_features,
                out_features,
            });
        }
        let check = |what, len, expected| {
            (len == expected).then_some(()).ok_or(ShapeError::Length {
                what,
                len,
                expected,
            })
        };
        check("weight", weight.len(), in_features * out_features)?;
        if let Some(bias) = bias {
            check("bias", bias.len(), out_features)?;
        }
        Ok(Self {
            units,
            in_features,
            out_features,
            #[cfg(not(feature = "onednn"))]
            packed: pack(weight, in_features, out_features),
            #[cfg(feature = "onednn")]
            onednn: std::sync::Arc::new(crate::bf16::onednn::Weights::new(
                weight,
                in_features,
                out_features,
                bias,
            )?),
            bias: bias.map(<[f32]>::to_vec),
        })
    }

    /// Width of an input row.
    pub fn in_features(&self) -> usize {
        self.in_features
    }

    /// Width of an output row.
    pub fn out_features(&self) -> usize {
        self.out_features
    }

    /// What runs the product: `lmbias avx512_bf16` (this crate's kernel), or with the
    /// `onednn` feature oneDNN's version and the implementation it chose for this shape, e.g.
    /// `oneDNN 2.6.3 brg:avx512_core_bf16`. For notices and reports.
    pub fn engine(&self) -> String {
        #[cfg(feature = "onednn")]
        {
            self.onednn.engine()
        }
        #[cfg(not(feature = "onednn"))]
        {
            format!("lmbias {}", self.units.isa())
        }
    }

    /// The weight as stored, `[in, out]` in f32 (each value exactly its bf16), and the
    /// bias: what an export of this layer writes.
    #[cfg(feature = "onednn")]
    pub fn weight(&self) -> Vec<f32> {
        self.onednn.weight()
    }

    /// The weight as stored, `[in, out]` in f32 (each value exactly its bf16), and the
    /// bias: what an export of this layer writes.
    #[cfg(not(feature = "onednn"))]
    pub fn weight(&self) -> Vec<f32> {
        let pairs = self.in_features.div_ceil(2);
        let mut weight = vec![0f32; self.in_features * self.out_features];
        for (row, values) in weight.chunks_exact_mut(self.out_features).enumerate() {
            for (col, value) in values.iter_mut().enumerate() {
                let slot = self.packed[(col / PANEL * pairs + row / 2) * PANEL + col % PANEL];
                *value = bf16_to_f32((slot >> (16 * (row % 2))) as u16);
            }
        }
        weight
    }

    /// The bias, f32.
    pub fn bias(&self) -> Option<&[f32]> {
        self.bias.as_deref()
    }

    /// `x` `[rows, in_features]` (row-major; `rows` is `x.len() / in_features`) times the
    /// weight, plus the bias: `[rows, out_features]`.
    ///
    /// May run on several threads at once; each call runs on its own thread alone.
    ///
    /// # Panics
    /// If `x.len()` is not a multiple of `in_features` (a caller's bug, not a user's input).
    /// With the `onednn` feature, also if oneDNN fails to make or run the product of this
    /// many rows after it accepted the layer: a bug (or memory exhausted), not a user's input.
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        assert!(
            x.len().is_multiple_of(self.in_features),
            "input of {} values is not rows of {}",
            x.len(),
            self.in_features
        );
        let rows = x.len() / self.in_features;
        self.product(x, rows)
    }

    #[cfg(all(target_arch = "x86_64", feature = "onednn"))]
    fn product(&self, x: &[f32], rows: usize) -> Vec<f32> {
        let _ = self.units;
        let pairs = self.in_features.div_ceil(2);
        // SAFETY: `self.units` proves AVX512-F and AVX512-BF16 (see `Bf16Units::detect`);
        // `x` holds `rows · in_features` values.
        let src = unsafe { crate::bf16::avx512::to_pairs(x, rows, self.in_features, pairs) };
        if self.in_features.is_multiple_of(2) {
            // SAFETY: each `u32` is two bf16, the even column's in its low half, which on
            // x86-64 (little-endian) is the first in memory: `src` is then `rows · in`
            // bf16, row-major, and `u16`'s alignment divides `u32`'s.
            let src = unsafe { std::slice::from_raw_parts(src.as_ptr().cast(), 2 * src.len()) };
            self.onednn.product(src, rows)
        } else {
            // Rows of an odd width, without `to_pairs`' zero at the end of each: oneDNN
            // runs a slower implementation on rows padded apart.
            let src: Vec<u16> = src
                .chunks_exact(pairs)
                .flat_map(|row| {
                    row.iter()
                        .flat_map(|&pair| [pair as u16, (pair >> 16) as u16])
                        .take(self.in_features)
                })
                .collect();
            self.onednn.product(&src, rows)
        }
    }

    #[cfg(all(target_arch = "x86_64", not(feature = "onednn")))]
    fn product(&self, x: &[f32], rows: usize) -> Vec<f32> {
        let _ = self.units;
        let len = rows * self.out_features;
        let mut out: Vec<f32> = Vec::with_capacity(len);
        // SAFETY: `self.units` proves AVX512-F and AVX512-BF16 (see `Bf16Units::detect`);
        // the slices have the lengths `Gemm` states; the kernel's first block of input pairs
        // writes every output value (there is one: `in_features > 0`), so none is read
        // before it is written, and `set_len` follows.
        unsafe {
            crate::bf16::avx512::gemm(crate::bf16::avx512::Gemm {
                x,
                rows,
                in_features: self.in_features,
                pairs: self.in_features.div_ceil(2),
                packed: &self.packed,
                bias: self.bias.as_deref(),
                out: &mut out.spare_capacity_mut()[..len],
                out_features: self.out_features,
            });
            out.set_len(len);
        }
        out
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn product(&self, _x: &[f32], _rows: usize) -> Vec<f32> {
        match self.units.never {}
    }
}

/// `weight` `[in, out]` packed for the kernel: `[panel][pair][lane]`, each a `u32` of two
/// bf16, the last panel and an odd last pair padded with zeros.
#[cfg(not(feature = "onednn"))]
fn pack(weight: &[f32], in_features: usize, out_features: usize) -> Vec<u32> {
    let pairs = in_features.div_ceil(2);
    let panels = out_features.div_ceil(PANEL);
    let mut packed = vec![0u32; panels * pairs * PANEL];
    let at = |row: usize, col: usize| -> u32 {
        if row < in_features && col < out_features {
            u32::from(f32_to_bf16(weight[row * out_features + col]))
        } else {
            0
        }
    };
    for (panel, block) in packed.chunks_exact_mut(pairs * PANEL).enumerate() {
        for (pair, lanes) in block.chunks_exact_mut(PANEL).enumerate() {
            for (lane, slot) in lanes.iter_mut().enumerate() {
                let col = panel * PANEL + lane;
                *slot = at(2 * pair, col) | (at(2 * pair + 1, col) << 16);
            }
        }
    }
    packed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bf16::convert::{bf16_to_f32, f32_to_bf16};

    /// Deterministic values in [-1, 1).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
            })
            .collect()
    }

    fn round(v: f32) -> f64 {
        f64::from(bf16_to_f32(f32_to_bf16(v)))
    }

    /// The kernel against the same product in f64 on the bf16-rounded operands: only the
    /// f32 accumulation differs, so the error is f32's, far below bf16's 2^-8.
    #[test]
    fn matches_the_product_of_the_rounded_operands() {
        let Some(units) = Bf16Units::detect() else {
            eprintln!("no AVX512-BF16 on this CPU: the kernel is not run");
            return;
        };
        // Odd widths, rows not a multiple of the tile, more pairs than one block, a last
        // panel of 1, 17 and 31 columns, with and without bias.
        for (rows, k, n, with_bias) in [
            (1, 1, 1, true),
            (13, 7, 17, false),
            (25, 801, 65, true),
            (12, 384, 31, true),
            (5, 2, 33, false),
        ] {
            let x = values(rows * k, 1 + k as u64);
            let w = values(k * n, 2 + n as u64);
            let b = values(n, 3);
            let bias = with_bias.then_some(b.as_slice());
            let layer = Linear::new(units, &w, k, n, bias).unwrap();
            let out = layer.forward(&x);
            assert_eq!(out.len(), rows * n);
            for r in 0..rows {
                for c in 0..n {
                    let mut want = bias.map_or(0.0, |b| f64::from(b[c]));
                    let mut scale = want.abs();
                    for i in 0..k {
                        let term = round(x[r * k + i]) * round(w[i * n + c]);
                        want += term;
                        scale += term.abs();
                    }
                    let got = f64::from(out[r * n + c]);
                    assert!(
                        (got - want).abs() <= 1e-6 * scale.max(1.0),
                        "{rows}×{k}×{n} at ({r}, {c}): {got} vs {want}"
                    );
                }
            }
            // The weight reads back as its bf16 values.
            let stored = layer.weight();
            assert!(
                stored
                    .iter()
                    .zip(&w)
                    .all(|(s, w)| f64::from(*s) == round(*w))
            );
        }
    }

    #[test]
    fn shapes_are_checked() {
        let Some(units) = Bf16Units::detect() else {
            return;
        };
        let err = Linear::new(units, &[0.0; 5], 2, 3, None).unwrap_err();
        assert_eq!(err.to_string(), "weight has 5 values, expected 6");
        let err = Linear::new(units, &[0.0; 6], 2, 3, Some(&[0.0; 2])).unwrap_err();
        assert_eq!(err.to_string(), "bias has 2 values, expected 3");
        let err = Linear::new(units, &[], 0, 3, None).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a layer of 0 inputs and 3 outputs is empty"
        );
    }

    /// Layers are shared by the threads of a pool: calls at once, of different row counts
    /// (with the `onednn` feature, the first of each making its matmul while others run),
    /// give what calls one at a time give.
    #[test]
    fn calls_on_several_threads_agree_with_one_at_a_time() {
        let Some(units) = Bf16Units::detect() else {
            return;
        };
        let (k, n) = (96, 80);
        let layer = Linear::new(units, &values(k * n, 5), k, n, Some(&values(n, 6))).unwrap();
        let inputs: Vec<Vec<f32>> = (1..=12).map(|rows| values(rows * k, rows as u64)).collect();
        let at_once: Vec<Vec<(usize, Vec<f32>)>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|shift| {
                    let (layer, inputs) = (&layer, &inputs);
                    scope.spawn(move || {
                        (0..inputs.len() * 3)
                            .map(|round| {
                                let i = (round + shift * 5) % inputs.len();
                                (i, layer.forward(&inputs[i]))
                            })
                            .collect()
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        let alone: Vec<Vec<f32>> = inputs.iter().map(|x| layer.forward(x)).collect();
        for (i, out) in at_once.iter().flatten() {
            assert_eq!(*out, alone[*i], "{} rows", i + 1);
        }
        // No rows, no output.
        assert!(layer.forward(&[]).is_empty());
    }

    #[test]
    fn names_its_engine() {
        let Some(units) = Bf16Units::detect() else {
            return;
        };
        let engine = Linear::new(units, &[1.0; 6], 2, 3, None).unwrap().engine();
        if cfg!(feature = "onednn") {
            assert!(engine.starts_with("oneDNN 2."), "{engine}");
        } else {
            assert_eq!(engine, "lmbias avx512_bf16");
        }
    }
}
