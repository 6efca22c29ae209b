//! The trained model as a Hugging Face folder: config.json, model.safetensors
//! with transformers' names (`BertForMaskedLM`), the tokenizer's files, and the
//! run's report. A folder is written under a temporary name and renamed, so a
//! folder at the output path is always complete.

use std::path::{Path, PathBuf};

use lmbias_text::Tokenizer;

use super::{TIMING_FILE, TrainError, Trained, TrainingReport};
use crate::bert::BertForMaskedLm;
use crate::weights::ExportedWeights;

/// The files transformers reads beside the tokenizer's own, copied when the source has them.
const TOKENIZER_SIDE_FILES: [&str; 6] = [
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    // A slow tokenizer's vocabulary: RoBERTa's BPE, CamemBERT's and XLM-R's SentencePiece.
    "vocab.json",
    "merges.txt",
    "sentencepiece.bpe.model",
];

/// Refuses an output that exists, and one whose folder cannot be written,
/// before any work is done.
pub(super) fn check_output(output: &Path) -> Result<(), TrainError> {
    // Any entry counts, a link too: a dangling link or a loop of links is no place for a
    // folder, and following it (`exists`) would train every step before the rename failed.
    if std::fs::symlink_metadata(output).is_ok() {
        return Err(TrainError::Output {
            path: output.to_path_buf(),
            message: "already exists: remove it or choose another --output".into(),
            source: None,
        });
    }
    // Made and removed at once: the error names the output, not the staging name.
    let probe = temporary(output);
    std::fs::create_dir_all(&probe)
        .map_err(|e| TrainError::io(output, "cannot create the output folder", e))?;
    let _ = std::fs::remove_dir(&probe);
    Ok(())
}

/// `OUTPUT.lock`, held for a whole run: an operating-system lock on the file, released
/// when the process ends however it ends, so that a second run on the same output is
/// refused at once instead of training all its steps to fail at the end. The file names
/// its holder's process id; it is removed when the run ends.
pub(super) struct OutputLock {
    path: PathBuf,
    _file: std::fs::File,
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Takes `output`'s lock (see [`OutputLock`]), then refuses an output that appeared
/// meanwhile; call after [`check_output`], which makes the parent folder.
pub(super) fn lock_output(output: &Path) -> Result<OutputLock, TrainError> {
    use std::io::{Read, Seek, Write};
    let path = super::beside(output, ".lock");
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| TrainError::io(&path, "cannot create the lock file", e))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                pid if !pid.is_empty() && pid.len() <= 20 => format!(" (process {pid})"),
                _ => String::new(),
            };
            return Err(TrainError::Output {
                path: output.to_path_buf(),
                message: format!(
                    "another training{holder} is writing it: wait for it to end or choose \
                     another --output"
                ),
                source: None,
            });
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(TrainError::io(&path, "cannot lock the output", e));
        }
    }
    let write_pid = |file: &mut std::fs::File| {
        file.set_len(0)?;
        file.rewind()?;
        write!(file, "{}", std::process::id())
    };
    write_pid(&mut file).map_err(|e| TrainError::io(&path, "cannot write the lock file", e))?;
    let lock = OutputLock { path, _file: file };
    check_output(output)?;
    Ok(lock)
}

/// `output.tmp-PID`, beside it (a rename within one file system).
fn temporary(output: &Path) -> PathBuf {
    super::beside(output, &format!(".tmp-{}", std::process::id()))
}

/// A model with what its folder needs besides the weights.
pub(super) struct Folder<'a> {
    model: &'a BertForMaskedLm,
    base_config: Option<&'a serde_json::Value>,
    tokenizer: &'a Tokenizer,
}

impl<'a> Folder<'a> {
    pub(super) fn new(
        model: &'a BertForMaskedLm,
        base_config: Option<&'a serde_json::Value>,
        tokenizer: &'a Tokenizer,
    ) -> Self {
        Self {
            model,
            base_config,
            tokenizer,
        }
    }

    /// config.json: the base's, with `architectures` now `BertForMaskedLM` and `vocab_size`
    /// the model's (grown by `--add-words`; every other field as it was), or a full one for a
    /// model from scratch.
    fn config(&self) -> serde_json::Value {
        match self.base_config {
            Some(base) => {
                let mut config = base.clone();
                config["architectures"] = serde_json::json!(["BertForMaskedLM"]);
                config["vocab_size"] = serde_json::json!(self.model.bert_config().vocab_size());
                config
            }
            None => self.model.bert_config().to_json(self.tokenizer.pad_id()),
        }
    }

    /// Writes the model folder into `dir` (which exists and is empty).
    pub(super) fn write_into(&self, dir: &Path) -> Result<(), TrainError> {
        let config = serde_json::to_string_pretty(&self.config()).expect("JSON values serialise");
        write(&dir.join("config.json"), config.as_bytes())?;
        ExportedWeights::collect(|out| self.model.save(out))
            .write(&dir.join("model.safetensors"))?;
        let source = self.tokenizer.dir();
        // Every tokenizer file lmbias reads (tokenizer.json, written unpadded, below), so
        // that the folder loads whatever kind its tokenizer is, and transformers' own.
        let copied = lmbias_text::TOKENIZER_FILES
            .into_iter()
            .filter(|name| *name != "tokenizer.json")
            .chain(TOKENIZER_SIDE_FILES);
        for name in copied {
            let from = source.join(name);
            if from.is_file() {
                std::fs::copy(&from, dir.join(name))
                    .map_err(|e| TrainError::io(&from, "cannot copy the tokenizer file", e))?;
            }
        }
        let json = source.join("tokenizer.json");
        if json.is_file() {
            write(&dir.join("tokenizer.json"), &unpadded(&json)?)?;
        }
        Ok(())
    }

    /// The folder, the run's report and its timing, written under a temporary name and
    /// renamed to `output` at the end.
    pub(super) fn write_final(&self, output: &Path, trained: &Trained) -> Result<(), TrainError> {
        let report = &trained.report;
        let staging = temporary(output);
        let _ = std::fs::remove_dir_all(&staging);
        let written = (|| {
            std::fs::create_dir_all(&staging)
                .map_err(|e| TrainError::io(&staging, "cannot create the output folder", e))?;
            self.write_into(&staging)?;
            let json = serde_json::to_string_pretty(report).expect("the report serialises");
            write(&staging.join("training.json"), json.as_bytes())?;
            write(&staging.join("training.md"), report.markdown().as_bytes())?;
            let timing = serde_json::to_string_pretty(&trained.timing).expect("timing serialises");
            write(&staging.join(TIMING_FILE), timing.as_bytes())
        })();
        if let Err(e) = written {
            // A folder the run could not finish (a full disk, say) is no model: it goes.
            let _ = std::fs::remove_dir_all(&staging);
            return Err(e.staged_as(&staging, output));
        }
        std::fs::rename(&staging, output)
            .map_err(|e| TrainError::io(output, "cannot move the finished folder into place", e))
    }
}

/// tokenizer.json without padding or truncation: a tokenizer that pads every
/// text to 128 (all-MiniLM-L6-v2's) would give transformers' fill-mask other
/// inputs than lmbias's.
fn unpadded(path: &Path) -> Result<Vec<u8>, TrainError> {
    let text = lmbias_core::read::read_capped(path, lmbias_core::read::TOKENIZER)
        .map_err(|e| TrainError::io(path, "cannot read", e.source))?;
    let mut document: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| TrainError::Output {
            path: path.to_path_buf(),
            message: format!("invalid JSON: {e}"),
            source: None,
        })?;
    document["padding"] = serde_json::Value::Null;
    document["truncation"] = serde_json::Value::Null;
    Ok(serde_json::to_vec_pretty(&document).expect("JSON values serialise"))
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), TrainError> {
    std::fs::write(path, bytes).map_err(|e| TrainError::io(path, "cannot write", e))
}

impl TrainingReport {
    /// training.md: the run in a few lines.
    pub fn markdown(&self) -> String {
        let s = &self.settings;
        let mut md = format!(
            "# Masked-LM training\n\n\
             | | |\n|---|---|\n\
             | start | {} |\n| fresh MLM head | {} |\n| corpus | {} (sha256 {}) |\n\
             | passages (train / held out) | {} / {} |\n| sequences of {} tokens (train / held out) | {} / {} |\n\
             | steps × batch | {} × {} |\n| learning rate (peak, warm-up steps) | {} ({}) |\n\
             | weight decay, clip, seed | {}, {}, {} |\n| masking | {} % ({}) |\n\
             | device | {} |\n| tokens (time and tokens/s: {TIMING_FILE}) | {} |\n| final loss | {:.4} |\n",
            self.start,
            if self.fresh_head { "yes" } else { "no" },
            self.corpus,
            self.corpus_sha256,
            self.passages[0],
            self.passages[1],
            s.max_len,
            self.sequences[0],
            self.sequences[1],
            s.steps,
            s.batch,
            s.lr,
            s.warmup_steps,
            s.weight_decay,
            s.clip,
            s.seed,
            s.mlm_probability * 100.0,
            if s.whole_word {
                "whole words"
            } else {
                "pieces"
            },
            self.device,
            self.tokens,
            self.losses.last().copied().unwrap_or(f64::NAN),
        );
        if let Some(h) = &self.held_out {
            md.push_str(&format!(
                "| held-out masked-token accuracy | {:.4} ({} tokens of {} sequences) |\n\
                 | held-out loss | {:.4} |\n| held-out pseudo-perplexity | {:.2} ({} tokens) |\n",
                h.accuracy,
                h.masked_tokens,
                h.sequences,
                h.loss,
                h.pseudo_perplexity,
                h.pppl_tokens
            ));
        }
        if let Some(step) = self.resumed_from {
            md.push_str(&format!("| resumed from step | {step} |\n"));
        }
        md
    }
}
