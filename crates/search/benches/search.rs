//! Microbenchmarks of the searcher's hot loops: newline counting, line location
//! around matches (few and many), and NUL detection in a buffer whose NUL
//! comes late. Run with `cargo bench -p trawl-search`; `bench/run` is the
//! end-to-end suite.

use std::hint::black_box;
use std::io;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use trawl_matcher::{AnyMatcher, MatcherBuilder};
use trawl_search::{count_newlines, BinaryMode, LineInfo, Searcher, SearcherConfig, Sink};

/// Size of the haystacks: larger than a read buffer, small enough for cache.
const HAYSTACK: usize = 4 * 1024 * 1024;

/// Counts selected lines and binary notices, nothing else.
#[derive(Default)]
struct CountSink {
    lines: u64,
    binary: u64,
}

impl Sink for CountSink {
    fn matched(&mut self, line: &[u8], _: LineInfo) -> io::Result<bool> {
        black_box(line);
        self.lines += 1;
        Ok(true)
    }
    fn binary_matched(&mut self, _: LineInfo) -> io::Result<bool> {
        self.binary += 1;
        Ok(false)
    }
}

/// C-like text of about `len` bytes: lines of 0 to 100 bytes from a small
/// vocabulary, with `PM_RESUME` on one line in `every` (0: never).
fn source_text(len: usize, every: u64) -> Vec<u8> {
    const VOCABULARY: &str = "static int struct device return if (dev) { } ret = 0; \
        pci_read_config_word -> flags unsigned long /* */ NULL EINVAL spin_lock irq u32 void \
        const char *name for i++";
    let words: Vec<&str> = VOCABULARY.split_whitespace().collect();
    let mut out = Vec::with_capacity(len + 128);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut until_match = every;
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.resize(out.len() + (state % 4) as usize, b'\t');
        for k in 0..(state >> 8) % 12 {
            let w = words[((state >> (k * 5 % 50)) % words.len() as u64) as usize];
            out.extend_from_slice(w.as_bytes());
            out.push(b' ');
        }
        if until_match == 1 {
            out.extend_from_slice(b"case PM_RESUME: xyz_RESUME");
            until_match = every;
        } else if until_match > 1 {
            until_match -= 1;
        }
        out.push(b'\n');
    }
    out
}

fn matcher(pattern: &str) -> AnyMatcher {
    MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).expect("pattern compiles")
}

fn search(searcher: &mut Searcher, m: &AnyMatcher, data: &[u8]) -> CountSink {
    let mut sink = CountSink::default();
    searcher.search_slice(m, data, &mut sink).expect("search succeeds");
    sink
}

fn bench_count_newlines(c: &mut Criterion) {
    let text = source_text(HAYSTACK, 0);
    let mut g = c.benchmark_group("count_newlines");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("4MiB_source", |b| b.iter(|| count_newlines(black_box(&text))));
    g.finish();
}

fn bench_line_location(c: &mut Criterion) {
    let mut g = c.benchmark_group("search_slice");
    let rare = source_text(HAYSTACK, 5_000);
    let dense = source_text(HAYSTACK, 7);
    g.throughput(Throughput::Bytes(rare.len() as u64));
    for (name, pattern, data) in [
        ("literal_rare", "PM_RESUME", &rare),
        ("literal_dense", "PM_RESUME", &dense),
        ("regex_dense", r"\w+_RESUME", &dense),
        ("no_match", "foobardoesnotexist", &rare),
    ] {
        let m = matcher(pattern);
        for numbers in [false, true] {
            let config = SearcherConfig { line_numbers: numbers, ..SearcherConfig::default() };
            let mut searcher = Searcher::new(config);
            let want = search(&mut searcher, &m, data).lines;
            let id = format!("{name}{}", if numbers { "/-n" } else { "" });
            g.bench_function(id, |b| {
                b.iter(|| {
                    let got = search(&mut searcher, &m, black_box(data));
                    assert_eq!(got.lines, want);
                })
            });
        }
    }
    g.finish();
}

fn bench_binary_detection(c: &mut Criterion) {
    // A NUL at 90% of the buffer and no match: the whole buffer is scanned
    // for NUL (memchr) before the file is known to be binary.
    let mut data = source_text(HAYSTACK, 0);
    let at = data.len() / 10 * 9;
    data[at] = 0;
    let m = matcher("foobardoesnotexist");
    let mut g = c.benchmark_group("binary_detection");
    g.throughput(Throughput::Bytes(data.len() as u64));
    for (name, mode) in [("detect_late_nul", BinaryMode::Detect), ("text", BinaryMode::Text)] {
        let config = SearcherConfig { binary: mode, ..SearcherConfig::default() };
        let mut searcher = Searcher::new(config);
        g.bench_function(name, |b| {
            b.iter(|| {
                let mut sink = CountSink::default();
                let summary = searcher.search_slice(&m, black_box(&data), &mut sink).unwrap();
                black_box(summary.binary_offset)
            })
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_count_newlines, bench_line_location, bench_binary_detection
}
criterion_main!(benches);
