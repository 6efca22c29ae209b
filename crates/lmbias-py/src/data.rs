//! `lmbias.load_test`: an association test file in sent-bias's format, validated as the CLI
//! validates it, as a plain dict.

use std::path::PathBuf;

use lmbias_runs::data::{AssociationTest, Duplicates, LoadOptions, Role, TargetSizes};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;

/// The options of `lmbias weat --allow-unequal-sizes --merge-duplicates`.
fn load_options(allow_unequal_sizes: bool, merge_duplicates: bool) -> LoadOptions {
    LoadOptions {
        duplicates: if merge_duplicates {
            Duplicates::Merge
        } else {
            Duplicates::Error
        },
        target_sizes: if allow_unequal_sizes {
            TargetSizes::AllowUnequal
        } else {
            TargetSizes::Equal
        },
    }
}

/// `{"name": file stem, "targ1": {"category": …, "examples": […]}, …, "attr2": …}`.
fn test_dict<'py>(py: Python<'py>, test: &AssociationTest) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("name", test.name())?;
    for role in Role::ALL {
        let set = PyDict::new(py);
        set.set_item("category", test.set(role).category())?;
        set.set_item("examples", test.set(role).examples())?;
        dict.set_item(role.key(), set)?;
    }
    Ok(dict)
}

/// Reads one test file (sent-bias's JSON: targ1, targ2, attr1, attr2).
#[pyfunction]
#[pyo3(signature = (path, *, allow_unequal_sizes = false, merge_duplicates = false))]
pub(crate) fn load_test<'py>(
    py: Python<'py>,
    path: PathBuf,
    allow_unequal_sizes: bool,
    merge_duplicates: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let options = load_options(allow_unequal_sizes, merge_duplicates);
    let test = AssociationTest::from_path(&path, &options).map_err(|e| to_py(e.into()))?;
    test_dict(py, &test)
}
