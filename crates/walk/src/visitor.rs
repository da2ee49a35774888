//! What a walk asks of its caller: a [`Visitor`] on each thread, whose
//! calls answer with a [`WalkState`] (go on, skip this directory, stop).

use crate::entry::{DirRead, Entry};
use crate::error::WalkError;
use crate::pieces::{Piece, Pieces};
use crate::turn::Turn;

/// What a visitor wants next.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum WalkState {
    /// Go on.
    Continue,
    /// Do not descend into this directory (same as `Continue` for files).
    Skip,
    /// Stop the whole walk as soon as possible.
    Quit,
}

/// Receives the entries of a walk, one visitor per thread.
pub trait Visitor: Send {
    /// Called for every entry: roots, directories (before their contents) and
    /// everything else.
    fn visit(&mut self, entry: &Entry<'_>) -> WalkState;

    /// Called for an entry that could not be read, or a directory loop.
    fn error(&mut self, err: WalkError) -> WalkState;

    /// Called for each directory the walk reads (not a listed one: see
    /// [`WalkBuilder::add_listed`](crate::WalkBuilder::add_listed)) once it was read and before any of its
    /// entries is visited, with all of them; Skip visits none of them.
    fn dir_read(&mut self, _dir: &DirRead<'_>) -> WalkState {
        WalkState::Continue
    }

    /// With [`WalkBuilder::post_order`](crate::WalkBuilder::post_order): called for each directory after
    /// everything below it (or at once if it is not descended into).
    fn visit_dir_end(&mut self, _entry: &Entry<'_>) -> WalkState {
        WalkState::Continue
    }

    /// In a sorted walk: appends to `out` the output made by the visits of
    /// the work item that just ended (`visit` of an entry, or of a batch of
    /// a directory's files, and of their errors; `visit_dir_end`), in
    /// tagged pieces. The
    /// walk holds it until everything before it in walk order was written,
    /// then hands it to [`Visitor::write_output`]. By default a visitor
    /// hands over nothing: it writes as it goes, which keeps the order only
    /// on one thread.
    fn take_output(&mut self, _out: &mut Pieces) {}

    /// With [`WalkBuilder::operands_in_order`](crate::WalkBuilder::operands_in_order): a starting point was walked
    /// whole, on every thread; what this visitor holds goes out now, before
    /// anything of the next one.
    fn operand_finished(&mut self) {}

    /// In a sorted walk: writes the pieces of output of consecutive entries,
    /// as [`Visitor::take_output`] handed them over, in walk order. Called
    /// on any thread's visitor, one call at a time; Quit stops the walk.
    fn write_output(&mut self, _pieces: &[Piece<'_>]) -> WalkState {
        WalkState::Continue
    }

    /// In a sorted walk (not post order): this visitor's [`Turn`], which
    /// the walk gives while the item it visits is under the write cursor.
    /// The visitor then writes its output as it goes (what it held of the
    /// item first), in order, and hands over nothing more of it; none by
    /// default (every item's output is handed over whole).
    fn turn(&self) -> Option<Turn> {
        None
    }
}
