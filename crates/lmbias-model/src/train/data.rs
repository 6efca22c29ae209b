//! The corpus as the model trains on it: passages split into training and
//! held-out sets, packed into fixed-length sequences, masked as BERT was.

use lmbias_text::Tokenizer;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::TrainError;

/// Token sequences of one length, packed end to end as transformers'
/// `run_mlm.py` packs them (`group_texts`): every passage is tokenized with its
/// `[CLS] … [SEP]`, the passages are concatenated, and the stream is cut into
/// blocks of `len`, the short remainder dropped.
#[derive(Debug, Clone)]
pub(crate) struct Blocks {
    len: usize,
    ids: Vec<u32>,
    /// Tokens never masked: the template's and every special token of the vocabulary.
    special: Vec<bool>,
    /// The first piece of each word (whole-word masking masks a word's pieces together).
    word_start: Vec<bool>,
}

impl Blocks {
    /// Tokenizes and packs `passages`; `specials` are ids never masked.
    pub(crate) fn pack(
        tokenizer: &Tokenizer,
        passages: &[&str],
        len: usize,
        specials: &[u32],
    ) -> Result<Self, TrainError> {
        let (mut ids, mut special, mut word_start) = (Vec::new(), Vec::new(), Vec::new());
        for passage in passages {
            let encoding = tokenizer
                .encode(passage, true)
                .map_err(crate::ModelError::from)?;
            let words = encoding.word_ids();
            for (i, (&id, &is_special)) in encoding
                .ids()
                .iter()
                .zip(encoding.special_mask())
                .enumerate()
            {
                ids.push(id);
                special.push(is_special || specials.contains(&id));
                word_start.push(words[i].is_none() || i == 0 || words[i] != words[i - 1]);
            }
        }
        let whole = ids.len() / len * len;
        ids.truncate(whole);
        special.truncate(whole);
        word_start.truncate(whole);
        Ok(Self {
            len,
            ids,
            special,
            word_start,
        })
    }

    /// Number of sequences.
    pub(crate) fn count(&self) -> usize {
        self.ids.len() / self.len
    }

    /// The length of every sequence.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The ids of sequence `i`.
    pub(crate) fn ids(&self, i: usize) -> &[u32] {
        &self.ids[i * self.len..(i + 1) * self.len]
    }

    /// How many tokens of all the sequences can be masked (are no special token).
    pub(crate) fn maskable_tokens(&self) -> usize {
        self.special.iter().filter(|s| !**s).count()
    }

    /// Every token that can be masked in sequence `i`, with its word start flag.
    pub(crate) fn maskable(&self, i: usize) -> impl Iterator<Item = (usize, bool)> + '_ {
        let range = i * self.len..(i + 1) * self.len;
        self.special[range.clone()]
            .iter()
            .zip(&self.word_start[range])
            .enumerate()
            .filter(|(_, (special, _))| !**special)
            .map(|(t, (_, start))| (t, *start))
    }
}

/// Passages split by a seeded shuffle: `held_out` of them (at least one when
/// the fraction is above 0) for evaluation, the rest for training.
pub(crate) fn split(passages: &[String], held_out: f64, seed: u64) -> (Vec<&str>, Vec<&str>) {
    let mut order: Vec<usize> = (0..passages.len()).collect();
    order.shuffle(&mut ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_5b17));
    let n_held = if held_out > 0.0 {
        ((passages.len() as f64 * held_out).ceil() as usize).clamp(1, passages.len())
    } else {
        0
    };
    let (held, train) = order.split_at(n_held);
    let pick = |idx: &[usize]| {
        let mut idx = idx.to_vec();
        // Corpus order within each set: neighbouring verses stay neighbours in a block.
        idx.sort_unstable();
        idx.into_iter().map(|i| passages[i].as_str()).collect()
    };
    (pick(train), pick(held))
}

/// How tokens are chosen and replaced (BERT, Devlin et al. 2019, §3.1, as
/// transformers' `DataCollatorForLanguageModeling` draws it).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Masking {
    /// Share of maskable tokens chosen (0.15).
    pub(crate) probability: f64,
    /// Choose whole words: every piece of a chosen word (`DataCollatorForWholeWordMask`).
    pub(crate) whole_word: bool,
    /// The `[MASK]` id.
    pub(crate) mask_id: u32,
    /// Ids drawn for the 10 % random replacements: `0..vocab_size`.
    pub(crate) vocab_size: u32,
}

/// A batch of sequences with some tokens masked.
#[derive(Debug, Clone)]
pub(crate) struct MaskedBatch {
    /// `[batch * len]` input ids, row-major.
    pub(crate) input: Vec<u32>,
    pub(crate) len: usize,
    /// Flat positions (`row * len + t`) of the chosen tokens.
    pub(crate) positions: Vec<i64>,
    /// The original id at each chosen position.
    pub(crate) labels: Vec<i64>,
}

impl MaskedBatch {
    /// Tokens of the batch (all real: packed sequences have no padding).
    pub(crate) fn tokens(&self) -> usize {
        self.input.len()
    }
}

impl Masking {
    /// Masks sequences `rows` of `blocks`: each maskable token (or word) is chosen
    /// with `probability`; a chosen token becomes `[MASK]` with probability 0.8, a
    /// uniformly drawn id with 0.1, and stays itself with 0.1.
    pub(crate) fn apply(&self, blocks: &Blocks, rows: &[usize], rng: &mut impl Rng) -> MaskedBatch {
        let len = blocks.len();
        let mut input = Vec::with_capacity(rows.len() * len);
        let (mut positions, mut labels) = (Vec::new(), Vec::new());
        for (r, &row) in rows.iter().enumerate() {
            let ids = blocks.ids(row);
            let base = input.len();
            input.extend_from_slice(ids);
            let mut chosen_word = false;
            for (t, word_start) in blocks.maskable(row) {
                let chosen = if self.whole_word && !word_start {
                    chosen_word
                } else {
                    rng.random_bool(self.probability)
                };
                chosen_word = chosen;
                if !chosen {
                    continue;
                }
                positions.push((r * len + t) as i64);
                labels.push(i64::from(ids[t]));
                input[base + t] = if rng.random_bool(0.8) {
                    self.mask_id
                } else if rng.random_bool(0.5) {
                    rng.random_range(0..self.vocab_size)
                } else {
                    ids[t]
                };
            }
        }
        MaskedBatch {
            input,
            len,
            positions,
            labels,
        }
    }
}

/// The sequences of step `step`: epochs of a seeded shuffle of all sequences,
/// read `batch` at a time, so any step's batch is known without replaying the
/// ones before it (what `--resume` needs).
pub(crate) struct Order {
    count: usize,
    batch: usize,
    seed: u64,
    epoch: Option<(usize, Vec<usize>)>,
}

impl Order {
    pub(crate) fn new(count: usize, batch: usize, seed: u64) -> Self {
        Self {
            count,
            batch,
            seed,
            epoch: None,
        }
    }

    /// Rows of the batch of `step` (0-based).
    pub(crate) fn rows(&mut self, step: usize) -> Vec<usize> {
        (step * self.batch..(step + 1) * self.batch)
            .map(|sample| {
                let (epoch, at) = (sample / self.count, sample % self.count);
                self.permutation(epoch)[at]
            })
            .collect()
    }

    fn permutation(&mut self, epoch: usize) -> &[usize] {
        if self.epoch.as_ref().is_none_or(|(e, _)| *e != epoch) {
            let mut order: Vec<usize> = (0..self.count).collect();
            let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
            rng.set_stream(epoch as u64 + 1);
            order.shuffle(&mut rng);
            self.epoch = Some((epoch, order));
        }
        &self.epoch.as_ref().expect("set just above").1
    }
}

/// The masking stream of step `step`: a function of the seed and the step alone.
pub(crate) fn step_rng(seed: u64, step: usize) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6d61_736b);
    rng.set_stream(step as u64);
    rng
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokenizer() -> Tokenizer {
        Tokenizer::from_dir(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/models/tiny-bert-mlm"),
        )
        .unwrap()
    }

    fn corpus() -> Vec<&'static str> {
        vec![
            "Thou art more lovely and more temperate.",
            "Rough winds do shake the darling buds of May.",
            "Wherefore art thou Romeo?",
        ]
        .into_iter()
        .cycle()
        .take(300)
        .collect()
    }

    #[test]
    fn packing_concatenates_passages_and_drops_the_remainder() {
        let t = tokenizer();
        let lens: usize = corpus()
            .iter()
            .map(|p| t.encode(p, true).unwrap().len())
            .sum();
        let blocks = Blocks::pack(&t, &corpus(), 16, &[]).unwrap();
        assert_eq!(blocks.count(), lens / 16);
        // [CLS] opens the stream; later passages' [CLS]/[SEP] sit inside blocks.
        let cls = t.encode("", true).unwrap().ids()[0];
        assert_eq!(blocks.ids(0)[0], cls);
        assert!(blocks.ids(1).contains(&cls) || blocks.ids(2).contains(&cls));
    }

    #[test]
    fn masking_chooses_fifteen_percent_and_replaces_eighty_ten_ten() {
        let t = tokenizer();
        let blocks = Blocks::pack(&t, &corpus(), 32, &[]).unwrap();
        let masking = Masking {
            probability: 0.15,
            whole_word: false,
            mask_id: t.mask().unwrap().id,
            vocab_size: 1000,
        };
        let rows: Vec<usize> = (0..blocks.count()).collect();
        let (mut chosen, mut maskable, mut as_mask, mut kept) = (0, 0, 0, 0);
        for seed in 0..20 {
            let m = masking.apply(&blocks, &rows, &mut step_rng(seed, 0));
            for (&p, &label) in m.positions.iter().zip(&m.labels) {
                let (row, t) = (p as usize / 32, p as usize % 32);
                assert!(!blocks.special[row * 32 + t], "a special token was chosen");
                as_mask += usize::from(m.input[p as usize] == masking.mask_id);
                kept += usize::from(i64::from(m.input[p as usize]) == label);
            }
            chosen += m.positions.len();
            maskable += rows
                .iter()
                .map(|&r| blocks.maskable(r).count())
                .sum::<usize>();
        }
        let share = |n: usize, of: usize| n as f64 / of as f64;
        assert!(
            (share(chosen, maskable) - 0.15).abs() < 0.01,
            "{chosen}/{maskable}"
        );
        assert!((share(as_mask, chosen) - 0.8).abs() < 0.02);
        // Kept: the 10 % left alone plus random draws that hit the same id.
        assert!((share(kept, chosen) - 0.1).abs() < 0.02);
    }

    #[test]
    fn whole_word_masking_chooses_every_piece_of_a_word() {
        let t = tokenizer();
        let blocks = Blocks::pack(&t, &corpus(), 32, &[]).unwrap();
        let masking = Masking {
            probability: 0.15,
            whole_word: true,
            mask_id: t.mask().unwrap().id,
            vocab_size: 1000,
        };
        let rows: Vec<usize> = (0..blocks.count()).collect();
        let m = masking.apply(&blocks, &rows, &mut step_rng(3, 0));
        let chosen: std::collections::HashSet<usize> =
            m.positions.iter().map(|&p| p as usize).collect();
        let mut continuations = 0;
        for (r, &row) in rows.iter().enumerate() {
            let base = row * 32;
            for t in 1..32 {
                let at = base + t;
                if !blocks.special[at] && !blocks.word_start[at] {
                    continuations += 1;
                    assert_eq!(
                        chosen.contains(&(r * 32 + t)),
                        chosen.contains(&(r * 32 + t - 1))
                    );
                }
            }
        }
        assert!(continuations > 0, "the corpus has words of several pieces");
    }

    #[test]
    fn the_order_is_a_function_of_the_step() {
        let mut a = Order::new(10, 4, 7);
        let mut b = Order::new(10, 4, 7);
        let first: Vec<Vec<usize>> = (0..5).map(|s| a.rows(s)).collect();
        assert_eq!(b.rows(3), first[3]);
        // Each epoch visits every sequence once.
        let mut epoch: Vec<usize> = first[..2].concat();
        epoch.extend(&first[2][..2]);
        epoch.sort_unstable();
        assert_eq!(epoch, (0..10).collect::<Vec<_>>());
    }
}
