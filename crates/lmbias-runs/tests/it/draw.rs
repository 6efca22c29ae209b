//! Sentences and period pairs drawn from parallel corpora given as files, as
//! `lmbias draw-sentences` / `draw-pairs` and Python's `draw_*` call them; bad corpora are
//! refused in one line naming the files.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};

use lmbias_runs::RunError;
use lmbias_runs::data::valence::ValenceDataset;
use lmbias_runs::draw::{self, Parallel, SentenceSettings};

use crate::scratch;

/// Training corpora in which *thee*, *hath*, *unto* are Early Modern and *you*, *has*, *to*
/// Modern; `n` held-out passages, one in three a one-word period swap, one in three the same
/// in both wordings, one in three two words changed; written as JSON lines numbered from 1001.
fn corpora(dir: &Path, n: usize) -> [PathBuf; 4] {
    let early_training: String = (0..60)
        .map(|i| format!("he hath said unto thee that thou art the light of day {i}\n"))
        .collect();
    let modern_training: String = (0..60)
        .map(|i| format!("he has said to you that you are the light of day {i}\n"))
        .collect();
    let (mut early, mut modern) = (String::new(), String::new());
    for k in 0..n {
        let line = 1001 + k;
        let (e, m) = match k % 3 {
            0 => (
                format!("and he spoke of thee and bread {k}"),
                format!("and he spoke of you and bread {k}"),
            ),
            1 => (
                format!("the river runs west past stone {k}"),
                format!("the river runs west past stone {k}"),
            ),
            _ => (
                format!("she hath thee bread {k}"),
                format!("she has you bread {k}"),
            ),
        };
        early.push_str(&format!("{{\"line\": {line}, \"text\": \"{e}\"}}\n"));
        modern.push_str(&format!("{{\"line\": {line}, \"text\": \"{m}\"}}\n"));
    }
    let files = [
        dir.join("early-held.jsonl"),
        dir.join("modern-held.jsonl"),
        dir.join("early-train.txt"),
        dir.join("modern-train.txt"),
    ];
    for (file, text) in files
        .iter()
        .zip([early, modern, early_training, modern_training])
    {
        std::fs::write(file, text).unwrap();
    }
    files
}

fn load(files: &[PathBuf; 4]) -> Result<Parallel, RunError> {
    Parallel::load([&files[0], &files[1]], [&files[2], &files[3]])
}

fn words(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

fn settings(per_group: usize) -> SentenceSettings {
    SentenceSettings {
        per_group: NonZeroUsize::new(per_group).unwrap(),
        seed: 5,
        ..SentenceSettings::default()
    }
}

#[test]
fn sentences_are_drawn_from_the_held_out_passages_by_their_numbers() {
    let dir = scratch("draw-sentences");
    let files = corpora(&dir, 30);
    let parallel = load(&files).unwrap();
    let json = draw::sentences(&parallel, &settings(4)).unwrap();
    // The same draw twice, the same bytes.
    assert_eq!(json, draw::sentences(&parallel, &settings(4)).unwrap());
    let out = dir.join("drawn.json");
    std::fs::write(&out, &json).unwrap();
    let dataset = ValenceDataset::load(&out).unwrap();
    let ids: Vec<&str> = dataset.sentences().iter().map(|s| s.id()).collect();
    let count = |prefix: &str| ids.iter().filter(|id| id.starts_with(prefix)).count();
    assert_eq!((count("eme-"), count("me-")), (4, 4), "{ids:?}");
    assert!(count("neu-") >= 1, "{ids:?}");
    // Ids carry the passages' own numbers, and a drawn Early Modern sentence is masked where
    // its Modern wording has another period's word.
    assert!(ids.iter().all(|id| {
        let n: usize = id.rsplit('-').next().unwrap().parse().unwrap();
        (1001..1031).contains(&n)
    }));
    let early = dataset
        .sentences()
        .iter()
        .find(|s| s.id().starts_with("eme-"))
        .unwrap();
    assert!(early.text().contains("[MASK]"), "{}", early.text());
    // The provenance names every file by its digest.
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    let provenance = &value["provenance"];
    assert_eq!(provenance["seed"], "5");
    assert_eq!(
        provenance["early_modern_held_out_sha256"],
        crate::sha256(&std::fs::read(&files[0]).unwrap())
    );
    assert_eq!(
        provenance["modern_training_sha256"],
        crate::sha256(&std::fs::read(&files[3]).unwrap())
    );
    // More sentences than qualifying passages: refused, with the count.
    let err = draw::sentences(&parallel, &settings(100)).unwrap_err();
    assert_eq!(
        lmbias_testing::error_chain(&err),
        format!(
            "{} and {}: 10 held-out verse pairs differ at a period-marked word: too few for 100 \
             Early Modern and 100 Modern sentences",
            files[0].display(),
            files[1].display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn pairs_are_the_passages_that_differ_in_a_few_words() {
    let dir = scratch("draw-pairs");
    let files = corpora(&dir, 9);
    let parallel = load(&files).unwrap();
    let rows = draw::pairs(&parallel, words(3)).unwrap();
    // Six of nine differ (thee / you; hath thee / has you); the identical three do not.
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0].line, 1001);
    assert_eq!(rows[0].changed_early_modern, ["thee"]);
    assert_eq!(rows[0].changed_modern, ["you"]);
    assert_eq!(rows[1].changed_early_modern, ["hath", "thee"]);
    let csv = draw::pairs_csv(&rows);
    assert!(csv.starts_with(
        ",sent_more,sent_less,stereo_antistereo,bias_type,changed_early_modern,changed_modern\n\
         1001,\"and he spoke of thee and bread 0\",\"and he spoke of you and bread 0\",stereo,period,\"thee\",\"you\"\n"
    ), "{csv}");
    // With one word at most, the two-word changes drop out.
    assert_eq!(draw::pairs(&parallel, words(1)).unwrap().len(), 3);
    // The CSV reads as CrowS-Pairs' pairs.
    let path = dir.join("pairs.csv");
    std::fs::write(&path, &csv).unwrap();
    assert_eq!(
        lmbias_runs::data::crows::PairSet::read(&path)
            .unwrap()
            .pairs()
            .len(),
        6
    );
    // Held-out wordings that are all the same: no pair.
    let same = dir.join("early-same.jsonl");
    std::fs::copy(&files[1], &same).unwrap();
    let parallel = Parallel::load([&same, &files[1]], [&files[2], &files[3]]).unwrap();
    let err = draw::pairs(&parallel, words(3)).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} and {}: no passage's two wordings differ in 1 to 3 words: no minimal pair",
            same.display(),
            files[1].display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unaligned_overlapping_or_repeated_corpora_are_refused_in_one_line() {
    let dir = scratch("draw-refused");
    let files = corpora(&dir, 6);
    // One passage fewer in the Modern wording.
    let text = std::fs::read_to_string(&files[1]).unwrap();
    let shorter: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
    let cut = dir.join("modern-cut.jsonl");
    std::fs::write(&cut, shorter).unwrap();
    let err = Parallel::load([&files[0], &cut], [&files[2], &files[3]])
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        format!(
            "{} and {}: not aligned (6 passages against 5): line i of one must be passage i of \
             the other",
            files[0].display(),
            cut.display()
        )
    );
    // The same count, another numbering.
    let renumbered = dir.join("modern-renumbered.jsonl");
    std::fs::write(&renumbered, text.replace("\"line\": 1003", "\"line\": 9")).unwrap();
    let err = Parallel::load([&files[0], &renumbered], [&files[2], &files[3]])
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("not aligned (passage 3 is number 1003 in one and 9 in the other)"),
        "{err}"
    );
    // A held-out passage that is also a training passage.
    let mut training = std::fs::read_to_string(&files[2]).unwrap();
    training.push_str("and he spoke of thee and bread 0\n");
    let leaky = dir.join("early-train-leaky.txt");
    std::fs::write(&leaky, training).unwrap();
    let parallel = Parallel::load([&files[0], &files[1]], [&leaky, &files[3]]).unwrap();
    let err = draw::pairs(&parallel, words(3)).unwrap_err();
    assert_eq!(
        lmbias_testing::error_chain(&err),
        format!(
            "{} and {}: held-out verse at line 1001 (Early Modern wording) is also a training \
             passage: \"and he spoke of thee and bread 0\"",
            files[0].display(),
            files[1].display()
        )
    );
    // One file given twice, as held-out and as training text.
    let err = Parallel::load([&files[0], &files[1]], [&files[0], &files[3]])
        .err()
        .unwrap();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: given twice: the two held-out files and the two training corpora must be four \
             different files",
            files[0].display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_split_holds_out_a_share_and_every_passage_that_could_leak() {
    let dir = scratch("draw-split");
    // 200 passages: every tenth the same in both wordings; passages 1 and 101 share their Early
    // Modern wording.
    let (mut early, mut modern) = (String::new(), String::new());
    for i in 0..200 {
        let (e, m) = match i {
            _ if i % 10 == 5 => (format!("the stone {i} lies"), format!("the stone {i} lies")),
            1 | 101 => (
                "and the lord spake".to_owned(),
                format!("and the lord spoke {i}"),
            ),
            _ => (
                format!("thou hast {i} loaves"),
                format!("you have {i} loaves"),
            ),
        };
        early.push_str(&format!("{e}\n"));
        modern.push_str(&format!("{m}\n"));
    }
    let (e, m) = (dir.join("early.txt"), dir.join("modern.txt"));
    std::fs::write(&e, &early).unwrap();
    std::fs::write(&m, &modern).unwrap();
    let split = draw::split([&e, &m], 0.1, 7).unwrap();
    assert_eq!(split.passages, 200);
    assert_eq!(split, draw::split([&e, &m], 0.1, 7).unwrap(), "seeded");
    let held: Vec<serde_json::Value> = split.held_out[0]
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let lines: Vec<u64> = held.iter().map(|h| h["line"].as_u64().unwrap()).collect();
    assert_eq!(lines.len(), split.held);
    // 20 drawn, the 20 passages with the same words, and the partner of any shared wording.
    assert!((21..=42).contains(&split.held), "{}", split.held);
    assert!(
        (0..200)
            .filter(|i| i % 10 == 5)
            .all(|i| lines.contains(&(i + 1)))
    );
    assert_eq!(
        lines.contains(&2),
        lines.contains(&102),
        "a shared wording goes with its twin"
    );
    // No held-out text is a training text, and the training keeps the rest in order.
    let training: Vec<&str> = split.training[0].lines().collect();
    assert_eq!(training.len() + split.held, 200);
    assert!(
        held.iter()
            .all(|h| !training.contains(&h["text"].as_str().unwrap()))
    );
    // Written out, the four files are what the draws read.
    let files = [
        dir.join("eh.jsonl"),
        dir.join("mh.jsonl"),
        dir.join("et.txt"),
        dir.join("mt.txt"),
    ];
    for (file, text) in files.iter().zip([
        &split.held_out[0],
        &split.held_out[1],
        &split.training[0],
        &split.training[1],
    ]) {
        std::fs::write(file, text).unwrap();
    }
    let parallel = load(&files).unwrap();
    assert_eq!(parallel.pairs().len(), split.held);
    // Refused: corpora of unequal length, a share that is no share.
    std::fs::write(
        &m,
        modern
            .lines()
            .skip(1)
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
    )
    .unwrap();
    let err = draw::split([&e, &m], 0.1, 7).unwrap_err();
    assert!(
        err.to_string()
            .contains("not aligned (200 passages against 199)"),
        "{err}"
    );
    for share in [0.0, 1.0, f64::NAN, -0.5] {
        let err = draw::split([&e, &m], share, 7).unwrap_err();
        assert!(matches!(err, RunError::Share { .. }), "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
