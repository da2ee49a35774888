//! A PDF under OCR: its text layer from `pdftotext` as always, and each
//! page whose layer is empty or nearly so (fewer than [`NEAR_EMPTY`]
//! letters and digits: a scan, perhaps with a stamped page number)
//! rendered by `pdftoppm` and recognised by `tesseract`, one page at a
//! time per job.
//!
//! The pages of one document are shared among up to `--extract-jobs`
//! workers (a 200-page scan uses every core), each holding one page: its
//! size checked first (`pdfinfo`, once per document), then rendered into
//! an anonymous temporary file (never a whole document rasterised), then
//! recognised with that file as Tesseract's standard input. Each child
//! goes through the pool (its slots, limits and reaping). The searcher
//! reads the pages in order as they are done: text pages at once, OCR'd
//! pages when their worker hands them over.
//!
//! A page that cannot be recognised (too large, a tool's failure) keeps
//! its text layer; the document's failure names each such page, once.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use super::Ocr;
use crate::external::{Outcome, Subject};
use crate::spool::Spooled;
use crate::{Extractor, Flow};

/// A page whose text layer has fewer letters and digits than this is
/// recognised.
pub(crate) const NEAR_EMPTY: usize = 16;

/// The text layer is held in memory up to this size, else in a temporary
/// file, until the pages to recognise are known.
const LAYER_IN_MEMORY: usize = 16 << 20;

/// At most this much of a program's small output (pdfinfo's, a page's
/// text) is kept.
const SMALL_OUTPUT: u64 = 16 << 20;

/// How many failed pages a document's message names.
const NAMED_FAILURES: usize = 5;

/// A page of the text layer: where it is in the layer (without its form
/// feed), and how many letters and digits it holds.
#[derive(Clone, Copy, Debug)]
struct LayerPage {
    start: u64,
    end: u64,
    alphanumerics: usize,
}

/// What became of a page given to a worker.
enum Recognised {
    /// Its text.
    Text(Vec<u8>),
    /// Why it was not recognised (its number first).
    Failed(String),
    /// The run was cancelled.
    Interrupted,
}

impl Extractor {
    /// Reads the PDF of `subject`: the text layer, with the pages that
    /// have none recognised (see the module's documentation).
    pub(super) fn ocr_pdf(
        &self,
        ocr: &Ocr,
        subject: Subject<'_>,
        text: &mut dyn FnMut(&mut dyn Read) -> Flow,
    ) -> io::Result<Outcome> {
        let Subject { file, name, .. } = subject;
        let layer_input = Subject { file: file.try_clone()?, path: None, name };
        let mut layer: Option<io::Result<Spooled>> = None;
        let ran = self.runner.run(&self.builtins.pdf, layer_input, &mut |r| {
            layer = Some(Spooled::copy(r, LAYER_IN_MEMORY));
            Flow::Continue
        });
        let mut layer = match (ran, layer) {
            (Ok(Outcome::Ran(_)), Some(Ok(layer))) => layer,
            (Ok(Outcome::Ran(_)), Some(Err(e))) => return Err(e),
            (Ok(Outcome::Ran(_)), None) => Spooled::Memory(io::Cursor::new(Vec::new())),
            (Ok(missing), _) => return Ok(missing),
            // pdftotext failed: what it wrote first is searched, as
            // without OCR.
            (Err(e), layer) => {
                if let Some(Ok(mut layer)) = layer {
                    if layer.rewind().is_ok() {
                        text(&mut layer);
                    }
                }
                return Err(e);
            }
        };
        layer.rewind()?;
        let (pages, tail) = layer_pages(&mut layer)?;
        let wanted: Vec<usize> = (0..pages.len())
            .filter(|&i| pages[i].alphanumerics < NEAR_EMPTY)
            .map(|i| i + 1)
            .collect();
        layer.rewind()?;
        if wanted.is_empty() {
            return Ok(Outcome::Ran(text(&mut layer)));
        }
        let sizes = match self.page_sizes(ocr, &file, name, pages.len()) {
            Ok(sizes) => sizes,
            // The text layer is still searched.
            Err(e) => {
                text(&mut layer);
                return Err(e);
            }
        };
        let work = Work {
            ocr,
            file: &file,
            name,
            sizes: &sizes,
            wanted: &wanted,
            next: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            done: Mutex::new(HashMap::new()),
            ready: Condvar::new(),
        };
        let workers = self.runner.jobs().clamp(1, wanted.len());
        let (flow, failures, interrupted) = std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| self.recognise_pages(&work));
            }
            let mut reader = Pages {
                work: &work,
                layer: &mut layer,
                pages: &pages,
                tail,
                next_page: 0,
                buf: Vec::new(),
                at: 0,
                failures: Vec::new(),
                interrupted: false,
            };
            let flow = text(&mut reader);
            // Nothing more is read: the workers end after their page.
            work.stop.store(true, Ordering::Relaxed);
            (flow, reader.failures, reader.interrupted)
        });
        if interrupted || self.runner.cancelled() {
            return Err(io::Error::from(io::ErrorKind::Interrupted));
        }
        if flow == Flow::Stop || failures.is_empty() {
            return Ok(Outcome::Ran(flow));
        }
        let mut why: Vec<&str> = failures.iter().take(NAMED_FAILURES).map(String::as_str).collect();
        let more = failures.len().saturating_sub(NAMED_FAILURES);
        let more = format!("and {more} more pages");
        if failures.len() > NAMED_FAILURES {
            why.push(&more);
        }
        Err(io::Error::new(io::ErrorKind::InvalidData, why.join("; ")))
    }

    /// Each page's size in PostScript points, from `pdfinfo` (an error is
    /// the document's: pdftotext read it, so it should not happen).
    fn page_sizes(
        &self,
        ocr: &Ocr,
        file: &File,
        name: &[u8],
        pages: usize,
    ) -> io::Result<Vec<Option<(f64, f64)>>> {
        let args = ["-f", "1", "-l", &pages.to_string(), "/dev/stdin"].map(Into::into).to_vec();
        let mut out = Vec::new();
        let subject = Subject { file: file.try_clone()?, path: None, name };
        match self.runner.run_with(&ocr.sizes, Some(args), subject, &mut |r| {
            let _ = r.take(SMALL_OUTPUT).read_to_end(&mut out);
            Flow::Continue
        })? {
            Outcome::Ran(_) => {}
            Outcome::Missing(e) => return Err(e),
            Outcome::MissingBefore => return Err(io::Error::other("pdfinfo is missing")),
        }
        let mut sizes = vec![None; pages];
        // "Page    3 size: 595.276 x 841.89 pts (A4)"
        for line in String::from_utf8_lossy(&out).lines() {
            let Some(rest) = line.strip_prefix("Page") else { continue };
            let Some((n, size)) = rest.split_once(" size:") else { continue };
            let Ok(n) = n.trim().parse::<usize>() else { continue };
            let mut dims = size.split_whitespace();
            let w = dims.next().and_then(|w| w.parse::<f64>().ok());
            let x = dims.next();
            let h = dims.next().and_then(|h| h.parse::<f64>().ok());
            if let (Some(w), Some("x"), Some(h), Some(slot)) = (w, x, h, sizes.get_mut(n - 1)) {
                *slot = Some((w, h));
            }
        }
        Ok(sizes)
    }

    /// A worker: takes the next wanted page until none is left (or the
    /// reader stopped), and hands over what became of it.
    fn recognise_pages(&self, work: &Work<'_>) {
        loop {
            let i = work.next.fetch_add(1, Ordering::Relaxed);
            if i >= work.wanted.len() || work.stop.load(Ordering::Relaxed) {
                return;
            }
            let page = work.wanted[i];
            let result = match self.runner.cancelled() {
                true => Recognised::Interrupted,
                false => self.recognise_page(work, page),
            };
            let mut done = work.done.lock().unwrap_or_else(|p| p.into_inner());
            done.insert(page, result);
            work.ready.notify_all();
        }
    }

    /// Renders page `n` and recognises it.
    fn recognise_page(&self, work: &Work<'_>, n: usize) -> Recognised {
        let ocr = work.ocr;
        let failed = |why: &dyn std::fmt::Display| Recognised::Failed(format!("page {n}: {why}"));
        let Some(Some((w, h))) = work.sizes.get(n - 1) else {
            return failed(&"its size is unknown (pdfinfo); not recognised");
        };
        let dpi = f64::from(ocr.options.dpi);
        let pixels = ((w / 72.0 * dpi).ceil() as u64, (h / 72.0 * dpi).ceil() as u64);
        if let Some(why) = ocr.refuses(pixels) {
            return failed(&format!("{why} at {} dpi", ocr.options.dpi));
        }
        let mut image = match tempfile::tempfile() {
            Ok(f) => f,
            Err(e) => return failed(&e),
        };
        let input = match work.file.try_clone() {
            Ok(f) => Subject { file: f, path: None, name: work.name },
            Err(e) => return failed(&e),
        };
        let mut copied = Ok(0);
        let rendered =
            self.runner.run_with(&ocr.render, Some(ocr.render_args(n)), input, &mut |r| {
                copied = io::copy(r, &mut image);
                Flow::Continue
            });
        if let Some(other) = settled(rendered, n) {
            return other;
        }
        if let Err(e) = copied.and_then(|_| image.rewind()) {
            return failed(&e);
        }
        let mut out = Vec::new();
        let subject = Subject { file: image, path: None, name: work.name };
        let recognised = self.runner.run(&ocr.page, subject, &mut |r| {
            let _ = r.take(SMALL_OUTPUT).read_to_end(&mut out);
            Flow::Continue
        });
        match settled(recognised, n) {
            Some(other) => other,
            None => Recognised::Text(out),
        }
    }
}

/// What a child's run means for page `n`: None when it ran well.
fn settled(ran: io::Result<Outcome>, n: usize) -> Option<Recognised> {
    match ran {
        Ok(Outcome::Ran(_)) => None,
        Ok(Outcome::Missing(e)) => Some(Recognised::Failed(format!("page {n}: {e}"))),
        Ok(Outcome::MissingBefore) => {
            Some(Recognised::Failed(format!("page {n}: OCR's programs are missing")))
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Some(Recognised::Interrupted),
        Err(e) => Some(Recognised::Failed(format!("page {n}: {e}"))),
    }
}

/// The pages of the text layer (each ending with a form feed, as
/// pdftotext writes them), and where what follows the last one starts.
fn layer_pages(layer: &mut Spooled) -> io::Result<(Vec<LayerPage>, u64)> {
    let mut pages = Vec::new();
    let mut page = LayerPage { start: 0, end: 0, alphanumerics: 0 };
    let mut at = 0u64;
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match layer.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &b in &buf[..n] {
            if b == b'\x0c' {
                page.end = at;
                pages.push(page);
                page = LayerPage { start: at + 1, end: 0, alphanumerics: 0 };
            } else if b.is_ascii_alphanumeric() || b >= 0xc0 {
                // A UTF-8 lead byte counts its letter once.
                page.alphanumerics += 1;
            }
            at += 1;
        }
    }
    Ok((pages, page.start))
}

/// What the workers of one document share.
struct Work<'a> {
    ocr: &'a Ocr,
    file: &'a File,
    name: &'a [u8],
    /// Each page's size in points (None: unknown).
    sizes: &'a [Option<(f64, f64)>],
    /// The pages to recognise, in order (numbered from 1).
    wanted: &'a [usize],
    /// The next of `wanted` to take.
    next: AtomicUsize,
    /// Set when the reader reads no more.
    stop: AtomicBool,
    /// What became of each page done, by its number, until it is read.
    done: Mutex<HashMap<usize, Recognised>>,
    ready: Condvar,
}

/// The document's text, page by page in order: the layer's pages as they
/// are, recognised ones as their workers hand them over.
struct Pages<'a, 'w> {
    work: &'a Work<'w>,
    layer: &'a mut Spooled,
    pages: &'a [LayerPage],
    /// Where what follows the last page starts in the layer.
    tail: u64,
    /// The next page to read (from 0; `pages.len()`: the tail).
    next_page: usize,
    buf: Vec<u8>,
    at: usize,
    /// The pages that could not be recognised, and why.
    failures: Vec<String>,
    /// The run was cancelled: the text ended early.
    interrupted: bool,
}

impl Pages<'_, '_> {
    /// Fills `buf` with the next page (with its form feed); false at the
    /// end.
    fn next_page(&mut self) -> io::Result<bool> {
        self.buf.clear();
        self.at = 0;
        let i = self.next_page;
        if i > self.pages.len() || self.interrupted {
            return Ok(false);
        }
        self.next_page += 1;
        if i == self.pages.len() {
            self.layer.seek(SeekFrom::Start(self.tail))?;
            self.layer.read_to_end(&mut self.buf)?;
            return Ok(true);
        }
        let page = self.pages[i];
        if page.alphanumerics < NEAR_EMPTY {
            match self.wait_for(i + 1) {
                Recognised::Text(text) if text.iter().any(u8::is_ascii_alphanumeric) => {
                    // A form feed in the text would shift the page numbers.
                    self.buf = text.into_iter().filter(|&b| b != b'\x0c').collect();
                    self.buf.push(b'\x0c');
                    return Ok(true);
                }
                // Nothing recognised: the layer's few characters stay.
                Recognised::Text(_) => {}
                Recognised::Failed(why) => self.failures.push(why),
                Recognised::Interrupted => {
                    self.interrupted = true;
                    return Ok(false);
                }
            }
        }
        self.layer.seek(SeekFrom::Start(page.start))?;
        (&mut *self.layer).take(page.end - page.start + 1).read_to_end(&mut self.buf)?;
        Ok(true)
    }

    /// Waits until page `n` is done, and takes what became of it.
    fn wait_for(&self, n: usize) -> Recognised {
        let mut done = self.work.done.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(r) = done.remove(&n) {
                return r;
            }
            done = self.work.ready.wait(done).unwrap_or_else(|p| p.into_inner());
        }
    }
}

impl Read for Pages<'_, '_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.buf.len() {
            if !self.next_page()? {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_pages_end_at_form_feeds_and_count_their_letters() {
        let text = "Title page of a book\n\x0c\x0c7\n\x0cÉcole\x0ctail".as_bytes().to_vec();
        let mut layer = Spooled::Memory(io::Cursor::new(text));
        let (pages, tail) = layer_pages(&mut layer).unwrap();
        let counts: Vec<usize> = pages.iter().map(|p| p.alphanumerics).collect();
        assert_eq!(counts, [16, 0, 1, 5]);
        assert_eq!((pages[0].start, pages[0].end), (0, 21));
        assert_eq!(tail, 33);
    }
}
