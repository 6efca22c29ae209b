//! What every run takes besides its model, inputs and settings: a flag that stops it and a
//! callback that follows it, so that the CLI (a progress line, Ctrl-C), Python (its signal
//! check) and xtask call every study the same way.

use std::sync::atomic::AtomicBool;

/// A run's controls. A study checks `cancel` where it can stop early (SEAT's permutation
/// tests) and calls `progress` with the items done where it counts them (CrowS-Pairs' pairs).
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    /// Set by the caller to stop the run soon; the run then returns its study's
    /// cancellation error.
    pub cancel: &'a AtomicBool,
    /// Called with the number of items done so far.
    pub progress: &'a dyn Fn(usize),
}

static NEVER: AtomicBool = AtomicBool::new(false);

fn ignore(_: usize) {}

impl Ctx<'static> {
    /// A run nobody stops or follows.
    pub fn none() -> Ctx<'static> {
        Ctx {
            cancel: &NEVER,
            progress: &ignore,
        }
    }
}
