//! Checks put off for the later reads of a file without a match: the NUL
//! check and the line count of a window whose lines hold no match are not
//! done when it is read; the first window that holds a match catches them
//! up, reading again from the file the bytes already dropped.
//!
//! A file larger than one read (256 KiB) is read in windows, and each one
//! was checked for a NUL and its lines counted (for `-n`) before the next:
//! over the Linux sources, the 254 such files searched in one pass make
//! these two passes 2% of a search's samples (perf, no match). Most such
//! files hold no match, and for them neither pass changes the output:
//! with the conditions of [`Lazy::new`], a window's NUL only changes what
//! its own matching lines or later ones print.
//!
//! Once caught up, a file's later windows are checked as they are read: a
//! file with a match past its first read tends to hold more, and each next
//! match would read again all that lies between (the Linux tree's nbio
//! register headers, 5-17 MB with matches megabytes apart: the bench's
//! alternation read 82 MB again, now 25).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

use memchr::{memchr, memrchr};
use trawl_matcher::Matcher;

use super::lines::count_terminators;
use super::{Buf, LinesNeed, Scan};
use crate::{BinaryMode, Part, SearchError, SearchSummary, Sink};

/// Bytes read again at a time when catching up.
const CATCH_UP_READ: usize = 256 * 1024;

/// What was put off, for a file that can be read again.
pub(crate) struct Lazy<'a> {
    file: &'a File,
    /// Whether checks may be put off ([`Scan::lazy_allowed`]), asked at
    /// the file's second read: most files have none.
    allowed: Option<bool>,
    /// From this file offset on, the bytes read were not checked for a
    /// NUL (None: every byte read was).
    unchecked: Option<u64>,
    /// Where the line count stopped when a window was dropped uncounted:
    /// the file offset (a line start) and the number of that line.
    uncounted: Option<(u64, u64)>,
}

impl<'a> Lazy<'a> {
    /// For `file`, read by the search from its first byte.
    pub(crate) fn new(file: &'a File) -> Lazy<'a> {
        Lazy { file, allowed: None, unchecked: None, uncounted: None }
    }
}

impl<M: Matcher, S: Sink, R: io::Read> Scan<'_, M, S, R> {
    /// Checks may be put off when nothing but a match can need them: the
    /// file searched whole through an owned buffer, NULs looked for (not
    /// -a), no -v or --passthru (a line without a match could be
    /// printed), no context (lines around a match may lie in an unchecked
    /// window), and a pattern with no line anchors (a NUL turned into a
    /// line end cannot make a match).
    fn lazy_allowed(&self) -> bool {
        let config = self.config;
        config.binary != BinaryMode::Text
            && !config.invert
            && !config.passthru
            && config.before_context == 0
            && config.after_context == 0
            && self.part == Part::WHOLE
            && matches!(self.win.buf, Buf::Owned(_))
            && self.matcher.unanchored()
    }

    /// Puts off the NUL check of the bytes just read from `start` on, when
    /// they come after the first read and the file is not binary yet;
    /// whether it did.
    pub(super) fn put_off_binary_check(&mut self, start: usize) -> bool {
        let at = self.win.base + start as u64;
        if self.binary.offset.is_some() || at < self.config.read_size() as u64 {
            return false;
        }
        let allowed = match self.lazy.as_ref().map(|l| l.allowed) {
            None => return false,
            Some(Some(allowed)) => allowed,
            Some(None) => self.lazy_allowed(),
        };
        let Some(lazy) = self.lazy.as_mut() else { return false };
        lazy.allowed = Some(allowed);
        if allowed {
            lazy.unchecked.get_or_insert(at);
        }
        allowed
    }

    /// Whether the line count may stop where it is while the window's
    /// first `keep` bytes are dropped (its checks are put off); if so,
    /// where it stopped is kept for the catch-up.
    pub(super) fn put_off_line_count(&mut self) -> bool {
        match &mut self.lazy {
            Some(lazy) if lazy.unchecked.is_some() => {
                let at = self.win.base + self.lines.counted_to as u64;
                lazy.uncounted.get_or_insert((at, self.lines.number));
                true
            }
            _ => false,
        }
    }

    /// Before the window's lines up to `lines_end` are searched: nothing
    /// to do when no check is put off; else, when those lines hold no
    /// match, they need no search (Quiet); else the checks are caught up
    /// (Search, or Stop when the file is to be skipped for a NUL).
    pub(super) fn lazy_lines(
        &mut self,
        lines_end: Option<usize>,
    ) -> Result<LinesNeed, SearchError> {
        if self.lazy.as_ref().is_none_or(|l| l.unchecked.is_none()) {
            return Ok(LinesNeed::Search);
        }
        if let Some(end) = lines_end.filter(|_| !self.done) {
            if self.no_match_before(end)? {
                return Ok(LinesNeed::Quiet);
            }
        }
        Ok(match self.catch_up()? {
            true => LinesNeed::Search,
            false => LinesNeed::Stop,
        })
    }

    /// At the end of a search that selected lines: the NUL check of the
    /// bytes read after the last match is caught up too, so the summary
    /// tells where the file turned binary as a search checking every
    /// window does (JSON's end message gives it). A file without a
    /// selected line is not read again.
    pub(super) fn finish_lazy(
        &mut self,
        mut summary: SearchSummary,
    ) -> Result<SearchSummary, SearchError> {
        if self.selected > 0 && self.lazy.as_ref().is_some_and(|l| l.unchecked.is_some()) {
            self.catch_up()?;
            summary.binary_offset = self.binary.offset;
        }
        Ok(summary)
    }

    /// Does the checks put off: reads the dropped bytes again for their
    /// NULs and line terminators, then checks the window. False when the
    /// file is to be skipped (-I met a NUL).
    fn catch_up(&mut self) -> Result<bool, SearchError> {
        // A file with one match past its first read tends to hold more:
        // nothing is put off after this (no `Lazy` left), and its later
        // windows are checked as they are read rather than read again from
        // here to each next match. Both callers come only with checks put off.
        let Some(Lazy { file, unchecked: Some(unchecked), uncounted, .. }) = self.lazy.take()
        else {
            return Ok(true);
        };
        let base = self.win.base;
        let term = self.term();
        let from = uncounted.map_or(unchecked, |(at, _)| at.min(unchecked));
        let mut terminators = 0u64;
        // The first NUL read again, and the start of its line (the end of
        // the last terminator before it, or where the reading began).
        let mut nul: Option<(u64, u64)> = None;
        let mut line_start = from;
        if from < base {
            let mut chunk = vec![0u8; CATCH_UP_READ.min((base - from) as usize)];
            let mut at = from;
            while at < base {
                let want = chunk.len().min((base - at) as usize);
                let n = read_at(file, &mut chunk[..want], at)?;
                if n == 0 {
                    // The file shrank since it was read.
                    break;
                }
                #[cfg(test)]
                READ_AGAIN.with(|c| c.set(c.get() + n as u64));
                let bytes = &chunk[..n];
                if let Some((counted_from, _)) = uncounted {
                    let skip = counted_from.saturating_sub(at).min(n as u64) as usize;
                    terminators += count_terminators(&bytes[skip..], term);
                }
                if nul.is_none() {
                    let skip = unchecked.saturating_sub(at).min(n as u64) as usize;
                    match memchr(0, &bytes[skip..]) {
                        Some(i) => {
                            let z = skip + i;
                            if let Some(j) = memrchr(term, &bytes[..z]) {
                                line_start = at + j as u64 + 1;
                            }
                            nul = Some((at + z as u64, line_start));
                        }
                        None => {
                            if let Some(j) = memrchr(term, bytes) {
                                line_start = at + j as u64 + 1;
                            }
                        }
                    }
                }
                at += n as u64;
            }
        }
        if let Some((_, number)) = uncounted {
            self.lines.counted_to = 0;
            self.lines.number = number + terminators;
        }
        if let Some((offset, line)) = nul {
            // Past the first read: binary from the line holding the NUL.
            self.binary.offset = Some(offset);
            self.binary.line = line;
            if self.config.binary == BinaryMode::SkipFile {
                return Ok(false);
            }
        }
        // The window's own unchecked bytes (all of it when they began in a
        // dropped one); with a NUL found above, its NULs are rewritten.
        let start = unchecked.saturating_sub(base).min(self.win.len as u64) as usize;
        Ok(self.detect_binary(start))
    }
}

#[cfg(test)]
thread_local! {
    /// Bytes the catch-ups of this thread read again.
    static READ_AGAIN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Bytes the catch-ups of this thread have read again so far.
#[cfg(test)]
pub(crate) fn read_again() -> u64 {
    READ_AGAIN.with(|c| c.get())
}

/// Reads at `offset`, retrying when interrupted.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    loop {
        match file.read_at(buf, offset) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}
