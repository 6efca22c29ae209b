//! The line of a CSV record, counted from its byte offset: the csv crate's own line count is
//! one short for every record of a file with CRLF line ends, so an error would name the line
//! before the one at fault.

/// Counts the lines of `bytes` up to increasing byte offsets, each newline once.
pub(crate) struct LineCounter<'b> {
    bytes: &'b [u8],
    byte: usize,
    line: usize,
}

impl<'b> LineCounter<'b> {
    pub(crate) fn new(bytes: &'b [u8]) -> Self {
        LineCounter {
            bytes,
            byte: 0,
            line: 1,
        }
    }

    /// The line (from 1) of the record the csv crate says starts at byte `offset`. With CRLF
    /// line ends that offset is the `\n` ending the line before, so line ends there are
    /// skipped: a record never starts with one. Offsets come in increasing order from a
    /// reader, so each byte is looked at once; an earlier one is counted from the start.
    pub(crate) fn line_at(&mut self, offset: u64) -> usize {
        let mut offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.bytes.len());
        while self
            .bytes
            .get(offset)
            .is_some_and(|b| matches!(b, b'\r' | b'\n'))
        {
            offset += 1;
        }
        if offset < self.byte {
            (self.byte, self.line) = (0, 1);
        }
        self.line += self.bytes[self.byte..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.byte = offset;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_by_newlines_whatever_ends_them() {
        let text = b"h\r\na\r\nb\nc";
        let mut lines = LineCounter::new(text);
        assert_eq!(lines.line_at(0), 1);
        assert_eq!(lines.line_at(3), 2);
        // The csv crate's offset of a record after a CRLF: the `\n` before it.
        assert_eq!(lines.line_at(5), 3);
        assert_eq!(lines.line_at(8), 4);
        assert_eq!(lines.line_at(3), 2, "an earlier offset is counted again");
        assert_eq!(lines.line_at(99), 4, "past the end: the last line");
    }
}
