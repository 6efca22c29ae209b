//! The word tokenization of sent-bias's bag-of-words encoder: see [`word_tokenize`].

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::Regex;

/// One substitution: a pattern and its replacement (`${1}` for Python's `\1`).
struct Rule {
    pattern: Regex,
    replacement: &'static str,
}

/// The rules of NLTK 3.4's `word_tokenize`, in the order `TreebankWordTokenizer.tokenize`
/// applies them, with the insertions `nltk/tokenize/__init__.py` makes: those applied to the
/// sentence, then those applied after it is padded with a space on each side.
struct Rules {
    before_padding: Vec<Rule>,
    after_padding: Vec<Rule>,
}

fn rules() -> &'static Rules {
    static RULES: OnceLock<Rules> = OnceLock::new();
    RULES.get_or_init(|| {
        let before: &[(&str, &'static str)] = &[
            // STARTING_QUOTES, with the improved open-quote rule first.
            (r"([«“‘„]|`+)", " ${1} "),
            (r#"^""#, "``"),
            (r"(``)", " ${1} "),
            (r#"([ (\[{<])("|'{2})"#, "${1} `` "),
            // improved_open_single_quote_regex, `(?i)(\')(?!re|ve|ll|m|t|s|d)(\w)\b`: the \w
            // is one character followed by a word boundary, so the look-ahead can only
            // exclude m, t, s and d.
            (r"(?i)(')([\w&&[^mtsd]])\b", "${1} ${2}"),
            // PUNCTUATION, with the improved final-period rule first.
            (r#"([^.])(\.)([\])}>"'»”’ ]*)\s*$"#, "${1} ${2} ${3} "),
            (r"([:,])([^\d])", " ${1} ${2}"),
            (r"([:,])$", " ${1} "),
            (r"\.\.\.", " ... "),
            (r"[;@#$%&]", " ${0} "),
            (r#"([^.])(\.)([\])}>"']*)\s*$"#, "${1} ${2}${3} "),
            (r"[?!]", " ${0} "),
            (r"([^'])' ", "${1} ' "),
            // PARENS_BRACKETS and DOUBLE_DASHES.
            (r"[\]\[(){}<>]", " ${0} "),
            (r"--", " -- "),
        ];
        let after: &[(&str, &'static str)] = &[
            // ENDING_QUOTES, with the improved close-quote rule first.
            (r"([»”’])", " ${1} "),
            (r#"""#, " '' "),
            (r"(\S)('')", "${1} ${2} "),
            (r"([^' ])('[sS]|'[mM]|'[dD]|') ", "${1} ${2} "),
            (r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "${1} ${2} "),
            // CONTRACTIONS2 (MacIntyre's list; CONTRACTIONS4 is unused in NLTK too).
            (r"(?i)\b(can)(not)\b", " ${1} ${2} "),
            (r"(?i)\b(d)('ye)\b", " ${1} ${2} "),
            (r"(?i)\b(gim)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(gon)(na)\b", " ${1} ${2} "),
            (r"(?i)\b(got)(ta)\b", " ${1} ${2} "),
            (r"(?i)\b(lem)(me)\b", " ${1} ${2} "),
            (r"(?i)\b(mor)('n)\b", " ${1} ${2} "),
            (r"(?i)\b(wan)(na)\s", " ${1} ${2} "),
            // CONTRACTIONS3.
            (r"(?i) ('t)(is)\b", " ${1} ${2} "),
            (r"(?i) ('t)(was)\b", " ${1} ${2} "),
        ];
        let compile = |(pattern, replacement): &(&str, &'static str)| Rule {
            // The patterns are constants of this file, checked by the tests.
            pattern: Regex::new(pattern).unwrap_or_else(|e| unreachable!("{pattern}: {e}")),
            replacement,
        };
        Rules {
            before_padding: before.iter().map(compile).collect(),
            after_padding: after.iter().map(compile).collect(),
        }
    })
}

fn apply(rules: &[Rule], mut text: String) -> String {
    for rule in rules {
        if let Cow::Owned(changed) = rule.pattern.replace_all(&text, rule.replacement) {
            text = changed;
        }
    }
    text
}

/// NLTK 3.4's `TreebankWordTokenizer().tokenize(sentence)` with `word_tokenize`'s improvements.
fn treebank(sentence: &str) -> Vec<String> {
    let rules = rules();
    let text = apply(&rules.before_padding, sentence.to_owned());
    let text = apply(&rules.after_padding, format!(" {text} "));
    text.split_whitespace().map(str::to_owned).collect()
}

/// The sentences of `text`, each trimmed (Punkt returns sentences without the white space
/// between them): a sentence ends at a run of `.`, `?`, `!`, with any closing quotes or
/// brackets after it, that white space follows.
pub(crate) fn sentences(text: &str) -> Vec<&str> {
    let is_end = |c: char| matches!(c, '.' | '?' | '!');
    let is_closer = |c: char| matches!(c, '"' | '\'' | ')' | ']' | '}' | '»' | '”' | '’');
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if !is_end(c) {
            continue;
        }
        while chars.next_if(|&(_, c)| is_end(c) || is_closer(c)).is_some() {}
        if let Some(&(end, next)) = chars.peek()
            && next.is_whitespace()
        {
            out.push(&text[start..end]);
            start = end;
        }
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// The words of `text` as sent-bias's bag-of-words encoder sees them: NLTK 3.4's
/// `word_tokenize(text)`, with one difference in sentence splitting.
///
/// sent-bias (May et al. 2019, <https://github.com/W4ngatang/sent-bias>, read at commit
/// e3559fb) encodes a sentence with GloVe as the mean of its words' vectors
/// (`sentbias/encoders/bow.py`: `main.py` calls `bow.encode(examples, glove_path)`, whose
/// default `tokenize=True` makes `get_word_dict` split with `nltk.tokenize.word_tokenize`;
/// `environment.yml` pins `nltk==3.4`). That is
/// Punkt sentence splitting, then NLTK's "improved" Treebank tokenizer on each sentence
/// (`nltk/tokenize/__init__.py` and `nltk/tokenize/treebank.py` of NLTK 3.4). This function
/// ports those two files' rules, in their order:
///
/// - the Treebank rules are the same regular expressions applied in the same order (the one
///   look-ahead, in the opening single-quote rule, is rewritten as a character class that
///   matches the same strings);
/// - Punkt is replaced by a plain rule: a sentence ends at `.`, `?` or `!` (with any closing
///   quotes or brackets after it) followed by white space. Punkt's English model additionally
///   knows abbreviations ("Mr.", "U.S.", "e.g."), initials and ordinal numbers, and keeps
///   those inside the sentence: for "Mr. Smith" NLTK gives `Mr.`, `Smith`, this function `Mr`,
///   `.`, `Smith`. sent-bias's English tests have no such text.
///
/// On all 4,985 distinct examples of sent-bias's English tests (`datasets/seat/en`) and on
/// 3,000 random strings of quotes, brackets, clitics and punctuation the tokens equal NLTK
/// 3.4's (`tests/fixtures/static/nltk34_*.tsv`, made by `nltk34_reference.py`). Character classes (`\w`, `\s`, `\d`)
/// are Unicode in both, with small differences at the edges (Python's `\w` excludes combining
/// marks, the `regex` crate's includes them).
///
/// ```
/// use lmbias_static::word_tokenize;
/// assert_eq!(word_tokenize("This is an aster."), ["This", "is", "an", "aster", "."]);
/// assert_eq!(word_tokenize("The person's name can't be \"Ann\"."),
///            ["The", "person", "'s", "name", "ca", "n't", "be", "``", "Ann", "''", "."]);
/// ```
pub fn word_tokenize(text: &str) -> Vec<String> {
    sentences(text).into_iter().flat_map(treebank).collect()
}
