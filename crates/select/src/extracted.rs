//! `-contains`, `-text` and `-binary` on the text inside compressed files,
//! archives and documents, when `-search-zip` or `-docs` asks for it: the
//! same extraction as grep's `--search-zip`/`--docs`, one stream at a time,
//! stopping at the first that decides.

use std::fs::File;
use std::io::{self, Read};

use trawl_extract::{Extractor, Flow, Kind, Origin, Visit};
use trawl_matcher::AnyMatcher;
use trawl_search::{LineInfo, Searcher, Sink};

/// Whether any text inside `file` (of kind `kind`, not plain) holds a line
/// `m` matches; `errors` gets what could not be read.
pub(crate) fn contains(
    ex: &Extractor,
    name: &[u8],
    file: &File,
    kind: Kind,
    searcher: &mut Searcher,
    m: &AnyMatcher,
    errors: &mut Vec<String>,
) -> bool {
    struct Contains<'a> {
        searcher: &'a mut Searcher,
        m: &'a AnyMatcher,
        found: bool,
        errors: &'a mut Vec<String>,
    }
    impl Visit for Contains<'_> {
        fn text(&mut self, name: &[u8], data: &mut dyn Read, _: Origin<'_>) -> Flow {
            let mut sink = First(false);
            if let Err(e) = self.searcher.search_reader(self.m, data, &mut sink) {
                self.error(name, &io::Error::other(e.to_string()));
            }
            self.found |= sink.0;
            if self.found {
                Flow::Stop
            } else {
                Flow::Continue
            }
        }
        fn error(&mut self, name: &[u8], err: &io::Error) {
            self.errors.push(message(name, err));
        }
        fn note(&mut self, _: &[u8], _: &io::Error) {}
        fn warning(&mut self, name: &[u8], err: &io::Error) {
            warning(name, err);
        }
    }
    let mut v = Contains { searcher, m, found: false, errors };
    ex.file(name, file, kind, &mut v);
    v.found
}

/// The first block of the first text stream inside `file` (of kind `kind`,
/// not plain), up to `size` bytes; None when there is none.
pub(crate) fn first_block(
    ex: &Extractor,
    name: &[u8],
    file: &File,
    kind: Kind,
    size: usize,
    errors: &mut Vec<String>,
) -> Option<Vec<u8>> {
    struct FirstBlock<'a> {
        size: usize,
        block: Option<Vec<u8>>,
        errors: &'a mut Vec<String>,
    }
    impl Visit for FirstBlock<'_> {
        fn text(&mut self, name: &[u8], data: &mut dyn Read, _: Origin<'_>) -> Flow {
            let mut block = Vec::with_capacity(self.size);
            match data.take(self.size as u64).read_to_end(&mut block) {
                Ok(_) => {
                    self.block = Some(block);
                    Flow::Stop
                }
                Err(e) => {
                    self.error(name, &e);
                    Flow::Continue
                }
            }
        }
        fn error(&mut self, name: &[u8], err: &io::Error) {
            self.errors.push(message(name, err));
        }
        fn note(&mut self, _: &[u8], _: &io::Error) {}
        fn warning(&mut self, name: &[u8], err: &io::Error) {
            warning(name, err);
        }
    }
    let mut v = FirstBlock { size, block: None, errors };
    ex.file(name, file, kind, &mut v);
    v.block
}

/// Something to know that fails nothing (a cache that cannot be used): said
/// at once, and the run's status stays as it is.
fn warning(name: &[u8], err: &io::Error) {
    let (name, why) = (crate::report::show(name), trawl_diag::io_message(err));
    crate::report::warn(format!("warning: {name}: {why}"));
}

/// An error as find reports it: `'NAME': reason`.
fn message(name: &[u8], err: &io::Error) -> String {
    format!("'{}': {}", crate::report::show(name), trawl_diag::io_message(err))
}

/// Stops at the first selected line, noting that there was one.
pub(crate) struct First(pub(crate) bool);

impl Sink for First {
    fn matched(&mut self, _: &[u8], _: LineInfo) -> io::Result<bool> {
        self.0 = true;
        Ok(false)
    }

    fn binary_matched(&mut self, _: LineInfo) -> io::Result<bool> {
        self.0 = true;
        Ok(false)
    }
}
