//! State every thread of a grep run shares: the configuration, the output,
//! what was found and failed, and how a message about a file is said.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use trawl_printer::Output;

use crate::config::Config;

/// State shared by every thread of a run.
pub struct Context<'a> {
    pub cfg: &'a Config,
    pub out: &'a dyn Output,
    /// A line was selected somewhere.
    pub matched: AtomicBool,
    /// An error was met (exit code 2).
    pub error: AtomicBool,
    /// Stop as soon as possible (-q matched, or the output pipe closed).
    pub quit: AtomicBool,
    /// Writing standard output failed (reported once).
    pub(crate) write_failed: AtomicBool,
    /// What became of documents beyond their search (counted for the end
    /// of the run).
    pub extraction: ExtractionCounts,
    /// A shard's part of an operand: the one entry of the (directory) root
    /// that is searched.
    pub(crate) only: Option<&'a [u8]>,
}

/// What became of documents, counted as the run goes (see
/// trawl_printer::ExtractionStats).
#[derive(Default)]
pub struct ExtractionCounts {
    /// Files and archive members whose text could not be extracted (each
    /// reported as met).
    pub(crate) failed: AtomicU64,
    /// Documents the cache remembers failing (not reported one by one).
    pub(crate) remembered: AtomicU64,
    /// Documents searched as bytes after their extractor failed.
    pub(crate) as_bytes: AtomicU64,
}

impl ExtractionCounts {
    /// The counts so far.
    pub fn stats(&self) -> trawl_printer::ExtractionStats {
        trawl_printer::ExtractionStats {
            failed: self.failed.load(Ordering::Relaxed),
            failed_remembered: self.remembered.load(Ordering::Relaxed),
            searched_as_bytes: self.as_bytes.load(Ordering::Relaxed),
        }
    }
}

impl<'a> Context<'a> {
    pub fn new(cfg: &'a Config, out: &'a dyn Output) -> Self {
        Context {
            cfg,
            out,
            matched: AtomicBool::new(false),
            error: AtomicBool::new(false),
            quit: AtomicBool::new(false),
            write_failed: AtomicBool::new(false),
            extraction: ExtractionCounts::default(),
            only: None,
        }
    }

    /// Searches only the entry `name` of the root (a directory): a shard's
    /// part of an operand, searched as one trawl over the operand searches
    /// that entry.
    pub fn only(mut self, name: Option<&'a [u8]>) -> Self {
        self.only = name;
        self
    }

    /// Reports `trawl: MESSAGE` on stderr and, when `is_error`, marks the
    /// run failed: grep's rules, nothing said under -s (messages about
    /// files) or once standard output's pipe is closed.
    pub(crate) fn report(&self, message: &[u8], is_error: bool) {
        if is_error {
            self.error.store(true, Ordering::Relaxed);
        }
        if self.cfg.no_messages || self.out.broken_pipe() {
            return;
        }
        trawl_diag::say(message);
    }

    /// Writing standard output failed (a closed pipe with SIGPIPE
    /// ignored, a full disk): reported once, the run stops and exits 2.
    pub(crate) fn write_failed(&self, e: &io::Error) {
        self.error.store(true, Ordering::Relaxed);
        // Reported once, a closed pipe too (SIGPIPE ignored: grep says
        // "write error: Broken pipe"); -s does not hide it, as in grep.
        if !self.write_failed.swap(true, Ordering::Relaxed) {
            trawl_diag::error(format_args!("write error: {}", trawl_diag::io_message(e)));
        }
        self.quit.store(true, Ordering::Relaxed);
    }

    pub(crate) fn report_path(&self, path: &[u8], err: &dyn std::fmt::Display) {
        let mut msg = path.to_vec();
        msg.extend_from_slice(b": ");
        msg.extend_from_slice(err.to_string().as_bytes());
        self.report(&msg, true);
    }
}
