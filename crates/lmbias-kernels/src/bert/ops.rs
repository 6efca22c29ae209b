//! The passes a layer is made of: linear layers, LayerNorm, column sums, residuals.

use rayon::prelude::*;

use super::layout::{Linear, Norm};
use crate::matmul::{Op, matmul};

/// `out = x · W + b` for the rows of `x`.
pub(super) fn linear_forward(
    out: &mut [f32],
    x: &[f32],
    p: &[Vec<f32>],
    lin: Linear<usize>,
    [rows, d_in, d_out]: [usize; 3],
) {
    matmul(
        out,
        x,
        Op::Plain,
        &p[lin.weight],
        Op::Plain,
        [rows, d_in, d_out],
        false,
    );
    let bias = &p[lin.bias];
    out.par_chunks_mut(d_out).for_each(|row| {
        row.iter_mut().zip(bias).for_each(|(y, b)| *y += b);
    });
}

/// From `dy` (the output's gradient) and `x` (the input): W's and b's gradients into
/// `grads`, and `dx = dy · Wᵀ` into `dx` (added to it with `accumulate`).
#[allow(clippy::too_many_arguments)]
pub(super) fn linear_backward(
    dx: &mut [f32],
    accumulate: bool,
    x: &[f32],
    dy: &[f32],
    p: &[Vec<f32>],
    grads: &mut [Vec<f32>],
    lin: Linear<usize>,
    [rows, d_in, d_out]: [usize; 3],
) {
    matmul(
        &mut grads[lin.weight],
        x,
        Op::Transposed,
        dy,
        Op::Plain,
        [d_in, rows, d_out],
        false,
    );
    column_sums(dy, d_out, &mut grads[lin.bias]);
    matmul(
        dx,
        dy,
        Op::Plain,
        &p[lin.weight],
        Op::Transposed,
        [rows, d_out, d_in],
        accumulate,
    );
}

/// `out[j] = Σ_r x[r, j]`.
pub(super) fn column_sums(x: &[f32], cols: usize, out: &mut [f32]) {
    const WIDTH: usize = 1024;
    if cols >= 4 * WIDTH {
        // Wide (the vocabulary): each task sums its columns over every row.
        out.par_chunks_mut(WIDTH).enumerate().for_each(|(c, out)| {
            out.fill(0.0);
            let start = c * WIDTH;
            for row in x.chunks(cols) {
                for (o, v) in out.iter_mut().zip(&row[start..]) {
                    *o += v;
                }
            }
        });
        return;
    }
    let partials: Vec<Vec<f32>> = x
        .par_chunks(ROWS * cols)
        .map(|block| {
            let mut sum = vec![0f32; cols];
            for row in block.chunks(cols) {
                sum.iter_mut().zip(row).for_each(|(s, v)| *s += v);
            }
            sum
        })
        .collect();
    out.fill(0.0);
    for sum in &partials {
        out.iter_mut().zip(sum).for_each(|(o, s)| *o += s);
    }
}

/// Rows per task of the sums over rows: fixed, so that the order of the additions (and so
/// their rounding) does not depend on the number of threads.
const ROWS: usize = 64;

pub(super) fn add_into(y: &mut [f32], x: &[f32]) {
    y.par_chunks_mut(1 << 14)
        .zip(x.par_chunks(1 << 14))
        .for_each(|(y, x)| y.iter_mut().zip(x).for_each(|(y, x)| *y += x));
}

/// LayerNorm of each row of `x` (width `h`) into `out`, keeping what the backward pass reads.
pub(super) fn norm_forward(
    x: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f64,
    out: &mut [f32],
    acts: &mut NormActs,
    h: usize,
) {
    let rows = x.len() / h;
    acts.xhat.resize(x.len(), 0.0);
    acts.rstd.resize(rows, 0.0);
    out.par_chunks_mut(h)
        .zip(acts.xhat.par_chunks_mut(h))
        .zip(acts.rstd.par_iter_mut())
        .zip(x.par_chunks(h))
        .for_each(|(((out, xhat), rstd), x)| {
            let mean = x.iter().sum::<f32>() / h as f32;
            let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
            let r = 1.0 / (f64::from(var) + eps).sqrt() as f32;
            *rstd = r;
            for j in 0..h {
                xhat[j] = (x[j] - mean) * r;
                out[j] = xhat[j] * gamma[j] + beta[j];
            }
        });
}

/// LayerNorm's backward pass: `dx` from `dy`, and the scale's and shift's gradients.
pub(super) fn norm_backward(
    dy: &[f32],
    acts: &NormActs,
    gamma: &[f32],
    dx: &mut [f32],
    grads: &mut [Vec<f32>],
    norm: Norm<usize>,
    h: usize,
) {
    {
        let partials: Vec<(Vec<f32>, Vec<f32>)> = dy
            .par_chunks(ROWS * h)
            .zip(acts.xhat.par_chunks(ROWS * h))
            .map(|(dy, xhat)| {
                let (mut dg, mut db) = (vec![0f32; h], vec![0f32; h]);
                for (dy, xhat) in dy.chunks(h).zip(xhat.chunks(h)) {
                    for j in 0..h {
                        dg[j] += dy[j] * xhat[j];
                        db[j] += dy[j];
                    }
                }
                (dg, db)
            })
            .collect();
        let (dgamma, dbeta) = two_mut(grads, norm.gamma, norm.beta);
        dgamma.fill(0.0);
        dbeta.fill(0.0);
        for (dg, db) in &partials {
            dgamma.iter_mut().zip(dg).for_each(|(o, s)| *o += s);
            dbeta.iter_mut().zip(db).for_each(|(o, s)| *o += s);
        }
    }
    dx.par_chunks_mut(h)
        .zip(dy.par_chunks(h))
        .zip(acts.xhat.par_chunks(h))
        .zip(acts.rstd.par_iter())
        .for_each(|(((dx, dy), xhat), &r)| {
            let (mut mean, mut mean_x) = (0f32, 0f32);
            for j in 0..h {
                let d = dy[j] * gamma[j];
                mean += d;
                mean_x += d * xhat[j];
            }
            mean /= h as f32;
            mean_x /= h as f32;
            for j in 0..h {
                dx[j] = r * (dy[j] * gamma[j] - mean - xhat[j] * mean_x);
            }
        });
}

pub(super) fn two_mut(v: &mut [Vec<f32>], i: usize, j: usize) -> (&mut [f32], &mut [f32]) {
    assert_ne!(i, j, "two distinct parameters");
    if i < j {
        let (a, b) = v.split_at_mut(j);
        (&mut a[i], &mut b[0])
    } else {
        let (a, b) = v.split_at_mut(i);
        (&mut b[0], &mut a[j])
    }
}

/// A LayerNorm's normalised input and reciprocal deviation per row.
#[derive(Default)]
pub(super) struct NormActs {
    xhat: Vec<f32>,
    rstd: Vec<f32>,
}

/// `v` with `n` elements, its allocation kept from step to step (the values are
/// whatever was there: every user overwrites them).
pub(super) fn sized(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    v.resize(n, 0.0);
    &mut v[..n]
}
