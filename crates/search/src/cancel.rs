//! A cancellation token: handed to every search (and, through it, to the
//! walk's visitors and `-exec`'s waits), set once by a signal or by the
//! caller, never reset.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Tells the searches of one run to stop at their next read.
///
/// Clones share one flag. The default token is a fresh, unset one, so a
/// search that nobody can cancel needs no setup.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A fresh, unset token.
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks every holder to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether the run was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The flag itself, for a signal handler to set (signal-hook's
    /// `flag::register` stores `true` into it, async-signal-safely).
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }
}
