//! The AVX512-BF16 kernel: `vdpbf16ps` adds, in each of 16 f32 lanes, the products of two
//! bf16 pairs. A pair of inputs `(x[r][2q], x[r][2q+1])` is broadcast to every lane and
//! multiplied with 16 columns' pairs of weights at once; a tile of 12 rows × 32 columns
//! keeps its 24 accumulators in registers across a block of input pairs.
//!
//! With the `onednn` feature only [`to_pairs`], the rounding of the input to bf16, is
//! compiled: oneDNN runs the product.

#[cfg(not(feature = "onednn"))]
use crate::bf16::PANEL;
#[cfg(not(feature = "onednn"))]
use std::arch::x86_64::{
    __m512, __m512bh, _mm512_dpbf16_ps, _mm512_loadu_si512, _mm512_mask_storeu_ps,
    _mm512_set1_epi32, _mm512_setzero_ps,
};
use std::arch::x86_64::{
    __m512i, _mm512_cvtne2ps_pbh, _mm512_mask_storeu_epi32, _mm512_maskz_loadu_ps,
};

#[cfg(not(feature = "onednn"))]
/// 16-lane registers per tile row.
const VECTORS: usize = PANEL / 16;

#[cfg(not(feature = "onednn"))]
/// Rows per tile: 12 × 2 accumulators, 2 weight registers and a broadcast fill 27 of the
/// 32 vector registers.
const TILE_ROWS: usize = 12;

#[cfg(not(feature = "onednn"))]
/// Input pairs per block: a panel's weights for one block (192 × 128 B = 24 KiB) stay in
/// the L1 cache while every row tile passes over them.
const BLOCK_PAIRS: usize = 192;

#[cfg(not(feature = "onednn"))]
/// One product, `out = x · W + bias`, with `W` packed as [`crate::bf16::Linear`] packs it.
pub(crate) struct Gemm<'a> {
    /// `[rows, in_features]`, f32.
    pub(crate) x: &'a [f32],
    pub(crate) rows: usize,
    pub(crate) in_features: usize,
    /// `in_features` rounded up to pairs.
    pub(crate) pairs: usize,
    /// `[panels][pairs][PANEL]`.
    pub(crate) packed: &'a [u32],
    /// `[out_features]`.
    pub(crate) bias: Option<&'a [f32]>,
    /// `[rows, out_features]`.
    /// Written, never read, by the first block of input pairs (so it may start uninitialised).
    pub(crate) out: &'a mut [std::mem::MaybeUninit<f32>],
    pub(crate) out_features: usize,
}

#[cfg(not(feature = "onednn"))]
/// What a tile's accumulators start from.
#[derive(Clone, Copy)]
enum Init {
    Zero,
    /// The bias of the tile's 32 columns.
    Bias(*const f32),
    /// The output so far (every block after the first).
    Accumulate,
}

#[cfg(not(feature = "onednn"))]
/// One tile's operands: `R` rows of inputs from `a`, one panel's block of weights from `b`,
/// 32 columns of output at `c` (the lanes past the last column masked off).
struct Tile {
    /// The tile's first row of pairs of inputs, the next `a_stride` on.
    a: *const u32,
    a_stride: usize,
    b: *const u32,
    pairs: usize,
    c: *mut f32,
    c_stride: usize,
    masks: [u16; VECTORS],
    init: Init,
}

#[cfg(not(feature = "onednn"))]
/// Runs the product.
///
/// # Safety
/// The CPU has AVX512-F and AVX512-BF16, and the slices have the lengths the fields state.
#[target_feature(enable = "avx512f,avx512bf16")]
pub(crate) unsafe fn gemm(g: Gemm<'_>) {
    // SAFETY: the caller's.
    let a = unsafe { to_pairs(g.x, g.rows, g.in_features, g.pairs) };
    let panels = g.out_features.div_ceil(PANEL);
    for start in (0..g.pairs).step_by(BLOCK_PAIRS) {
        let pairs = BLOCK_PAIRS.min(g.pairs - start);
        for panel in 0..panels {
            let cols = PANEL.min(g.out_features - panel * PANEL);
            let init = match (start, g.bias) {
                (0, Some(bias)) => Init::Bias(bias.as_ptr().wrapping_add(panel * PANEL)),
                (0, None) => Init::Zero,
                _ => Init::Accumulate,
            };
            let mut row = 0;
            while row < g.rows {
                let rows = TILE_ROWS.min(g.rows - row);
                let operands = Tile {
                    a: a.as_ptr().wrapping_add(row * g.pairs + start),
                    a_stride: g.pairs,
                    b: g.packed
                        .as_ptr()
                        .wrapping_add((panel * g.pairs + start) * PANEL),
                    pairs,
                    c: g.out
                        .as_mut_ptr()
                        .cast::<f32>()
                        .wrapping_add(row * g.out_features + panel * PANEL),
                    c_stride: g.out_features,
                    masks: std::array::from_fn(|v| lanes(cols.saturating_sub(16 * v))),
                    init,
                };
                // SAFETY: the tile lies inside the slices (rows ≤ TILE_ROWS left, the
                // panel padded to PANEL columns, the output's extra lanes masked).
                unsafe {
                    match rows {
                        12 => tile::<12>(&operands),
                        11 => tile::<11>(&operands),
                        10 => tile::<10>(&operands),
                        9 => tile::<9>(&operands),
                        8 => tile::<8>(&operands),
                        7 => tile::<7>(&operands),
                        6 => tile::<6>(&operands),
                        5 => tile::<5>(&operands),
                        4 => tile::<4>(&operands),
                        3 => tile::<3>(&operands),
                        2 => tile::<2>(&operands),
                        _ => tile::<1>(&operands),
                    }
                }
                row += rows;
            }
        }
    }
}

/// The mask of the first `n` of 16 lanes.
fn lanes(n: usize) -> u16 {
    match n {
        0 => 0,
        n if n >= 16 => u16::MAX,
        n => (1u16 << n) - 1,
    }
}

/// `x` rounded to bf16 (to nearest even, by `vcvtne2ps2bf16`, which reads denormals as
/// zero), each row's values in pairs: a `u32` each, the even one low, an odd row's last pair
/// zero-padded; `[rows][pairs]`.
///
/// # Safety
/// The CPU has AVX512-F and AVX512-BF16, and `x` holds `rows · in_features` values.
#[target_feature(enable = "avx512f,avx512bf16")]
pub(crate) unsafe fn to_pairs(
    x: &[f32],
    rows: usize,
    in_features: usize,
    pairs: usize,
) -> Vec<u32> {
    let mut a: Vec<u32> = Vec::with_capacity(rows * pairs);
    // SAFETY: the caller's; every load and store is masked to its row, and the stores
    // write each of the `rows * pairs` slots once before `set_len`.
    unsafe {
        for r in 0..rows {
            let src = x.as_ptr().add(r * in_features);
            let dst = a.as_mut_ptr().add(r * pairs);
            for j in (0..in_features).step_by(32) {
                let n = (in_features - j).min(32);
                let lo = _mm512_maskz_loadu_ps(lanes(n), src.add(j));
                let hi =
                    _mm512_maskz_loadu_ps(lanes(n.saturating_sub(16)), src.wrapping_add(j + 16));
                let both: __m512i = std::mem::transmute(_mm512_cvtne2ps_pbh(hi, lo));
                _mm512_mask_storeu_epi32(dst.add(j / 2).cast(), lanes(n.div_ceil(2)), both);
            }
        }
        a.set_len(rows * pairs);
    }
    a
}

#[cfg(not(feature = "onednn"))]
/// One tile: `R` rows × 32 columns over `t.pairs` input pairs.
///
/// # Safety
/// As [`gemm`]'s, for the tile's rows, block and columns.
#[target_feature(enable = "avx512f,avx512bf16")]
#[inline]
unsafe fn tile<const R: usize>(t: &Tile) {
    let masks = t.masks;
    let mut acc = [[_mm512_setzero_ps(); VECTORS]; R];
    // SAFETY (the whole body): the caller's; masked lanes are never read or written.
    unsafe {
        match t.init {
            Init::Zero => {}
            Init::Bias(bias) => {
                let row = std::array::from_fn(|v| {
                    _mm512_maskz_loadu_ps(masks[v], bias.wrapping_add(16 * v))
                });
                acc = [row; R];
            }
            Init::Accumulate => {
                for (r, acc) in acc.iter_mut().enumerate() {
                    let c = t.c.wrapping_add(r * t.c_stride);
                    *acc = std::array::from_fn(|v| {
                        _mm512_maskz_loadu_ps(masks[v], c.wrapping_add(16 * v))
                    });
                }
            }
        }
        for q in 0..t.pairs {
            let w = t.b.add(q * PANEL);
            let weights: [__m512bh; VECTORS] = std::array::from_fn(|v| {
                std::mem::transmute(_mm512_loadu_si512(w.add(16 * v).cast()))
            });
            for (r, acc) in acc.iter_mut().enumerate() {
                let pair = *t.a.add(r * t.a_stride + q);
                let x: __m512bh = std::mem::transmute(_mm512_set1_epi32(pair as i32));
                for (acc, w) in acc.iter_mut().zip(&weights) {
                    *acc = _mm512_dpbf16_ps(*acc, x, *w);
                }
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            let c = t.c.wrapping_add(r * t.c_stride);
            for (v, acc) in acc.iter().enumerate() {
                store(c.wrapping_add(16 * v), masks[v], *acc);
            }
        }
    }
}

#[cfg(not(feature = "onednn"))]
/// The lanes of `mask` of `v` to `at`.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store(at: *mut f32, mask: u16, v: __m512) {
    // SAFETY: the caller's: the unmasked lanes lie in the output.
    unsafe { _mm512_mask_storeu_ps(at, mask, v) }
}
