//! Caglidil, Ostendorff & Rehm (2024)'s findings as a checklist; the findings and their
//! checks are lmbias-papers' `caglidil`.

use lmbias_papers::caglidil::Finding;

use crate::table::Table;

/// The findings as a checklist table.
pub fn findings_table(findings: &[Finding]) -> Table {
    let mut table = Table::new(["the paper finds", "where", "ours", "evidence"]);
    for f in findings {
        table.push([f.claim, f.section, f.verdict.as_str(), f.evidence.as_str()]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use lmbias_papers::caglidil::findings;
    use lmbias_studies::seat::SeatRow;
    use lmbias_studies::testing::seat_row;

    fn r(model: &str, test: &str, d: f64, p: f64) -> SeatRow {
        seat_row(model, test, d, p)
    }

    const TC: &str = "dbmdz/bert-base-turkish-cased";
    const TU: &str = "dbmdz/bert-base-turkish-uncased";
    const LU: &str = "dbmdz/bert-base-turkish-128k-uncased";
    const MC: &str = "bert-base-multilingual-cased";
    const MU: &str = "bert-base-multilingual-uncased";
    const MT5: &str = "google/mt5-base";

    #[test]
    fn findings_table_snapshot() {
        let (mixed, religious) = (
            [
                "heilman_double_bind_likable_1_tr",
                "heilman_double_bind_likable_1+3_tr",
            ],
            [
                "heilman_double_bind_likable_religious_1_tr",
                "heilman_double_bind_likable_religious_1+3_tr",
            ],
        );
        let rows = [
            // Tests 6 and 6b at both levels.
            r(TC, "weat6_tr", 0.9, 0.20),
            r(TC, "sent-weat6_tr", 0.5, 0.01),
            r(TC, "weat6b_tr", 0.9, 0.30),
            r(TC, "sent-weat6b_tr", 0.5, 0.02),
            r(MT5, "weat6_tr", 0.9, 0.01),
            r(MT5, "sent-weat6_tr", 0.5, 0.04),
            r(MT5, "weat6b_tr", 5.0, 0.5),
            // mBERT's likable vignettes: cased strong on mixed names, uncased on religious.
            r(MC, mixed[0], 1.2, 0.005),
            r(MC, mixed[1], 1.2, 0.005),
            r(MC, religious[0], 0.4, 0.2),
            r(MC, religious[1], 0.4, 0.2),
            r(MU, mixed[0], 0.4, 0.2),
            r(MU, mixed[1], 0.4, 0.2),
            r(MU, religious[0], 1.2, 0.005),
            r(MU, religious[1], 1.2, 0.005),
            r(MT5, "sent-weat4_tr", 0.35, 0.01),
            r(TC, "sent-weat4_tr", 0.1, 0.40),
            r(TU, "weat6_tr", 0.1, 0.01),
            r(TU, "weat7_tr", 0.9, 0.01),
            r(LU, "weat6_tr", 1.0, 0.5),
            r(TC, "weat6_religious_tr", 0.8, 0.10),
            r(MT5, "heilman_double_bind_likable_1_tr", 0.2, 0.3),
        ];
        insta::assert_snapshot!(findings_table(&findings(&rows)).to_markdown());
    }
}
