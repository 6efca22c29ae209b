//! WordNet 3.0 as Debian's `wordnet-base` installs it (`/usr/share/wordnet`; Princeton's
//! WordNet 3.0 licence, a permissive one; datasets/README.md records it): the Modern English
//! text of issue #46 that no period model trains on. Its four data files are pinned by sha256;
//! their definitions make the Modern side of the disjoint corpus raters (written once into the
//! cache as `wordnet-definitions-v1.txt`), their example sentences the Modern sentences of the
//! play-line set.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};
use lmbias_runs::FileDigest;
use lmbias_runs::data::corpus::{Gloss, wordnet_glosses};

/// Where Debian's `wordnet-base` puts the database.
pub const DIR: &str = "/usr/share/wordnet";

/// The Debian package, as the provenance names it.
pub const PACKAGE: &str = "Debian wordnet-base 1:3.0-37 (WordNet 3.0)";

/// The data files and the sha256 they were pinned with (Debian's wordnet-base 1:3.0-37).
pub const DATA_FILES: [(&str, &str); 4] = [
    (
        "data.noun",
        "fea17d2f9656611334eac790e5d69e47645fa180c4aa481fb4cd9b3520754ca2",
    ),
    (
        "data.verb",
        "adcf43e35b581e8036d8b5a52d63d9cd3d3b4870b2720d3c03c799df44777bc2",
    ),
    (
        "data.adj",
        "c89120dfc1f046ddff4a631bf9b7e9fa1a36b5e86565a23bf82dbe14f30b88a7",
    ),
    (
        "data.adv",
        "444a63bf3955080ab7524f5079cfc07ff9bc682cb98bdb1db73b0fb9829f1139",
    ),
];

/// Every synset's gloss, the four files in [`DATA_FILES`]' order, each checked against its
/// pinned digest.
pub fn glosses() -> Result<Vec<Gloss>> {
    let mut out = Vec::new();
    for (file, sha256) in DATA_FILES {
        let path = Path::new(DIR).join(file);
        ensure!(
            path.is_file(),
            "{}: not found: WordNet 3.0 comes from Debian's wordnet-base (apt-get install \
             wordnet-base)",
            path.display()
        );
        let digest = FileDigest::of(&path)?.sha256;
        ensure!(
            digest == sha256,
            "{}: sha256 {digest}, not the {sha256} of {PACKAGE} that the play-line set and the \
             disjoint raters were made from",
            path.display()
        );
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        out.extend(wordnet_glosses(&text).with_context(|| path.display().to_string())?);
    }
    Ok(out)
}

/// The definitions, one a line, as a corpus file in the cache: the Modern side of the disjoint
/// corpus raters (never a sentence of a set).
pub fn definitions_corpus() -> Result<PathBuf> {
    let dir = lmbias_runs::fetch::cache_dir()?.join("corpora");
    let path = dir.join("wordnet-definitions-v1.txt");
    if !path.is_file() {
        let mut lines = String::new();
        for gloss in glosses()? {
            if !gloss.definition.is_empty() {
                lines.push_str(&gloss.definition);
                lines.push('\n');
            }
        }
        std::fs::create_dir_all(&dir).with_context(|| dir.display().to_string())?;
        lmbias_runs::write_atomically(&path, lines.as_bytes())?;
    }
    Ok(path)
}
