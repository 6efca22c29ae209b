//! What lmbias-papers says, laid out: one file per paper, as there. The readings, the
//! numbers and the checks of the findings are lmbias-papers'; these files only place them,
//! with our runs, in the papers' tables.

pub mod caglidil;
pub mod dusi;
pub mod known_answer;
pub mod may;
