//! Formatting search results: GNU grep's format, JSON Lines, color, and
//! everything else trawl writes to standard output.
//!
//! A [`Printer`] belongs to one thread and collects output in memory; for
//! each file it hands out a [`FileSink`] (the searcher's [`Sink`]) and, after
//! the search, [`FileSink::finish`] writes what only the end of a file can
//! tell (`-c`, `-l`, `-L`, JSON's `end`). Finished output goes to an
//! [`Output`] in large pieces, a whole file at a time, each of a known
//! [`Chunk`] kind, so one file's lines are never interleaved with another's
//! and [`Separators`] can decide what goes between files: [`Stdout`]
//! writes them (unsorted as files end, or in walk order from each thread's
//! [`Capture`]), and a distributed run's merge feeds its shards' pieces to
//! the same logic. The end of a run, `--stats`'s text or JSON's summary,
//! is a [`Summary`].
//!
//! - config.rs: [`PrinterConfig`], [`OutputMode`], plain data.
//! - printer.rs: [`Printer`], [`FileSink`]; printer/standard.rs: grep's
//!   format of a line; json.rs: JSON Lines; color.rs, hyperlink.rs,
//!   shape.rs, width.rs, pages.rs: parts of a line.
//! - output.rs: [`Output`], [`Chunk`], [`Separators`]; stdout.rs,
//!   capture.rs: the outputs.
//! - stats.rs, summary.rs: the totals and what the end of a run says.
//!
//! [`Sink`]: trawl_search::Sink
#![deny(missing_docs)]

mod capture;
mod color;
mod config;
mod hyperlink;
mod json;
mod output;
mod pages;
mod printer;
mod shape;
mod stats;
mod stdout;
mod summary;
mod util;
mod width;

pub use crate::capture::Capture;
pub use crate::color::Colors;
pub use crate::config::{OutputMode, PrinterConfig};
pub use crate::hyperlink::{aliases as hyperlink_aliases, Hyperlinks};
pub use crate::json::Within;
pub use crate::output::{Chunk, Output, Separators};
pub use crate::pages::{PageBreaks, PageReader};
pub use crate::printer::{Counting, FileSink, Naming, Printer};
pub use crate::shape::{MaxColumns, Template};
pub use crate::stats::{ExtractionStats, IndexStats, Stats};
pub use crate::stdout::{write_all_vectored, Stdout};
pub use crate::summary::{extraction_notes, Summary};
pub use crate::width::StreamSize;
