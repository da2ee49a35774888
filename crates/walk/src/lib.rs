//! Parallel directory traversal for huge trees.
//!
//! The walk reads directories with `getdents64` into a large per-thread
//! buffer, opens every directory and file with `openat` relative to its
//! parent's descriptor (so paths deeper than `PATH_MAX` work), takes entry
//! types from `d_type` and calls `fstatat` only when the type is unknown or a
//! symlink must be followed.
//!
//! Work is spread with one deque per thread: a thread pops its own newest work
//! (depth first, keeping few directories open) and steals the oldest work of
//! others (whole subtrees). Directories are work items, and so are batches of
//! a directory's files, so one huge directory is still shared by all threads.
//! The threads that walk are the threads that visit: a [`Visitor`] runs on
//! each of them, and searching a file happens inside [`Visitor::visit`].
//!
//! A sorted walk ([`WalkBuilder::sorted`]) is depth first with each
//! directory's entries in name-byte order. It still runs on every thread:
//! entries are visited out of order (each thread depth first in its own
//! subtree while little output waits), and the output each visit hands
//! over ([`Visitor::take_output`]) is written in walk order
//! ([`Visitor::write_output`]) through a bounded reorder buffer; the item
//! under the write cursor may write as it goes instead ([`Turn`]).
//!
//! ```no_run
//! use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkState};
//! struct Count(usize);
//! impl Visitor for Count {
//!     fn visit(&mut self, e: &Entry<'_>) -> WalkState {
//!         self.0 += e.file_type().is_file() as usize;
//!         WalkState::Continue
//!     }
//!     fn error(&mut self, _: WalkError) -> WalkState { WalkState::Continue }
//! }
//! let mut w = WalkBuilder::new();
//! w.add_root(".");
//! w.run(|_| Count(0));
//! ```
#![deny(missing_docs)]

mod builder;
mod dir;
mod dirent;
mod entry;
mod error;
mod fds;
mod ignore_files;
mod name;
mod noatime;
mod open_dir;
mod ordered;
mod parallel;
mod pieces;
mod roots;
mod run;
mod sys;
mod threads;
mod turn;
mod visitor;

pub use crate::builder::{KeepFn, KeepIgnored, WalkBuilder, DEFAULT_REORDER_BUFFER};
pub use crate::dirent::FileType;
pub use crate::entry::{DirRead, Entry};
pub use crate::error::{WalkError, WalkErrorKind};
pub use crate::pieces::{Piece, Pieces};
pub use crate::roots::{Descent, Itself, ListedDir, Opening};
pub use crate::threads::GrowthSignal;
pub use crate::turn::Turn;
pub use crate::visitor::{Visitor, WalkState};
