//! Decompression bombs: a decoded stream may grow far past what was read,
//! but not without bound. Past a floor, a stream that has grown more than
//! the ratio limit over its compressed input ends with an error naming it.

use std::cell::Cell;
use std::io::{self, Read};
use std::rc::Rc;

/// Counts the bytes read through it (the compressed side).
pub(crate) struct Counted<R> {
    inner: R,
    count: Rc<Cell<u64>>,
}

impl<R: Read> Counted<R> {
    /// Counts what is read from `inner`; the count is shared with a [`Guard`].
    pub(crate) fn new(inner: R) -> (Self, Rc<Cell<u64>>) {
        let count = Rc::new(Cell::new(0));
        (Counted { inner, count: count.clone() }, count)
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.set(self.count.get() + n as u64);
        Ok(n)
    }
}

/// Bounds on how far a decoded stream may grow over its input.
#[derive(Clone, Copy, Debug)]
pub struct BombLimits {
    /// Decoded bytes that are always allowed, whatever the ratio.
    pub floor: u64,
    /// Past the floor: the most decoded bytes per compressed byte.
    pub max_ratio: u64,
}

impl Default for BombLimits {
    /// 64 MiB, then 1000:1 (real text compresses less than 20:1; the
    /// corpus's 64 MiB of repeated lines, 320:1, is searched).
    fn default() -> Self {
        BombLimits { floor: 64 << 20, max_ratio: 1000 }
    }
}

/// The decoded side: fails once the stream grows past the limits.
pub(crate) struct Guard<R> {
    inner: R,
    input: Rc<Cell<u64>>,
    output: u64,
    limits: BombLimits,
}

impl<R: Read> Guard<R> {
    pub(crate) fn new(inner: R, input: Rc<Cell<u64>>, limits: BombLimits) -> Self {
        Guard { inner, input, output: 0, limits }
    }
}

impl<R: Read> Read for Guard<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.output += n as u64;
        let input = self.input.get().max(1);
        if self.output > self.limits.floor && self.output / input > self.limits.max_ratio {
            return Err(io::Error::other(format!(
                "decompressed {} MiB from {} KiB, more than {}:1; not searched further (a decompression bomb?)",
                self.output >> 20,
                input >> 10,
                self.limits.max_ratio
            )));
        }
        Ok(n)
    }
}
