//! `--shard K/N`: the K-th of N slices of a list of models, so that a sweep over
//! many checkpoints can run as N independent jobs (a Slurm job array) and be
//! merged afterwards into the report a single run writes.
//!
//! Slices are round-robin: shard K takes the items at positions K − 1, K − 1 + N,
//! K − 1 + 2N, … (0-based), so neighbouring checkpoints of a training run (often
//! of one size) spread over all shards and the shards' sizes differ by at most one.
//! K is 1-based, as `$SLURM_ARRAY_TASK_ID` is with `--array=1-N`.

use std::fmt;
use std::str::FromStr;

/// One slice of N: `K/N` with 1 ≤ K ≤ N (serialized as that text, and checked when read).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shard {
    /// K, 1-based.
    index: usize,
    /// N, the number of shards.
    count: usize,
}

/// Why a `K/N` is not a shard. One line, naming the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not two whole numbers separated by `/`.
    #[error("shard {0:?}: expected K/N, two whole numbers such as 2/8")]
    Syntax(String),
    /// N is zero.
    #[error("shard {0:?}: N must be at least 1")]
    NoShards(String),
    /// K is 0 or above N.
    #[error("shard {given:?}: K must be 1 … {count} (shards are numbered from 1)")]
    OutOfRange {
        /// The text given.
        given: String,
        /// N.
        count: usize,
    },
}

impl Shard {
    /// Shard `index` of `count`, both as `K/N` reads them.
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        format!("{index}/{count}").parse()
    }

    /// K, 1-based.
    pub fn index(self) -> usize {
        self.index
    }

    /// N.
    pub fn count(self) -> usize {
        self.count
    }

    /// Whether the item at 0-based `position` of the full list is this shard's.
    pub fn contains(self, position: usize) -> bool {
        position % self.count == self.index - 1
    }

    /// This shard's items of `items`, in their order.
    pub fn select<T>(self, items: impl IntoIterator<Item = T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(i, _)| self.contains(*i))
            .map(|(_, item)| item)
            .collect()
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(s.to_owned());
        let (k, n) = s.split_once('/').ok_or_else(syntax)?;
        let parse = |part: &str| -> Result<usize, ShardError> {
            // Digits only: `+2` or ` 2` is more likely a slip than a shard.
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            part.parse().map_err(|_| syntax())
        };
        let (index, count) = (parse(k)?, parse(n)?);
        if count == 0 {
            return Err(ShardError::NoShards(s.to_owned()));
        }
        if index == 0 || index > count {
            return Err(ShardError::OutOfRange {
                given: s.to_owned(),
                count,
            });
        }
        Ok(Shard { index, count })
    }
}

impl TryFrom<String> for Shard {
    type Error = ShardError;

    fn try_from(s: String) -> Result<Shard, ShardError> {
        s.parse()
    }
}

impl From<Shard> for String {
    fn from(shard: Shard) -> String {
        shard.to_string()
    }
}

/// `K/N`, as parsed.
impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why shards read back from several runs are not the N shards of one sweep.
/// `at` is the position of the offending shard in the list given, so that the
/// caller can name the file it came from.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardSetError {
    /// Nothing to merge.
    #[error("no shards given")]
    Empty,
    /// A shard of another N than the first.
    #[error("shard {shard} is not one of {count} like the first shard given")]
    Mixed {
        /// Its position in the list.
        at: usize,
        /// The shard.
        shard: Shard,
        /// The first shard's N.
        count: usize,
    },
    /// A shard given twice.
    #[error("shard {shard} is given twice")]
    Repeated {
        /// The position of its second occurrence.
        at: usize,
        /// The shard.
        shard: Shard,
    },
    /// Shards not given.
    #[error("missing shards: {}", list(.0))]
    Missing(Vec<Shard>),
}

fn list(shards: &[Shard]) -> String {
    let names: Vec<String> = shards.iter().map(Shard::to_string).collect();
    names.join(", ")
}

impl ShardSetError {
    /// The position, in the list given, of the shard at fault.
    pub fn at(&self) -> Option<usize> {
        match self {
            ShardSetError::Mixed { at, .. } | ShardSetError::Repeated { at, .. } => Some(*at),
            ShardSetError::Empty | ShardSetError::Missing(_) => None,
        }
    }
}

/// Checks that `shards` are 1/N … N/N, each once, in any order.
pub fn check_set(shards: &[Shard]) -> Result<(), ShardSetError> {
    let first = shards.first().ok_or(ShardSetError::Empty)?;
    for (at, shard) in shards.iter().enumerate() {
        if shard.count != first.count {
            return Err(ShardSetError::Mixed {
                at,
                shard: *shard,
                count: first.count,
            });
        }
        if shards[..at].contains(shard) {
            return Err(ShardSetError::Repeated { at, shard: *shard });
        }
    }
    let missing: Vec<Shard> = (1..=first.count)
        .map(|index| Shard {
            index,
            count: first.count,
        })
        .filter(|s| !shards.contains(s))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ShardSetError::Missing(missing))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_k_of_n() {
        let shard: Shard = "2/3".parse().unwrap();
        assert_eq!((shard.index(), shard.count()), (2, 3));
        assert_eq!(shard.to_string(), "2/3");
        assert_eq!(Shard::new(1, 1).unwrap().to_string(), "1/1");
    }

    #[test]
    fn bad_values_are_one_line_errors() {
        for (given, message) in [
            (
                "0/3",
                "shard \"0/3\": K must be 1 … 3 (shards are numbered from 1)",
            ),
            (
                "4/3",
                "shard \"4/3\": K must be 1 … 3 (shards are numbered from 1)",
            ),
            ("1/0", "shard \"1/0\": N must be at least 1"),
            (
                "x",
                "shard \"x\": expected K/N, two whole numbers such as 2/8",
            ),
            (
                "1/x",
                "shard \"1/x\": expected K/N, two whole numbers such as 2/8",
            ),
            (
                "-1/3",
                "shard \"-1/3\": expected K/N, two whole numbers such as 2/8",
            ),
            (
                "1/3/4",
                "shard \"1/3/4\": expected K/N, two whole numbers such as 2/8",
            ),
            (
                "",
                "shard \"\": expected K/N, two whole numbers such as 2/8",
            ),
        ] {
            let err = given.parse::<Shard>().unwrap_err();
            assert_eq!(err.to_string(), message, "{given}");
        }
    }

    /// Round-robin: every item in exactly one shard, sizes within one of each other.
    #[test]
    fn shards_partition_the_list_round_robin() {
        let items: Vec<usize> = (0..10).collect();
        let slices: Vec<Vec<usize>> = (1..=3)
            .map(|k| Shard::new(k, 3).unwrap().select(items.iter().copied()))
            .collect();
        assert_eq!(slices[0], [0, 3, 6, 9]);
        assert_eq!(slices[1], [1, 4, 7]);
        assert_eq!(slices[2], [2, 5, 8]);
        // More shards than items: the last shards are empty, not an error.
        assert_eq!(Shard::new(3, 4).unwrap().select([1, 2]), Vec::<i32>::new());
    }

    #[test]
    fn a_set_must_be_every_shard_once() {
        let s = |k, n| Shard::new(k, n).unwrap();
        assert_eq!(check_set(&[s(2, 3), s(3, 3), s(1, 3)]), Ok(()));
        let missing = check_set(&[s(2, 3)]).unwrap_err();
        assert_eq!(missing.to_string(), "missing shards: 1/3, 3/3");
        assert_eq!(missing.at(), None);
        let twice = check_set(&[s(1, 2), s(2, 2), s(1, 2)]).unwrap_err();
        assert_eq!(twice.to_string(), "shard 1/2 is given twice");
        assert_eq!(twice.at(), Some(2));
        let mixed = check_set(&[s(1, 2), s(2, 3)]).unwrap_err();
        assert_eq!(
            mixed.to_string(),
            "shard 2/3 is not one of 2 like the first shard given"
        );
        assert_eq!(mixed.at(), Some(1));
        assert_eq!(check_set(&[]), Err(ShardSetError::Empty));
    }
}
