//! Where every call's work runs: off the GIL, on a rayon pool of this process, interruptible.
//!
//! - Ctrl-C: Python handles a signal only when its main thread checks for it with the GIL
//!   held. So the work runs on a worker thread while the calling thread waits in short
//!   slices, checking for signals between them; on `KeyboardInterrupt` it sets the work's
//!   cancellation flag, waits for the work to stop (it checks the flag between chunks), and
//!   raises. A result that arrives with an interrupt pending is dropped for the interrupt, so
//!   no numpy array is ever built while one is pending.
//! - `fork`: a forked child has the parent's memory but none of its threads, so rayon's global
//!   pool (and any pool the parent built) would wait forever on workers that do not exist. The
//!   pool here belongs to a process id: a child builds its own on its first call. Every
//!   entry point's work runs inside it (`install`), so the libraries' `par_iter`s use it.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use rayon::{ThreadPool, ThreadPoolBuilder};

/// How often a waiting call checks for Ctrl-C: short enough to feel immediate.
const POLL: Duration = Duration::from_millis(50);

/// The pool, and the process that built it.
static POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);

/// This process's pool, built on first use (`RAYON_NUM_THREADS` sets its size, as rayon's own).
fn pool() -> PyResult<Arc<ThreadPool>> {
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((owner, pool)) = slot.as_ref()
        && *owner == pid
    {
        return Ok(pool.clone());
    }
    // The parent's pool, inherited by a fork: dropping it would signal threads that are not
    // there, so it is left alone (a few kilobytes).
    if let Some(inherited) = slot.take() {
        std::mem::forget(inherited);
    }
    let pool = Arc::new(
        ThreadPoolBuilder::new()
            .thread_name(|i| format!("lmbias-{i}"))
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))?,
    );
    *slot = Some((pid, pool.clone()));
    Ok(pool)
}

/// Runs `work` without the GIL on this process's pool; Ctrl-C sets the flag it is given and
/// raises `KeyboardInterrupt` once the work has stopped. `work` should check the flag between
/// chunks of anything long; short work may ignore it.
pub(crate) fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&AtomicBool) -> T + Send,
{
    let pool = pool()?;
    let cancel = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        let (pool, cancel) = (&pool, &cancel);
        let worker = scope.spawn(move || {
            // The receiver may be gone only if the caller unwound: nothing to tell.
            let _ = sender.send(pool.install(|| work(cancel)));
        });
        let mut receiver = receiver;
        loop {
            // A `Receiver` may not be shared with the detached closure, only moved into it.
            let (received, back) = py.detach(move || (receiver.recv_timeout(POLL), receiver));
            receiver = back;
            match received {
                Ok(result) => {
                    py.check_signals()?;
                    return Ok(result);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(interrupt) = py.check_signals() {
                        cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                        // Wait for the work to notice (its result, or its panic, is dropped).
                        py.detach(move || drop(receiver.recv()));
                        return Err(interrupt);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // The worker panicked: re-raise its panic here (pyo3 makes it an exception).
                    match worker.join() {
                        Err(panic) => std::panic::resume_unwind(panic),
                        Ok(()) => {
                            return Err(PyRuntimeError::new_err("the work ended without a result"));
                        }
                    }
                }
            }
        }
    })
}

/// Whether the flag of [`run`] is set: the work's check between chunks.
pub(crate) fn cancelled(cancel: &AtomicBool) -> bool {
    cancel.load(std::sync::atomic::Ordering::Relaxed)
}
