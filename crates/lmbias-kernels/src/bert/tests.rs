use super::*;

/// Numbered draws of a hash of (seed, index): the same masks on every pass.
struct Hashed(u64);
impl Dropout for Hashed {
    fn fill(&self, first: u64, keep: f64, out: &mut [f32]) {
        for (i, o) in out.iter_mut().enumerate() {
            let mut x = (self.0 ^ (first + i as u64)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^= x >> 29;
            x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x ^= x >> 32;
            *o = f32::from(u8::from(((x >> 11) as f64 / (1u64 << 53) as f64) < keep));
        }
    }
}

/// A tiny network: its parameters (small pseudo-random values, LayerNorm scales
/// near 1) and their layout.
fn tiny(tied: bool) -> (Vec<Vec<f32>>, Layout<usize>) {
    let (v, h, f, positions) = (13, 8, 12, 9);
    let mut params: Vec<Vec<f32>> = Vec::new();
    let mut seed = 7u64;
    let mut add = |n: usize, around: f32| {
        params.push(
            (0..n)
                .map(|_| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    around + ((seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.6
                })
                .collect(),
        );
        params.len() - 1
    };
    let lin = |add: &mut dyn FnMut(usize, f32) -> usize, i: usize, o: usize| Linear {
        weight: add(i * o, 0.0),
        bias: add(o, 0.0),
    };
    let norm = |add: &mut dyn FnMut(usize, f32) -> usize, n: usize| Norm {
        gamma: add(n, 1.0),
        beta: add(n, 0.0),
    };
    let word = add(v * h, 0.0);
    let position = add(positions * h, 0.0);
    let token_type = Some(add(2 * h, 0.0));
    let embedding_norm = norm(&mut add, h);
    let layers = (0..2)
        .map(|_| Layer {
            query: lin(&mut add, h, h),
            key: lin(&mut add, h, h),
            value: lin(&mut add, h, h),
            attention_output: lin(&mut add, h, h),
            attention_norm: norm(&mut add, h),
            intermediate: lin(&mut add, h, f),
            output: lin(&mut add, f, h),
            output_norm: norm(&mut add, h),
        })
        .collect();
    let head_dense = lin(&mut add, h, h);
    let head_norm = norm(&mut add, h);
    let decoder = (!tied).then(|| add(h * v, 0.0));
    let head_bias = add(v, 0.0);
    let layout = Layout {
        word,
        position,
        token_type,
        embedding_norm,
        layers,
        head_dense,
        head_norm,
        decoder,
        head_bias,
        sizes: Sizes {
            heads: 2,
            hidden: h,
            intermediate: f,
            vocab: v,
            position_offset: 1,
            layer_norm_eps: 1e-12,
            hidden_dropout: 0.1,
            attention_dropout: 0.1,
        },
    };
    (params, layout)
}

/// Every parameter's gradient against central differences of the loss (f64
/// differences of an f32 network: a few elements of each tensor).
#[test]
fn gradients_match_finite_differences() {
    for tied in [true, false] {
        let (mut params, layout) = tiny(tied);
        let ids: Vec<u32> = [1, 4, 7, 2, 9, 12, 3, 5, 0, 11, 6, 8, 10, 1].to_vec();
        let batch = Batch {
            ids: &ids,
            seq: 7,
            positions: &[1, 3, 8, 12],
            labels: &[4, 0, 12, 7],
        };
        let mut step = Step::new(layout.clone());
        let mut grads: Vec<Vec<f32>> = params.iter().map(|p| vec![f32::NAN; p.len()]).collect();
        let loss = step.forward_backward(&params, &mut grads, &batch, &Hashed(3));
        assert!(loss.is_finite() && loss > 0.0);
        let mut scratch = grads.clone();
        let mut loss_at = |params: &[Vec<f32>]| {
            Step::new(layout.clone()).forward_backward(params, &mut scratch, &batch, &Hashed(3))
        };
        let mut checked = 0;
        for t in 0..params.len() {
            let n = params[t].len();
            for e in [0, n / 2, n - 1] {
                let keep = params[t][e];
                let eps = 1e-2f32;
                params[t][e] = keep + eps;
                let up = loss_at(&params);
                params[t][e] = keep - eps;
                let down = loss_at(&params);
                params[t][e] = keep;
                let numeric = (up - down) / (2.0 * f64::from(eps));
                let analytic = f64::from(grads[t][e]);
                assert!(
                    (numeric - analytic).abs() < 2e-3 + 2e-2 * analytic.abs(),
                    "tied {tied}, tensor {t}, element {e}: analytic {analytic}, numeric {numeric}"
                );
                checked += 1;
            }
        }
        assert!(checked > 100);
    }
}
