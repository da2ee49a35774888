//! A zip inside another archive must be read from its end (the central
//! directory): its bytes are held in memory when small, else in an
//! anonymous temporary file (never inside the searched tree).

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

/// A seekable copy of a stream.
pub(crate) enum Spooled {
    Memory(Cursor<Vec<u8>>),
    File(File),
}

impl Spooled {
    /// Copies `r` to its end: into memory up to `in_memory` bytes, else into
    /// a temporary file, which the system deletes once it is closed.
    pub(crate) fn copy(mut r: impl Read, in_memory: usize) -> io::Result<Spooled> {
        let mut data = Vec::new();
        r.by_ref().take(in_memory as u64 + 1).read_to_end(&mut data)?;
        if data.len() <= in_memory {
            return Ok(Spooled::Memory(Cursor::new(data)));
        }
        let mut file = tempfile::tempfile()?;
        file.write_all(&data)?;
        drop(data);
        io::copy(&mut r, &mut file)?;
        file.seek(SeekFrom::Start(0))?;
        Ok(Spooled::File(file))
    }
}

impl Read for Spooled {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Spooled::Memory(c) => c.read(buf),
            Spooled::File(f) => f.read(buf),
        }
    }
}

impl Seek for Spooled {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Spooled::Memory(c) => c.seek(pos),
            Spooled::File(f) => f.seek(pos),
        }
    }
}
