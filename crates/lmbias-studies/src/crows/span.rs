//! The shared and the modified positions of two id sequences, as Python's
//! `difflib.SequenceMatcher(None, a, b).get_opcodes()` finds them: the CrowS-Pairs metric
//! (`metric.py`, `get_span`), bias-bench (`crows.py`, `_get_span`) and Kaneko & Bollegala
//! (`evaluate.py`, `get_span`) all diff the two sentences' ids with it, and which tokens are
//! "unmodified" is whatever its matching blocks say. A port of CPython's algorithm (Ratcliff
//! and Obershelp's longest matching block, recursively, with its tie-breaking and its
//! "autojunk" heuristic for sequences of 200 or more), not a general diff: another diff can
//! align repeated tokens differently and so score different tokens.

use std::collections::HashMap;

/// The positions of `a` and of `b` in `difflib`'s equal opcodes (`shared`) and in its other
/// opcodes (`modified`), each list in increasing order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Spans {
    /// Shared positions of `a`, matched one to one with `shared_b`.
    pub(crate) shared_a: Vec<usize>,
    /// Shared positions of `b`.
    pub(crate) shared_b: Vec<usize>,
    /// Positions of `a` in replace/delete opcodes.
    pub(crate) modified_a: Vec<usize>,
    /// Positions of `b` in replace/insert opcodes.
    pub(crate) modified_b: Vec<usize>,
}

/// The spans of `a` against `b` (the order matters, as in `difflib`).
pub(crate) fn spans(a: &[u32], b: &[u32]) -> Spans {
    let blocks = matching_blocks(a, b);
    let mut spans = Spans {
        shared_a: Vec::new(),
        shared_b: Vec::new(),
        modified_a: Vec::new(),
        modified_b: Vec::new(),
    };
    let (mut i, mut j) = (0, 0);
    for &(ai, bj, size) in &blocks {
        spans.modified_a.extend(i..ai);
        spans.modified_b.extend(j..bj);
        spans.shared_a.extend(ai..ai + size);
        spans.shared_b.extend(bj..bj + size);
        (i, j) = (ai + size, bj + size);
    }
    spans.modified_a.extend(i..a.len());
    spans.modified_b.extend(j..b.len());
    spans
}

/// `get_matching_blocks()` without its final `(len(a), len(b), 0)`: `(i, j, size)` with
/// `a[i..i+size] == b[j..j+size]`, increasing in `i` and `j`.
fn matching_blocks(a: &[u32], b: &[u32]) -> Vec<(usize, usize, usize)> {
    let b2j = index_of_b(b);
    let mut queue = vec![(0, a.len(), 0, b.len())];
    let mut blocks = Vec::new();
    while let Some((alo, ahi, blo, bhi)) = queue.pop() {
        let (i, j, k) = longest_match(a, b, &b2j, alo, ahi, blo, bhi);
        if k > 0 {
            blocks.push((i, j, k));
            if alo < i && blo < j {
                queue.push((alo, i, blo, j));
            }
            if i + k < ahi && j + k < bhi {
                queue.push((i + k, ahi, j + k, bhi));
            }
        }
    }
    blocks.sort_unstable();
    blocks
}

/// `b2j`: each element of `b` to its positions, increasing, with `difflib`'s autojunk: for
/// `len(b) >= 200`, an element found more than `len(b) // 100 + 1` times is "popular" and
/// left out (no junk function is given, so nothing else is).
fn index_of_b(b: &[u32]) -> HashMap<u32, Vec<usize>> {
    let mut b2j: HashMap<u32, Vec<usize>> = HashMap::new();
    for (j, &x) in b.iter().enumerate() {
        b2j.entry(x).or_default().push(j);
    }
    if b.len() >= 200 {
        let most = b.len() / 100 + 1;
        b2j.retain(|_, positions| positions.len() <= most);
    }
    b2j
}

/// `find_longest_match(alo, ahi, blo, bhi)`: the longest block found through `b2j`, the
/// earliest in `a` and then in `b` among equals, then extended on both sides by equal
/// elements (popular ones included: they are not junk).
fn longest_match(
    a: &[u32],
    b: &[u32],
    b2j: &HashMap<u32, Vec<usize>>,
    alo: usize,
    ahi: usize,
    blo: usize,
    bhi: usize,
) -> (usize, usize, usize) {
    let (mut best_i, mut best_j, mut best) = (alo, blo, 0);
    let mut j2len: HashMap<usize, usize> = HashMap::new();
    for (i, x) in a.iter().enumerate().take(ahi).skip(alo) {
        let mut next: HashMap<usize, usize> = HashMap::new();
        for &j in b2j.get(x).map_or(&[][..], Vec::as_slice) {
            if j < blo {
                continue;
            }
            if j >= bhi {
                break;
            }
            let k = j
                .checked_sub(1)
                .and_then(|p| j2len.get(&p))
                .map_or(0, |k| *k)
                + 1;
            next.insert(j, k);
            if k > best {
                (best_i, best_j, best) = (i + 1 - k, j + 1 - k, k);
            }
        }
        j2len = next;
    }
    while best_i > alo && best_j > blo && a[best_i - 1] == b[best_j - 1] {
        (best_i, best_j, best) = (best_i - 1, best_j - 1, best + 1);
    }
    while best_i + best < ahi && best_j + best < bhi && a[best_i + best] == b[best_j + best] {
        best += 1;
    }
    (best_i, best_j, best)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opcodes `difflib.SequenceMatcher(None, a, b).get_opcodes()` gives (Python 3.11), as
    /// the positions of the equal ones and of the others.
    #[test]
    fn the_spans_are_difflib_s() {
        // [101, 7, 8, 9, 102] vs [101, 7, 5, 9, 102]: equal 0-2, replace 2-3, equal 3-5.
        let s = spans(&[101, 7, 8, 9, 102], &[101, 7, 5, 9, 102]);
        assert_eq!(s.shared_a, [0, 1, 3, 4]);
        assert_eq!(s.shared_b, [0, 1, 3, 4]);
        assert_eq!(
            (s.modified_a.as_slice(), s.modified_b.as_slice()),
            (&[2][..], &[2][..])
        );
        // An insertion: b has two pieces where a has one.
        let s = spans(&[1, 2, 3, 4], &[1, 2, 5, 6, 3, 4]);
        assert_eq!(s.shared_b, [0, 1, 4, 5]);
        assert_eq!(s.modified_a, Vec::<usize>::new());
        assert_eq!(s.modified_b, [2, 3]);
        // Repeats: difflib takes the longest block first, then the earliest.
        // SequenceMatcher(None, "abab", "ab").get_matching_blocks() → (0, 0, 2).
        let s = spans(&[1, 2, 1, 2], &[1, 2]);
        assert_eq!(s.shared_a, [0, 1]);
        assert_eq!(s.modified_a, [2, 3]);
        // "xab" vs "abx": the block "ab" (1, 0, 2) wins over "x" (0, 2, 1).
        let s = spans(&[9, 1, 2], &[1, 2, 9]);
        assert_eq!((s.shared_a, s.shared_b), (vec![1, 2], vec![0, 1]));
        assert_eq!((s.modified_a, s.modified_b), (vec![0], vec![2]));
    }

    /// From 200 elements on, an element more frequent than 1 % + 1 is left out of the index
    /// (difflib's autojunk), but still extends a block it borders.
    #[test]
    fn popular_elements_follow_autojunk() {
        // b: 0 repeated 150 times, then 1..=60; a: the same with 0s at the end. Each 0 in b
        // is popular (150 > 200 // 100 + 1 = 3), so the match found first is 1..=60, and
        // it is extended backwards through no 0 (a has none before it).
        let b: Vec<u32> = std::iter::repeat_n(0, 150).chain(1..=60).collect();
        let a: Vec<u32> = (1..=60).chain(std::iter::repeat_n(0, 150)).collect();
        let s = spans(&a, &b);
        assert_eq!(s.shared_a, (0..60).collect::<Vec<_>>());
        assert_eq!(s.shared_b, (150..210).collect::<Vec<_>>());
        // Below 200 elements nothing is popular: a shorter b matches the 0s first.
        let b: Vec<u32> = std::iter::repeat_n(0, 100).chain(1..=60).collect();
        let a: Vec<u32> = (1..=60).chain(std::iter::repeat_n(0, 100)).collect();
        let s = spans(&a, &b);
        assert_eq!(s.shared_a, (60..160).collect::<Vec<_>>());
    }
}
