//! `tokenizer_config.json` and `special_tokens_map.json`: the settings and special
//! tokens transformers reads beside the vocabulary.

use std::path::{Path, PathBuf};

use lmbias_core::read::CONFIG;
use serde_json::{Map, Value};

use crate::TextError;

/// The configuration files a tokenizer folder may hold beside its vocabulary.
pub(crate) const FILES: [&str; 2] = ["tokenizer_config.json", "special_tokens_map.json"];

/// The special-token roles lmbias uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Unk,
    Sep,
    Pad,
    Cls,
    Mask,
    Eos,
}

impl Role {
    pub(crate) fn key(self) -> &'static str {
        match self {
            Role::Eos => "eos_token",
            Role::Unk => "unk_token",
            Role::Sep => "sep_token",
            Role::Pad => "pad_token",
            Role::Cls => "cls_token",
            Role::Mask => "mask_token",
        }
    }
}

/// A JSON file of the tokenizer directory, kept with its path for error messages.
pub(crate) struct JsonFile {
    pub(crate) path: PathBuf,
    pub(crate) root: Map<String, Value>,
}

impl JsonFile {
    /// `None` when the file does not exist; an error when it exists but is not a JSON object.
    pub(crate) fn read_optional(path: PathBuf) -> Result<Option<Self>, TextError> {
        let bytes = match crate::read(&path, CONFIG) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TextError::file(path, e)),
        };
        match serde_json::from_slice(&bytes) {
            Ok(Value::Object(root)) => Ok(Some(JsonFile { path, root })),
            Ok(_) => Err(TextError::file(path, "expected a JSON object")),
            Err(e) => Err(TextError::file(path, format!("invalid JSON: {e}"))),
        }
    }

    fn bool(&self, field: &str) -> Result<Option<bool>, TextError> {
        match self.root.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(TextError::field(
                &self.path,
                field,
                format!("expected true, false or null, found {other}"),
            )),
        }
    }

    /// A token given as a string or as an AddedToken object `{"content": ...}`.
    fn token(&self, field: &str) -> Result<Option<String>, TextError> {
        match self.root.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Object(o)) => match o.get("content") {
                Some(Value::String(s)) => Ok(Some(s.clone())),
                _ => Err(TextError::field(
                    &self.path,
                    format!("{field}.content"),
                    "expected a string",
                )),
            },
            Some(other) => Err(TextError::field(
                &self.path,
                field,
                format!("expected a string or an object with \"content\", found {other}"),
            )),
        }
    }
}

/// What transformers' `from_pretrained` would read from the two configuration files.
pub(crate) struct TokenizerConfig {
    config: Option<JsonFile>,
    special_map: Option<JsonFile>,
    /// `model_type` of the model's `config.json`; `None` without one.
    model_type: Option<Option<String>>,
}

impl TokenizerConfig {
    pub(crate) fn load(dir: &Path) -> Result<Self, TextError> {
        let model = JsonFile::read_optional(dir.join("config.json"))?;
        Ok(TokenizerConfig {
            config: JsonFile::read_optional(dir.join(FILES[0]))?,
            special_map: JsonFile::read_optional(dir.join(FILES[1]))?,
            model_type: model.map(|m| {
                m.root
                    .get("model_type")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            }),
        })
    }

    /// True when transformers' AutoTokenizer would load the directory into its generic
    /// `TokenizersBackend`, which uses tokenizer.json as written: no configuration
    /// files at all, or a generic `tokenizer_class`. Model-specific classes (BertTokenizer,
    /// T5Tokenizer) rebuild parts of the pipeline in their `__init__`.
    pub(crate) fn loads_generic(&self) -> bool {
        let generic_class = matches!(
            self.tokenizer_class(),
            Some("PreTrainedTokenizerFast" | "TokenizersBackend")
        );
        generic_class || (self.config.is_none() && self.model_type.is_none())
    }

    /// Whether AutoTokenizer resolves to a class that rebuilds a SentencePiece pipeline in
    /// its `__init__` (T5Tokenizer, XLMRobertaTokenizer, CamembertTokenizer in transformers
    /// 5): by `tokenizer_class`, or by the model type when no class is named.
    pub(crate) fn rebuilds_sentencepiece(&self) -> bool {
        self.resolves_to(
            &[
                "T5Tokenizer",
                "MT5Tokenizer",
                "XLMRobertaTokenizer",
                "CamembertTokenizer",
            ],
            &["t5", "mt5", "xlm-roberta", "camembert"],
        )
    }

    /// Whether AutoTokenizer resolves to DebertaV2Tokenizer, which keeps only the Unigram
    /// vocabulary of a tokenizer.json and builds the rest in its `__init__`.
    pub(crate) fn is_deberta(&self) -> bool {
        self.resolves_to(&["DebertaV2Tokenizer"], &["deberta-v2"])
    }

    /// Whether AutoTokenizer resolves to AlbertTokenizer, which rebuilds a tokenizer.json's
    /// normalizer and pre-tokenizer in its `__init__`.
    pub(crate) fn is_albert(&self) -> bool {
        self.resolves_to(&["AlbertTokenizer"], &["albert"])
    }

    /// Whether AutoTokenizer resolves to one of `classes` (with or without `Fast`): by
    /// `tokenizer_class`, or by the model type (one of `model_types`) when no class is named.
    fn resolves_to(&self, classes: &[&str], model_types: &[&str]) -> bool {
        match self.tokenizer_class() {
            Some(class) => classes.contains(&class.trim_end_matches("Fast")),
            None => matches!(
                self.model_type.as_ref(),
                Some(Some(t)) if model_types.contains(&t.as_str())
            ),
        }
    }

    /// The tokens a list setting of `tokenizer_config.json` names (`extra_special_tokens`,
    /// `additional_special_tokens`: strings or AddedToken objects); empty when absent.
    pub(crate) fn token_list(&self, field: &str) -> Result<Vec<String>, TextError> {
        let Some(config) = &self.config else {
            return Ok(Vec::new());
        };
        let items = match config.root.get(field) {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(other) => {
                return Err(TextError::field(
                    &config.path,
                    field,
                    format!("expected a list of tokens, found {other}"),
                ));
            }
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                Value::Object(o) => match o.get("content") {
                    Some(Value::String(s)) => Ok(s.clone()),
                    _ => Err(TextError::field(
                        &config.path,
                        format!("{field}[{i}].content"),
                        "expected a string",
                    )),
                },
                other => Err(TextError::field(
                    &config.path,
                    format!("{field}[{i}]"),
                    format!("expected a token, found {other}"),
                )),
            })
            .collect()
    }

    /// The flags `added_tokens_decoder` of `tokenizer_config.json` gives its tokens (`lstrip`,
    /// `rstrip`, `normalized`, `single_word`, `special`), set on tokenizer.json's added
    /// tokens of the same id: where the config has the map, transformers 5 takes the flags
    /// from it alone (an ALBERT `[MASK]` saved with lstrip in tokenizer.json and without it in
    /// the config absorbs no space).
    pub(crate) fn apply_added_tokens_decoder(&self, document: &mut Value) {
        let Some(decoder) = self
            .config
            .as_ref()
            .and_then(|c| c.root.get("added_tokens_decoder"))
            .and_then(Value::as_object)
        else {
            return;
        };
        let Some(added) = document["added_tokens"].as_array_mut() else {
            return;
        };
        for token in added {
            let Some(entry) = token["id"]
                .as_u64()
                .and_then(|id| decoder.get(&id.to_string()))
                .filter(|e| e["content"] == token["content"])
            else {
                continue;
            };
            for flag in ["lstrip", "rstrip", "normalized", "single_word", "special"] {
                if let Some(value) = entry.get(flag).filter(|v| v.is_boolean()) {
                    token[flag] = value.clone();
                }
            }
        }
    }

    /// `tokenizer_class` of `tokenizer_config.json`, when it names one.
    pub(crate) fn tokenizer_class(&self) -> Option<&str> {
        self.config.as_ref()?.root.get("tokenizer_class")?.as_str()
    }

    /// A boolean setting of `tokenizer_config.json`, `None` when absent or null.
    pub(crate) fn flag(&self, field: &str) -> Result<Option<bool>, TextError> {
        match &self.config {
            Some(config) => config.bool(field),
            None => Ok(None),
        }
    }

    /// A non-negative integer setting of `tokenizer_config.json`, `None` when absent or null.
    pub(crate) fn count(&self, field: &str) -> Result<Option<usize>, TextError> {
        let Some(config) = &self.config else {
            return Ok(None);
        };
        match config.root.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| {
                    TextError::field(
                        &config.path,
                        field,
                        format!("expected a non-negative integer, found {v}"),
                    )
                }),
        }
    }

    /// The token configured for `role`, `None` when neither file names one.
    ///
    /// transformers 5 (`tokenization_utils_base.py`, `_from_pretrained`) lets
    /// `special_tokens_map.json` override `tokenizer_config.json`, except when the
    /// config carries `added_tokens_decoder`, in which case the map is not read.
    /// The token comes with the file that named it, for error messages.
    pub(crate) fn special(&self, role: Role) -> Result<Option<(String, PathBuf)>, TextError> {
        let map_is_read = self
            .config
            .as_ref()
            .is_none_or(|c| !c.root.contains_key("added_tokens_decoder"));
        if map_is_read
            && let Some(map) = &self.special_map
            && let Some(token) = map.token(role.key())?
        {
            return Ok(Some((token, map.path.clone())));
        }
        match &self.config {
            Some(config) => Ok(config.token(role.key())?.map(|t| (t, config.path.clone()))),
            None => Ok(None),
        }
    }
}
