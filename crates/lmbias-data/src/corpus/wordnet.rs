//! The glosses of WordNet 3.0's data files (`data.noun`, `data.verb`, `data.adj`, `data.adv`;
//! Princeton's WordNet 3.0 licence, Debian's `wordnet-base`): a Modern English text that no
//! period model trains on (issue #46). A synset's line ends in `| gloss`, the gloss a
//! definition followed by quoted example sentences (`a kill: the destruction of an enemy plane;
//! "the pilot reported two kills during the mission"`). The definitions feed a corpus rater, the
//! examples the Modern sentences of the play-line set, so that the two never share a text. A
//! quotation attributed to an author (`"…"- Shakespeare`) is neither: it is kept apart.

/// One synset's gloss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gloss {
    /// The synset's offset in its file, as written (8 digits): with the part of speech, its id.
    pub offset: String,
    /// The part of speech: `n`, `v`, `a`, `s` or `r`.
    pub pos: String,
    /// The definition, the examples taken out.
    pub definition: String,
    /// The quoted example sentences, in order: WordNet's own.
    pub examples: Vec<String>,
    /// Quotations attributed to an author (`"…"- Shakespeare`), kept apart: they are the
    /// author's English, of any period, not WordNet's.
    pub quotations: Vec<String>,
}

/// A line of a data file that is not a synset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: not a WordNet synset line (offset, lex_filenum, ss_type … | gloss)")]
pub struct WordNetError {
    /// The line (from 1).
    pub line: usize,
}

/// The glosses of one data file's text, in file order; the licence header (lines starting with
/// two spaces) is skipped.
pub fn wordnet_glosses(text: &str) -> Result<Vec<Gloss>, WordNetError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("  ") || line.trim().is_empty() {
            continue;
        }
        let malformed = WordNetError { line: i + 1 };
        let (head, gloss) = line.split_once(" | ").ok_or(malformed.clone())?;
        let mut fields = head.split(' ');
        let (Some(offset), Some(_), Some(pos)) = (fields.next(), fields.next(), fields.next())
        else {
            return Err(malformed);
        };
        if offset.len() != 8 || !offset.bytes().all(|b| b.is_ascii_digit()) {
            return Err(malformed);
        }
        let (mut definition, mut rest) = (String::new(), gloss.trim());
        let (mut examples, mut quotations) = (Vec::new(), Vec::new());
        while let Some(start) = rest.find('"') {
            definition.push_str(&rest[..start]);
            let quoted = &rest[start + 1..];
            let end = quoted.find('"').unwrap_or(quoted.len());
            let example = quoted[..end].trim();
            rest = quoted.get(end + 1..).unwrap_or("");
            // An attribution runs from a dash after the closing quote to the next `;`.
            let after = rest.trim_start();
            let attributed = after.starts_with('-');
            if attributed {
                rest = after.find(';').map_or("", |i| &after[i..]);
            }
            if !example.is_empty() {
                if attributed {
                    &mut quotations
                } else {
                    &mut examples
                }
                .push(example.to_owned());
            }
        }
        definition.push_str(rest);
        let definition = definition
            .split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        out.push(Gloss {
            offset: offset.to_owned(),
            pos: pos.to_owned(),
            definition,
            examples,
            quotations,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gloss_splits_into_definition_and_examples_and_the_header_is_skipped() {
        let text = "  1 This software and database is being provided to you\n\
            00217593 04 n 01 kill 1 002 @ 00217014 n 0000 | the destruction of an enemy plane or \
            ship; \"the pilot reported two kills during the mission\"; \"two more\"  \n\
            00217499 04 n 01 disaster 0 001 @ 00217014 n 0000 | an act that has disastrous \
            consequences  \n\
            00001740 03 n 01 entity 0 003 | a quoted use; \"all the world's a stage\"- Shakespeare; \
            \"our own example\"  \n";
        let glosses = wordnet_glosses(text).unwrap();
        assert_eq!(glosses.len(), 3);
        assert_eq!(glosses[0].offset, "00217593");
        assert_eq!(glosses[0].pos, "n");
        assert_eq!(
            glosses[0].definition,
            "the destruction of an enemy plane or ship"
        );
        assert_eq!(
            glosses[0].examples,
            [
                "the pilot reported two kills during the mission",
                "two more"
            ]
        );
        assert_eq!(
            glosses[1].definition,
            "an act that has disastrous consequences"
        );
        assert!(glosses[1].examples.is_empty());
        // An attributed quotation is kept apart from the examples, its author out of the
        // definition.
        assert_eq!(glosses[2].definition, "a quoted use");
        assert_eq!(glosses[2].quotations, ["all the world's a stage"]);
        assert_eq!(glosses[2].examples, ["our own example"]);
    }

    #[test]
    fn a_line_without_a_gloss_or_offset_names_its_line() {
        let err = wordnet_glosses("00000001 04 n 01 a 0 000 | fine\nno gloss here\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2: not a WordNet synset line (offset, lex_filenum, ss_type … | gloss)"
        );
        assert_eq!(wordnet_glosses("x1 04 n | gloss\n").unwrap_err().line, 1);
    }
}
