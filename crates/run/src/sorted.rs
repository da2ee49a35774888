//! A sorted walk's output, between the printer and the walk: each thread's
//! printer writes into an [`InTurn`], which captures what it prints for
//! the walk in a [`Capture`] (handed over as tagged pieces, [`hand_over`];
//! `trawl find` captures the same way) or, while the
//! walk gives the thread's item the turn (every entry before it written),
//! writes it at once to the run's output, so that a file printing
//! megabytes streams as in an unsorted run instead of being held; the
//! walk's pieces, in walk order, go to the run's [`Output`] with their
//! [`Chunk`] kinds ([`write`]).

use std::io;

use trawl_printer::{Capture, Chunk, Output};
use trawl_walk::{Piece, Pieces, Turn};

/// One thread's output in a sorted walk (see the module's documentation).
pub struct InTurn<'a> {
    capture: Capture,
    /// Given by the walk while the thread's item may write.
    turn: Turn,
    /// The run's output.
    out: &'a dyn Output,
}

impl<'a> InTurn<'a> {
    /// Output for one thread of a sorted walk writing to `out`.
    pub fn new(out: &'a dyn Output) -> InTurn<'a> {
        InTurn { capture: Capture::default(), turn: Turn::new(), out }
    }

    /// What it captured for the walk.
    pub fn capture(&self) -> &Capture {
        &self.capture
    }

    /// The turn the walk gives (see [`trawl_walk::Visitor::turn`]).
    pub fn turn(&self) -> Turn {
        self.turn.clone()
    }

    /// Writes what was captured, in order, to the run's output.
    fn write_captured(&self) -> io::Result<()> {
        let mut result = Ok(());
        self.capture.take_into(|bytes, ends| {
            let mut start = 0;
            let pieces: Vec<(Chunk, &[u8])> = ends
                .iter()
                .map(|&(end, chunk)| {
                    let piece = (chunk, &bytes[start..end]);
                    start = end;
                    piece
                })
                .collect();
            result = self.out.write_in_order(&pieces);
        });
        result
    }
}

impl Output for InTurn<'_> {
    fn write(&self, bytes: &[u8], chunk: Chunk) -> io::Result<()> {
        if !self.turn.is_mine() {
            return self.capture.write(bytes, chunk);
        }
        self.write_captured()?;
        // In order with what the walk writes: small pieces gathered.
        self.out.write_in_order(&[(chunk, bytes)])
    }

    fn broken_pipe(&self) -> bool {
        self.out.broken_pipe()
    }
}

/// Moves what `capture` holds into the walk's `out`.
pub fn hand_over(capture: &Capture, out: &mut Pieces) {
    capture.take_into(|bytes, ends| {
        out.append(bytes, ends.iter().map(|&(end, chunk)| (end, chunk.tag())));
    });
}

/// Writes the walk's `pieces` to `out`, in order.
pub fn write(out: &dyn Output, pieces: &[Piece<'_>]) -> io::Result<()> {
    let pieces: Vec<(Chunk, &[u8])> =
        pieces.iter().map(|p| (Chunk::from_tag(p.tag), p.bytes)).collect();
    out.write_in_order(&pieces)
}
