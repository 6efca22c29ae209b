//! May et al. (2019)'s English Test 4, as Caglidil et al. (2024) quote it, with our English
//! battery's rows of that test beside it; the quote is lmbias-papers' `may`.

use lmbias_papers::may::{REPORTED, TEST_4};
use lmbias_studies::seat::SeatRow;

use crate::table::Table;

/// Our rows of the quoted tests beside the quote: one row per model that ran either, d and p
/// per test. `None` when no model ran them.
pub fn test_4_beside(rows: &[SeatRow]) -> Option<Table> {
    let mut models: Vec<&str> = Vec::new();
    for r in rows
        .iter()
        .filter(|r| TEST_4.iter().any(|(t, ..)| r.test == *t))
    {
        if !models.contains(&r.model.as_str()) {
            models.push(&r.model);
        }
    }
    if models.is_empty() {
        return None;
    }
    let mut header = vec!["model".to_owned()];
    header.extend(
        TEST_4
            .iter()
            .map(|(test, name, _)| format!("{name} (`{test}`)")),
    );
    let mut table = Table::new(header);
    let mut quoted = vec![format!("{} (p < 10⁻⁴)", REPORTED.source)];
    quoted.extend(TEST_4.iter().map(|(.., value)| (*value).to_owned()));
    table.push(quoted);
    for model in models {
        let mut cells = vec![model.to_owned()];
        for (test, ..) in TEST_4 {
            cells.push(
                rows.iter()
                    .find(|r| r.model == model && r.test == test && !r.lowercased_copy)
                    .map_or("not run".to_owned(), |r| {
                        let d = r.effect_size.map_or("–".to_owned(), |d| format!("{d:.2}"));
                        format!("d = {d}, p = {:.2e}", r.p_value)
                    }),
            );
        }
        table.push(cells);
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_studies::testing::seat_row;

    #[test]
    fn our_rows_stand_beside_the_quote() {
        let rows = vec![
            seat_row("m", "weat4", 0.93, 0.0028),
            seat_row("m", "sent-weat4", 0.73, 1e-5),
            seat_row("g", "weat4", 0.88, 0.0054),
            seat_row("m", "weat6", 0.5, 0.01),
        ];
        let md = test_4_beside(&rows).unwrap().to_markdown();
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(
            lines[0],
            "| model | WEAT 4 (`weat4`) | SEAT 4 (`sent-weat4`) |"
        );
        assert_eq!(
            lines[2],
            "| May et al. 2019, as quoted by Caglidil et al. 2024 (p < 10⁻⁴) | d = 1.26 | d = 0.69 |"
        );
        assert_eq!(
            lines[3],
            "| m | d = 0.93, p = 2.80e-3 | d = 0.73, p = 1.00e-5 |"
        );
        assert_eq!(lines[4], "| g | d = 0.88, p = 5.40e-3 | not run |");
        assert_eq!(test_4_beside(&rows[3..]), None);
    }
}
