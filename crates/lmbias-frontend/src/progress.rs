//! One style of progress bar for every front-end: `what [=====>    ] done/total …`, drawn on
//! standard error only when it is a terminal (never in a pipe, a file or a test's output).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use lmbias_runs::HubSettings;

/// Whether standard error is a terminal: a bar there, lines (or nothing) elsewhere.
pub fn is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// The unit a bar counts in, which decides the numbers after it.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Items,
    Bytes,
}

/// A progress bar in the project's one style; hidden where standard error is not a terminal.
#[derive(Debug, Clone)]
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar over `len` items (unknown: a running count), labelled `what`.
    pub fn count(len: Option<u64>, what: &str) -> Bar {
        Bar::new(len, what, Unit::Items)
    }

    /// A bar over `len` bytes (unknown: a running count), labelled `what`.
    fn bytes(len: Option<u64>, what: &str) -> Bar {
        Bar::new(len, what, Unit::Bytes)
    }

    fn new(len: Option<u64>, what: &str, unit: Unit) -> Bar {
        if !is_terminal() {
            return Bar(ProgressBar::hidden());
        }
        let numbers = match (unit, len) {
            (Unit::Items, Some(_)) => "[{bar:30}] {pos}/{len} {msg} {elapsed}",
            (Unit::Items, None) => "{pos} {msg} {elapsed}",
            (Unit::Bytes, Some(_)) => "[{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
            (Unit::Bytes, None) => "{bytes} {bytes_per_sec}",
        };
        let bar = len.map_or_else(ProgressBar::no_length, ProgressBar::new);
        bar.set_style(
            ProgressStyle::with_template(&format!("{{prefix:>10}} {numbers}"))
                .expect("a valid template")
                .progress_chars("=> "),
        );
        bar.set_prefix(what.to_owned());
        Bar(bar)
    }

    /// `n` more done.
    pub fn inc(&self, n: u64) {
        self.0.inc(n);
    }

    /// `n` done in all.
    pub fn set_position(&self, n: u64) {
        self.0.set_position(n);
    }

    /// How many are done.
    pub fn position(&self) -> u64 {
        self.0.position()
    }

    /// What follows the numbers (a loss, a unit).
    pub fn set_message(&self, message: String) {
        self.0.set_message(message);
    }

    /// Writes a line above the bar without tearing it.
    pub fn println(&self, line: &str) {
        self.0.suspend(|| eprintln!("{line}"));
    }

    /// Removes the bar: what it counted is said by the caller's own output.
    pub fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// The environment's hub settings ([`HubSettings::from_env`]) with a bar per file being
/// downloaded, on a terminal and unless `$HF_HUB_DISABLE_PROGRESS_BARS` says not; elsewhere
/// (a log, a pipe) a line when each file starts, with its size, and one when it ends, so
/// that no download is silent.
pub fn hub_settings() -> HubSettings {
    let mut settings = HubSettings::from_env();
    if !is_terminal() || lmbias_runs::fetch::hub::progress_bars_disabled() {
        let started: Mutex<std::collections::HashSet<String>> = Mutex::default();
        settings.progress = Some(Arc::new(move |t| {
            let key = format!("{}/{}", t.model, t.file);
            let mut started = started.lock().unwrap_or_else(|e| e.into_inner());
            if started.insert(key.clone()) {
                let size = t.size.map_or("size not given".to_owned(), |s| {
                    format!("{:.1} MB", s as f64 / 1e6)
                });
                eprintln!("lmbias: downloading {key} from the Hugging Face hub ({size})");
            }
            if t.done {
                eprintln!("lmbias: {key}: {:.1} MB here", t.have as f64 / 1e6);
                started.remove(&key);
            }
        }));
    } else {
        let bars = MultiProgress::new();
        let open: Mutex<HashMap<String, Bar>> = Mutex::default();
        settings.progress = Some(Arc::new(move |t| {
            let key = format!("{}/{}", t.model, t.file);
            let mut open = open.lock().unwrap_or_else(|e| e.into_inner());
            let bar = open.entry(key.clone()).or_insert_with(|| {
                let bar = Bar::bytes(t.size, &key);
                Bar(bars.add(bar.0))
            });
            bar.set_position(t.have);
            if t.done {
                bar.finish();
                open.remove(&key);
            }
        }));
    }
    settings
}
