//! A rectangular table of already formatted cells, written as GitHub Markdown or CSV.

/// Rows must have as many cells as the header: [`Table::push`] enforces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with this header and no rows yet; the header fixes the width.
    pub fn new<S: Into<String>>(header: impl IntoIterator<Item = S>) -> Table {
        Table {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    ///
    /// # Panics
    /// When the row's width differs from the header's: a programming error in
    /// the caller, never a property of user input.
    pub fn push<S: Into<String>>(&mut self, row: impl IntoIterator<Item = S>) {
        let row: Vec<String> = row.into_iter().map(Into::into).collect();
        assert_eq!(
            row.len(),
            self.header.len(),
            "row width differs from header {:?}",
            self.header
        );
        self.rows.push(row);
    }

    /// A GitHub-flavoured Markdown table; `|` in cells is escaped.
    pub fn to_markdown(&self) -> String {
        let line = |cells: &[String]| {
            let cells: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
            format!("| {} |\n", cells.join(" | "))
        };
        let mut out = line(&self.header);
        out.push_str(&format!("|{}\n", "---|".repeat(self.header.len())));
        for row in &self.rows {
            out.push_str(&line(row));
        }
        out
    }

    /// RFC 4180 CSV with a header line.
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing to a Vec cannot fail, and every row has the header's width.
        for row in std::iter::once(&self.header).chain(&self.rows) {
            writer.write_record(row).expect("CSV into memory");
        }
        String::from_utf8(writer.into_inner().expect("CSV into memory")).expect("cells are UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new(["model", "note"]);
        t.push(["a|b", "plain"]);
        t.push(["c", "has, comma \"quoted\""]);
        t
    }

    #[test]
    fn markdown_escapes_pipes() {
        assert_eq!(
            sample().to_markdown(),
            "| model | note |\n|---|---|\n| a\\|b | plain |\n| c | has, comma \"quoted\" |\n"
        );
    }

    #[test]
    fn csv_quotes_like_rfc_4180() {
        assert_eq!(
            sample().to_csv(),
            "model,note\na|b,plain\nc,\"has, comma \"\"quoted\"\"\"\n"
        );
    }

    #[test]
    #[should_panic(expected = "row width differs")]
    fn ragged_rows_are_refused() {
        Table::new(["one"]).push(["a", "b"]);
    }
}
