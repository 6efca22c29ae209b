//! Dusi 2024's categorical-association probe: the word lists (and templates) kept with
//! their files; how words become vectors decided by the model — static vectors give each
//! word its own vector and need no templates, a checkpoint embeds each word in the
//! templates — or read from a file of precomputed vectors; one [`ProbeResult`] per model
//! and pair of lists, with its provenance.

use std::path::{Path, PathBuf};

use lmbias_core::Layer;
use lmbias_data::probe::{Template, WordList, load_templates, load_word_list};
use lmbias_studies::probe::{Probe, ProbeRun, ProbeStep, ProbeWord, embed_words, word_vectors};
use serde::{Deserialize, Serialize};

use crate::inputs::Vectors;
use crate::provenance::{FileDigest, Provenance};
use crate::{Ctx, Model, RunError};

/// A word list with its file.
pub struct List {
    path: PathBuf,
    list: WordList,
    digest: FileDigest,
}

impl List {
    /// Reads a word list (CSV `word,value[,descriptor]`).
    pub fn load(path: &Path) -> Result<List, RunError> {
        Ok(List {
            path: path.to_path_buf(),
            list: load_word_list(path)?,
            digest: FileDigest::of(path)?,
        })
    }

    /// The words.
    pub fn words(&self) -> &WordList {
        &self.list
    }

    /// The file's stem, as a pair's name uses it.
    fn stem(&self) -> String {
        self.path.file_stem().map_or_else(
            || self.path.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        )
    }
}

/// Templates with their file, each with one `[WORD:<descriptor>]` placeholder.
pub struct Templates {
    templates: Vec<Template>,
    digest: FileDigest,
}

impl Templates {
    /// Reads a template file, one template a line.
    pub fn load(path: &Path) -> Result<Templates, RunError> {
        Ok(Templates {
            templates: load_templates(path)?,
            digest: FileDigest::of(path)?,
        })
    }
}

/// The probe's inputs: the protected and stereotyped lists and, for a checkpoint, the
/// templates its words are embedded in.
pub struct Lists {
    /// The protected words (e.g. religion terms), whose classes the SVMs learn.
    pub protected: List,
    /// The stereotyped words (e.g. adjectives), whose predicted classes are counted.
    pub stereotyped: List,
    /// Templates; static vectors ignore them.
    pub templates: Option<Templates>,
}

impl Lists {
    /// Reads the lists (and the templates).
    pub fn load(
        protected: &Path,
        stereotyped: &Path,
        templates: Option<&Path>,
    ) -> Result<Lists, RunError> {
        Ok(Lists {
            protected: List::load(protected)?,
            stereotyped: List::load(stereotyped)?,
            templates: templates.map(Templates::load).transpose()?,
        })
    }

    /// "PROTECTED × STEREOTYPED", the pair's name from the files' stems.
    pub fn name(&self) -> String {
        format!("{} × {}", self.protected.stem(), self.stereotyped.stem())
    }
}

/// How the words became vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Words {
    /// Each word embedded in every template that accepts it (mean over its pieces, then
    /// over its templates): a checkpoint.
    Templates,
    /// Each word's own vector, no context: static word vectors.
    OwnVectors,
    /// Read from a file of precomputed vectors.
    Precomputed,
}

impl Words {
    /// What the report says of it.
    pub fn note(self) -> &'static str {
        match self {
            Words::Templates => "each word embedded in the templates",
            Words::OwnVectors => {
                "static word vectors have no context: each word is its own vector, and \
                 templates are not used"
            }
            Words::Precomputed => "precomputed vectors",
        }
    }
}

/// How the probe runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeSettings {
    /// The hidden-state layer (ignored by static vectors).
    pub layer: Layer,
    /// One size n of the most relevant dimensions; `None`: every size 2 … hidden size.
    pub n: Option<usize>,
    /// The pair's name; `None`: [`Lists::name`].
    pub pair: Option<String>,
}

impl Default for ProbeSettings {
    fn default() -> Self {
        ProbeSettings {
            layer: Layer::Last,
            n: None,
            pair: None,
        }
    }
}

/// The probe of one pair of lists on one model, and what produced it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeResult {
    /// The model, the lists' (and templates') files, the options, lmbias.
    pub provenance: Provenance,
    /// How the words became vectors.
    pub words: Words,
    /// The fit and the sizes tested.
    pub run: ProbeRun,
}

/// Runs the probe on `model`: static vectors give each word its own vector; a checkpoint
/// embeds the words in `lists.templates`, which it needs.
pub fn run(
    model: &Model,
    lists: &Lists,
    settings: &ProbeSettings,
    _ctx: &Ctx,
) -> Result<ProbeResult, RunError> {
    let embedder = model.embedder()?;
    let (words, templates) = match (model.is_static(), &lists.templates) {
        (true, _) => (Words::OwnVectors, None),
        (false, Some(templates)) => (Words::Templates, Some(templates)),
        (false, None) => return Err(RunError::NeedsTemplates),
    };
    let embed = |list: &List| {
        match templates {
            Some(t) => embed_words(embedder.as_ref(), &list.list, &t.templates, settings.layer),
            None => word_vectors(embedder.as_ref(), &list.list, settings.layer),
        }
        .map_err(|source| RunError::ProbeInFile {
            file: list.path.clone(),
            source,
        })
    };
    let (protected, stereotyped) = (embed(&lists.protected)?, embed(&lists.stereotyped)?);
    let provenance = Provenance::new(model.provenance()?)
        .input(&lists.protected.digest)
        .input(&lists.stereotyped.digest)
        .inputs(templates.map(|t| &t.digest));
    fit(
        model.name(),
        provenance,
        words,
        protected,
        stereotyped,
        lists,
        settings,
    )
}

/// Runs the probe on precomputed vectors: every word of both lists must have one.
pub fn run_on_vectors(
    vectors: &Vectors,
    lists: &Lists,
    settings: &ProbeSettings,
    _ctx: &Ctx,
) -> Result<ProbeResult, RunError> {
    let lookup = |list: &List| -> Result<Vec<ProbeWord>, RunError> {
        let found = vectors
            .embeddings()
            .lookup(list.list.entries().iter().map(|e| &e.word))?;
        Ok(list
            .list
            .entries()
            .iter()
            .zip(found)
            .map(|(entry, vector)| ProbeWord {
                word: entry.word.clone(),
                class: entry.class.clone(),
                vector: vector.to_vec(),
            })
            .collect())
    };
    let provenance = Provenance::new(vectors.provenance())
        .input(&lists.protected.digest)
        .input(&lists.stereotyped.digest);
    let name = vectors.path().display().to_string();
    fit(
        &name,
        provenance,
        Words::Precomputed,
        lookup(&lists.protected)?,
        lookup(&lists.stereotyped)?,
        lists,
        settings,
    )
}

/// The settings as a run applied them: the layer only where a model read the words in
/// context, the sizes tested.
#[derive(Serialize)]
struct Applied {
    layer: Option<Layer>,
    words: &'static str,
    n: String,
}

fn fit(
    model: &str,
    provenance: Provenance,
    words: Words,
    protected: Vec<ProbeWord>,
    stereotyped: Vec<ProbeWord>,
    lists: &Lists,
    settings: &ProbeSettings,
) -> Result<ProbeResult, RunError> {
    let probe = Probe::fit(protected, stereotyped)?;
    let hidden = probe.hidden_size();
    let sweep: Vec<ProbeStep> = match settings.n {
        Some(n) if n < 1 || n > hidden => return Err(RunError::ProbeSize { n, hidden }),
        Some(n) => vec![probe.step(n)?],
        None => probe.sweep()?,
    };
    let applied = Applied {
        layer: (words == Words::Templates).then_some(settings.layer),
        words: words.note(),
        n: settings
            .n
            .map_or_else(|| "2 … hidden size".to_owned(), |n| n.to_string()),
    };
    Ok(ProbeResult {
        provenance: provenance.settings(&applied),
        words,
        run: ProbeRun {
            model: model.to_owned(),
            pair: settings.pair.clone().unwrap_or_else(|| lists.name()),
            relevance_order: probe.relevance_order().to_vec(),
            sweep,
        },
    })
}

/// One row per (model, pair, size n), as Python's rows give them.
#[derive(Debug, Serialize)]
pub struct ProbeRow<'a> {
    /// The model's name.
    pub model: &'a str,
    /// The pair's name.
    pub pair: &'a str,
    /// The size's table and test.
    #[serde(flatten)]
    pub step: &'a ProbeStep,
}

impl ProbeResult {
    /// The run's rows, one per size tested.
    pub fn rows(&self) -> Vec<ProbeRow<'_>> {
        self.run
            .sweep
            .iter()
            .map(|step| ProbeRow {
                model: &self.run.model,
                pair: &self.run.pair,
                step,
            })
            .collect()
    }
}

/// What `lmbias probe --json` prints: every run's provenance, then the runs.
#[derive(Debug, Serialize)]
pub struct ProbeOutput<'a> {
    /// One per run.
    pub provenance: Vec<&'a Provenance>,
    /// How the words became vectors, per run.
    pub words: Vec<Words>,
    /// The runs: `{model, pair, rows, cols, relevance_order, sweep}`.
    pub runs: Vec<&'a ProbeRun>,
}

impl<'a> ProbeOutput<'a> {
    /// The results, in order.
    pub fn of(results: &'a [ProbeResult]) -> ProbeOutput<'a> {
        ProbeOutput {
            provenance: results.iter().map(|r| &r.provenance).collect(),
            words: results.iter().map(|r| r.words).collect(),
            runs: results.iter().map(|r| &r.run).collect(),
        }
    }
}
