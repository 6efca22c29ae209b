//! AdamW as burn's `AdamW` and torch's compute it (moments, bias correction,
//! decoupled decay), with torch's global-norm clipping (`clip_grad_norm_`)
//! folded in: one pass over each parameter, split across the cores, where
//! Burn's optimizer made a pass per elementwise operation (docs/benchmarks.md).
//! The decay applies to every parameter given, as the trainer always has.

use rayon::prelude::*;

/// Elements per task of the parallel passes.
const CHUNK: usize = 1 << 15;

/// The optimizer and its moments, one pair per parameter.
#[derive(Debug, Clone)]
pub struct AdamW {
    beta_1: f32,
    beta_2: f32,
    epsilon: f32,
    weight_decay: f64,
    /// Steps taken (the bias correction's t).
    pub time: i32,
    /// torch's `exp_avg`, one per parameter.
    pub moment_1: Vec<Vec<f32>>,
    /// torch's `exp_avg_sq`, one per parameter.
    pub moment_2: Vec<Vec<f32>>,
}

impl AdamW {
    /// torch's defaults (betas 0.9/0.999, eps 1e-8) with decay `weight_decay`, for
    /// parameters of `sizes` elements.
    pub fn new(sizes: impl IntoIterator<Item = usize>, weight_decay: f64) -> Self {
        let zeros: Vec<Vec<f32>> = sizes.into_iter().map(|n| vec![0.0; n]).collect();
        Self {
            beta_1: 0.9,
            beta_2: 0.999,
            epsilon: 1e-8,
            weight_decay,
            time: 0,
            moment_1: zeros.clone(),
            moment_2: zeros,
        }
    }

    /// One update of every parameter at rate `lr`, the gradients first scaled so
    /// that their global L2 norm is at most `clip` (0: no clipping). Returns the norm
    /// before clipping.
    pub fn step(&mut self, params: &mut [Vec<f32>], grads: &[Vec<f32>], lr: f64, clip: f64) -> f64 {
        let norm = global_norm(grads);
        // torch's clip_grad_norm_: max_norm / (norm + 1e-6), applied only below 1.
        let factor = if clip > 0.0 {
            (clip / (norm + 1e-6)).min(1.0)
        } else {
            1.0
        };
        let factor = factor as f32;
        self.time += 1;
        let (b1, b2, eps) = (self.beta_1, self.beta_2, self.epsilon);
        let correct_1 = 1.0 - b1.powi(self.time);
        let correct_2 = 1.0 - b2.powi(self.time);
        let keep = (1.0 - lr * self.weight_decay) as f32;
        let lr = lr as f32;
        let update = |p: &mut [f32], m: &mut [f32], v: &mut [f32], g: &[f32]| {
            for (((p, m), v), &g) in p.iter_mut().zip(m).zip(v).zip(g) {
                let g = if factor < 1.0 { g * factor } else { g };
                *m = *m * b1 + g * (1.0 - b1);
                *v = *v * b2 + g * g * (1.0 - b2);
                let delta = (*m / correct_1) / ((*v / correct_2).sqrt() + eps);
                *p = *p * keep - delta * lr;
            }
        };
        for (((p, m), v), g) in params
            .iter_mut()
            .zip(&mut self.moment_1)
            .zip(&mut self.moment_2)
            .zip(grads)
        {
            if p.len() <= CHUNK {
                update(p, m, v, g);
            } else {
                p.par_chunks_mut(CHUNK)
                    .zip(m.par_chunks_mut(CHUNK))
                    .zip(v.par_chunks_mut(CHUNK))
                    .zip(g.par_chunks(CHUNK))
                    .for_each(|(((p, m), v), g)| update(p, m, v, g));
            }
        }
        norm
    }
}

/// ‖g‖₂ over every gradient together, summed in f64 in a fixed order (chunk by chunk,
/// whatever the number of threads), so that a run is the same bit for bit.
fn global_norm(grads: &[Vec<f32>]) -> f64 {
    let mut total = 0f64;
    for g in grads {
        let partials: Vec<f64> = g
            .par_chunks(CHUNK)
            .map(|c| c.iter().map(|&x| f64::from(x) * f64::from(x)).sum::<f64>())
            .collect();
        total += partials.iter().sum::<f64>();
    }
    total.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three steps on one parameter against torch's AdamW written out in f64
    /// (torch.optim.AdamW's documented update), clipping included.
    #[test]
    fn three_steps_as_torch_writes_them() {
        let grads = [[0.5f32, -2.0, 0.0], [1.0, 3.0, -1.0], [-0.25, 0.5, 4.0]];
        let mut params = vec![vec![1.0f32, -1.0, 0.5]];
        let mut opt = AdamW::new([3], 0.01);
        let (lr, clip) = (1e-2, 2.0);
        let (mut p, mut m, mut v) = ([1.0f64, -1.0, 0.5], [0.0f64; 3], [0.0f64; 3]);
        for (t, g) in grads.iter().enumerate() {
            opt.step(&mut params, &[g.to_vec()], lr, clip);
            let norm = g.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
            let c = (clip / (norm + 1e-6)).min(1.0);
            for j in 0..3 {
                let g = f64::from(g[j]) * c;
                p[j] *= 1.0 - lr * 0.01;
                m[j] = 0.9 * m[j] + 0.1 * g;
                v[j] = 0.999 * v[j] + 0.001 * g * g;
                let mh = m[j] / (1.0 - 0.9f64.powi(t as i32 + 1));
                let vh = v[j] / (1.0 - 0.999f64.powi(t as i32 + 1));
                p[j] -= lr * mh / (vh.sqrt() + 1e-8);
            }
        }
        for j in 0..3 {
            assert!(
                (f64::from(params[0][j]) - p[j]).abs() < 1e-6,
                "{j}: {} vs {}",
                params[0][j],
                p[j]
            );
        }
        assert_eq!(opt.time, 3);
    }
}
