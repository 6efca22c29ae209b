//! What lmbias's front-ends share, so that each is declared once: the compute options
//! (`--device`, `--precision`) as clap arguments, and the progress bars they draw on a
//! terminal (counts, training steps, hub downloads). The libraries below never write to a
//! terminal: they report progress through callbacks, and these draw it.

mod compute;
mod progress;

pub use compute::{ComputeArgs, PRECISION_HELP};
pub use progress::{Bar, hub_settings, is_terminal};
