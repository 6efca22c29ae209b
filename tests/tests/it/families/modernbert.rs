//! ModernBERT: rotary positions, alternating global and windowed attention, GeGLU, pre-norm.

use super::check_family;

/// Rotary positions, a local window (±4 tokens) shorter than most texts between global
/// layers, GeGLU, bias-free norms; padding changes no real token's output.
#[test]
fn modernbert_matches_transformers() {
    check_family("tiny-modernbert-mlm", true);
}
