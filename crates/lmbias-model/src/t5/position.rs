//! T5's relative-position bias: one learned scalar per (bucketed key − query
//! distance, head), added to the attention scores of every block.

use burn::tensor::{Device, Int, Tensor, TensorData};

use super::config::T5Config;
use crate::error::ModelError;
use crate::weights::Weights;

/// `relative_attention_bias` of the first block.
pub(super) struct RelativePositionBias {
    /// `[num_buckets, num_heads]`.
    table: Tensor<2>,
    num_buckets: usize,
    max_distance: usize,
}

impl RelativePositionBias {
    /// `w` holds `weight`, `[num_buckets, num_heads]`.
    pub(super) fn load(w: &Weights<'_>, c: &T5Config) -> Result<Self, ModelError> {
        Ok(Self {
            table: w.tensor("weight", [c.relative_attention_num_buckets, c.num_heads])?,
            num_buckets: c.relative_attention_num_buckets,
            max_distance: c.relative_attention_max_distance,
        })
    }

    /// The learned bias of each (query, key) pair: `[1, heads, seq, seq]`.
    pub(super) fn forward(&self, seq: usize, device: &Device) -> Tensor<4> {
        let [_, heads] = self.table.dims();
        let buckets: Vec<i64> = (0..seq)
            .flat_map(|q| (0..seq).map(move |k| (q, k)))
            .map(|(q, k)| {
                relative_position_bucket(k as i64 - q as i64, self.num_buckets, self.max_distance)
                    as i64
            })
            .collect();
        let index = Tensor::<1, Int>::from_data(TensorData::new(buckets, [seq * seq]), device);
        self.table
            .clone()
            .select(0, index)
            .reshape([seq, seq, heads])
            .permute([2, 0, 1])
            .reshape([1, heads, seq, seq])
    }
}

/// T5's bidirectional bucket of `relative = key - query`, as transformers'
/// `T5Attention._relative_position_bucket`: half the buckets for keys after the
/// query, within each half exact distances below `num_buckets / 4` and
/// logarithmic bins up to `max_distance`, beyond which all share the last bucket.
/// The log is taken in f32 like torch's, so bin edges fall where transformers' do.
fn relative_position_bucket(relative: i64, num_buckets: usize, max_distance: usize) -> usize {
    let half = num_buckets / 2;
    let offset = if relative > 0 { half } else { 0 };
    let distance = relative.unsigned_abs() as usize;
    let max_exact = half / 2;
    if distance < max_exact {
        return offset + distance;
    }
    // math.log(max_distance / max_exact) is a Python float, applied to an f32 tensor.
    let scale = ((max_distance as f64) / (max_exact as f64)).ln() as f32;
    let log_ratio = (distance as f32 / max_exact as f32).ln();
    let large = max_exact + (log_ratio / scale * (half - max_exact) as f32) as usize;
    offset + large.min(half - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_match_transformers() {
        // transformers 5.24 T5Attention._relative_position_bucket(torch.arange(-400, 401),
        // bidirectional=True, num_buckets, max_distance): the relative positions where the
        // bucket changes and the bucket from there on (at -400 it is num_buckets / 2 - 1).
        /// (num_buckets, max_distance, [(relative position, bucket from there on)]).
        type Case = (usize, usize, &'static [(i64, usize)]);
        #[rustfmt::skip]
        let cases: [Case; 3] = [
            (32, 128, &[
                (-90, 14), (-63, 13), (-45, 12), (-31, 11), (-22, 10), (-15, 9), (-11, 8),
                (-7, 7), (-6, 6), (-5, 5), (-4, 4), (-3, 3), (-2, 2), (-1, 1), (0, 0),
                (1, 17), (2, 18), (3, 19), (4, 20), (5, 21), (6, 22), (7, 23), (8, 24),
                (12, 25), (16, 26), (23, 27), (32, 28), (46, 29), (64, 30), (91, 31),
            ]),
            (16, 12, &[
                (-9, 6), (-6, 5), (-5, 4), (-3, 3), (-2, 2), (-1, 1), (0, 0), (1, 9),
                (2, 10), (3, 11), (4, 12), (6, 13), (7, 14), (10, 15),
            ]),
            (8, 20, &[(-6, 2), (-1, 1), (0, 0), (1, 5), (2, 6), (7, 7)]),
        ];
        for (num_buckets, max_distance, changes) in cases {
            let mut expected = num_buckets / 2 - 1;
            for relative in -400..=400 {
                if let Some(&(_, b)) = changes.iter().find(|(r, _)| *r == relative) {
                    expected = b;
                }
                assert_eq!(
                    relative_position_bucket(relative, num_buckets, max_distance),
                    expected,
                    "relative {relative}, {num_buckets} buckets, max_distance {max_distance}"
                );
            }
        }
    }
}
