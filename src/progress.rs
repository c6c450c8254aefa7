//! Progress drawn on stderr for the long commands (`count`, `solve`, perft, `tune`, `match`),
//! only when stderr is a terminal: tests, pipes and GUIs see nothing of it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// A bar of `len` steps drawn with indicatif's `template` (its position is the caller's).
pub fn bar(template: &str, len: u64) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}

/// A spinner with the time spent, for work whose length is not known ahead (an exact solve, a
/// perft count); it turns on its own thread until finished.
pub fn spinner(message: String) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let spinner = ProgressBar::new_spinner().with_message(message);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        spinner.set_style(style);
    }
    spinner.enable_steady_tick(Duration::from_millis(120));
    Some(spinner)
}
