//! Hugging Face checkpoints in Burn: resolution, loading, BERT (encoder + MLM head) and T5 encoders, implementing lmbias-encoder's traits.
