//! `lmbias.Model`: a model named as the CLI's `--model` names one — static word vectors when
//! lmbias-static recognises the name (`glove-6b-50d`, a `.txt`/`.vec`/`.bin` file, a folder of
//! `vectors.npy` + `vocab.txt`), else a checkpoint (a folder or a Hugging Face id, resolved by
//! `Checkpoint::resolve`). The encoder and the masked-LM head load on first use, each once.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};

use lmbias_encoder::{Embedder, EncoderError, MaskedLm};
use lmbias_model::{Checkpoint, DeviceKind};
use lmbias_static::StaticEmbeddings;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert::{self, LayerArg};
use crate::errors::{to_py, value_error};
use crate::work;

/// Texts per call into the model in a long `embed` or `fill_mask`: Ctrl-C is honoured between
/// chunks (one takes about a second for MiniLM on two cores). The CLI's size, so both make the
/// same calls and give the same vectors (tests/test_interrupt.py compares them).
const CHUNK: usize = lmbias_encoder::TEXTS_PER_CALL;

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

type SharedEmbedder = Arc<dyn Embedder + Send + Sync>;
type SharedMaskedLm = Arc<dyn MaskedLm + Send + Sync>;

/// What the name resolved to.
enum Source {
    /// Static word vectors (lmbias-static): no context, no layers, no mask.
    Static(Arc<StaticEmbeddings>),
    /// A Hugging Face checkpoint run in Burn (lmbias-model).
    Checkpoint(Checkpoint),
}

/// A language model or static word vectors, for `embed`, `fill_mask` and the studies.
#[pyclass(module = "lmbias", frozen)]
pub(crate) struct Model {
    name: String,
    device: DeviceKind,
    source: Source,
    embedder: Mutex<Option<SharedEmbedder>>,
    masked_lm: Mutex<Option<SharedMaskedLm>>,
}

impl Model {
    /// The encoder, loaded on first use (without the GIL: it reads the weights).
    pub(crate) fn embedder(&self) -> anyhow::Result<SharedEmbedder> {
        let checkpoint = match &self.source {
            Source::Static(vectors) => return Ok(vectors.clone()),
            Source::Checkpoint(checkpoint) => checkpoint,
        };
        let mut slot = self.embedder.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(embedder) = slot.as_ref() {
            return Ok(embedder.clone());
        }
        let embedder: SharedEmbedder = lmbias_model::load_embedder(checkpoint, self.device)?.into();
        *slot = Some(embedder.clone());
        Ok(embedder)
    }

    /// The masked language model, loaded on first use; static vectors are refused (a
    /// `ValueError`) as the CLI refuses them.
    pub(crate) fn masked_lm(&self) -> PyResult<SharedMaskedLm> {
        let checkpoint = match &self.source {
            Source::Static(_) => {
                return Err(value_error(format!(
                    "model {}: static word vectors cannot fill a mask; this needs a masked \
                     language model (a BERT checkpoint with its MLM head)",
                    self.name
                )));
            }
            Source::Checkpoint(checkpoint) => checkpoint,
        };
        let mut slot = self
            .masked_lm
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(lm) = slot.as_ref() {
            return Ok(lm.clone());
        }
        let lm: SharedMaskedLm = lmbias_model::load_masked_lm(checkpoint, self.device)
            .map_err(|e| to_py(e.into()))?
            .into();
        *slot = Some(lm.clone());
        Ok(lm)
    }

    /// [`Model::embedder`] from Python: loaded on this process's pool, without the GIL.
    pub(crate) fn loaded_embedder(&self, py: Python<'_>) -> PyResult<SharedEmbedder> {
        work::run(py, |_| self.embedder())?.map_err(to_py)
    }

    /// Whether these are static word vectors (no context: SEAT drops lost examples).
    pub(crate) fn is_static(&self) -> bool {
        matches!(self.source, Source::Static(_))
    }

    /// The name the model was given.
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

#[pymethods]
impl Model {
    /// Resolves `name_or_path` as the CLI's `--model` does; weights load on first use.
    #[new]
    #[pyo3(signature = (name_or_path, device = "cpu"))]
    fn new(py: Python<'_>, name_or_path: &Bound<'_, PyAny>, device: &str) -> PyResult<Model> {
        let name: String = match name_or_path.extract::<std::path::PathBuf>() {
            Ok(path) => path.to_string_lossy().into_owned(),
            Err(_) => name_or_path.extract()?,
        };
        let device: DeviceKind = device.parse().map_err(|e| to_py(anyhow::Error::new(e)))?;
        let source = work::run(py, |_| -> anyhow::Result<Source> {
            if let Some(vectors) = lmbias_static::open(&name) {
                return Ok(Source::Static(Arc::new(vectors?)));
            }
            Ok(Source::Checkpoint(Checkpoint::resolve(&name)?))
        })?
        .map_err(to_py)?;
        Ok(Model {
            name,
            device,
            source,
            embedder: Mutex::new(None),
            masked_lm: Mutex::new(None),
        })
    }

    /// The name or path the model was resolved from.
    #[getter(name)]
    fn py_name(&self) -> &str {
        &self.name
    }

    /// The device it runs on ("cpu" or "wgpu").
    #[getter]
    fn device(&self) -> &'static str {
        self.device.as_str()
    }

    /// True for static word vectors (GloVe, word2vec).
    #[getter(is_static)]
    fn py_is_static(&self) -> bool {
        self.is_static()
    }

    /// The folder of a checkpoint; None for static word vectors.
    #[getter]
    fn path(&self) -> Option<std::path::PathBuf> {
        match &self.source {
            Source::Static(_) => None,
            Source::Checkpoint(checkpoint) => Some(checkpoint.dir().to_path_buf()),
        }
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

    /// One vector per text, as a float32 array of shape (len(texts), hidden_size).
    #[pyo3(signature = (texts, pooling = None, layer = None))]
    fn embed<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        pooling: Option<&str>,
        layer: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let texts = convert::texts(texts)?;
        let embedder = self.loaded_embedder(py)?;
        let pooling = convert::pooling(pooling, embedder.as_ref())?;
        let layer = LayerArg::from_py(layer)?.resolve(embedder.as_ref())?;
        // `None` only when cancelled, and then `work::run` raises KeyboardInterrupt instead.
        let vectors = work::run(py, |cancel| {
            chunked(&texts, cancel, |chunk| {
                embedder.embed(chunk, pooling, layer)
            })
        })?
        .map_err(|e| to_py(e.into()))?
        .unwrap_or_default();
        let hidden = embedder.hidden_size();
        let flat: Vec<f32> = vectors.into_iter().flatten().collect();
        let array = Array2::from_shape_vec((flat.len() / hidden.max(1), hidden), flat)
            .map_err(|e| value_error(e.to_string()))?;
        Ok(array.into_pyarray(py))
    }

    /// The top_k most probable tokens at the one mask of each text: one list of
    /// {"token", "id", "prob"} dicts per text, most probable first.
    #[pyo3(signature = (texts, top_k = 5))]
    fn fill_mask<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        top_k: i128,
    ) -> PyResult<Bound<'py, PyList>> {
        let texts = convert::texts(texts)?;
        let top_k = convert::unsigned("top_k", top_k)? as usize;
        let predictions = work::run(py, |cancel| {
            let lm = self.masked_lm()?;
            chunked(&texts, cancel, |chunk| lm.fill_mask(chunk, top_k)).map_err(|e| to_py(e.into()))
        })??
        .unwrap_or_default();
        let out = PyList::empty(py);
        for text in predictions {
            let list = PyList::empty(py);
            for p in text {
                let dict = PyDict::new(py);
                dict.set_item("token", p.token)?;
                dict.set_item("id", p.id)?;
                dict.set_item("prob", p.prob)?;
                list.append(dict)?;
            }
            out.append(list)?;
        }
        Ok(out)
    }

    /// The mask token texts must hold for fill_mask (e.g. "[MASK]"; loads the head).
    #[getter]
    fn mask_token(&self, py: Python<'_>) -> PyResult<String> {
        let lm = work::run(py, |_| self.masked_lm())??;
        Ok(lm.mask_token().to_owned())
    }

    fn __repr__(&self) -> String {
        format!("Model({:?}, device={:?})", self.name, self.device.as_str())
    }
}
