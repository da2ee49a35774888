//! A sorted walk's turn to write: the item under the write cursor (every
//! entry before it in walk order written) may write its output as it is
//! made instead of handing it over whole at its end, so that a file whose
//! output is large is not held in memory. The walk gives the turn (and
//! keeps every other thread from writing meanwhile); the visitor looks at
//! it while its visit runs ([`Visitor::turn`](crate::Visitor::turn)).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Whether the item a thread visits may write now (see the module's
/// documentation). A visitor makes one and shares it with whatever writes
/// its output; the walk sets it and takes it back.
#[derive(Clone, Debug, Default)]
pub struct Turn(Arc<AtomicBool>);

impl Turn {
    /// A turn not given.
    pub fn new() -> Turn {
        Turn::default()
    }

    /// Whether the item being visited is under the write cursor, with
    /// everything before it written: its output may be written now, in
    /// order, by the visiting thread alone (until the item ends).
    pub fn is_mine(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }

    /// The walk gives the turn (under its lock).
    pub(crate) fn give(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// The walk takes the turn back at the item's end (under its lock);
    /// whether it was given.
    pub(crate) fn take_back(&self) -> bool {
        self.0.swap(false, Ordering::AcqRel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_given_is_seen_by_every_clone_until_taken_back() {
        let t = Turn::new();
        let seen = t.clone();
        assert!(!seen.is_mine());
        t.give();
        assert!(seen.is_mine());
        assert!(t.take_back());
        assert!(!seen.is_mine());
        assert!(!t.take_back());
    }
}
