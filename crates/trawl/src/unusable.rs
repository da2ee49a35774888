//! Conveniences that could not be used — the configuration file, the
//! user's extractors file — never stop a run: each is reported once and the
//! run goes on without it. A default file that exists but cannot be read
//! gets a warning; a file the user named in the environment is an error
//! (the exit status says so at the end).

use std::sync::atomic::{AtomicBool, Ordering};

/// How much a convenience that could not be used matters.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Severity {
    /// Found where it is looked for by default: a warning.
    Warning,
    /// Named by the user (an environment variable): an error, reported
    /// in the exit status too.
    Error,
}

impl Severity {
    /// What goes before the message after `trawl: `.
    pub fn prefix(self) -> &'static str {
        match self {
            Severity::Warning => "warning: ",
            Severity::Error => "",
        }
    }
}

/// Set once an error was reported here.
static ERRORED: AtomicBool = AtomicBool::new(false);

/// Prints `trawl: MESSAGE` (the message holds the severity's prefix) and
/// remembers an error.
pub fn report(message: &str, severity: Severity) {
    crate::report::error(message);
    if severity == Severity::Error {
        ERRORED.store(true, Ordering::Relaxed);
    }
}

/// Whether an error was reported here: the run's exit status says so.
pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}
