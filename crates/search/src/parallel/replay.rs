//! Parts replayed in file order into the caller's sink, restoring what
//! crossing a part's edge changed: absolute line numbers, context lines two
//! parts printed (kept once), the `--` between groups, `-m` across parts, and
//! a binary file whose first NUL sits in an earlier part.

use std::borrow::Cow;
use std::io;

use super::record::{Event, Kind, Recorded, Text};
use crate::config::{BinaryMode, SearcherConfig};
use crate::mapped::Mapping;
use crate::sink::{ContextKind, LineInfo, SearchSummary, Sink};

/// Replaying parts in order: the state a single search would have had.
pub(super) struct Replay<'c> {
    config: &'c SearcherConfig,
    part_size: u64,
    /// Number of the line at the current part's start, minus one (newlines
    /// before it).
    newlines: i64,
    /// Context lines recorded past the end of the parts replayed so far.
    pending: Vec<(Event, Vec<u8>)>,
    /// Offset just past the last line printed.
    printed_end: Option<u64>,
    /// `-m` reached: only trailing context is still printed.
    done: bool,
    after_left: usize,
    /// The sink asked to stop: print nothing more.
    halted: bool,
    pub(super) summary: SearchSummary,
}

impl<'c> Replay<'c> {
    pub(super) fn new(config: &'c SearcherConfig, part_size: u64) -> Self {
        Replay {
            config,
            part_size,
            newlines: 0,
            pending: Vec::new(),
            printed_end: None,
            done: false,
            after_left: 0,
            halted: false,
            summary: SearchSummary::default(),
        }
    }

    /// Replays part `k`; returns false when nothing after it matters.
    pub(super) fn play<S: Sink>(
        &mut self,
        k: usize,
        rec: Recorded,
        map: Option<&Mapping>,
        sink: &mut S,
    ) -> io::Result<bool> {
        let part_end = (k as u64 + 1) * self.part_size;
        let (first, last) = rec.summary.part_lines;
        // Line numbers: relative to the part's reading start, made absolute.
        let shift = self.newlines - first.unwrap_or(1) as i64 + 1;
        // This part's lines are borrowed from its record (or the mapping);
        // those that belong to a later part are kept, owned.
        let mut events: Vec<(Event, Cow<'_, [u8]>)> = std::mem::take(&mut self.pending)
            .into_iter()
            .map(|(e, t)| (e, Cow::Owned(t)))
            .collect();
        let mut later = Vec::new();
        for mut e in rec.events.iter().copied() {
            e.offset += rec.read_start;
            e.line += shift;
            let text: &[u8] = match e.text {
                Text::Recorded(from, to) => &rec.text[from..to],
                Text::Mapped(len) => match map {
                    Some(map) => &map.bytes_from(e.offset)[..len],
                    None => unreachable!("mapped lines come from a mapping"),
                },
            };
            if e.offset >= part_end {
                later.push((e, text.to_vec()));
            } else {
                events.push((e, Cow::Borrowed(text)));
            }
        }
        // In offset order; a line selected by its own part wins over the
        // same line shown as context by the part before.
        events.sort_by_key(|(e, _)| (e.offset, e.kind != Kind::Matched));
        let mut go_on = true;
        if self.config.lines_unneeded {
            for _ in 0..rec.count {
                if self.done || !self.select_counted(sink)? {
                    self.halted |= !self.done;
                    go_on = false;
                    break;
                }
            }
        }
        for (i, (e, text)) in events.iter().filter(|(e, _)| e.offset < part_end).enumerate() {
            if i % 4096 == 4095 && self.config.cancel.is_cancelled() {
                return Err(io::Error::from(io::ErrorKind::Interrupted));
            }
            if go_on && !self.event(e, text, sink)? {
                go_on = false;
            }
        }
        self.halted |= !go_on;
        // Events at or past the part's end were kept in `events` only when
        // pending from an earlier part and still beyond this one.
        later.extend(
            events
                .into_iter()
                .filter(|(e, _)| e.offset >= part_end)
                .map(|(e, t)| (e, t.into_owned())),
        );
        later.sort_by_key(|(e, _)| e.offset);
        later.dedup_by_key(|(e, _)| e.offset);
        self.pending = later;
        if self.summary.binary_offset.is_none() {
            self.summary.binary_offset = rec
                .summary
                .binary_offset
                .filter(|_| !rec.assumed_binary)
                .map(|o| o + rec.read_start);
        }
        // -I: the file stops at the read that met the NUL.
        if rec.summary.binary_offset.is_some() && self.config.binary == BinaryMode::SkipFile {
            self.halted = true;
            go_on = false;
        }
        match (first, last) {
            (Some(f), Some(l)) => self.newlines += l as i64 - f as i64,
            _ if self.config.line_numbers => go_on = false,
            _ => {}
        }
        // Once -m is reached, the lines recorded so far hold all the
        // trailing context.
        Ok(go_on && !self.done)
    }

    /// Counts a selected line (into the summary) and notes when it reaches `-m`.
    fn count_selected(&mut self) {
        self.summary.selected += 1;
        if self.config.max_count.is_some_and(|m| self.summary.selected >= m) {
            self.done = true;
        }
    }

    /// A selected line counted but not recorded (`-c`, `-l`, `-q`).
    fn select_counted<S: Sink>(&mut self, sink: &mut S) -> io::Result<bool> {
        self.count_selected();
        sink.matched(&[], LineInfo::default())
    }

    /// Replays one recorded line.
    fn event<S: Sink>(&mut self, e: &Event, text: &[u8], sink: &mut S) -> io::Result<bool> {
        if self.printed_end.is_some_and(|end| e.offset < end) {
            return Ok(true);
        }
        let info = LineInfo {
            offset: e.offset,
            line_number: self.config.line_numbers.then_some(e.line as u64),
        };
        if self.done {
            // After -m: the lines right after the last selected one.
            let binary = e.kind == Kind::Binary;
            if binary || self.after_left == 0 || self.printed_end != Some(e.offset) {
                return Ok(false);
            }
            self.after_left -= 1;
            self.printed_end = Some(e.offset + text.len() as u64);
            return sink.context(text, info, ContextKind::After);
        }
        if e.kind == Kind::Binary {
            self.count_selected();
            return sink.binary_matched(info);
        }
        let c = self.config;
        if c.group_breaks
            && self.printed_end.is_some_and(|end| e.offset > end)
            && !sink.context_break()?
        {
            return Ok(false);
        }
        self.printed_end = Some(e.offset + text.len() as u64);
        match e.kind {
            Kind::Matched => {
                self.count_selected();
                if self.done {
                    self.after_left = c.after_context;
                }
                sink.matched(text, info)
            }
            Kind::Context(kind) => sink.context(text, info, kind),
            Kind::Binary => unreachable!("handled above"),
        }
    }

    /// Replays what is still pending after the last part.
    pub(super) fn finish<S: Sink>(&mut self, sink: &mut S) -> io::Result<()> {
        if self.halted {
            return Ok(());
        }
        for (e, text) in std::mem::take(&mut self.pending) {
            if !self.event(&e, &text, sink)? {
                break;
            }
        }
        Ok(())
    }
}
