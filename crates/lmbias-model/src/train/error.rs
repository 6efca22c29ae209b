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
    /// The loss became NaN or infinite: a learning rate too high for the model.
    #[error("step {step}: the loss is {loss}; lower --lr (now {lr})")]
    Diverged {
        /// The step (1-based).
        step: usize,
        /// The loss found.
        loss: f64,
        /// The peak learning rate.
        lr: f64,
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
    pub(crate) fn io(path: impl Into<PathBuf>, doing: &str, source: std::io::Error) -> Self {
        TrainError::Output {
            path: path.into(),
            message: format!("{doing}: {source}"),
            source: Some(source),
        }
    }
}
