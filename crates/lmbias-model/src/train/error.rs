//! Why a training run could not start or finish: one line each, naming the
//! file, flag or field at fault.

use std::path::PathBuf;

use crate::error::ModelError;

/// Why `train_mlm` stopped.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The base checkpoint, the tokenizer or a weight file could not be read.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The corpus gives too little text for the sequences asked for.
    #[error("{corpus}: {message}")]
    Corpus {
        /// The corpus's name (its path), for the message.
        corpus: String,
        /// What is missing.
        message: String,
    },
    /// A setting the model or the corpus cannot take.
    #[error("{flag} {value}: {message}")]
    Setting {
        /// The setting, as the command line names it (`--max-len`).
        flag: &'static str,
        /// The value given.
        value: String,
        /// Why it cannot be used.
        message: String,
    },
    /// The output folder or a checkpoint could not be written or read.
    #[error("{}: {message}", path.display())]
    Output {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        message: String,
        /// The I/O error, when there is one.
        #[source]
        source: Option<std::io::Error>,
    },
    /// The loss became NaN or infinite: a learning rate or a weight decay too high for the
    /// model (AdamW's decay multiplies each weight by 1 − lr·decay: past 2/lr it flips and
    /// grows the weights at every step).
    #[error("step {step}: the loss is {loss}; {advice}")]
    Diverged {
        /// The step (1-based).
        step: usize,
        /// The loss found.
        loss: f64,
        /// What to change, naming the setting at fault and its value.
        advice: String,
    },
    /// The run was stopped (its cancel flag set) after `step`, with a checkpoint of that
    /// step to resume from.
    #[error("stopped after step {step}; the checkpoint {} continues it (--resume)", checkpoint.display())]
    Interrupted {
        /// Steps done.
        step: usize,
        /// The checkpoint folder.
        checkpoint: PathBuf,
    },
}

impl TrainError {
    /// This error with a path under `staging` (the temporary folder a result is written in
    /// before its rename) shown under `shown`, the name the user knows it by.
    pub(crate) fn staged_as(self, staging: &std::path::Path, shown: &std::path::Path) -> Self {
        self.map_output(|path, message| match path.strip_prefix(staging) {
            Ok(rest) => (shown.join(rest), message),
            Err(_) => (path, message),
        })
    }

    /// This error (a write that failed) with what is left said after what went wrong: a
    /// full disk stops a run of hours, and the user must know what it kept.
    pub(crate) fn keeping(self, kept: &str) -> Self {
        self.map_output(|path, message| (path, format!("{message} ({kept})")))
    }

    /// An error about the output's files with its path and message changed by `change`; a
    /// write that failed in the model's files (the weights) counts as one.
    fn map_output(self, change: impl FnOnce(PathBuf, String) -> (PathBuf, String)) -> Self {
        let output = match self {
            TrainError::Model(ModelError::Io {
                path,
                doing,
                source,
            }) => TrainError::io(path, &format!("cannot {doing}"), source),
            other => other,
        };
        match output {
            TrainError::Output {
                path,
                message,
                source,
            } => {
                let (path, message) = change(path, message);
                TrainError::Output {
                    path,
                    message,
                    source,
                }
            }
            other => other,
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, doing: &str, source: std::io::Error) -> Self {
        TrainError::Output {
            path: path.into(),
            message: doing.to_owned(),
            source: Some(source),
        }
    }
}
