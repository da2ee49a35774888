//! Selecting entries: GNU find's expression language, on trawl's walker.
//!
//! [`parse`] turns `find [-H|-L|-P] [PATH...] [EXPRESSION]` into a
//! [`FindCommand`]; an [`Evaluator`] per walking thread evaluates its
//! expression on each [`trawl_walk::Entry`], reading metadata only when a
//! test needs it (`-name`, `-path`, `-type` run on the directory entry alone),
//! and performs the actions: printing, `-printf`, `-ls`, `-delete`, and
//! `-exec`/`-execdir` with children spawned from argv (never a shell).
//! trawl adds content tests: `-text`/`-binary` (a NUL in the first block) and
//! `-contains PATTERN` (a line matches, with the grep matcher).
//!
//! The crate reads top to bottom: `parse` (the command line) → `expr` (the
//! tree) → `eval` (operators and tests per entry) with the actions in `exec`,
//! `printf`, `ls` and `paths`; `turns` holds what the threads of one run
//! agree on, `children` the running commands a signal must reach.
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
pub use crate::held::Output;
pub use crate::parse::{parse, parse_at, ParseError};
pub use crate::regex_type::RegexType;
pub use crate::run::{Run, RunSettings};
pub use crate::setup::after_mistake;
