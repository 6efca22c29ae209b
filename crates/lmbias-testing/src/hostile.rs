//! Damaged copies of real files for the property tests that feed every reader hostile input
//! (#35): a file cut short, bytes flipped, inserted, removed or repeated, or replaced whole.
//! The edits are proptest values, so a failure shrinks to the fewest, smallest edits.
//!
//! How many inputs a property test tries is [`cases`]: a bounded number in CI, more when
//! `LMBIAS_FUZZ_CASES` asks (docs/reliability.md records the long run).

use proptest::prelude::*;

/// One edit of a file's bytes. Positions are fractions of the length (in 1/65536ths), so the
/// same edit lands in a small file and a large one alike, and shrinks toward the start.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Keep only the bytes before the position: a half-written or cut-off file.
    Truncate(u16),
    /// XOR one byte with a non-zero mask.
    Flip(u16, u8),
    /// Put bytes in at the position.
    Insert(u16, Vec<u8>),
    /// Remove up to `n` bytes from the position.
    Delete(u16, u16),
    /// Repeat up to `n` bytes from the position right after themselves.
    Repeat(u16, u16),
}

fn at(fraction: u16, len: usize) -> usize {
    (fraction as usize * len) >> 16
}

impl Edit {
    /// `bytes` with this edit made.
    pub fn apply(&self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        match *self {
            Edit::Truncate(p) => bytes.truncate(at(p, len)),
            Edit::Flip(p, mask) => {
                if len > 0 {
                    bytes[at(p, len)] ^= mask;
                }
            }
            Edit::Insert(p, ref new) => {
                let i = at(p, len);
                bytes.splice(i..i, new.iter().copied());
            }
            Edit::Delete(p, n) => {
                let i = at(p, len);
                bytes.drain(i..(i + n as usize).min(len));
            }
            Edit::Repeat(p, n) => {
                let i = at(p, len);
                let copy = bytes[i..(i + n as usize).min(len)].to_vec();
                bytes.splice(i..i, copy);
            }
        }
    }
}

/// Bytes a reader might trip on: quotes, brackets, digits, NUL, high bytes, a long number.
fn nasty() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 1..16),
        prop::sample::select(vec![
            b"\"".to_vec(),
            b"{".to_vec(),
            b"]".to_vec(),
            b"\n".to_vec(),
            b"\0".to_vec(),
            b"-1".to_vec(),
            b"1e308".to_vec(),
            b"18446744073709551616".to_vec(),
            b"9".repeat(309),
            b"NaN".to_vec(),
            b"\xff\xfe".to_vec(),
            b"\xEF\xBB\xBF".to_vec(),
        ]),
    ]
}

/// One edit.
pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        any::<u16>().prop_map(Edit::Truncate),
        (any::<u16>(), 1u8..=255).prop_map(|(p, m)| Edit::Flip(p, m)),
        (any::<u16>(), nasty()).prop_map(|(p, b)| Edit::Insert(p, b)),
        (any::<u16>(), 1u16..64).prop_map(|(p, n)| Edit::Delete(p, n)),
        (any::<u16>(), 1u16..64).prop_map(|(p, n)| Edit::Repeat(p, n)),
    ]
}

/// A damaged copy of a file: one to four edits of the real bytes, or (one time in eight)
/// random bytes in its place.
pub fn damaged(original: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        7 => prop::collection::vec(edit(), 1..5).prop_map(move |edits| {
            let mut bytes = original.clone();
            for e in &edits {
                e.apply(&mut bytes);
            }
            bytes
        }),
        1 => prop::collection::vec(any::<u8>(), 0..256),
    ]
}

/// How many damaged inputs a property test tries: `default` (sized for CI), or
/// `LMBIAS_FUZZ_CASES` for a longer run.
pub fn cases(default: u32) -> u32 {
    std::env::var("LMBIAS_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `bytes` written to a file called `name` in this process's and thread's scratch folder
/// (property tests run on several threads), for a reader that takes a path.
pub fn on_disk(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "lmbias-hostile-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_land_where_they_say() {
        let mut b = b"abcdef".to_vec();
        Edit::Truncate(u16::MAX / 2 + 1).apply(&mut b);
        assert_eq!(b, b"abc");
        Edit::Flip(0, 0x20).apply(&mut b);
        assert_eq!(b, b"Abc");
        Edit::Insert(u16::MAX, b"X".to_vec()).apply(&mut b);
        assert_eq!(b, b"AbXc");
        Edit::Delete(0, 2).apply(&mut b);
        assert_eq!(b, b"Xc");
        Edit::Repeat(0, 9).apply(&mut b);
        assert_eq!(b, b"XcXc");
        let mut empty = Vec::new();
        for e in [Edit::Flip(5, 1), Edit::Delete(9, 9), Edit::Repeat(1, 1)] {
            e.apply(&mut empty);
        }
        assert!(empty.is_empty());
    }
}
