//! Tokenization like transformers: tokenizer.json or vocab.txt/spiece.model, special tokens, mask handling, word-to-piece alignment.
