//! The search loop over arbitrary bytes: every mode and buffer size; the
//! lines reported are real lines of the input, and the buffer size does not
//! change what is reported (but for where a binary file is detected).
#![no_main]

use libfuzzer_sys::fuzz_target;
use trawl_matcher::MatcherBuilder;
use trawl_search::{BinaryMode, ContextKind, LineInfo, Searcher, SearcherConfig, Sink};

#[derive(Default, PartialEq, Debug)]
struct Log(Vec<(u8, u64, Vec<u8>)>);

impl Sink for Log {
    fn matched(&mut self, line: &[u8], info: LineInfo) -> std::io::Result<bool> {
        self.0.push((b':', info.offset, line.to_vec()));
        Ok(true)
    }
    fn context(&mut self, line: &[u8], info: LineInfo, _: ContextKind) -> std::io::Result<bool> {
        self.0.push((b'-', info.offset, line.to_vec()));
        Ok(true)
    }
    fn context_break(&mut self) -> std::io::Result<bool> {
        self.0.push((b'b', 0, vec![]));
        Ok(true)
    }
    fn binary_matched(&mut self, info: LineInfo) -> std::io::Result<bool> {
        self.0.push((b'B', info.offset, vec![]));
        Ok(true)
    }
}

const PATTERNS: &[&str] = &["a", "^$", "b+c", r"\w+_x", "(?<=a)b", "[^\\n]z", ""];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, hay)) = data.split_first() else { return };
    let pattern = PATTERNS[(flags as usize) % PATTERNS.len()];
    let Ok(m) = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]) else { return };
    let config = SearcherConfig {
        invert: flags & 8 != 0,
        line_numbers: true,
        before_context: ((flags >> 4) & 1) as usize,
        after_context: ((flags >> 5) & 1) as usize,
        group_breaks: flags & 64 != 0,
        max_count: (flags & 128 != 0).then_some(2),
        binary: if flags & 16 != 0 { BinaryMode::Text } else { BinaryMode::Detect },
        ..Default::default()
    };
    let run = |read_size| {
        let mut s = Searcher::new(SearcherConfig { read_size, ..config.clone() });
        let mut log = Log::default();
        s.search_slice(&m, hay, &mut log).expect("searching a slice cannot fail");
        log
    };
    let whole = run(0);
    for (_, offset, line) in &whole.0 {
        let o = *offset as usize;
        assert!(o + line.len() <= hay.len());
        if config.binary == BinaryMode::Text {
            assert_eq!(&hay[o..o + line.len()], line.as_slice());
        }
    }
    // Where the first NUL falls relative to buffer edges decides which lines
    // print before a file turns binary (as in GNU grep); elsewhere the buffer
    // size must not matter.
    if config.binary == BinaryMode::Text || !hay.contains(&0) {
        assert_eq!(run(7), whole);
    }
});
