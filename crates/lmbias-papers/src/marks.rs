//! How a paper marks p-values: the common stars, or the thresholds a paper reads p at.

/// How p-values are marked in figures and tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Marks {
    /// `***` p < 0.001, `**` p < 0.01, `*` p < 0.05 (the common convention).
    #[default]
    Stars,
    /// Caglidil, Ostendorff & Rehm (2024) read p at 0.1 (marginal), 0.05 and
    /// 0.01: `†` p < 0.1, `*` p < 0.05, `**` p < 0.01. The symbols are ours;
    /// the thresholds are the paper's.
    Caglidil,
}

impl Marks {
    /// The mark for `p` (empty when none applies).
    pub fn mark(self, p: f64) -> &'static str {
        match self {
            Marks::Stars => stars(p),
            Marks::Caglidil if p < 0.01 => "**",
            Marks::Caglidil if p < 0.05 => "*",
            Marks::Caglidil if p < 0.1 => "†",
            Marks::Caglidil => "",
        }
    }

    /// One line explaining the marks.
    pub fn key(self) -> &'static str {
        match self {
            Marks::Stars => "* p<0.05   ** p<0.01   *** p<0.001",
            Marks::Caglidil => {
                "our marks at the paper's thresholds: † p<0.1 (marginal)   * p<0.05   ** p<0.01"
            }
        }
    }
}

impl std::str::FromStr for Marks {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "stars" => Ok(Marks::Stars),
            "caglidil" => Ok(Marks::Caglidil),
            other => Err(format!(
                "unknown marks {other:?}: expected stars or caglidil"
            )),
        }
    }
}

/// The common significance stars:
/// `***` p < 0.001, `**` p < 0.01, `*` p < 0.05, else nothing.
fn stars(p: f64) -> &'static str {
    if p < 0.001 {
        "***"
    } else if p < 0.01 {
        "**"
    } else if p < 0.05 {
        "*"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stars_follow_the_thresholds() {
        assert_eq!(stars(0.0009), "***");
        assert_eq!(stars(0.001), "**");
        assert_eq!(stars(0.0099), "**");
        assert_eq!(stars(0.01), "*");
        assert_eq!(stars(0.0499), "*");
        assert_eq!(stars(0.05), "");
        assert_eq!(stars(1.0), "");
    }

    #[test]
    fn caglidil_marks_read_p_at_the_papers_thresholds() {
        let m = |p| Marks::Caglidil.mark(p);
        assert_eq!(
            [m(0.0099), m(0.01), m(0.0499), m(0.05), m(0.0999), m(0.1)],
            ["**", "*", "*", "†", "†", ""]
        );
        assert_eq!("caglidil".parse::<Marks>(), Ok(Marks::Caglidil));
        assert!("paper".parse::<Marks>().is_err());
    }
}
