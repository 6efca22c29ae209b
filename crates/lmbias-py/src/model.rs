//! `lmbias.Model`: a model named as the CLI's `--model` names one, opened by lmbias-runs
//! (static word vectors or a checkpoint, decided there once). The encoder and the masked-LM
//! head load on first use, each once.

use std::sync::atomic::AtomicBool;

use lmbias_runs::encoder::EncoderError;
use lmbias_runs::{DeviceKind, Precision, RunError, SharedEmbedder, SharedMaskedLm};
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;

use crate::convert::{self, LayerArg, to_python};
use crate::errors::{to_py, value_error};
use crate::work;

/// Texts per call into the model in a long `embed` or `fill_mask`: Ctrl-C is honoured between
/// chunks (one takes about a second for MiniLM on two cores). The CLI's size, so both make the
/// same calls and give the same vectors (tests/test_interrupt.py compares them).
const CHUNK: usize = lmbias_runs::encoder::TEXTS_PER_CALL;

/// `call` on `texts` chunk by chunk, in order; `None` once `cancel` is set. An error names
/// its text by its index in `texts`, as one call over all of them would.
fn chunked<T>(
    texts: &[String],
    cancel: &AtomicBool,
    call: impl Fn(&[&str]) -> Result<Vec<T>, EncoderError>,
) -> Result<Option<Vec<T>>, EncoderError> {
    let mut out = Vec::with_capacity(texts.len());
    for (chunk, start) in texts.chunks(CHUNK).zip((0..).step_by(CHUNK)) {
        if work::cancelled(cancel) {
            return Ok(None);
        }
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        out.extend(call(&refs).map_err(|e| e.offset(start))?);
    }
    Ok(Some(out))
}

/// A language model or static word vectors, for `embed`, `fill_mask` and the studies.
#[pyclass(module = "lmbias", frozen)]
pub(crate) struct Model {
    model: lmbias_runs::Model,
}

impl Model {
    /// The model the studies run on.
    pub(crate) fn model(&self) -> &lmbias_runs::Model {
        &self.model
    }

    /// The encoder, loaded on this process's pool without the GIL (it reads the weights).
    pub(crate) fn loaded_embedder(&self, py: Python<'_>) -> PyResult<SharedEmbedder> {
        work::run(py, |_| self.model.embedder().map_err(|e| to_py(e.into())))?
    }

    /// The masked language model, loaded on first use; static vectors are refused.
    fn masked_lm(&self) -> PyResult<SharedMaskedLm> {
        self.model.masked_lm().map_err(|e| self.error(e))
    }

    /// A run's error as Python's; what the model cannot do names the model, as the CLI's
    /// `--model` does.
    pub(crate) fn error(&self, err: RunError) -> PyErr {
        match err {
            RunError::NotMasked | RunError::NeedsTemplates => {
                to_py(anyhow::Error::new(err).context(format!("model {}", self.model.name())))
            }
            err => to_py(err.into()),
        }
    }
}

#[pymethods]
impl Model {
    /// Resolves `name_or_path` as the CLI's `--model` does; weights load on first use.
    /// `precision="bf16"` runs the linear layers on the CPU's bf16 units (see the CLI's
    /// `--precision`); on a CPU without them the model runs f32, with a notice.
    #[new]
    #[pyo3(signature = (name_or_path, device = "cpu", precision = "f32", *, label = None))]
    fn new(
        py: Python<'_>,
        name_or_path: &Bound<'_, PyAny>,
        device: &str,
        precision: &str,
        label: Option<String>,
    ) -> PyResult<Model> {
        let name: String = match name_or_path.extract::<std::path::PathBuf>() {
            Ok(path) => path.to_string_lossy().into_owned(),
            Err(_) => name_or_path.extract()?,
        };
        let device: DeviceKind = device.parse().map_err(|e| to_py(anyhow::Error::new(e)))?;
        let precision: Precision = precision
            .parse()
            .map_err(|e| to_py(anyhow::Error::new(e)))?;
        let compute =
            lmbias_runs::compute(device, precision).map_err(|e| to_py(anyhow::Error::new(e)))?;
        let model = work::run(py, |_| {
            lmbias_runs::open(&name, compute).map_err(|e| to_py(e.into()))
        })??;
        // What the results call it (the CLI's --label); the provenance keeps what it is.
        let model = match label {
            Some(label) => model.labelled(label),
            None => model,
        };
        Ok(Model { model })
    }

    /// The name or path the model was resolved from.
    #[getter]
    fn name(&self) -> &str {
        self.model.name()
    }

    /// The device it runs on ("cpu" or "wgpu").
    #[getter]
    fn device(&self) -> &'static str {
        self.model.device().as_str()
    }

    /// The precision its products run in ("f32" or "bf16"): f32 where bf16 was asked for
    /// on a CPU without bf16 units.
    #[getter]
    fn precision(&self) -> &'static str {
        self.model.precision().as_str()
    }

    /// True for static word vectors (GloVe, word2vec).
    #[getter]
    fn is_static(&self) -> bool {
        self.model.is_static()
    }

    /// The folder of a checkpoint; None for static word vectors.
    #[getter]
    fn path(&self) -> Option<std::path::PathBuf> {
        self.model.checkpoint().map(|c| c.dir().to_path_buf())
    }

    /// What pins the model, as every study's provenance names it: `{"id", "origin":
    /// {"from", …}, "tokenizer_sha256"}`.
    #[getter]
    fn provenance<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, self.model.provenance().map_err(|e| to_py(e.into()))?)
    }

    /// Width of the vectors (loads the encoder).
    #[getter]
    fn hidden_size(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.loaded_embedder(py)?.hidden_size())
    }

    /// Number of transformer blocks; layers 0 (embeddings) … num_layers exist (loads the encoder).
    #[getter]
    fn num_layers(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.loaded_embedder(py)?.num_layers())
    }

    /// The model's own sentence vector: the pooling a sentence-transformers folder
    /// declares, else "cls" for BERT, "mean" for T5 (loads the encoder).
    #[getter]
    fn default_pooling(&self, py: Python<'_>) -> PyResult<&'static str> {
        Ok(self.loaded_embedder(py)?.default_pooling().as_str())
    }

    /// One vector per text, as a float32 array of shape (len(texts), hidden_size); unit
    /// vectors when the folder ends in a sentence-transformers Normalize module (as
    /// `SentenceTransformer.encode`), unless `normalize=False`.
    #[pyo3(signature = (texts, pooling = None, layer = None, normalize = None))]
    fn embed<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pooling: Option<&str>,
        layer: Option<&Bound<'py, PyAny>>,
        normalize: Option<bool>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let texts = convert::texts(texts)?;
        let embedder = self.loaded_embedder(py)?;
        let pooling = convert::pooling(pooling, embedder.as_ref())?;
        let layer = LayerArg::from_py(layer)?.resolve(embedder.as_ref())?;
        // `None` only when cancelled, and then `work::run` raises KeyboardInterrupt instead.
        let mut vectors = work::run(py, |cancel| {
            chunked(&texts, cancel, |chunk| {
                embedder.embed(chunk, pooling, layer)
            })
        })?
        .map_err(|e| to_py(e.into()))?
        .unwrap_or_default();
        if normalize.unwrap_or_else(|| self.model().normalizes()) {
            lmbias_runs::normalize(&mut vectors);
        }
        let hidden = embedder.hidden_size();
        let flat: Vec<f32> = vectors.into_iter().flatten().collect();
        let array = Array2::from_shape_vec((flat.len() / hidden.max(1), hidden), flat)
            .map_err(|e| value_error(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// The top_k most probable tokens at each mask of each text, as transformers' fill-mask
    /// pipeline answers: per text, a list of {"score", "token", "token_str", "sequence"} dicts,
    /// most probable first, or one such list per mask for a text of several.
    #[pyo3(signature = (texts, top_k = 5))]
    fn fill_mask<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        top_k: i128,
    ) -> PyResult<Bound<'py, PyAny>> {
        let texts = convert::texts(texts)?;
        let top_k = convert::unsigned("top_k", top_k)? as usize;
        let (answers, mask) = work::run(py, |cancel| {
            let lm = self.masked_lm()?;
            let answers = chunked(&texts, cancel, |chunk| lm.fill_masks(chunk, top_k))
                .map_err(|e| to_py(e.into()))?;
            Ok::<_, PyErr>((answers, lm.mask_token().to_owned()))
        })??;
        let answers: Vec<_> = texts
            .iter()
            .zip(answers.unwrap_or_default())
            .map(|(text, per_mask)| lmbias_runs::fill_mask::answer(text, &mask, per_mask))
            .collect();
        convert::to_python(py, &answers)
    }

    /// The mask token texts must hold for fill_mask (e.g. "[MASK]"; loads the head).
    #[getter]
    fn mask_token(&self, py: Python<'_>) -> PyResult<String> {
        let lm = work::run(py, |_| self.masked_lm())??;
        Ok(lm.mask_token().to_owned())
    }

    fn __repr__(&self) -> String {
        let precision = self.model.precision();
        let precision = match precision {
            Precision::F32 => String::new(),
            other => format!(", precision={:?}", other.as_str()),
        };
        format!(
            "Model({:?}, device={:?}{precision})",
            self.model.name(),
            self.model.device().as_str()
        )
    }
}
