//! Statistics for bias measurement: WEAT/SEAT effect sizes and permutation tests with sent-bias semantics, multiple-test correction, chi-squared tests. No Burn.
