//! `--multiline`: matches may span lines. The whole text is read first (as
//! ripgrep does), every match found in it, and the lines each one touches
//! make one record: the sink gets a record as one selected "line" holding
//! its lines (the printer gives each its own prefix), context lines around
//! records as usual. With `-v`, the lines no match touches are selected,
//! one by one; `-m` counts records.

use std::io::{self, Read};

use memchr::{memchr, memrchr};
use trawl_matcher::Matcher;

use crate::encoding::{decoded, has_bom, peek, Encoding};
use crate::{BinaryMode, ContextKind, LineInfo, SearchError, SearchSummary, SearcherConfig, Sink};

/// Reads all of `reader`, decoded as the configuration says.
pub(crate) fn read_all<R: Read>(config: &SearcherConfig, reader: R) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    match config.encoding {
        Encoding::Raw => {
            let mut reader = reader;
            reader.read_to_end(&mut data)?;
        }
        Encoding::Forced(e) => {
            decoded(reader, Some(e)).read_to_end(&mut data)?;
        }
        Encoding::Sniff => {
            let (start, rest) = peek(reader)?;
            let bom = has_bom(&start);
            let mut whole = io::Cursor::new(start).chain(rest);
            match bom {
                true => decoded(whole, None).read_to_end(&mut data)?,
                false => whole.read_to_end(&mut data)?,
            };
        }
    }
    Ok(data)
}

/// The start of the line holding `at`.
fn line_start(data: &[u8], at: usize, term: u8) -> usize {
    memrchr(term, &data[..at]).map_or(0, |i| i + 1)
}

/// The end (after its terminator) of the line holding `at`.
fn line_end(data: &[u8], at: usize, term: u8) -> usize {
    memchr(term, &data[at..]).map_or(data.len(), |i| at + i + 1)
}

/// The records of `data`: the lines each match touches, merged where they
/// share a line; at most `max` of them.
fn records<M: Matcher>(
    matcher: &M,
    data: &[u8],
    term: u8,
    max: Option<u64>,
) -> Result<Vec<(usize, usize)>, SearchError> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at <= data.len() {
        let Some(m) = matcher.find_at(data, at).map_err(SearchError::Match)? else { break };
        let start = line_start(data, m.start, term);
        if start == data.len() && !data.is_empty() {
            // An empty match after the last line's terminator: no line.
            break;
        }
        let end = match m.end > m.start && data[m.end - 1] == term {
            true => m.end,
            false => line_end(data, m.end, term),
        };
        match out.last_mut() {
            Some(last) if start < last.1 => last.1 = last.1.max(end),
            _ => {
                if max.is_some_and(|mx| out.len() as u64 >= mx) {
                    break;
                }
                out.push((start, end));
            }
        }
        at = if m.end > m.start { m.end } else { m.end + 1 };
    }
    Ok(out)
}

/// Line numbers, counted forward as offsets grow.
struct Numbers<'d> {
    data: &'d [u8],
    term: u8,
    at: usize,
    number: u64,
    on: bool,
}

impl Numbers<'_> {
    fn info(&mut self, offset: usize) -> LineInfo {
        if self.on {
            self.number += crate::count_terminators(&self.data[self.at..offset], self.term);
            self.at = offset;
        }
        LineInfo { offset: offset as u64, line_number: self.on.then_some(self.number) }
    }
}

/// Searches `data` with matches spanning lines.
pub(crate) fn search<M: Matcher, S: Sink>(
    config: &SearcherConfig,
    matcher: &M,
    data: &[u8],
    sink: &mut S,
) -> Result<SearchSummary, SearchError> {
    let term = config.terminator.byte();
    let mut summary = SearchSummary { bytes: data.len() as u64, ..SearchSummary::default() };
    if config.max_count == Some(0) {
        return Ok(summary);
    }
    let mut numbers = Numbers { data, term, at: 0, number: 1, on: config.line_numbers };
    // A NUL makes the text binary (as a whole: a match may span it).
    if config.binary != BinaryMode::Text {
        if let Some(nul) = memchr(0, data) {
            summary.binary_offset = Some(nul as u64);
            if config.binary == BinaryMode::SkipFile {
                return Ok(summary);
            }
            let found = records(matcher, data, term, Some(1))?;
            let selected = match config.invert {
                false => found.first().map(|r| r.0),
                true => Some(0).filter(|_| found.first() != Some(&(0, data.len()))),
            };
            if let Some(at) = selected {
                summary.selected = 1;
                sink.binary_matched(numbers.info(at)).map_err(SearchError::Io)?;
            }
            return Ok(summary);
        }
    }
    let matched =
        records(matcher, data, term, if config.invert { None } else { config.max_count })?;
    // -v: the lines no record covers, each a record of its own.
    let selected: Vec<(usize, usize)> = match config.invert {
        false => matched,
        true => {
            let mut out = Vec::new();
            let mut at = 0;
            let mut covered = matched.iter().peekable();
            while at < data.len() {
                if let Some(&&(s, e)) = covered.peek() {
                    if at >= s {
                        at = e;
                        covered.next();
                        continue;
                    }
                }
                let end = line_end(data, at, term);
                if config.max_count.is_some_and(|mx| out.len() as u64 >= mx) {
                    break;
                }
                out.push((at, end));
                at = end;
            }
            out
        }
    };
    let io = SearchError::Io;
    let mut printed_end = 0;
    let mut any = false;
    let mut after_left = if config.passthru { usize::MAX } else { 0 };
    let line = |at: usize| (at, line_end(data, at, term));
    for &(start, end) in &selected {
        while after_left > 0 && printed_end < start {
            let (s, e) = line(printed_end);
            if !sink.context(&data[s..e], numbers.info(s), ContextKind::After).map_err(io)? {
                return Ok(summary);
            }
            after_left -= 1;
            printed_end = e;
        }
        let mut from = start;
        for _ in 0..config.before_context {
            if from <= printed_end {
                break;
            }
            from = line_start(data, from - 1, term);
        }
        let from = from.max(printed_end);
        if any && config.group_breaks && from > printed_end && !sink.context_break().map_err(io)? {
            return Ok(summary);
        }
        let mut at = from;
        while at < start {
            let (s, e) = line(at);
            if !sink.context(&data[s..e], numbers.info(s), ContextKind::Before).map_err(io)? {
                return Ok(summary);
            }
            at = e;
        }
        summary.selected += 1;
        any = true;
        if !sink.matched(&data[start..end], numbers.info(start)).map_err(io)? {
            return Ok(summary);
        }
        printed_end = end;
        after_left = if config.passthru { usize::MAX } else { config.after_context };
        if config.max_count.is_some_and(|mx| summary.selected >= mx) {
            summary.stopped_at = Some(end as u64);
            after_left = after_left.min(config.after_context);
            break;
        }
    }
    while after_left > 0 && printed_end < data.len() {
        let (s, e) = line(printed_end);
        if !sink.context(&data[s..e], numbers.info(s), ContextKind::After).map_err(io)? {
            break;
        }
        after_left -= 1;
        printed_end = e;
    }
    Ok(summary)
}
