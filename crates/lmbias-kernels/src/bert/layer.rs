//! One encoder layer, forward and backward, with the attention's per-head products.

use rayon::prelude::*;

use super::dropout::{Drop, apply_drop};
use super::layout::{Layer, Sizes};
use super::ops::{
    NormActs, add_into, linear_backward, linear_forward, norm_backward, norm_forward, sized,
};
use crate::math::{exp, gelu_with_slope};
use crate::matmul::{Mat, MatMut, product};

/// What one layer's backward pass reads.
#[derive(Default)]
pub(super) struct LayerActs {
    /// The layer's input `[t, h]`.
    pub(super) x: Vec<f32>,
    pub(super) q: Vec<f32>,
    pub(super) k: Vec<f32>,
    pub(super) v: Vec<f32>,
    /// Attention probabilities before dropout, and after, `[b, heads, s, s]`.
    pub(super) p: Vec<f32>,
    pub(super) pd: Vec<f32>,
    pub(super) p_drop: Option<Drop>,
    pub(super) ctx: Vec<f32>,
    pub(super) attention_drop: Option<Drop>,
    pub(super) norm1: NormActs,
    /// The attention block's output (LN1's) `[t, h]`.
    pub(super) y1: Vec<f32>,
    /// GELU's output and slope `[t, f]`.
    pub(super) g: Vec<f32>,
    pub(super) slope: Vec<f32>,
    pub(super) output_drop: Option<Drop>,
    pub(super) norm2: NormActs,
}

/// Temporaries of one layer at a time: `[t, h]` (`t1` … `t4`, the attention's three
/// gradients) and `[t, f]` (`wide`).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) t1: Vec<f32>,
    pub(super) t2: Vec<f32>,
    pub(super) t3: Vec<f32>,
    pub(super) t4: Vec<f32>,
    pub(super) wide: Vec<f32>,
    pub(super) dq: Vec<f32>,
    pub(super) dk: Vec<f32>,
    pub(super) dv: Vec<f32>,
}

/// One layer forward, from `a.x` into `out`, keeping what its backward pass reads.
#[allow(clippy::too_many_arguments)]
pub(super) fn layer_forward(
    a: &mut LayerActs,
    w: Layer<usize>,
    sizes: Sizes,
    p: &[Vec<f32>],
    out: &mut Vec<f32>,
    sc: &mut Scratch,
    s: usize,
) {
    let (h, f, nh) = (sizes.hidden, sizes.intermediate, sizes.heads);
    let t = a.x.len() / h;
    let b = t / s;
    for (buf, lin) in [(&mut a.q, w.query), (&mut a.k, w.key), (&mut a.v, w.value)] {
        linear_forward(sized(buf, t * h), &a.x, p, lin, [t, h, h]);
    }
    sized(&mut a.p, b * nh * s * s);
    sized(&mut a.pd, b * nh * s * s);
    sized(&mut a.ctx, t * h);
    attention_forward(a, s, h, nh);

    let y = sized(&mut sc.t1, t * h);
    linear_forward(y, &a.ctx, p, w.attention_output, [t, h, h]);
    apply_drop(y, &a.attention_drop);
    add_into(y, &a.x);
    let norm = w.attention_norm;
    norm_forward(
        y,
        &p[norm.gamma],
        &p[norm.beta],
        sizes.layer_norm_eps,
        sized(&mut a.y1, t * h),
        &mut a.norm1,
        h,
    );

    let inter = sized(&mut sc.wide, t * f);
    linear_forward(inter, &a.y1, p, w.intermediate, [t, h, f]);
    sized(&mut a.g, t * f);
    sized(&mut a.slope, t * f);
    inter
        .par_chunks(1 << 14)
        .zip(a.g.par_chunks_mut(1 << 14))
        .zip(a.slope.par_chunks_mut(1 << 14))
        .for_each(|((x, g), d)| gelu_with_slope(x, g, d));

    let o = sized(&mut sc.t2, t * h);
    linear_forward(o, &a.g, p, w.output, [t, f, h]);
    apply_drop(o, &a.output_drop);
    add_into(o, &a.y1);
    let norm = w.output_norm;
    norm_forward(
        o,
        &p[norm.gamma],
        &p[norm.beta],
        sizes.layer_norm_eps,
        sized(out, t * h),
        &mut a.norm2,
        h,
    );
}

/// One layer backward: from its output's gradient `dy`, its input's into `dx`.
#[allow(clippy::too_many_arguments)]
pub(super) fn layer_backward(
    a: &LayerActs,
    w: Layer<usize>,
    sizes: Sizes,
    p: &[Vec<f32>],
    grads: &mut [Vec<f32>],
    dy: &[f32],
    dx: &mut Vec<f32>,
    sc: &mut Scratch,
    s: usize,
) {
    let (h, f, nh) = (sizes.hidden, sizes.intermediate, sizes.heads);
    let t = dy.len() / h;
    // LN2, then the feed-forward; its input y1 also takes the residual's gradient.
    let dr2 = sized(&mut sc.t1, t * h);
    norm_backward(
        dy,
        &a.norm2,
        &p[w.output_norm.gamma],
        dr2,
        grads,
        w.output_norm,
        h,
    );
    let dout = sized(&mut sc.t2, t * h);
    dout.copy_from_slice(dr2);
    apply_drop(dout, &a.output_drop);
    let dg = sized(&mut sc.wide, t * f);
    linear_backward(dg, false, &a.g, dout, p, grads, w.output, [t, f, h]);
    dg.par_chunks_mut(1 << 14)
        .zip(a.slope.par_chunks(1 << 14))
        .for_each(|(d, s)| d.iter_mut().zip(s).for_each(|(d, s)| *d *= s));
    let dy1 = &mut sc.t1;
    linear_backward(
        dy1,
        true,
        &a.y1,
        &sc.wide,
        p,
        grads,
        w.intermediate,
        [t, h, f],
    );

    // LN1, then the attention; its input x also takes the residual's gradient.
    let dr1 = sized(&mut sc.t3, t * h);
    norm_backward(
        &sc.t1,
        &a.norm1,
        &p[w.attention_norm.gamma],
        dr1,
        grads,
        w.attention_norm,
        h,
    );
    let dao = sized(&mut sc.t2, t * h);
    dao.copy_from_slice(dr1);
    apply_drop(dao, &a.attention_drop);
    let dctx = sized(&mut sc.t4, t * h);
    linear_backward(
        dctx,
        false,
        &a.ctx,
        dao,
        p,
        grads,
        w.attention_output,
        [t, h, h],
    );
    let (dq, dk, dv) = (
        sized(&mut sc.dq, t * h),
        sized(&mut sc.dk, t * h),
        sized(&mut sc.dv, t * h),
    );
    attention_backward(a, &sc.t4, dq, dk, dv, s, h, nh);
    let dx = sized(dx, t * h);
    dx.copy_from_slice(&sc.t3);
    for (d, lin) in [(&sc.dq, w.query), (&sc.dk, w.key), (&sc.dv, w.value)] {
        linear_backward(dx, true, &a.x, d, p, grads, lin, [t, h, h]);
    }
}

/// Scaled dot-product attention per sequence and head: probabilities (kept, and
/// after dropout) and the context `[t, h]`. One task per sequence; a head's
/// products read its columns of Q, K and V in place.
pub(super) fn attention_forward(a: &mut LayerActs, s: usize, h: usize, nh: usize) {
    let d = h / nh;
    let scale = 1.0 / (d as f32).sqrt();
    let (q, k, v) = (&a.q, &a.k, &a.v);
    let drop = &a.p_drop;
    a.ctx
        .par_chunks_mut(s * h)
        .zip(a.p.par_chunks_mut(nh * s * s))
        .zip(a.pd.par_chunks_mut(nh * s * s))
        .enumerate()
        .for_each(|(bi, ((ctx, p), pd))| {
            let r0 = bi * s * h;
            for head in 0..nh {
                let (off, at) = (r0 + head * d, head * s * s);
                // Scores Q Kᵀ / √d into the probabilities' place.
                product(
                    MatMut::new(p, at, [s, s], s),
                    Mat::new(q, off, [s, d], [h, 1]),
                    Mat::new(k, off, [d, s], [1, h]),
                    scale,
                    false,
                    false,
                );
                for i in 0..s {
                    let row = &mut p[at + i * s..][..s];
                    let max = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
                    let mut sum = 0f32;
                    for x in row.iter_mut() {
                        *x = exp(*x - max);
                        sum += *x;
                    }
                    let inv = 1.0 / sum;
                    row.iter_mut().for_each(|x| *x *= inv);
                    let kept = &mut pd[at + i * s..][..s];
                    match drop {
                        Some(dr) => {
                            let mask = &dr.mask[bi * nh * s * s + at + i * s..][..s];
                            for j in 0..s {
                                kept[j] = row[j] * mask[j] * dr.scale;
                            }
                        }
                        None => kept.copy_from_slice(row),
                    }
                }
                product(
                    MatMut::new(ctx, head * d, [s, d], h),
                    Mat::new(pd, at, [s, s], [s, 1]),
                    Mat::new(v, off, [s, d], [h, 1]),
                    1.0,
                    false,
                    false,
                );
            }
        });
}

/// The attention's backward pass: the gradients of the queries, keys and values.
#[allow(clippy::too_many_arguments)]
pub(super) fn attention_backward(
    a: &LayerActs,
    dctx: &[f32],
    dq: &mut [f32],
    dk: &mut [f32],
    dv: &mut [f32],
    s: usize,
    h: usize,
    nh: usize,
) {
    let d = h / nh;
    let scale = 1.0 / (d as f32).sqrt();
    dq.par_chunks_mut(s * h)
        .zip(dk.par_chunks_mut(s * h))
        .zip(dv.par_chunks_mut(s * h))
        .enumerate()
        .for_each(|(bi, ((dq, dk), dv))| {
            let r0 = bi * s * h;
            let mut ds = vec![0f32; s * s];
            for head in 0..nh {
                let (off, col) = (r0 + head * d, head * d);
                let at = bi * nh * s * s + head * s * s;
                // dV = Pdᵀ dC; dPd = dC Vᵀ.
                product(
                    MatMut::new(dv, col, [s, d], h),
                    Mat::new(&a.pd, at, [s, s], [1, s]),
                    Mat::new(dctx, off, [s, d], [h, 1]),
                    1.0,
                    false,
                    false,
                );
                product(
                    MatMut::new(&mut ds, 0, [s, s], s),
                    Mat::new(dctx, off, [s, d], [h, 1]),
                    Mat::new(&a.v, off, [d, s], [1, h]),
                    1.0,
                    false,
                    false,
                );
                // Through dropout and the softmax: dS = P ∘ (dP − rowsum(P ∘ dP)).
                for i in 0..s {
                    let p = &a.p[at + i * s..][..s];
                    let dp = &mut ds[i * s..][..s];
                    if let Some(dr) = &a.p_drop {
                        let mask = &dr.mask[at + i * s..][..s];
                        for j in 0..s {
                            dp[j] = dp[j] * mask[j] * dr.scale;
                        }
                    }
                    let dot = p.iter().zip(dp.iter()).map(|(x, y)| x * y).sum::<f32>();
                    for j in 0..s {
                        dp[j] = p[j] * (dp[j] - dot);
                    }
                }
                // dQ = dS K / √d; dK = dSᵀ Q / √d.
                product(
                    MatMut::new(dq, col, [s, d], h),
                    Mat::new(&ds, 0, [s, s], [s, 1]),
                    Mat::new(&a.k, off, [s, d], [h, 1]),
                    scale,
                    false,
                    false,
                );
                product(
                    MatMut::new(dk, col, [s, d], h),
                    Mat::new(&ds, 0, [s, s], [1, s]),
                    Mat::new(&a.q, off, [s, d], [h, 1]),
                    scale,
                    false,
                    false,
                );
            }
        });
}
