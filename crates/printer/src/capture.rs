//! What one thread of a sorted walk prints for the entry it visits, held
//! until the walk takes it to write it in walk order: pieces, each with
//! its [`Chunk`] kind (a file's output whole, so that what goes between
//! files is decided when it is written, as for unsorted output).

use std::io;
use std::sync::Mutex;

use crate::output::{Chunk, Output};

/// A printer's output for one visit (see the module's documentation).
#[derive(Default)]
pub struct Capture(Mutex<Captured>);

#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    /// Where each piece ends in `bytes`, and its kind (never
    /// [`Chunk::Continued`]: that joins the piece before it).
    ends: Vec<(usize, Chunk)>,
}

impl Capture {
    /// Hands over what was captured: `take` gets the bytes and where each
    /// piece ends in them, with its kind, and leaves the bytes empty (it
    /// may move them out); the capture is then empty.
    pub fn take_into(&self, take: impl FnOnce(&mut Vec<u8>, &[(usize, Chunk)])) {
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if held.ends.is_empty() {
            return;
        }
        let Captured { bytes, ends } = &mut *held;
        take(bytes, ends);
        bytes.clear();
        ends.clear();
    }

    fn append(&self, bytes: &[u8], chunk: Chunk) {
        if !chunk.is_output(bytes) {
            return;
        }
        let mut held = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let held = &mut *held;
        held.bytes.extend_from_slice(bytes);
        let end = held.bytes.len();
        match (chunk, held.ends.last_mut()) {
            (Chunk::Continued, Some(last)) => last.0 = end,
            // More of a piece this capture never saw: output of no group.
            (Chunk::Continued, None) => held.ends.push((end, Chunk::Other)),
            (kind, _) => held.ends.push((end, kind)),
        }
    }
}

impl Output for Capture {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        self.append(bytes, chunk);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(c: &Capture) -> Vec<(Chunk, Vec<u8>)> {
        let mut got = Vec::new();
        c.take_into(|bytes, ends| {
            let mut start = 0;
            for &(end, kind) in ends {
                got.push((kind, bytes[start..end].to_vec()));
                start = end;
            }
        });
        got
    }

    #[test]
    fn each_file_of_a_visit_is_a_piece_of_its_kind() {
        let c = Capture::default();
        // An archive's members: a notice, lines written as they grew, an
        // empty group, and empty output that is none.
        c.write(b"trawl: a{x}: binary file matches\n", Chunk::Notice).unwrap();
        c.write(b"a{y}:1\n", Chunk::Lines).unwrap();
        c.write(b"a{y}:2\n", Chunk::Continued).unwrap();
        c.write(b"", Chunk::Lines).unwrap();
        c.write(b"", Chunk::EmptyGroup).unwrap();
        c.write(b"3\n", Chunk::Other).unwrap();
        let want = vec![
            (Chunk::Notice, b"trawl: a{x}: binary file matches\n".to_vec()),
            (Chunk::Lines, b"a{y}:1\na{y}:2\n".to_vec()),
            (Chunk::EmptyGroup, Vec::new()),
            (Chunk::Other, b"3\n".to_vec()),
        ];
        assert_eq!(taken(&c), want);
        assert_eq!(taken(&c), Vec::new());
    }

    #[test]
    fn more_of_an_unseen_piece_separates_nothing() {
        let c = Capture::default();
        c.write(b"rest\n", Chunk::Continued).unwrap();
        assert_eq!(taken(&c), vec![(Chunk::Other, b"rest\n".to_vec())]);
    }
}
