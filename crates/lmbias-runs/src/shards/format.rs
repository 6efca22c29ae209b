//! `--shard K/N`: the K-th of N slices of a list of models, so that a sweep over
//! many checkpoints can run as N independent jobs (a Slurm job array) and be
//! merged afterwards into the report a single run writes.
//!
//! Slices are round-robin: shard K takes the items at positions K − 1, K − 1 + N,
//! K − 1 + 2N, … (0-based), so neighbouring checkpoints of a training run (often
//! of one size) spread over all shards and the shards' sizes differ by at most one.
//! K is 1-based, as `$SLURM_ARRAY_TASK_ID` is with `--array=1-N`.
//!
//! A shard file ([`encode`], [`decode`]) is CBOR (every f64 comes back exact) and
//! carries a [`Stamp`]: its format version, the lmbias version that wrote it and a
//! sha256 of every input and the value of every option that shapes its numbers, so
//! that a merge ([`check_stamps`]) refuses shards of different runs, naming what differs.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

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

/// The layout of shard files, raised whenever what a shard holds changes shape, so
/// that no merge reads one layout as another. Format 1 was the unversioned layout; 2 had
/// no checksum; 3 ends with the sha256 of the CBOR document before it.
pub const FORMAT: u32 = 3;

/// The sha256 after the document: a byte changed anywhere (a float of the results
/// included, which CBOR would read back as another float) is found.
const CHECKSUM_LEN: usize = 32;

/// The lmbias version every crate of the workspace shares.
pub const LMBIAS_VERSION: &str = env!("CARGO_PKG_VERSION");

/// What a shard file carries besides its results: enough to refuse a merge of
/// shards that did not run the same inputs with the same lmbias.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stamp {
    /// The command that wrote it (`lmbias seat --save`), so another's file is named as such.
    pub kind: String,
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The lmbias version that wrote it.
    pub lmbias: String,
    /// The sha256 (hex) of each input's content, by name (`test weat6`).
    pub digests: BTreeMap<String, String>,
    /// The value of each option, by name (`seed`), as printed.
    pub options: BTreeMap<String, String>,
}

impl Stamp {
    /// An empty stamp of this lmbias and format for files of command `kind`.
    pub fn new(kind: &str) -> Stamp {
        Stamp {
            kind: kind.to_owned(),
            format: FORMAT,
            lmbias: LMBIAS_VERSION.to_owned(),
            digests: BTreeMap::new(),
            options: BTreeMap::new(),
        }
    }

    /// Records input `name` by the sha256 of `content`.
    pub fn digest(&mut self, name: impl Into<String>, content: &[u8]) {
        self.digests
            .insert(name.into(), format!("{:x}", Sha256::digest(content)));
    }

    /// Records every file under `dir` by the sha256 of its content, each named `prefix/NAME`
    /// (NAME relative to `dir`): a file edited between shards changes its digest.
    pub fn folder(&mut self, prefix: &str, dir: &std::path::Path) -> Result<(), crate::RunError> {
        for (name, path) in crate::provenance::files_under(dir)? {
            let sha256 = crate::provenance::sha256_file(&path)?;
            self.digests.insert(format!("{prefix}/{name}"), sha256);
        }
        Ok(())
    }

    /// Records every field of `settings` as an option, by its serde name and its value as
    /// JSON: a setting added to the struct is stamped without anyone listing it here.
    pub fn settings(&mut self, settings: &impl Serialize) -> Result<(), serde_json::Error> {
        let value = serde_json::to_value(settings)?;
        let fields = value.as_object().ok_or_else(|| {
            <serde_json::Error as serde::ser::Error>::custom("settings are a struct of fields")
        })?;
        for (name, value) in fields {
            self.options.insert(name.clone(), value.to_string());
        }
        Ok(())
    }
}

/// A shard file as written: the stamp first, so that it is read before the body.
#[derive(serde::Serialize, serde::Deserialize)]
struct File<S, T> {
    stamp: S,
    body: T,
}

/// What [`decode`] reads first: the part of a stamp every format keeps.
#[derive(serde::Deserialize)]
struct Head {
    stamp: Option<HeadStamp>,
}

#[derive(serde::Deserialize)]
struct HeadStamp {
    kind: String,
    format: u32,
    lmbias: String,
}

/// Why bytes are not a shard file this lmbias can merge. One line, without the
/// file's name (the caller, which read it, adds it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardFileError {
    /// The file ends inside its data.
    #[error(
        "truncated: the file ends after {len} bytes, in the middle of its data (was the run \
         that saved it stopped, or the copy cut short?); run the shard again"
    )]
    Truncated {
        /// The file's length.
        len: usize,
    },
    /// Not CBOR, or CBOR of something else.
    #[error("not a shard file (its bytes are not what `{expected}` writes)")]
    NotShard {
        /// The command whose file was expected.
        expected: String,
    },
    /// A file from before shard files carried a format version.
    #[error(
        "a shard file without a format version, written by an older lmbias (before format \
         {FORMAT}); run the shard again with lmbias {LMBIAS_VERSION}"
    )]
    Unversioned,
    /// Another command's shard file.
    #[error("a shard file of `{found}`, not of `{expected}`")]
    OtherKind {
        /// The command that wrote it.
        found: String,
        /// The command whose file was expected.
        expected: String,
    },
    /// Another format version.
    #[error(
        "shard format {found}, written by lmbias {lmbias}; lmbias {LMBIAS_VERSION} reads format \
         {FORMAT} only: run the shard again with lmbias {LMBIAS_VERSION}, or merge with lmbias {lmbias}"
    )]
    Format {
        /// Its format.
        found: u32,
        /// The lmbias version that wrote it.
        lmbias: String,
    },
    /// Of this format, and yet not readable: damaged.
    #[error("damaged: {0}")]
    Damaged(String),
    /// The results could not be encoded (a bug: every result type is serializable).
    #[error("cannot encode the results: {0}")]
    Encode(String),
}

/// `stamp` and `body` as the bytes of a shard file: the CBOR document, then its sha256.
pub fn encode<T: Serialize>(stamp: &Stamp, body: &T) -> Result<Vec<u8>, ShardFileError> {
    let mut bytes = Vec::new();
    ciborium::into_writer(&File { stamp, body }, &mut bytes)
        .map_err(|e| ShardFileError::Encode(cbor_error(e)))?;
    let checksum = Sha256::digest(&bytes);
    bytes.extend_from_slice(&checksum);
    Ok(bytes)
}

/// The stamp and body of a shard file of command `kind`; its format is read first,
/// so that a file of another format or command is named as such, not as damaged.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], kind: &str) -> Result<(Stamp, T), ShardFileError> {
    let truncated = ShardFileError::Truncated { len: bytes.len() };
    let not_shard = || ShardFileError::NotShard {
        expected: kind.to_owned(),
    };
    let head: Head = ciborium::from_reader(bytes).map_err(|e| match e {
        ciborium::de::Error::Io(_) => truncated.clone(),
        _ => not_shard(),
    })?;
    let head = head.stamp.ok_or(ShardFileError::Unversioned)?;
    if head.kind != kind {
        return Err(ShardFileError::OtherKind {
            found: head.kind,
            expected: kind.to_owned(),
        });
    }
    if head.format != FORMAT {
        return Err(ShardFileError::Format {
            found: head.format,
            lmbias: head.lmbias,
        });
    }
    let (document, checksum) = bytes.split_at(bytes.len().saturating_sub(CHECKSUM_LEN));
    let file: File<Stamp, T> = ciborium::from_reader(document).map_err(|e| match e {
        ciborium::de::Error::Io(_) => truncated.clone(),
        other => ShardFileError::Damaged(cbor_error(other)),
    })?;
    if Sha256::digest(document).as_slice() != checksum {
        return Err(ShardFileError::Damaged(
            "its checksum (the sha256 in its last 32 bytes) does not match its contents: the \
             file was changed after it was written; run the shard again"
                .to_owned(),
        ));
    }
    Ok((file.stamp, file.body))
}

/// A ciborium error in words (its `Display` is its `Debug`).
fn cbor_error<T: fmt::Display>(e: impl Into<CborError<T>>) -> String {
    match e.into() {
        CborError::De(ciborium::de::Error::Io(e)) | CborError::Ser(ciborium::ser::Error::Io(e)) => {
            e.to_string()
        }
        CborError::De(ciborium::de::Error::Syntax(at)) => format!("invalid CBOR at byte {at}"),
        CborError::De(ciborium::de::Error::Semantic(Some(at), message)) => {
            format!("{message} (at byte {at})")
        }
        CborError::De(ciborium::de::Error::Semantic(None, message))
        | CborError::Ser(ciborium::ser::Error::Value(message)) => message,
        CborError::De(ciborium::de::Error::RecursionLimitExceeded) => {
            "nested too deeply".to_owned()
        }
    }
}

/// Either side's ciborium error, for [`cbor_error`].
enum CborError<T> {
    De(ciborium::de::Error<T>),
    Ser(ciborium::ser::Error<T>),
}

impl<T> From<ciborium::de::Error<T>> for CborError<T> {
    fn from(e: ciborium::de::Error<T>) -> Self {
        CborError::De(e)
    }
}

impl<T> From<ciborium::ser::Error<T>> for CborError<T> {
    fn from(e: ciborium::ser::Error<T>) -> Self {
        CborError::Ser(e)
    }
}

/// Two shards of one merge that did not run the same thing. One line naming both
/// files, what differs and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}: {what} differs from that of {first} ({detail}); the shards of one run are run by \
     one lmbias on the same inputs with the same options"
)]
pub struct StampMismatch {
    /// The shard at fault, as named to [`check_stamps`].
    pub file: String,
    /// The first shard, which the others are held to.
    pub first: String,
    /// What differs: `lmbias version`, `test weat6`, `option seed`.
    pub what: String,
    /// Its two values, this shard's first.
    pub detail: String,
}

/// Checks that every shard's stamp matches the first's: the same lmbias, the same
/// inputs (by digest) and options. Each shard comes with its name for the message.
pub fn check_stamps(shards: &[(&str, &Stamp)]) -> Result<(), StampMismatch> {
    let Some(&(first_name, first)) = shards.first() else {
        return Ok(());
    };
    let absent = || "absent".to_owned();
    for &(name, stamp) in &shards[1..] {
        let mismatch = |what: String, mine: String, theirs: String| StampMismatch {
            file: name.to_owned(),
            first: first_name.to_owned(),
            what,
            detail: format!("{mine} here, {theirs} there"),
        };
        if stamp.lmbias != first.lmbias {
            return Err(mismatch(
                "lmbias version".to_owned(),
                stamp.lmbias.clone(),
                first.lmbias.clone(),
            ));
        }
        if let Some((key, mine, theirs)) = first_difference(&stamp.digests, &first.digests) {
            let short = |d: Option<&String>| {
                d.map_or_else(absent, |d| format!("sha256 {}…", &d[..d.len().min(12)]))
            };
            return Err(mismatch(key.clone(), short(mine), short(theirs)));
        }
        if let Some((key, mine, theirs)) = first_difference(&stamp.options, &first.options) {
            let plain = |v: Option<&String>| v.cloned().unwrap_or_else(absent);
            return Err(mismatch(
                format!("option {key}"),
                plain(mine),
                plain(theirs),
            ));
        }
    }
    Ok(())
}

/// The first name (in order) whose value differs between `mine` and `theirs`, or
/// that only one has, with both values.
fn first_difference<'a>(
    mine: &'a BTreeMap<String, String>,
    theirs: &'a BTreeMap<String, String>,
) -> Option<(&'a String, Option<&'a String>, Option<&'a String>)> {
    let mut names: Vec<&String> = mine.keys().chain(theirs.keys()).collect();
    names.sort();
    names
        .into_iter()
        .map(|k| (k, mine.get(k), theirs.get(k)))
        .find(|(_, a, b)| a != b)
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

    #[derive(serde::Serialize)]
    struct Seeded {
        seed: u64,
    }

    fn stamp() -> Stamp {
        let mut stamp = Stamp::new("lmbias seat --save");
        stamp.digest("test weat6", b"{\"targ1\": 1}");
        stamp.settings(&Seeded { seed: 1111 }).unwrap();
        stamp
    }

    #[test]
    fn a_file_reads_back_its_stamp_and_body() {
        let body = vec![(1usize, 0.1f64 + 0.2)];
        let bytes = encode(&stamp(), &body).unwrap();
        let (read, back): (Stamp, Vec<(usize, f64)>) =
            decode(&bytes, "lmbias seat --save").unwrap();
        assert_eq!(read, stamp());
        assert_eq!(read.format, FORMAT);
        assert_eq!(read.lmbias, env!("CARGO_PKG_VERSION"));
        assert_eq!(back, body);
    }

    #[test]
    fn every_unreadable_file_says_why_in_words() {
        let bytes = encode(&stamp(), &vec![1u8; 100]).unwrap();
        let decode =
            |bytes: &[u8], kind: &str| decode::<Vec<u8>>(bytes, kind).map(|_| ()).unwrap_err();
        let truncated = decode(&bytes[..bytes.len() - 10], "lmbias seat --save");
        assert_eq!(
            truncated,
            ShardFileError::Truncated {
                len: bytes.len() - 10
            }
        );
        assert!(
            truncated.to_string().starts_with(&format!(
                "truncated: the file ends after {} bytes",
                bytes.len() - 10
            )),
            "{truncated}"
        );
        // Cut inside the stamp, the file is truncated all the same.
        assert_eq!(
            decode(&bytes[..20], "lmbias seat --save"),
            ShardFileError::Truncated { len: 20 }
        );
        assert_eq!(
            decode(&bytes, "cargo xtask reproduce-paper --shard").to_string(),
            "a shard file of `lmbias seat --save`, not of `cargo xtask reproduce-paper --shard`"
        );
        // A file of the unversioned layout: a map without a stamp.
        let mut old = Vec::new();
        ciborium::into_writer(&BTreeMap::from([("shard", "1/2")]), &mut old).unwrap();
        assert_eq!(
            decode(&old, "lmbias seat --save"),
            ShardFileError::Unversioned
        );
        let mut other = stamp();
        other.format = FORMAT + 1;
        other.lmbias = "9.9.9".to_owned();
        let newer = encode(&other, &()).unwrap();
        assert_eq!(
            decode(&newer, "lmbias seat --save").to_string(),
            format!(
                "shard format {}, written by lmbias 9.9.9; lmbias {LMBIAS_VERSION} reads format \
                 {FORMAT} only: run the shard again with lmbias {LMBIAS_VERSION}, or merge with \
                 lmbias 9.9.9",
                FORMAT + 1
            )
        );
        let text = decode(b"{\"rows\": []}", "lmbias seat --save");
        assert_eq!(
            text.to_string(),
            "not a shard file (its bytes are not what `lmbias seat --save` writes)"
        );
        // A result changed where CBOR still reads a number: the checksum finds it.
        let mut changed = encode(&stamp(), &vec![(1usize, 0.6f64)]).unwrap();
        let float = changed.len() - CHECKSUM_LEN - 2;
        changed[float] ^= 0x40;
        let err = super::decode::<Vec<(usize, f64)>>(&changed, "lmbias seat --save").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("damaged: its checksum (the sha256 in its last 32 bytes)"),
            "{err}"
        );
        // The right stamp on a body of another shape.
        let wrong = encode(&stamp(), &"text").unwrap();
        let damaged = decode(&wrong, "lmbias seat --save").to_string();
        assert!(damaged.starts_with("damaged: invalid type"), "{damaged}");
        for message in [truncated.to_string(), damaged] {
            assert!(
                !message.contains("Error {") && !message.contains("Io("),
                "{message}"
            );
        }
    }

    #[test]
    fn stamps_that_differ_are_named_with_both_shards() {
        let first = stamp();
        assert_eq!(check_stamps(&[("a", &first), ("b", &first)]), Ok(()));
        let mut swapped = stamp();
        swapped.digest("test weat6", b"{\"targ1\": 2}");
        let err = check_stamps(&[("a.cbor", &first), ("b.cbor", &swapped)]).unwrap_err();
        assert_eq!(err.what, "test weat6");
        let message = err.to_string();
        assert!(
            message.starts_with("b.cbor: test weat6 differs from that of a.cbor (sha256 "),
            "{message}"
        );
        let mut seed = stamp();
        seed.settings(&Seeded { seed: 7 }).unwrap();
        assert_eq!(
            check_stamps(&[("a", &first), ("b", &seed)])
                .unwrap_err()
                .to_string(),
            "b: option seed differs from that of a (7 here, 1111 there); the shards of one run \
             are run by one lmbias on the same inputs with the same options"
        );
        let mut extra = stamp();
        extra.digest("test weat7", b"{}");
        let err = check_stamps(&[("a", &first), ("b", &extra)]).unwrap_err();
        assert_eq!(err.what, "test weat7");
        assert!(err.detail.ends_with("here, absent there"), "{}", err.detail);
        let mut older = stamp();
        older.lmbias = "0.0.9".to_owned();
        let err = check_stamps(&[("a", &first), ("b", &older)]).unwrap_err();
        assert_eq!(err.what, "lmbias version");
        assert_eq!(err.detail, format!("0.0.9 here, {LMBIAS_VERSION} there"));
    }
}
