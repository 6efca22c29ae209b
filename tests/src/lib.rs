//! Shared support for the cross-crate tests: fixture paths and test models.
