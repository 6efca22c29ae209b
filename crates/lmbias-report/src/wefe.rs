//! WEFE's metrics (`lmbias_metrics::wefe`) as CSV columns and text lines, shared by
//! `lmbias seat` (a row per test) and `lmbias weat` (one test).

use lmbias_core::Role;
use lmbias_metrics::wefe::{Metric, MetricValue};

/// The (metric, attribute set) of each value, in order: the columns a run's values fill.
pub fn columns(values: &[MetricValue]) -> Vec<(Metric, Option<Role>)> {
    values.iter().map(|v| (v.metric, v.attribute)).collect()
}

/// `rnd_attr1`, `rnsb`: a value's name in the CSV.
pub fn key(metric: Metric, attribute: Option<Role>) -> String {
    match attribute {
        Some(role) => format!("{metric}_{}", role.key()),
        None => metric.name().to_owned(),
    }
}

/// The value of one column, if `values` has it.
pub fn value(
    values: &[MetricValue],
    (metric, attribute): (Metric, Option<Role>),
) -> Option<&MetricValue> {
    values
        .iter()
        .find(|v| v.metric == metric && v.attribute == attribute)
}

/// Per column: the value, and where there is a test its p and Holm's p; RNSB's accuracy.
pub fn csv_header(columns: &[(Metric, Option<Role>)]) -> Vec<String> {
    let mut header = Vec::new();
    for &(metric, attribute) in columns {
        let key = key(metric, attribute);
        header.push(key.clone());
        match metric {
            Metric::Rnsb => header.push(format!("{key}_accuracy")),
            Metric::Mac => {}
            _ => header.extend([format!("{key}_p"), format!("{key}_p_holm")]),
        }
    }
    header
}

/// The cells [`csv_header`] names, for one test's values.
pub fn csv_cells(values: &[MetricValue], columns: &[(Metric, Option<Role>)]) -> Vec<String> {
    let mut cells = Vec::new();
    for &column in columns {
        let value = value(values, column);
        let number = |x: Option<f64>| x.map_or_else(String::new, |x| x.to_string());
        cells.push(match value.and_then(|v| v.value) {
            Some(x) => x.to_string(),
            None => "undefined".to_owned(),
        });
        match column.0 {
            Metric::Rnsb => cells.push(number(value.and_then(|v| v.accuracy))),
            Metric::Mac => {}
            _ => {
                let test = value.and_then(|v| v.test.as_ref());
                cells.push(number(test.map(|t| t.p_value)));
                cells.push(number(value.and_then(|v| v.p_holm)));
            }
        }
    }
    cells
}

/// One line per value: `RND wrt attr1 (Career): -0.6707, p 0.0010 (two-sided, exact)`, or why it
/// is undefined; `names` gives each set's category.
pub fn text_lines(values: &[MetricValue], name: impl Fn(Role) -> String) -> String {
    let mut out = String::new();
    for v in values {
        let what = match v.attribute {
            Some(role) => format!(
                "{} wrt {role} ({})",
                v.metric.name().to_uppercase(),
                name(role)
            ),
            None => v.metric.name().to_uppercase(),
        };
        let number = match (v.value, &v.undefined) {
            (Some(x), _) => format!("{x:.4}"),
            (None, why) => format!("undefined ({})", why.as_deref().unwrap_or("no value")),
        };
        let test = match &v.test {
            Some(t) => format!(
                ", p {:.4} ({}, {})",
                t.p_value,
                match t.tail {
                    lmbias_metrics::wefe::Tail::TwoSided => "two-sided",
                    lmbias_metrics::wefe::Tail::Lower => "lower tail",
                },
                if t.exact { "exact" } else { "sampled" }
            ),
            None => String::new(),
        };
        let accuracy = v
            .accuracy
            .map_or_else(String::new, |a| format!(", classifier accuracy {a:.3}"));
        out.push_str(&format!("{what}: {number}{test}{accuracy}\n"));
    }
    out
}
