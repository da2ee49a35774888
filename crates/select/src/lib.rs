//! Selecting entries: GNU find's expression language, on trawl's walker.
//!
//! Parse, then run. [`parse`] turns `find [-H|-L|-P] [PATH...]
//! [EXPRESSION]` into a [`FindCommand`]: plain data, never written after,
//! that opens and reads nothing (a fuzzer builds it); what GNU find does
//! while it reads (warnings, `-fprint`'s files opened) is kept as ordered
//! [`Setup`] steps. A [`Run`] made from the command (any number of times)
//! does those steps, reads `-files0-from`'s list and holds what the
//! threads of one walk share. An [`Evaluator`] per walking thread of the
//! run evaluates the expression on each [`trawl_walk::Entry`], reading
//! metadata only when a test needs it (`-name`, `-path`, `-type` run on
//! the directory entry alone), and performs the actions: printing,
//! `-printf`, `-ls`, `-delete`, and `-exec`/`-execdir` with children
//! spawned from argv (never a shell). trawl adds content tests:
//! `-text`/`-binary` (a NUL in the first block) and `-contains PATTERN` (a
//! line matches, with the grep matcher).
//!
//! The crate reads top to bottom, each module importing only those below:
//! - the command as data: `parse` (the grammar; `parse/primary.rs` the
//!   primaries, `values`, `number` and `exec` their arguments) →
//!   `command` (the [`FindCommand`], its [`Setup`]) → `expr` (the tree) →
//!   `format` (a parsed `-printf` format), with `glob`, `regex_type`,
//!   `datetime`, `mode`, `users` beneath;
//! - a run: `eval` (the [`Evaluator`]: operators, tests, actions
//!   dispatched) → `exec` (one thread's `-exec`/`-execdir`) → `run` (what
//!   a run shares: `setup`'s opened files, `files0`'s starting points,
//!   `batch`'s shared `-exec … +` batches, `turns`, `ls`'s widths) and the
//!   per-entry parts: `printf` and `ls` (rendering), `subject` (the entry
//!   with its lazily read metadata), `held` (a thread's output), `report`
//!   (messages), `extracted` (content inside archives and documents),
//!   `children` (the running commands a signal must reach).
//!
//! `rules` (grep's `--glob`, `--type` and hidden-file choices) and `need`
//! (what a name must be for the expression to act) serve the binary.
#![deny(missing_docs)]

mod batch;
mod birth;
mod cformat;
mod children;
mod command;
mod datetime;
mod eval;
mod exec;
pub mod expr;
mod extracted;
mod files0;
pub mod format;
pub mod glob;
mod held;
mod ls;
mod mode;
mod mounts;
pub mod need;
mod parse;
mod paths;
mod printf;
mod regex_type;
mod report;
pub mod rules;
mod run;
mod setup;
mod subject;
#[cfg(test)]
mod tests;
mod timefmt;
mod turns;
mod users;

pub use crate::children::{interrupt_children, kill_children};
pub use crate::command::{Extraction, FindCommand, Follow, Setup};
pub use crate::eval::{Evaluator, Finished, Outcome};
pub use crate::parse::{parse, parse_at, ParseError};
pub use crate::regex_type::RegexType;
pub use crate::run::{Run, RunSettings};
pub use crate::setup::after_mistake;
