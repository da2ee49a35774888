//! Reading one shard's stream, on a thread of its own (a FIFO's writer is
//! never kept waiting on another stream): records parsed as they come (a
//! line is never held past [`MAX_RECORD`]: a shard writes its output in
//! records of at most [`crate::RECORD_BYTES`]), each root's chunks queued
//! for the merge — in memory up to a budget all streams share, then in the
//! stream's own unnamed temporary file — and messages said at once.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use trawl_printer::Chunk;

use crate::key::RootKey;
use crate::record::{self, Extraction, Format, In, Indexed, Totals};

/// The longest line read as a record: a chunk's bytes as JSON (at most
/// six bytes of JSON a byte of output, for control characters), or a
/// message. A longer line is not a record of this protocol, and is not
/// held to find out.
pub(crate) const MAX_RECORD: usize = 8 * crate::RECORD_BYTES;

/// Chunk bytes all streams hold in memory, at most; more is spilled.
#[cfg(not(test))]
const MEMORY: usize = 64 << 20;
/// In tests, small: most chunks are spilled.
#[cfg(test)]
const MEMORY: usize = 16;

/// Where a chunk's bytes are.
pub(crate) enum Data {
    Held(Vec<u8>),
    Spilled { at: u64, len: usize },
}

/// A chunk, queued.
pub(crate) struct Piece {
    pub(crate) kind: Chunk,
    pub(crate) data: Data,
}

impl Piece {
    /// How many bytes of output it holds.
    pub(crate) fn len(&self) -> usize {
        match &self.data {
            Data::Held(b) => b.len(),
            Data::Spilled { len, .. } => *len,
        }
    }
}

/// A root's output, as far as read.
pub(crate) struct Unit {
    pub(crate) key: RootKey,
    pub(crate) pieces: VecDeque<Piece>,
    /// Every chunk of it was read (the next root began, or the stream ended).
    pub(crate) closed: bool,
}

/// Whether the merge uses a stream.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Role {
    Undecided,
    /// The copy of its shard that is merged.
    Chosen,
    /// Another copy of a shard (a task that ran twice): read and dropped.
    Dropped,
}

/// How reading a stream ended.
#[derive(Clone, Debug, Eq, PartialEq)]
pub(crate) enum Finish {
    /// After its `shard_end`.
    Complete,
    /// Without a `shard_end` (a shard killed mid-way).
    Truncated,
    /// A line that is not a record.
    Damaged { line: u64, why: String },
    /// It could not be read.
    Unreadable(String),
}

/// What the end record said.
#[derive(Clone, Copy, Debug)]
pub(crate) struct End {
    pub(crate) status: u8,
    pub(crate) stats: Totals,
    pub(crate) extraction: Extraction,
    pub(crate) index: Option<Indexed>,
}

/// One stream, as read so far.
pub(crate) struct Stream {
    /// How the stream was named (its path).
    pub(crate) label: String,
    /// The shard's name, from its first record.
    pub(crate) shard: Option<String>,
    /// How its output joins the others'.
    pub(crate) format: Option<Format>,
    pub(crate) role: Role,
    pub(crate) units: VecDeque<Unit>,
    pub(crate) refused: Option<String>,
    pub(crate) end: Option<End>,
    pub(crate) finish: Option<Finish>,
    /// Where chunks past the memory budget went.
    pub(crate) spill: Option<Arc<File>>,
    /// Known complete before reading (a regular file ending with a
    /// `shard_end`).
    pub(crate) known_complete: bool,
}

impl Stream {
    pub(crate) fn new(label: String) -> Stream {
        Stream {
            label,
            shard: None,
            format: None,
            role: Role::Undecided,
            units: VecDeque::new(),
            refused: None,
            end: None,
            finish: None,
            spill: None,
            known_complete: false,
        }
    }

    /// The name the shard is reported by.
    pub(crate) fn name(&self) -> &str {
        self.shard.as_deref().unwrap_or(&self.label)
    }
}

/// What the readers and the merge share.
pub(crate) struct Shared {
    streams: Mutex<Vec<Stream>>,
    /// Signalled when a stream changes, and when roles are decided.
    pub(crate) changed: Condvar,
    /// Chunk bytes held in memory.
    held: AtomicUsize,
}

impl Shared {
    pub(crate) fn new(streams: Vec<Stream>) -> Shared {
        Shared { streams: Mutex::new(streams), changed: Condvar::new(), held: AtomicUsize::new(0) }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Vec<Stream>> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn wait<'a>(&self, g: MutexGuard<'a, Vec<Stream>>) -> MutexGuard<'a, Vec<Stream>> {
        self.changed.wait(g).unwrap_or_else(|p| p.into_inner())
    }

    /// The bytes of `piece` (read back when spilled), no longer held.
    pub(crate) fn bytes(&self, piece: Piece, spill: Option<&File>) -> io::Result<Vec<u8>> {
        match piece.data {
            Data::Held(b) => {
                self.held.fetch_sub(b.len(), Ordering::Relaxed);
                Ok(b)
            }
            Data::Spilled { at, len } => {
                let mut b = vec![0; len];
                let file = spill.ok_or_else(|| io::Error::other("spilled chunk without a file"))?;
                file.read_exact_at(&mut b, at)?;
                Ok(b)
            }
        }
    }
}

/// Whether `file`, a regular file, ends with a `shard_end` record.
pub(crate) fn ends_complete(file: &File) -> bool {
    let Ok(md) = file.metadata() else { return false };
    if !md.is_file() || md.len() == 0 {
        return false;
    }
    let tail_len = md.len().min(64 * 1024);
    let mut tail = vec![0; tail_len as usize];
    if file.read_exact_at(&mut tail, md.len() - tail_len).is_err() || tail.last() != Some(&b'\n') {
        return false;
    }
    let body = &tail[..tail.len() - 1];
    let last = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => &body[i + 1..],
        None if tail_len == md.len() => body,
        None => return false,
    };
    matches!(record::read(last), Ok(In::ShardEnd { .. }))
}

/// Reads stream number `i` from `input` to its end; `say` writes a
/// message of a chosen stream at once.
pub(crate) fn read(shared: &Shared, i: usize, input: File, say: &(dyn Fn(&[u8]) + Sync)) {
    let mut reader = BufReader::with_capacity(256 << 10, input);
    let mut line = Vec::new();
    let mut number = 0;
    let mut spilled = 0;
    // Once Some, the stream is only drained (a writer must not block).
    let mut stop: Option<Finish> = None;
    loop {
        let read = read_line(&mut reader, &mut line, MAX_RECORD);
        if !matches!(read, Ok(Line::End) | Err(_)) {
            number += 1;
        }
        match read {
            Ok(Line::End) => break,
            Err(e) => {
                stop.get_or_insert(Finish::Unreadable(e.to_string()));
                break;
            }
            // Drained, or a last line cut short: the shard ended mid-record.
            Ok(_) if stop.is_some() => continue,
            Ok(Line::Cut) => continue,
            Ok(Line::TooLong) => {
                let why = format!("a line longer than {} MiB", MAX_RECORD >> 20);
                stop = Some(Finish::Damaged { line: number, why });
                continue;
            }
            Ok(Line::Whole) => {}
        }
        let record = match record::read(&line) {
            Ok(r) => r,
            Err(e) => {
                stop = Some(Finish::Damaged { line: number, why: e.to_string() });
                continue;
            }
        };
        if let Some(finish) = take_record(shared, i, record, say, &mut spilled, number) {
            stop = Some(finish);
        }
    }
    let mut st = shared.lock();
    let s = &mut st[i];
    if let Some(u) = s.units.back_mut() {
        u.closed = true;
    }
    let finish = match (stop, &s.end) {
        (Some(Finish::Complete), _) | (None, Some(_)) => Finish::Complete,
        (Some(f), _) => f,
        (None, None) => Finish::Truncated,
    };
    s.finish = Some(finish);
    shared.changed.notify_all();
}

/// How reading a line ended.
#[derive(Debug, Eq, PartialEq)]
enum Line {
    /// At the end of the stream, nothing read.
    End,
    /// A line, with its newline.
    Whole,
    /// The stream's last bytes, without a newline.
    Cut,
    /// A line longer than the limit: skipped (not held), to its newline.
    TooLong,
}

/// Reads the next line of `reader` into `line` (emptied first), holding at
/// most `max` bytes of it.
fn read_line(reader: &mut impl BufRead, line: &mut Vec<u8>, max: usize) -> io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Cut,
            });
        }
        let (take, ends) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        too_long |= line.len() + take > max;
        if too_long {
            line.clear();
        } else {
            line.extend_from_slice(&buf[..take]);
        }
        reader.consume(take);
        if ends {
            return Ok(if too_long { Line::TooLong } else { Line::Whole });
        }
    }
}

/// Takes one record of stream `i`; Some when the stream is to be drained
/// from now on (dropped, or damaged).
fn take_record(
    shared: &Shared,
    i: usize,
    record: In,
    say: &(dyn Fn(&[u8]) + Sync),
    spilled: &mut u64,
    number: u64,
) -> Option<Finish> {
    let damaged = |why: &str| Some(Finish::Damaged { line: number, why: why.to_string() });
    if let In::Chunk { kind, bytes } = record {
        let len = bytes.0.len();
        let data = if shared.held.load(Ordering::Relaxed) + len > MEMORY {
            let file = match spill_file(shared, i) {
                Ok(f) => f,
                Err(e) => return Some(Finish::Unreadable(format!("spilling: {e}"))),
            };
            if let Err(e) = file.write_all_at(&bytes.0, *spilled) {
                return Some(Finish::Unreadable(format!("spilling: {e}")));
            }
            let at = *spilled;
            *spilled += len as u64;
            Data::Spilled { at, len }
        } else {
            shared.held.fetch_add(len, Ordering::Relaxed);
            Data::Held(bytes.0)
        };
        let mut st = shared.lock();
        let Some(unit) = st[i].units.back_mut() else {
            if let Data::Held(b) = data {
                shared.held.fetch_sub(b.len(), Ordering::Relaxed);
            }
            return damaged("a chunk before any root");
        };
        unit.pieces.push_back(Piece { kind: kind.into(), data });
        shared.changed.notify_all();
        return None;
    }
    let mut st = shared.lock();
    if st[i].shard.is_none() && !matches!(record, In::ShardBegin { .. }) {
        return damaged("the first record is not shard_begin");
    }
    match record {
        In::ShardBegin { shard, .. } => {
            st[i].shard = Some(shard);
            shared.changed.notify_all();
            while st[i].role == Role::Undecided {
                st = shared.wait(st);
            }
            if st[i].role == Role::Dropped {
                return Some(Finish::Complete);
            }
        }
        In::Output(format) => st[i].format = Some(format),
        In::Root { operand, display } => {
            let s = &mut st[i];
            if let Some(u) = s.units.back_mut() {
                u.closed = true;
            }
            let key = RootKey::new(operand, &display.0);
            s.units.push_back(Unit { key, pieces: VecDeque::new(), closed: false });
            shared.changed.notify_all();
        }
        In::Error { mut message } => {
            drop(st);
            message.0.push(b'\n');
            say(&message.0);
        }
        In::Refused { reason } => st[i].refused = Some(reason),
        In::ShardEnd { status, stats, extraction, index } => {
            st[i].end = Some(End { status, stats, extraction, index });
            shared.changed.notify_all();
        }
        In::Chunk { .. } => unreachable!("taken above"),
    }
    None
}

/// Stream `i`'s spill file, made when first needed.
fn spill_file(shared: &Shared, i: usize) -> io::Result<Arc<File>> {
    let mut st = shared.lock();
    if let Some(f) = &st[i].spill {
        return Ok(f.clone());
    }
    let f = Arc::new(tempfile::tempfile()?);
    st[i].spill = Some(f.clone());
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_past_the_limit_is_skipped_whole_without_being_held() {
        let input = b"short\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nnext\ncut";
        // A reader's buffer smaller than the long line: it comes in parts.
        let mut reader = BufReader::with_capacity(8, &input[..]);
        let mut line = Vec::new();
        let mut got = Vec::new();
        loop {
            let read = read_line(&mut reader, &mut line, 16).unwrap();
            assert!(line.capacity() <= 32, "held {} bytes", line.capacity());
            got.push((read, String::from_utf8(line.clone()).unwrap()));
            if got.last().unwrap().0 == Line::End {
                break;
            }
        }
        let want = [
            (Line::Whole, "short\n"),
            (Line::TooLong, ""),
            (Line::Whole, "next\n"),
            (Line::Cut, "cut"),
            (Line::End, ""),
        ];
        assert_eq!(got, want.map(|(l, s)| (l, s.to_string())));
    }
}
