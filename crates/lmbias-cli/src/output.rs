//! Everything the CLI writes: standard output (or the file of `--output`), and the files of
//! `--save` and `--figures`.
//!
//! `println!` panics when stdout fails; here a write returns the error instead, so that
//! `main` can end quietly on a closed pipe (`lmbias embed … | head -1`, as Unix tools do)
//! and report a full disk (`> /dev/full`) as one line naming standard output. Output paths
//! are checked before any computing (the folder is created and a file made and removed in
//! it), and files are written under a temporary name in the same folder, then renamed, so a
//! failed write never leaves half a file where a result was expected.

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result};
use lmbias_report::export::FontSize;

/// The output options of every command that prints results: one format flag at most, and
/// `--output FILE`.
#[derive(clap::Args, Debug)]
pub struct FormatArgs {
    /// Print JSON (docs/results-format.md gives each command's).
    #[arg(long, group = "format")]
    pub json: bool,
    /// Print CSV, one line per result.
    #[arg(long, group = "format")]
    pub csv: bool,
    /// Print Markdown tables (seat, valence, crows and probe print Markdown by default; embed,
    /// fill-mask and weat print plain text).
    #[arg(long, group = "format")]
    pub markdown: bool,
    /// Write the output to FILE instead of standard output: made under a temporary name beside
    /// it and renamed when the command succeeds, so a failed run leaves no half file.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The format asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The command's own: Markdown for the studies, plain text for the tools.
    Default,
    /// `--markdown`.
    Markdown,
    /// `--json`.
    Json,
    /// `--csv`.
    Csv,
}

impl FormatArgs {
    /// Sends the output to `--output` when given (checked against `inputs` first); the format.
    pub fn open(&self, inputs: &[(&str, &Path)]) -> Result<Format> {
        if let Some(path) = &self.output {
            to_file(path, inputs)?;
        }
        Ok(match (self.json, self.csv, self.markdown) {
            (true, _, _) => Format::Json,
            (_, true, _) => Format::Csv,
            (_, _, true) => Format::Markdown,
            _ => Format::Default,
        })
    }
}

/// `--font-size PT`, beside `--figures DIR` on the commands that draw figures.
#[derive(clap::Args, Debug)]
pub struct FontArgs {
    /// Print the figures' body text (labels) at PT points, 5 to 36, titles and ticks in
    /// proportion [default: 11]. The whole figure scales with its text, so it prints at the
    /// size said on stderr (in points, in the SVG and PDF; the PNG at 300 dpi).
    #[arg(long, value_name = "PT", requires = "figures", value_parser = font_size)]
    font_size: Option<FontSize>,
}

impl FontArgs {
    /// The size asked for, or the default.
    pub fn font(&self) -> FontSize {
        self.font_size.unwrap_or_default()
    }
}

fn font_size(text: &str) -> Result<FontSize, String> {
    let points: f64 = text
        .parse()
        .map_err(|_| format!("{text:?} is not a number of points"))?;
    FontSize::points(points).map_err(|e| e.to_string())
}

/// A figure at `svg_path` (in a `--figures` folder), and beside it as PNG and PDF
/// (`lmbias_report::export`), its text at `font`; each written under a temporary name and
/// renamed. Stderr says where it went and the size it prints at.
pub fn write_figure(svg_path: &Path, svg: &str, font: FontSize) -> Result<()> {
    let figure = lmbias_report::export::formats(svg, font)
        .with_context(|| format!("{}", svg_path.display()))?;
    for (ext, bytes) in lmbias_report::export::FORMATS.iter().zip(figure.files) {
        lmbias_runs::write_atomically(&svg_path.with_extension(ext), bytes)?;
    }
    eprintln!(
        "figure: {} (.svg, .png, .pdf): {:.0} × {:.0} pt, text {font}",
        svg_path.with_extension("").display(),
        figure.width_pt,
        figure.height_pt
    );
    Ok(())
}

/// A table's rows as CSV or Markdown without its header, which a command that prints chunk
/// by chunk prints once, first: CSV's header is one line, Markdown's two (names, rule).
pub fn rows_only(table: &lmbias_report::table::Table, format: Format) -> String {
    let (text, header_lines) = match format {
        Format::Csv => (table.to_csv(), 1),
        _ => (table.to_markdown(), 2),
    };
    text.split_inclusive('\n').skip(header_lines).collect()
}

/// What a failed write of the output says; `main` looks for it to tell a closed pipe.
#[derive(Debug, thiserror::Error)]
#[error("writing to {to}")]
pub struct StdoutError {
    /// "standard output", or `--output FILE`.
    pub to: String,
    /// The operating system's reason.
    #[source]
    pub source: io::Error,
}

/// `--output FILE`: the output goes to a temporary file beside FILE, renamed to it when the
/// command succeeds ([`finish`]) and removed when it fails, so a failed run never leaves half
/// a result (or destroys an older one) under the name.
static SINK: Mutex<Option<(tempfile::NamedTempFile, PathBuf)>> = Mutex::new(None);

/// Sends the output to `path` instead of stdout; checked first, as `--save` is, so that no
/// input and nothing but a regular file is overwritten.
pub fn to_file(path: &Path, inputs: &[(&str, &Path)]) -> Result<()> {
    check_file("--output", path, inputs)?;
    let temporary = lmbias_runs::temporary_beside(path)
        .with_context(|| format!("--output {}: cannot write here", path.display()))?;
    remove_on_interrupt(temporary.path());
    *SINK.lock().unwrap_or_else(PoisonError::into_inner) = Some((temporary, path.to_owned()));
    Ok(())
}

/// The temporary file of `--output` is removed when the run is interrupted (Ctrl-C, SIGTERM),
/// which ends the process without running destructors: a run of hours stopped by hand leaves
/// no hidden half file beside its output. The handler does only what a signal handler may
/// (`unlink`, `_exit`), and exits as the shell reports a signal (128 + its number).
#[cfg(unix)]
fn remove_on_interrupt(temporary: &Path) {
    use std::os::unix::ffi::OsStrExt;
    static TEMPORARY: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();
    extern "C" fn handler(signal: libc::c_int) {
        if let Some(path) = TEMPORARY.get() {
            // SAFETY: `path` is a NUL-terminated string that lives for the whole process.
            unsafe { libc::unlink(path.as_ptr()) };
        }
        // SAFETY: `_exit` ends the process at once, as a signal handler may.
        unsafe { libc::_exit(128 + signal) };
    }
    let Ok(path) = std::ffi::CString::new(temporary.as_os_str().as_bytes()) else {
        return;
    };
    if TEMPORARY.set(path).is_ok() {
        for signal in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: `handler` is an `extern "C" fn(c_int)`, what `signal` installs.
            unsafe { libc::signal(signal, handler as *const () as libc::sighandler_t) };
        }
    }
}

#[cfg(not(unix))]
fn remove_on_interrupt(_temporary: &Path) {}

/// Puts the `--output` file in place when the command succeeded; after a failure the
/// temporary file is removed and an older file of that name stays as it was.
pub fn finish(succeeded: bool) -> Result<()> {
    let sink = SINK.lock().unwrap_or_else(PoisonError::into_inner).take();
    if let (Some((temporary, path)), true) = (sink, succeeded) {
        temporary
            .persist(&path)
            .map_err(|e| e.error)
            .with_context(|| format!("--output {}: cannot write", path.display()))?;
    }
    Ok(())
}

/// Writes with `write` to the `--output` file when there is one, else to stdout, flushing so
/// that an error surfaces here and not when the buffer is dropped at exit, where it would be
/// lost.
fn emit(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), StdoutError> {
    let mut sink = SINK.lock().unwrap_or_else(PoisonError::into_inner);
    match sink.as_mut() {
        Some((file, path)) => write(file.as_file_mut()).map_err(|source| StdoutError {
            to: format!("--output {}", path.display()),
            source,
        }),
        None => {
            let mut stdout = io::stdout().lock();
            write(&mut stdout)
                .and_then(|()| stdout.flush())
                .map_err(|source| StdoutError {
                    to: "standard output".to_owned(),
                    source,
                })
        }
    }
}

/// Writes `args` to the output.
pub fn write(args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    emit(|w| w.write_fmt(args))
}

/// Writes `bytes` to the output.
pub fn write_bytes(bytes: &[u8]) -> Result<(), StdoutError> {
    emit(|w| w.write_all(bytes))
}

/// `print!` that returns a [`StdoutError`] instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::write(format_args!($($arg)*))
    };
}

/// `println!` that returns a [`StdoutError`] instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {out, outln};

/// True when `err` is a write to stdout that failed because its reader went away.
pub fn is_closed_stdout(err: &anyhow::Error) -> bool {
    err.chain()
        .filter_map(|e| e.downcast_ref::<StdoutError>())
        .any(|e| e.source.kind() == io::ErrorKind::BrokenPipe)
}

/// Creates `dir` (for `flag`, e.g. `--figures`) and checks that a file can be made in it.
pub fn check_dir(flag: &str, dir: &Path) -> Result<()> {
    Ok(lmbias_runs::check_dir(flag, dir)?)
}

/// Checks that `file` can be written without destroying anything ([`lmbias_runs::check_output`]).
pub fn check_file(flag: &str, file: &Path, inputs: &[(&str, &Path)]) -> Result<()> {
    Ok(lmbias_runs::check_output(flag, file, inputs)?)
}

/// Comma-separated JSON values in a temporary file removed on creation (it lives as long as
/// the handle): what a `--json` command keeps until its last input is done, so that an error
/// leaves no half document on stdout and memory holds one chunk, not the input.
pub struct Spool {
    file: std::fs::File,
    empty: bool,
}

impl Spool {
    pub fn new() -> anyhow::Result<Spool> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            ".lmbias-spool-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let context = || format!("temporary file {}", path.display());
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(context)?;
        std::fs::remove_file(&path).with_context(context)?;
        Ok(Spool { file, empty: true })
    }

    pub fn push(&mut self, values: &[impl serde::Serialize]) -> anyhow::Result<()> {
        let mut bytes = Vec::new();
        for value in values {
            if !std::mem::take(&mut self.empty) {
                bytes.push(b',');
            }
            serde_json::to_writer(&mut bytes, value)?;
        }
        self.file
            .write_all(&bytes)
            .context("writing a temporary file")
    }

    pub fn copy_out(mut self) -> anyhow::Result<()> {
        self.file
            .seek(SeekFrom::Start(0))
            .context("reading a temporary file")?;
        let mut buf = vec![0; 1 << 16];
        loop {
            let n = self
                .file
                .read(&mut buf)
                .context("reading a temporary file")?;
            if n == 0 {
                return Ok(());
            }
            write_bytes(&buf[..n])?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_renamed_into_place_and_bad_paths_named() {
        let dir = std::env::temp_dir().join(format!("lmbias-output-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        check_dir("--figures", &dir.join("a/b")).unwrap();
        assert!(dir.join("a/b").is_dir());
        assert_eq!(std::fs::read_dir(dir.join("a/b")).unwrap().count(), 0);

        let file = dir.join("a/r.svg");
        lmbias_runs::write_atomically(&file, b"<svg/>").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"<svg/>");
        assert_eq!(std::fs::read_dir(dir.join("a")).unwrap().count(), 2);

        // A folder where a file should go: the write fails, naming it, leaving nothing.
        std::fs::create_dir(dir.join("a/taken.svg")).unwrap();
        let err = lmbias_runs::write_atomically(&dir.join("a/taken.svg"), b"x").unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: cannot write", dir.join("a/taken.svg").display())
        );
        assert_eq!(std::fs::read_dir(dir.join("a")).unwrap().count(), 3);
        let err = check_file("--save", &dir.join("a/taken.svg"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "--save {}: is a folder, not a regular file: lmbias writes only a new name or a \
                 regular file",
                dir.join("a/taken.svg").display()
            )
        );

        // Under a file, no folder can be made.
        let err = check_dir("--figures", &dir.join("a/r.svg/sub")).unwrap_err();
        assert!(format!("{err:#}").starts_with(&format!(
            "--figures {}: cannot write here: ",
            dir.join("a/r.svg/sub").display()
        )));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Issue #47, outputs never destroy: a device, a FIFO, a link to nothing, a loop of links,
    /// an input, or a file of an input folder is refused in one line before any work, and
    /// is left as it was.
    #[test]
    fn an_output_that_would_destroy_something_is_refused() {
        let dir = std::env::temp_dir().join(format!("lmbias-output-kinds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        let refused = |file: &Path, inputs: &[(&str, &Path)], why: &str| {
            let err = check_file("--save", file, inputs).unwrap_err().to_string();
            assert_eq!(err, format!("--save {}: {why}", file.display()));
        };
        let device = "is a device, not a regular file: lmbias writes only a new name or a \
                      regular file";
        refused(Path::new("/dev/null"), &[], device);
        let fifo = dir.join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        refused(
            &fifo,
            &[],
            "is a FIFO, not a regular file: lmbias writes only a new name or a regular file",
        );
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nothing"), &dangling).unwrap();
        let why = "a link to no file (missing, or a loop of links)";
        refused(&dangling, &[], why);
        let (a, b) = (dir.join("loop-a"), dir.join("loop-b"));
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        refused(&a, &[], why);
        // The same file as an input, by another name too (a hard link).
        let test = dir.join("tests/t.jsonl");
        std::fs::write(&test, "{}").unwrap();
        let why = format!(
            "the same file as --test {}: writing it would destroy that input",
            test.display()
        );
        refused(&test, &[("--test", &test)], &why);
        let hard = dir.join("hard.jsonl");
        std::fs::hard_link(&test, &hard).unwrap();
        refused(&hard, &[("--test", &test)], &why);
        // A file of an input folder; a new name there, or any name elsewhere, is fine.
        refused(
            &test,
            &[("--test", &dir.join("tests"))],
            &format!(
                "a file of the input folder --test {}: writing it would change that input",
                dir.join("tests").display()
            ),
        );
        check_file(
            "--save",
            &dir.join("tests/new.cbor"),
            &[("--test", &dir.join("tests"))],
        )
        .unwrap();
        check_file("--save", &dir.join("out.cbor"), &[("--test", &test)]).unwrap();
        assert_eq!(std::fs::read_to_string(&test).unwrap(), "{}");
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
