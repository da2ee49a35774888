//! What a part selects, recorded rather than printed: the [`Recorder`] is
//! the sink a part is searched into, and its [`Recorded`] events (offsets,
//! line numbers relative to the part, the text only when printed) wait to
//! be replayed in file order.

use std::io;

use crate::sink::{ContextKind, LineInfo, SearchSummary, Sink};

/// A line at least this long, read from the mapped file, is recorded by its
/// place in the mapping rather than copied (a 100 MB line was held three
/// times: mapped, recorded, copied for the replay).
/// (Tests record short lines so too.)
const MAPPED_LINE_MIN: usize = if cfg!(test) { 8 } else { 1 << 20 };

/// What a part selected, to be replayed in order.
#[derive(Default)]
pub(super) struct Recorded {
    /// Selected and context lines, in file order.
    pub(super) events: Vec<Event>,
    /// Their text.
    pub(super) text: Vec<u8>,
    /// Lines selected (the only record kept when lines are not printed).
    pub(super) count: u64,
    pub(super) summary: SearchSummary,
    /// File offset where reading started (offsets in events are relative).
    pub(super) read_start: u64,
    /// Searched knowing the file was binary before this part.
    pub(super) assumed_binary: bool,
}

/// What a recorded line is.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(super) enum Kind {
    Matched,
    Context(ContextKind),
    Binary,
}

/// One recorded line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Event {
    pub(super) kind: Kind,
    /// Offset of the line in the file (after replay converts it).
    pub(super) offset: u64,
    /// Line number: relative to the part when recorded, absolute after.
    pub(super) line: i64,
    pub(super) text: Text,
}

/// Where a recorded line's text is.
#[derive(Clone, Copy, Debug)]
pub(super) enum Text {
    /// In the record's `text`, from and to.
    Recorded(usize, usize),
    /// This many bytes at the event's offset in the mapped file.
    Mapped(usize),
}

/// The sink of a part: records instead of printing.
pub(super) struct Recorder<'m> {
    /// Whether lines are printed (otherwise only the count is kept).
    pub(super) text: bool,
    pub(super) record: Recorded,
    /// The bytes of the mapped file, when the part is searched in them.
    pub(super) mapped: Option<&'m [u8]>,
}

impl Recorder<'_> {
    /// Out of line, so that the sink's calls (inlined into the search
    /// loop) stay a counter and a test when lines are not printed (`-c`,
    /// `-l`): with it inlined into them, the compiler saved every register
    /// before that test, 15 instructions a selected line.
    #[inline(never)]
    fn push(&mut self, kind: Kind, line: &[u8], info: LineInfo) {
        let r = &mut self.record;
        let in_mapping = self.mapped.is_some_and(|m| {
            let range = m.as_ptr_range();
            range.contains(&line.as_ptr()) && line.as_ptr_range().end <= range.end
        });
        let text = if line.len() >= MAPPED_LINE_MIN && in_mapping {
            Text::Mapped(line.len())
        } else {
            let at = r.text.len();
            r.text.extend_from_slice(line);
            Text::Recorded(at, r.text.len())
        };
        r.events.push(Event {
            kind,
            offset: info.offset,
            line: info.line_number.unwrap_or(0) as i64,
            text,
        });
    }
}

impl Sink for Recorder<'_> {
    #[inline]
    fn matched(&mut self, line: &[u8], info: LineInfo) -> io::Result<bool> {
        self.record.count += 1;
        if self.text {
            self.push(Kind::Matched, line, info);
        }
        Ok(true)
    }

    #[inline]
    fn context(&mut self, line: &[u8], info: LineInfo, kind: ContextKind) -> io::Result<bool> {
        if self.text {
            self.push(Kind::Context(kind), line, info);
        }
        Ok(true)
    }

    #[inline]
    fn binary_matched(&mut self, info: LineInfo) -> io::Result<bool> {
        self.record.count += 1;
        if self.text {
            self.push(Kind::Binary, &[], info);
        }
        Ok(true)
    }
}
