//! A sorted walk's output, between the printer and the walk: what a
//! thread's [`Capture`] holds after a visit is handed to the walk as tagged
//! pieces ([`hand_over`]), and the walk's pieces, in walk order, go to the
//! printer's [`Output`] with their [`Chunk`] kinds ([`write`]).

use std::io;

use trawl_printer::{Capture, Chunk, Output};
use trawl_walk::{Piece, Pieces};

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
