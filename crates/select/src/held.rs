//! One thread's output to standard output: held in a buffer and handed on
//! in large, whole-record writes; what writing met (a closed pipe, another
//! error) is remembered here. Evaluators write to the printer's
//! [`Output`], as grep's printers do: find's entries are output of no
//! group ([`Chunk::Other`]).

use std::io;

use trawl_printer::{Chunk, Output};

use crate::turns::{TurnWait, Turns};

/// Output is handed on when this much is held.
pub(crate) const FLUSH_AT: usize = 64 * 1024;

/// The output one evaluating thread holds.
pub(crate) struct Held<'r> {
    output: &'r dyn Output,
    /// When the command runs commands: the run's turns (no thread writes
    /// while another's entry's output is split around a command's).
    turns: Option<&'r Turns>,
    /// What is held.
    pub(crate) buf: Vec<u8>,
    /// Writing failed because the reader went away (a closed pipe): the
    /// run stops quietly.
    pub(crate) closed: bool,
    /// `closed` was set since [`Held::take_closed_now`] last asked.
    closed_now: bool,
    /// Writing failed otherwise (a full disk), and whether that was said
    /// already (before a command ran), as GNU find says it.
    pub(crate) write_error: Option<(io::Error, bool)>,
}

impl<'r> Held<'r> {
    /// Output to `output`; `turns` when the command runs commands.
    pub(crate) fn new(output: &'r dyn Output, turns: Option<&'r Turns>) -> Self {
        Held {
            output,
            turns,
            buf: Vec::with_capacity(FLUSH_AT * 2),
            closed: false,
            closed_now: false,
            write_error: None,
        }
    }

    /// Writes what is held.
    pub(crate) fn flush(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        // Not while another thread's record is split around a command.
        let _turn = self.turns.map(|t| t.wait(TurnWait::ToWrite));
        if !self.closed && self.write_error.is_none() {
            match self.output.write(&self.buf, Chunk::Other) {
                Ok(()) => {}
                // A reader closed the pipe: the run ends quietly.
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                    self.closed = true;
                    self.closed_now = true;
                }
                // Anything else fails the run, which goes on (its commands
                // and deletions still act).
                Err(e) => self.write_error = Some((e, false)),
            }
        }
        self.buf.clear();
    }

    /// Writes what is held before a command runs: a failure is said now
    /// (GNU find: "write error").
    pub(crate) fn flush_before_command(&mut self) {
        let unsaid = self.write_error.is_none();
        self.flush();
        if let (Some((_, said)), true) = (&mut self.write_error, unsaid) {
            *said = true;
            crate::report::warn("write error".into());
        }
    }

    /// Whether the output was closed since the last call.
    pub(crate) fn take_closed_now(&mut self) -> bool {
        std::mem::take(&mut self.closed_now)
    }
}
