//! The pages of a document's text: pdftotext starts each page after the
//! first with a form feed. A reader records where the form feeds pass, and
//! the printer names a line's page from its offset.

use std::cell::RefCell;
use std::io::{self, Read};

/// The offsets of the form feeds read so far.
#[derive(Debug, Default)]
pub struct PageBreaks {
    offsets: RefCell<Vec<u64>>,
}

impl PageBreaks {
    /// No page break read yet.
    pub fn new() -> PageBreaks {
        PageBreaks::default()
    }

    /// The page (from 1) of `line`, which starts at `offset`: one more than
    /// the form feeds before its text (those it starts with included, for
    /// pages left empty).
    pub fn page_of(&self, offset: u64, line: &[u8]) -> u64 {
        let leading = line.iter().take_while(|&&b| b == b'\x0c').count() as u64;
        let limit = offset + leading.max(1);
        1 + self.offsets.borrow().partition_point(|&o| o < limit) as u64
    }
}

/// Reads through `inner`, recording each form feed in `breaks`; the line
/// offsets the searcher reports count from this reader's start.
pub struct PageReader<'a, R> {
    inner: R,
    breaks: &'a PageBreaks,
    at: u64,
}

impl<'a, R: Read> PageReader<'a, R> {
    /// Records the pages of `inner` into `breaks`.
    pub fn new(inner: R, breaks: &'a PageBreaks) -> Self {
        PageReader { inner, breaks, at: 0 }
    }
}

impl<R: Read> Read for PageReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut offsets = self.breaks.offsets.borrow_mut();
        offsets.extend(memchr::memchr_iter(b'\x0c', &buf[..n]).map(|i| self.at + i as u64));
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::{PageBreaks, PageReader};
    use std::io::Read;

    #[test]
    fn a_line_is_on_the_page_its_text_is_on() {
        let text = b"one\ntwo\n\x0cthree\nfour\n\x0c\x0csix\n";
        let breaks = PageBreaks::new();
        let mut all = Vec::new();
        PageReader::new(&text[..], &breaks).read_to_end(&mut all).unwrap();
        let page = |line: &[u8]| {
            let at = memchr::memmem::find(text, line).unwrap() as u64;
            breaks.page_of(at, line)
        };
        assert_eq!(page(b"one\n"), 1);
        assert_eq!(page(b"two\n"), 1);
        assert_eq!(page(b"\x0cthree\n"), 2);
        assert_eq!(page(b"four\n"), 2);
        assert_eq!(page(b"\x0c\x0csix\n"), 4);
    }
}
