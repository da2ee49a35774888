//! The searcher against a naive line-by-line reference.

use super::*;
use crate::config::READ_SIZE;
use memchr::{memchr, memrchr};
use trawl_matcher::{AnyMatcher, MatcherBuilder};

/// Mapping on or off.
fn mmap_choice(on: bool) -> MmapChoice {
    if on {
        // SAFETY: these tests' files change only where a test truncates one
        // on purpose, to check that the output stays right.
        unsafe { MmapChoice::auto() }
    } else {
        MmapChoice::never()
    }
}

/// Records what a search reports, in grep's text format.
#[derive(Default)]
struct Record(Vec<u8>);

impl Record {
    fn line(&mut self, sep: u8, line: &[u8], info: LineInfo) {
        if let Some(n) = info.line_number {
            self.0.extend_from_slice(format!("{n}{}", sep as char).as_bytes());
        }
        self.0.extend_from_slice(format!("{}{}", info.offset, sep as char).as_bytes());
        self.0.extend_from_slice(line);
        if !line.ends_with(b"\n") {
            self.0.push(b'\n');
        }
    }
}

impl Sink for Record {
    fn matched(&mut self, line: &[u8], info: LineInfo) -> io::Result<bool> {
        self.line(b':', line, info);
        Ok(true)
    }
    fn context(&mut self, line: &[u8], info: LineInfo, _kind: ContextKind) -> io::Result<bool> {
        self.line(b'-', line, info);
        Ok(true)
    }
    fn context_break(&mut self) -> io::Result<bool> {
        self.0.extend_from_slice(b"--\n");
        Ok(true)
    }
    fn binary_matched(&mut self, info: LineInfo) -> io::Result<bool> {
        self.0.extend_from_slice(format!("binary {}\n", info.offset).as_bytes());
        Ok(false)
    }
}

/// grep's algorithm, one line at a time.
fn reference(m: &AnyMatcher, data: &[u8], c: &SearcherConfig) -> Vec<u8> {
    let mut lines = vec![];
    let mut off = 0;
    while off < data.len() {
        let next = memchr(b'\n', &data[off..]).map_or(data.len(), |i| off + i + 1);
        lines.push((off, &data[off..next]));
        off = next;
    }
    let selected: Vec<bool> = lines
        .iter()
        .map(|(_, l)| {
            let body = l.strip_suffix(b"\n").unwrap_or(l);
            m.find_at(body, 0).unwrap().is_some() != c.invert
        })
        .collect();
    let mut out = Record::default();
    let mut last_printed: Option<usize> = None;
    let mut count = 0;
    // --passthru: every line is owed as context from the start.
    let mut after_left = if c.passthru { usize::MAX } else { 0 };
    for (i, (off, line)) in lines.iter().enumerate() {
        let info = |i: usize, off: usize| LineInfo {
            offset: off as u64,
            line_number: c.line_numbers.then_some(i as u64 + 1),
        };
        if c.max_count.is_some_and(|mx| count >= mx) {
            // GNU grep prints trailing context after -m, matching lines included.
            if after_left > 0 {
                out.line(b'-', line, info(i, *off));
                last_printed = Some(i);
                after_left -= 1;
                continue;
            }
            break;
        }
        if selected[i] {
            let first = i.saturating_sub(c.before_context);
            let from = match last_printed {
                Some(p) => first.max(p + 1),
                None => first,
            };
            if let Some(p) = last_printed {
                if from > p + 1 && c.group_breaks {
                    out.0.extend_from_slice(b"--\n");
                }
            }
            for (j, (o, l)) in lines.iter().enumerate().take(i).skip(from) {
                out.line(b'-', l, info(j, *o));
            }
            out.line(b':', line, info(i, *off));
            last_printed = Some(i);
            after_left = c.after_context;
            count += 1;
        } else if after_left > 0 {
            out.line(b'-', line, info(i, *off));
            last_printed = Some(i);
            after_left -= 1;
        }
    }
    out.0
}

fn run(m: &AnyMatcher, data: &[u8], c: &SearcherConfig) -> Vec<u8> {
    let mut s = Searcher::new(c.clone());
    let mut out = Record::default();
    s.search_slice(m, data, &mut out).unwrap();
    out.0
}

/// A deterministic text of `n` lines with matches sprinkled at varied spacing.
fn corpus(n: usize, long_every: usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut x: u64 = 12345;
    for i in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let r = (x >> 33) as usize;
        if long_every > 0 && i % long_every == 7 {
            out.extend(std::iter::repeat_n(b'z', 70_000 + r % 300_000));
        }
        match r % 13 {
            0 => out.extend_from_slice(b"a needle here"),
            1 => out.extend_from_slice(b"needle"),
            2 => {}
            _ => out.extend_from_slice(format!("filler line {i} {}", r % 1000).as_bytes()),
        }
        out.push(b'\n');
    }
    out
}

fn configs() -> Vec<SearcherConfig> {
    let mut v = vec![];
    for invert in [false, true] {
        for (b, a, group_breaks, passthru) in [
            (0, 0, false, false),
            (0, 0, true, false),
            (2, 0, true, false),
            (0, 3, true, false),
            (2, 2, true, false),
            (5, 1, true, false),
            (0, usize::MAX, false, true),
        ] {
            for max_count in [None, Some(3)] {
                v.push(SearcherConfig {
                    invert,
                    line_numbers: true,
                    before_context: b,
                    after_context: a,
                    passthru,
                    encoding: crate::Encoding::Sniff,
                    multiline: false,
                    matches_only: false,
                    group_breaks,
                    max_count,
                    binary: BinaryMode::Text,
                    stream: false,
                    lines_unneeded: false,
                    read_size: 0,
                    part_size: 0,
                    mmap: MmapChoice::never(),
                    threads: 1,
                    cancel: Cancel::default(),
                    terminator: crate::LineTerminator::Newline,
                });
            }
        }
    }
    v
}

#[test]
fn equals_reference_on_small_input() {
    let m = MatcherBuilder::new().build(&[b"needle".to_vec()]).unwrap();
    let data = corpus(300, 0);
    for c in configs() {
        same(&run(&m, &data, &c), &reference(&m, &data, &c), &c);
    }
}

/// `--multiline` with a pattern that cannot span lines selects and prints
/// what the line-by-line search does, in every context, -v, -m and
/// --passthru configuration.
#[test]
fn multiline_equals_reference_when_no_match_spans_lines() {
    let data = corpus(300, 0);
    for pattern in ["needle", "^a", "e$", "x*"] {
        let m =
            MatcherBuilder::new().multiline(true).build(&[pattern.as_bytes().to_vec()]).unwrap();
        for c in configs() {
            let c = SearcherConfig { multiline: true, ..c };
            same(&run(&m, &data, &c), &reference(&m, &data, &c), &c);
        }
    }
}

/// Compares two outputs line by line, showing the first difference only.
fn same(got: &[u8], want: &[u8], c: &SearcherConfig) {
    let g: Vec<_> = got.split(|&b| b == b'\n').collect();
    let w: Vec<_> = want.split(|&b| b == b'\n').collect();
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        assert!(
            a == b,
            "{c:?}: line {i}: got {:?} want {:?}",
            String::from_utf8_lossy(&a[..a.len().min(80)]),
            String::from_utf8_lossy(&b[..b.len().min(80)])
        );
    }
    assert_eq!(g.len(), w.len(), "{c:?}: line counts differ");
}

#[test]
fn equals_reference_across_buffer_refills_and_long_lines() {
    let m = MatcherBuilder::new().build(&[b"needle|^$".to_vec()]).unwrap();
    let data = corpus(60_000, 5_000);
    assert!(data.len() > 4 * READ_SIZE);
    for c in configs() {
        same(&run(&m, &data, &c), &reference(&m, &data, &c), &c);
    }
}

#[test]
fn last_line_without_newline_and_empty_input() {
    let m = MatcherBuilder::new().build(&[b"$".to_vec()]).unwrap();
    let c = SearcherConfig { line_numbers: true, ..Default::default() };
    assert_eq!(run(&m, b"a\nb", &c), b"1:0:a\n2:2:b\n");
    assert_eq!(run(&m, b"a\n", &c), b"1:0:a\n");
    assert_eq!(run(&m, b"", &c), b"");
    let m = MatcherBuilder::new().build(&[b"^$".to_vec()]).unwrap();
    assert_eq!(run(&m, b"a\n\nb\n", &c), b"2:2:\n");
}

#[test]
fn binary_file_stops_at_first_selected_line_and_nul_ends_lines() {
    let m = MatcherBuilder::new().build(&[b"^foo".to_vec()]).unwrap();
    let c = SearcherConfig::default();
    assert_eq!(run(&m, b"x\0foo\n", &c), b"binary 2\n");
    // Count everything: NULs end lines (GNU grep).
    struct Count(u64);
    impl Sink for Count {
        fn matched(&mut self, _: &[u8], _: LineInfo) -> io::Result<bool> {
            self.0 += 1;
            Ok(true)
        }
        fn binary_matched(&mut self, _: LineInfo) -> io::Result<bool> {
            self.0 += 1;
            Ok(true)
        }
    }
    let mut s = Searcher::new(SearcherConfig::default());
    let mut n = Count(0);
    let sum = s.search_slice(&m, b"foo\0foo\nbar foo\n", &mut n).unwrap();
    assert_eq!((n.0, sum.binary_offset), (2, Some(3)));
    let mut s =
        Searcher::new(SearcherConfig { binary: BinaryMode::SkipFile, ..Default::default() });
    let mut n = Count(0);
    s.search_slice(&m, b"foo\0foo\n", &mut n).unwrap();
    assert_eq!(n.0, 0);
}

#[test]
fn matches_never_repeat_or_vanish_at_buffer_edges() {
    // Lines straddle every refill boundary; each must be found exactly once.
    let m = MatcherBuilder::new().build(&[b"X\\d+Y".to_vec()]).unwrap();
    let mut data = Vec::new();
    let mut want = 0;
    while data.len() < 3 * READ_SIZE {
        data.extend_from_slice(b"....X12Y....\n");
        want += 1;
        data.extend(std::iter::repeat_n(b'.', 997));
        data.push(b'\n');
    }
    let c = SearcherConfig::default();
    let got = run(&m, &data, &c);
    assert_eq!(got.iter().filter(|&&b| b == b'\n').count(), want);
}

#[test]
fn long_lines_are_streamed_when_their_text_is_not_needed() {
    // Lines longer than LONG_LINE, matching near the start, near the end, or
    // not at all, among short ones; counts must equal the held-line search.
    struct Count(u64);
    impl Sink for Count {
        fn matched(&mut self, _: &[u8], _: LineInfo) -> io::Result<bool> {
            self.0 += 1;
            Ok(true)
        }
    }
    let mut data = Vec::new();
    data.extend_from_slice(b"needle short\n");
    data.extend_from_slice(b"needle");
    data.extend(std::iter::repeat_n(b'a', LONG_LINE + 1000));
    data.extend_from_slice(b"\nx\n");
    data.extend(std::iter::repeat_n(b'b', LONG_LINE + 5));
    data.extend_from_slice(b"needle$\n");
    data.extend(std::iter::repeat_n(b'c', LONG_LINE * 2));
    data.extend_from_slice(b"\nlast needle");
    for pattern in ["needle", "needle.$", "^needle"] {
        let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
        for invert in [false, true] {
            let count = |lines_unneeded| {
                let c = SearcherConfig { invert, lines_unneeded, ..Default::default() };
                let mut s = Searcher::new(c);
                let mut sink = Count(0);
                s.search_slice(&m, &data, &mut sink).unwrap();
                sink.0
            };
            assert_eq!(count(true), count(false), "{pattern} invert={invert}");
        }
    }
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn config() -> impl Strategy<Value = SearcherConfig> {
        let context = (0usize..3, 0usize..3, any::<bool>(), prop::bool::weighted(0.15));
        (any::<bool>(), context, prop::option::of(1u64..4)).prop_map(
            |(invert, (b, a, breaks, passthru), max_count)| match passthru {
                // --passthru: every line, those not selected as context.
                true => SearcherConfig {
                    invert,
                    line_numbers: true,
                    after_context: usize::MAX,
                    passthru: true,
                    max_count,
                    binary: BinaryMode::Text,
                    ..Default::default()
                },
                false => SearcherConfig {
                    invert,
                    line_numbers: true,
                    before_context: b,
                    after_context: a,
                    group_breaks: breaks || a > 0 || b > 0,
                    max_count,
                    binary: BinaryMode::Text,
                    ..Default::default()
                },
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// Searching with tiny buffers (every line and match edge at every
        /// buffer position) prints exactly what one whole-file buffer prints,
        /// which is what the line-by-line reference prints.
        #[test]
        fn buffer_size_never_changes_the_output(
            data in prop::collection::vec(prop::sample::select(b"ab \n".to_vec()), 0..300),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "^a", "b$", "^$", "a b", "(a|b)b"]),
            config in config(),
            read_size in 1usize..40,
        ) {
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let whole = run(&m, &data, &config);
            let small = SearcherConfig { read_size, ..config.clone() };
            prop_assert_eq!(&run(&m, &data, &small), &whole);
            prop_assert_eq!(&whole, &reference(&m, &data, &config));
        }
    }

    /// What one file searched by several threads in tiny parts gives.
    fn run_parallel(
        m: &AnyMatcher,
        data: &[u8],
        c: &SearcherConfig,
        threads: usize,
        count: bool,
    ) -> (Vec<u8>, SearchSummary) {
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, data).unwrap();
        let mut out = Record::default();
        let mut n = Count(0, true);
        let sum = if count {
            search_file_parallel(c, m, &f, data.len() as u64, threads, &mut n).unwrap()
        } else {
            search_file_parallel(c, m, &f, data.len() as u64, threads, &mut out).unwrap()
        };
        if count {
            out.0 = format!("{}", n.0).into_bytes();
        }
        (out.0, sum)
    }

    /// Counts selected lines (like `-c`); stops at the first when `.1` is off (`-l`).
    struct Count(u64, bool);
    impl Sink for Count {
        fn matched(&mut self, _: &[u8], _: LineInfo) -> io::Result<bool> {
            self.0 += 1;
            Ok(self.1)
        }
        fn binary_matched(&mut self, _: LineInfo) -> io::Result<bool> {
            self.0 += 1;
            Ok(self.1)
        }
    }

    fn binary_mode() -> impl Strategy<Value = BinaryMode> {
        prop::sample::select(vec![BinaryMode::Text, BinaryMode::Detect, BinaryMode::SkipFile])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        /// A file cut into parts of every small size, searched by 1-4
        /// threads, prints exactly what one sequential search prints: the
        /// same lines, line numbers, offsets, context, `--`, `-m`, binary
        /// files. `-I` skips a file whose first read holds a NUL, and
        /// otherwise stops at the read holding it; parts are read in other
        /// pieces, so there, with a later NUL, the lines printed must come
        /// from the lines before it, in order (a line near the NUL can be
        /// shown as context instead of not at all).
        #[test]
        fn parts_never_change_the_output(
            data in prop::collection::vec(prop::sample::select(b"ab \n\n\0".to_vec()), 0..300),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "^a", "b$", "^$", "a b", "(a|b)b"]),
            config in config(),
            binary in binary_mode(),
            numbers in any::<bool>(),
            read_size in 1usize..40,
            extra in 0u64..24,
            threads in 1usize..5,
            mmap in any::<bool>(),
        ) {
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let config = SearcherConfig { binary, line_numbers: numbers, read_size, ..config };
            let c = SearcherConfig { part_size: read_size as u64 + extra, mmap: mmap_choice(mmap), ..config.clone() };
            let (got, sum) = run_parallel(&m, &data, &c, threads, false);
            let got = String::from_utf8_lossy(&got).into_owned();
            let nul = memchr(0, &data).filter(|_| binary == BinaryMode::SkipFile);
            match nul {
                Some(z) if z >= read_size => {
                    let line_start = memrchr(b'\n', &data[..z]).map_or(0, |i| i + 1);
                    let text = SearcherConfig { binary: BinaryMode::Text, ..config.clone() };
                    let before = String::from_utf8_lossy(&run(&m, &data[..line_start], &text)).into_owned();
                    // Without the `:`/`-` that tells selected from context.
                    let unlabeled = |l: &str| {
                        let mut rest = l;
                        let mut key = String::new();
                        for _ in 0..1 + numbers as usize {
                            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                            key.push_str(&rest[..digits]);
                            key.push('|');
                            rest = &rest[digits + 1..];
                        }
                        key + rest
                    };
                    let mut want = before.lines().filter(|l| *l != "--").map(unlabeled);
                    for l in got.lines().filter(|l| *l != "--").map(unlabeled) {
                        prop_assert!(want.any(|w| w == l), "{:?} not from {:?}", got, before);
                    }
                }
                _ => {
                    let mut s = Searcher::new(config.clone());
                    let mut want = Record::default();
                    let want_sum = s.search_slice(&m, &data, &mut want).unwrap();
                    prop_assert_eq!(got, String::from_utf8_lossy(&want.0).into_owned());
                    // With -m, either search may stop before the NUL; a
                    // file without a match may skip the NUL check.
                    if config.max_count.is_none() && want_sum.selected > 0 {
                        prop_assert_eq!(sum.binary_offset, want_sum.binary_offset);
                    }
                }
            }
        }

        /// Lines longer than parts: parts in which no line starts are not
        /// searched, and long lines read from the mapping are recorded by
        /// their place in it, not copied; the output is still exactly a
        /// sequential search's.
        #[test]
        fn lines_longer_than_parts_never_change_the_output(
            lines in prop::collection::vec(
                (prop::collection::vec(prop::sample::select(b"aab  ".to_vec()), 0..90),
                 prop::sample::select(b"\n\n\n\0".to_vec())),
                0..12,
            ),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "^a", "b$", "^$", "a b"]),
            config in config(),
            detect in any::<bool>(),
            read_size in 1usize..40,
            extra in 0u64..24,
            threads in 1usize..5,
            mmap in any::<bool>(),
        ) {
            let data: Vec<u8> = lines.into_iter().flat_map(|(mut l, t)| { l.push(t); l }).collect();
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let binary = if detect { BinaryMode::Detect } else { BinaryMode::Text };
            let config = SearcherConfig { binary, read_size, ..config };
            let c = SearcherConfig { part_size: read_size as u64 + extra, mmap: mmap_choice(mmap), ..config.clone() };
            let (got, sum) = run_parallel(&m, &data, &c, threads, false);
            let mut s = Searcher::new(config.clone());
            let mut want = Record::default();
            let want_sum = s.search_slice(&m, &data, &mut want).unwrap();
            prop_assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(&want.0));
            if config.max_count.is_none() && want_sum.selected > 0 {
                prop_assert_eq!(sum.binary_offset, want_sum.binary_offset);
            }
        }

        /// `Searcher::search_file` (one pass or parts; the size given or
        /// asked for after a first read that fills the buffer; short reads
        /// as the end or not; mapped or read) reports what a search of the
        /// same bytes as one slice reports.
        #[test]
        fn search_file_equals_a_slice_search(
            data in prop::collection::vec(prop::sample::select(b"ab \n\n\0".to_vec()), 0..400),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "^a", "b$", "^$", "a b"]),
            config in config(),
            text in any::<bool>(),
            numbers in any::<bool>(),
            read_size in 1usize..40,
            extra in 0u64..24,
            threads in 1usize..4,
            mmap in any::<bool>(),
            size_known in any::<bool>(),
            short_read_is_end in any::<bool>(),
            map_allowed in any::<bool>(),
        ) {
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let binary = if text { BinaryMode::Text } else { BinaryMode::Detect };
            let config = SearcherConfig { binary, line_numbers: numbers, read_size, ..config };
            let c = SearcherConfig {
                part_size: read_size as u64 + extra,
                mmap: mmap_choice(mmap),
                threads,
                ..config.clone()
            };
            let mut f = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut f, &data).unwrap();
            std::io::Seek::rewind(&mut f).unwrap();
            let hints = FileHints {
                size: size_known.then_some(data.len() as u64),
                mapping: if map_allowed { MapParts::Allowed } else { MapParts::Never },
                short_read: if short_read_is_end { ShortRead::IsEnd } else { ShortRead::MayContinue },
            };
            let mut got = Record::default();
            let outcome = Searcher::new(c.clone()).search_file(&m, &f, hints, &mut got).unwrap();
            let mut want = Record::default();
            let want_sum = Searcher::new(config.clone()).search_slice(&m, &data, &mut want).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(&got.0).into_owned(),
                String::from_utf8_lossy(&want.0).into_owned()
            );
            prop_assert_eq!(outcome.summary.selected, want_sum.selected);
            let parts = threads > 1 && data.len() as u64 >= c.parallel_min();
            let how = if outcome.how == SearchedAs::Skipped {
                // Only a file shorter than any match goes unread.
                prop_assert!(size_known && !config.invert && data.len() < m.min_len());
                SearchedAs::Skipped
            } else if parts {
                SearchedAs::Parts
            } else {
                SearchedAs::OnePass
            };
            prop_assert_eq!(outcome.how, how);
        }

        /// A file read in windows whose NUL check and line count are put
        /// off until a window holds a match (scan/lazy.rs), then caught up
        /// from the file: the same lines, numbers, binary notices and -I
        /// skips as one slice searched with every check done in turn.
        #[test]
        fn checks_put_off_never_change_the_output(
            data in prop::collection::vec(
                prop::sample::select(b"xxxxxxxxab \n\n\0".to_vec()), 0..600),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "a b", "(a|b)b", "xa"]),
            binary in prop::sample::select(vec![BinaryMode::Detect, BinaryMode::SkipFile]),
            numbers in any::<bool>(),
            max_count in prop::option::of(1u64..4),
            read_size in 1usize..40,
            size_known in any::<bool>(),
        ) {
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let config = SearcherConfig {
                binary,
                line_numbers: numbers,
                max_count,
                read_size,
                ..Default::default()
            };
            let mut f = tempfile::tempfile().unwrap();
            std::io::Write::write_all(&mut f, &data).unwrap();
            std::io::Seek::rewind(&mut f).unwrap();
            let hints = FileHints {
                size: size_known.then_some(data.len() as u64),
                mapping: MapParts::Never,
                short_read: ShortRead::IsEnd,
            };
            let mut got = Record::default();
            let outcome = Searcher::new(config.clone()).search_file(&m, &f, hints, &mut got).unwrap();
            let mut want = Record::default();
            let want_sum = Searcher::new(config).search_slice(&m, &data, &mut want).unwrap();
            prop_assert_eq!(
                String::from_utf8_lossy(&got.0).into_owned(),
                String::from_utf8_lossy(&want.0).into_owned()
            );
            prop_assert_eq!(outcome.summary.selected, want_sum.selected);
            if want_sum.selected > 0 {
                prop_assert_eq!(outcome.summary.binary_offset, want_sum.binary_offset);
            }
        }

        /// Counting (`-c`, lines not recorded) across parts, with -m, -v and
        /// a NUL in the first read.
        #[test]
        fn parts_never_change_the_count(
            data in prop::collection::vec(prop::sample::select(b"ab \n\n\0".to_vec()), 0..300),
            pattern in prop::sample::select(vec!["a", "ab", "b+", "^a", "b$", "^$"]),
            invert in any::<bool>(),
            max_count in prop::option::of(1u64..4),
            binary in binary_mode(),
            extra in 0u64..24,
            threads in 1usize..5,
            mmap in any::<bool>(),
        ) {
            let m = MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap();
            let read_size = 7;
            let binary = if memchr(0, &data).is_some_and(|z| z >= read_size) { BinaryMode::Text } else { binary };
            let config = SearcherConfig { invert, max_count, binary, read_size, lines_unneeded: true, ..Default::default() };
            let mut s = Searcher::new(config.clone());
            let mut want = Count(0, true);
            s.search_slice(&m, &data, &mut want).unwrap();
            let c = SearcherConfig { part_size: read_size as u64 + extra, mmap: mmap_choice(mmap), ..config };
            let (got, _) = run_parallel(&m, &data, &c, threads, true);
            prop_assert_eq!(String::from_utf8_lossy(&got), want.0.to_string());
        }
    }
}

#[test]
fn a_file_truncated_during_a_parallel_search_ends_the_search_cleanly() {
    // Parts past the new end are read after the file shrank: they end
    // early; nothing is invented or repeated, and the search finishes.
    // Mapped, the pages past the new end fault (SIGBUS): the handler must
    // catch that, and the parts be read instead.
    struct Truncating<'f>(&'f std::fs::File, u64, bool);
    impl Sink for Truncating<'_> {
        fn matched(&mut self, line: &[u8], info: LineInfo) -> io::Result<bool> {
            if !self.2 {
                self.0.set_len(1 << 20)?;
                self.2 = true;
            }
            // Each line holds its own offset; only the one the new end
            // cuts may be short.
            let want = format!("line {:>20}\n", info.offset);
            let whole = line.len() == want.len() || info.offset + line.len() as u64 == 1 << 20;
            assert!(
                want.as_bytes().starts_with(line) && whole,
                "{:?}",
                String::from_utf8_lossy(line)
            );
            self.1 += 1;
            Ok(true)
        }
    }
    let m = MatcherBuilder::new().build(&[b"^line".to_vec()]).unwrap();
    for (threads, mmap) in [(2, false), (4, false), (2, true), (4, true)] {
        let faults = crate::mapped::faults();
        let mut f = tempfile::tempfile().unwrap();
        let mut data = Vec::new();
        while data.len() < 8 << 20 {
            data.extend_from_slice(format!("line {:>20}\n", data.len()).as_bytes());
        }
        std::io::Write::write_all(&mut f, &data).unwrap();
        let c =
            SearcherConfig { part_size: 64 << 10, mmap: mmap_choice(mmap), ..Default::default() };
        let mut sink = Truncating(&f, 0, false);
        let size = data.len() as u64;
        let r = search_file_parallel(&c, &m, &f, size, threads, &mut sink);
        assert!(r.is_ok(), "{r:?}");
        // Everything before the new end was found; nothing past the old.
        assert!(sink.1 >= (1 << 20) / 26 && sink.1 <= size / 26, "{} lines", sink.1);
        if mmap {
            assert!(crate::mapped::faults() > faults, "no page past the end was touched");
        }
    }
}

/// After a catch-up, the file's later windows are checked as they are read:
/// three matches 1.2 MB apart read the bytes before the first one again, and
/// nothing more (each one's gap read again was 2.4 MB more here).
#[test]
fn a_file_is_read_again_only_up_to_its_first_match() {
    let m = MatcherBuilder::new().build(&[b"needle".to_vec()]).unwrap();
    let gap = b"x\n".repeat(600_000);
    let mut data = Vec::new();
    for _ in 0..3 {
        data.extend_from_slice(&gap);
        data.extend_from_slice(b"a needle\n");
    }
    let config = SearcherConfig { line_numbers: true, read_size: 4096, ..Default::default() };
    let mut f = tempfile::tempfile().unwrap();
    std::io::Write::write_all(&mut f, &data).unwrap();
    std::io::Seek::rewind(&mut f).unwrap();
    let hints = FileHints { size: None, mapping: MapParts::Never, short_read: ShortRead::IsEnd };
    let before = crate::scan::read_again();
    let mut got = Record::default();
    Searcher::new(config.clone()).search_file(&m, &f, hints, &mut got).unwrap();
    let read_again = crate::scan::read_again() - before;
    let mut want = Record::default();
    Searcher::new(config).search_slice(&m, &data, &mut want).unwrap();
    assert_eq!(String::from_utf8_lossy(&got.0), String::from_utf8_lossy(&want.0));
    assert_eq!(got.0.split(|&b| b == b'\n').filter(|l| !l.is_empty()).count(), 3);
    // The first read (4 KiB) is checked as read; the rest up to the first
    // match's window is read again once.
    assert!(
        (gap.len() as u64 - 2 * 4096..=gap.len() as u64).contains(&read_again),
        "{read_again} bytes read again"
    );
}

/// Windows without a match are dropped with their NUL check and line count
/// put off; the first match reads them again (in several pieces here: 1.2 MB
/// before it) for its line number, or for the NUL that makes the file binary.
#[test]
fn a_match_after_many_quiet_windows_gets_the_number_and_binary_state_of_a_full_search() {
    let m = MatcherBuilder::new().build(&[b"needle".to_vec()]).unwrap();
    let mut plain = b"x\n".repeat(600_000);
    plain.extend_from_slice(b"a needle\nx\n");
    let mut with_nul = plain.clone();
    with_nul[800_001] = 0;
    for (data, binary, want) in [
        (&plain, BinaryMode::Detect, "600001:1200000:a needle\n"),
        (&with_nul, BinaryMode::Detect, "binary 1200000\n"),
        (&with_nul, BinaryMode::SkipFile, ""),
    ] {
        let config =
            SearcherConfig { binary, line_numbers: true, read_size: 4096, ..Default::default() };
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, data).unwrap();
        std::io::Seek::rewind(&mut f).unwrap();
        let hints =
            FileHints { size: None, mapping: MapParts::Never, short_read: ShortRead::IsEnd };
        let mut got = Record::default();
        let sum = Searcher::new(config.clone()).search_file(&m, &f, hints, &mut got).unwrap();
        assert_eq!(String::from_utf8_lossy(&got.0), want, "{binary:?}");
        let mut slice = Record::default();
        Searcher::new(config).search_slice(&m, data, &mut slice).unwrap();
        assert_eq!(got.0, slice.0, "{binary:?}");
        if binary == BinaryMode::Detect && data == &with_nul {
            assert_eq!(sum.summary.binary_offset, Some(800_001));
        }
    }
}
