//! Context lines: the lines printed around selected ones (`-A`, `-B`,
//! `-C`), and the `--` between groups that are not adjacent.

use memchr::memrchr;
use trawl_matcher::Matcher;

use super::{Flow, Scan};
use crate::{ContextKind, Sink};

/// What was printed of the file so far.
#[derive(Default)]
pub(super) struct Printed {
    /// Lines before this were printed or passed over for good.
    pub(super) end: usize,
    /// Whether any line of this file was printed (for `--` breaks).
    pub(super) any: bool,
    /// Lines dropped from the buffer were never printed: the next group is
    /// not adjacent to the last one.
    pub(super) dropped_unprinted: bool,
    /// After-context lines still owed.
    pub(super) after_left: usize,
}

impl<M: Matcher, S: Sink, R: std::io::Read> Scan<'_, M, S, R> {
    /// Prints the context lines between the last printed line and `ls`.
    pub(super) fn context_before(&mut self, ls: usize) -> Flow {
        let c = self.config;
        if c.before_context == 0 && c.after_context == 0 && !c.group_breaks {
            return Ok(true);
        }
        // After-context of the previous selected line first.
        if !self.after_context_until(ls)? {
            return Ok(false);
        }
        // Then up to `before_context` lines just before `ls`.
        let mut start = ls;
        let mut n = self.config.before_context;
        while n > 0 && start > self.printed.end {
            start = memrchr(self.term(), &self.win.buf[self.printed.end..start - 1])
                .map_or(self.printed.end, |i| self.printed.end + i + 1);
            n -= 1;
        }
        let gap = start > self.printed.end || (self.printed.dropped_unprinted && start == 0);
        if self.printed.any && gap && !self.sink.context_break()? {
            return Ok(false);
        }
        self.printed.dropped_unprinted = false;
        let mut at = start;
        while at < ls {
            let next = self.next_line(at, ls);
            let info = self.info(at);
            self.printed.any = true;
            if !self.sink.context(&self.win.buf[at..next], info, ContextKind::Before)? {
                return Ok(false);
            }
            at = next;
        }
        self.printed.end = self.printed.end.max(ls);
        Ok(true)
    }

    /// Prints owed after-context lines from `printed_end`, stopping at `limit`.
    pub(super) fn after_context_until(&mut self, limit: usize) -> Flow {
        while self.printed.after_left > 0 && self.printed.end < limit {
            let at = self.printed.end;
            let next = self.next_line(at, limit);
            let info = self.info(at);
            if !self.sink.context(&self.win.buf[at..next], info, ContextKind::After)? {
                return Ok(false);
            }
            self.printed.after_left -= 1;
            self.printed.end = next;
        }
        Ok(true)
    }

    /// Prints owed after-context lines up to `end` (no selected line follows
    /// in `pos..end`).
    pub(super) fn trailing_context(&mut self, end: usize) -> Flow {
        // Lines from the first NUL's on are never printed.
        let binary = self.binary.line.saturating_sub(self.win.base);
        if binary <= end as u64 {
            let go_on = self.after_context_until(binary as usize)?;
            self.printed.after_left = 0;
            return Ok(go_on);
        }
        self.after_context_until(end)
    }
}
