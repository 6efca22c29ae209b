//! One training step of `BertForMaskedLM` (the loss at the chosen positions
//! only) written out by hand: the forward pass keeps what the backward pass
//! reads, the backward pass writes every gradient once. The network is the one
//! lmbias-model's Burn module computes, in the same order of operations, with
//! its dropout masks drawn by the caller from the same generator, so the two
//! give the same numbers to float rounding (lmbias-model's tests hold them to it).

mod dropout;
mod layer;
mod layout;
mod ops;
#[cfg(test)]
mod tests;

use rayon::prelude::*;

pub use dropout::Dropout;
pub use layout::{Batch, Layer, Layout, Linear, Norm, Sizes};

use crate::math::{exp, gelu_with_slope};
use crate::matmul::{Op, matmul};
use dropout::{Drop, apply_drop, draw};
use layer::{LayerActs, Scratch, layer_backward, layer_forward};
use ops::{
    NormActs, column_sums, linear_backward, linear_forward, norm_backward, norm_forward, sized,
};

/// The head's values at the chosen positions, and their gradients.
#[derive(Default)]
struct HeadActs {
    /// The last layer's rows at the chosen positions `[m, h]`.
    hm: Vec<f32>,
    pre: Vec<f32>,
    act: Vec<f32>,
    slope: Vec<f32>,
    z: Vec<f32>,
    norm: NormActs,
    /// The logits, then their gradient `[m, vocab]`.
    logits: Vec<f32>,
    dz: Vec<f32>,
    dact: Vec<f32>,
    dhm: Vec<f32>,
}

/// The hand-written step, with its buffers kept from one step to the next (fresh
/// buffers every step cost page faults: a tenth of the step in a profile).
pub struct Step {
    layout: Layout<usize>,
    layers: Vec<LayerActs>,
    embedding_norm: NormActs,
    embedding_drop: Option<Drop>,
    /// The embeddings' sum before their LayerNorm `[t, h]`.
    embedded: Vec<f32>,
    /// The last layer's output `[t, h]`.
    last: Vec<f32>,
    head: HeadActs,
    scratch: Scratch,
    /// The gradient flowing down, and the next one `[t, h]`.
    down: [Vec<f32>; 2],
}

impl Step {
    /// A step over parameters at `layout`'s indices.
    pub fn new(layout: Layout<usize>) -> Self {
        let layers = layout.layers.iter().map(|_| LayerActs::default()).collect();
        Self {
            layout,
            layers,
            embedding_norm: NormActs::default(),
            embedding_drop: None,
            embedded: Vec::new(),
            last: Vec::new(),
            head: HeadActs::default(),
            scratch: Scratch::default(),
            down: [Vec::new(), Vec::new()],
        }
    }

    /// The mean cross-entropy at `batch`'s chosen positions, and its gradient with
    /// respect to every parameter written into `grads` (same shapes as `params`).
    pub fn forward_backward(
        &mut self,
        params: &[Vec<f32>],
        grads: &mut [Vec<f32>],
        batch: &Batch<'_>,
        dropout: &dyn Dropout,
    ) -> f64 {
        let t = batch.ids.len();
        let s = batch.seq;
        assert!(s > 0 && t.is_multiple_of(s), "whole sequences");
        let sizes = self.layout.sizes;
        let (b, nh, h) = (t / s, sizes.heads, sizes.hidden);
        let mut first = 0;
        draw(
            &mut self.embedding_drop,
            dropout,
            &mut first,
            t * h,
            sizes.hidden_dropout,
        );
        for a in &mut self.layers {
            draw(
                &mut a.p_drop,
                dropout,
                &mut first,
                b * nh * s * s,
                sizes.attention_dropout,
            );
            draw(
                &mut a.attention_drop,
                dropout,
                &mut first,
                t * h,
                sizes.hidden_dropout,
            );
            draw(
                &mut a.output_drop,
                dropout,
                &mut first,
                t * h,
                sizes.hidden_dropout,
            );
        }
        self.embed(params, batch);
        for i in 0..self.layers.len() {
            let (here, after) = self.layers.split_at_mut(i + 1);
            let out = match after.first_mut() {
                Some(next) => &mut next.x,
                None => &mut self.last,
            };
            let layer = self.layout.layers[i];
            layer_forward(
                &mut here[i],
                layer,
                sizes,
                params,
                out,
                &mut self.scratch,
                s,
            );
        }
        let loss = self.head(params, grads, batch);
        for i in (0..self.layers.len()).rev() {
            let [dy, dx] = &mut self.down;
            let layer = self.layout.layers[i];
            layer_backward(
                &self.layers[i],
                layer,
                sizes,
                params,
                grads,
                dy,
                dx,
                &mut self.scratch,
                s,
            );
            self.down.swap(0, 1);
        }
        self.embed_backward(params, grads, batch);
        loss
    }

    /// The embeddings, normalised and dropped out, into the first layer's input.
    fn embed(&mut self, p: &[Vec<f32>], batch: &Batch<'_>) {
        let l = &self.layout;
        let (h, s, off) = (l.sizes.hidden, batch.seq, l.sizes.position_offset);
        let t = batch.ids.len();
        let (word, position) = (&p[l.word], &p[l.position]);
        let token_type = l.token_type.map(|i| &p[i][..h]);
        let e = sized(&mut self.embedded, t * h);
        e.par_chunks_mut(h).enumerate().for_each(|(r, row)| {
            let id = batch.ids[r] as usize;
            let w = &word[id * h..][..h];
            let pos = &position[(off + r % s) * h..][..h];
            for j in 0..h {
                row[j] = w[j] + pos[j];
            }
            if let Some(tt) = token_type {
                for j in 0..h {
                    row[j] += tt[j];
                }
            }
        });
        let out = match self.layers.first_mut() {
            Some(first) => &mut first.x,
            None => &mut self.last,
        };
        let out = sized(out, t * h);
        let norm = l.embedding_norm;
        norm_forward(
            &self.embedded,
            &p[norm.gamma],
            &p[norm.beta],
            l.sizes.layer_norm_eps,
            out,
            &mut self.embedding_norm,
            h,
        );
        apply_drop(out, &self.embedding_drop);
    }

    /// The head at the chosen positions and the loss; the backward pass as far as the
    /// last layer's output, whose gradient goes to `self.down[0]`.
    fn head(&mut self, p: &[Vec<f32>], grads: &mut [Vec<f32>], batch: &Batch<'_>) -> f64 {
        let l = &self.layout;
        let (h, v) = (l.sizes.hidden, l.sizes.vocab);
        let m = batch.positions.len();
        let t = batch.ids.len();
        let a = &mut self.head;
        let hm = sized(&mut a.hm, m * h);
        for (row, &pos) in hm.chunks_mut(h).zip(batch.positions) {
            row.copy_from_slice(&self.last[pos * h..][..h]);
        }
        linear_forward(sized(&mut a.pre, m * h), &a.hm, p, l.head_dense, [m, h, h]);
        gelu_with_slope(&a.pre, sized(&mut a.act, m * h), sized(&mut a.slope, m * h));
        let norm = l.head_norm;
        norm_forward(
            &a.act,
            &p[norm.gamma],
            &p[norm.beta],
            l.sizes.layer_norm_eps,
            sized(&mut a.z, m * h),
            &mut a.norm,
            h,
        );

        let logits = sized(&mut a.logits, m * v);
        match l.decoder {
            None => matmul(
                logits,
                &a.z,
                Op::Plain,
                &p[l.word],
                Op::Transposed,
                [m, h, v],
                false,
            ),
            Some(d) => matmul(logits, &a.z, Op::Plain, &p[d], Op::Plain, [m, h, v], false),
        }
        let bias = &p[l.head_bias];
        // Softmax cross-entropy; the logits become their gradient, (softmax − onehot) / m.
        let losses: Vec<f64> = logits
            .par_chunks_mut(v)
            .zip(batch.labels)
            .map(|(row, &label)| {
                for (x, b) in row.iter_mut().zip(bias) {
                    *x += b;
                }
                let max = row.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
                let target = f64::from(row[label] - max);
                let mut sum = 0f64;
                for x in row.iter_mut() {
                    let e = exp(*x - max);
                    sum += f64::from(e);
                    *x = e;
                }
                let loss = sum.ln() - target;
                let scale = (1.0 / sum) as f32;
                let inv_m = 1.0 / m as f32;
                for x in row.iter_mut() {
                    *x *= scale * inv_m;
                }
                row[label] -= inv_m;
                loss
            })
            .collect();
        let loss = losses.iter().sum::<f64>() / m as f64;
        let dlogits = &a.logits;

        column_sums(dlogits, v, &mut grads[l.head_bias]);
        let dz = sized(&mut a.dz, m * h);
        match l.decoder {
            None => {
                matmul(
                    &mut grads[l.word],
                    dlogits,
                    Op::Transposed,
                    &a.z,
                    Op::Plain,
                    [v, m, h],
                    false,
                );
                matmul(
                    dz,
                    dlogits,
                    Op::Plain,
                    &p[l.word],
                    Op::Plain,
                    [m, v, h],
                    false,
                );
            }
            Some(d) => {
                matmul(
                    &mut grads[d],
                    &a.z,
                    Op::Transposed,
                    dlogits,
                    Op::Plain,
                    [h, m, v],
                    false,
                );
                matmul(
                    dz,
                    dlogits,
                    Op::Plain,
                    &p[d],
                    Op::Transposed,
                    [m, v, h],
                    false,
                );
                grads[l.word].fill(0.0);
            }
        }
        let dact = sized(&mut a.dact, m * h);
        norm_backward(&a.dz, &a.norm, &p[norm.gamma], dact, grads, norm, h);
        for (d, s) in dact.iter_mut().zip(&a.slope) {
            *d *= s;
        }
        linear_backward(
            sized(&mut a.dhm, m * h),
            false,
            &a.hm,
            &a.dact,
            p,
            grads,
            l.head_dense,
            [m, h, h],
        );
        let dx = sized(&mut self.down[0], t * h);
        dx.fill(0.0);
        for (row, &pos) in a.dhm.chunks(h).zip(batch.positions) {
            dx[pos * h..][..h].copy_from_slice(row);
        }
        loss
    }

    /// From the first layer's input gradient (`self.down[0]`): the embeddings' gradients.
    fn embed_backward(&mut self, p: &[Vec<f32>], grads: &mut [Vec<f32>], batch: &Batch<'_>) {
        let l = &self.layout;
        let (h, s, off) = (l.sizes.hidden, batch.seq, l.sizes.position_offset);
        let t = batch.ids.len();
        let dx = &mut self.down[0];
        apply_drop(dx, &self.embedding_drop);
        let de = sized(&mut self.scratch.t1, t * h);
        norm_backward(
            dx,
            &self.embedding_norm,
            &p[l.embedding_norm.gamma],
            de,
            grads,
            l.embedding_norm,
            h,
        );
        // The word table's gradient already holds the tied decoder's (or zeros).
        let word = &mut grads[l.word];
        for (r, row) in de.chunks(h).enumerate() {
            let g = &mut word[batch.ids[r] as usize * h..][..h];
            g.iter_mut().zip(row).for_each(|(g, d)| *g += d);
        }
        let position = &mut grads[l.position];
        position.fill(0.0);
        for (r, row) in de.chunks(h).enumerate() {
            let g = &mut position[(off + r % s) * h..][..h];
            g.iter_mut().zip(row).for_each(|(g, d)| *g += d);
        }
        if let Some(tt) = l.token_type {
            let g = &mut grads[tt];
            g.fill(0.0);
            column_sums(de, h, &mut g[..h]);
        }
    }
}
