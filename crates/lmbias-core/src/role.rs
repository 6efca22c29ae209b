//! The four sets of an association test, named once for the readers and the statistics.

use serde::{Deserialize, Serialize};

/// One of the four sets of an association test: the one vocabulary for them in lmbias.
///
/// Its names are the file's keys (`targ1` …), because those are what a user sees and edits;
/// [`Role::symbol`] gives the WEAT notation (X, Y, A, B) for formulas and statistics.
/// `lmbias-data` reads it from test files and `lmbias-metrics` names its sets of vectors by it,
/// so that an error about a set of vectors leads straight back to the test's set with no mapping
/// in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Target X: the first group of words or sentences (e.g. flowers).
    Targ1,
    /// Target Y: the second group, compared with X (e.g. insects).
    Targ2,
    /// Attribute A: the pole X is expected to lean towards (e.g. pleasant).
    Attr1,
    /// Attribute B: the opposite pole (e.g. unpleasant).
    Attr2,
}

impl Role {
    /// In file order, which is also the order of WEAT's arguments (X, Y, A, B).
    pub const ALL: [Role; 4] = [Role::Targ1, Role::Targ2, Role::Attr1, Role::Attr2];

    /// The key in a test file; also how the set is named in messages.
    pub fn key(self) -> &'static str {
        match self {
            Role::Targ1 => "targ1",
            Role::Targ2 => "targ2",
            Role::Attr1 => "attr1",
            Role::Attr2 => "attr2",
        }
    }

    /// WEAT's letter for the set (Caliskan et al. 2017), as the formulas write it.
    pub fn symbol(self) -> &'static str {
        match self {
            Role::Targ1 => "X",
            Role::Targ2 => "Y",
            Role::Attr1 => "A",
            Role::Attr2 => "B",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}
