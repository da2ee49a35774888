//! One run of a grep search over the walk, above the walk, the searcher,
//! the extractors, the index and the printer, below the binary (which
//! decides the [`Config`] from the command line and opens what it needs):
//!
//! ```text
//! config.rs   Config: what every stage of a run needs, decided once, never written after
//! filter.rs   --include/--exclude/--exclude-dir as GNU grep reads them; --glob/--type's choice
//! run.rs      run(): the walk of the operands (indexed.rs: the parts an index serves), its
//!             visitors per thread (thread_growth.rs: more threads on a cold disk), standard
//!             input, --sort by time; a sorted run's output in walk order (sorted.rs)
//! context.rs  Context: what the threads share (the output, what was found and failed, and how
//!             a message about a file is said: grep's -s and broken-pipe rules)
//! visitor.rs  GrepVisitor: what an entry is and the search of one file through the printer;
//!             Members: what trawl-extract hands from inside archives and documents, searched
//!             as files
//! ```
//!
//! `trawl find`'s run (in the binary) shares the hand-offs: [`sorted`],
//! [`indexed::add_find_root`].

mod config;
mod context;
mod filter;
pub mod indexed;
mod run;
pub mod sorted;
mod thread_growth;
mod visitor;

pub use crate::config::{utf8_locale, Config, Devices, Directories, Order, SortKey, Target};
pub use crate::context::{Context, ExtractionCounts};
pub use crate::filter::{Filter, FilterOptions, NameRule};
pub use crate::run::run;

#[cfg(test)]
mod tests;
