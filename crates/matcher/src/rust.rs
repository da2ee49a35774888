//! The Rust regex engine, rewritten for grep's line semantics.

use aho_corasick::{AhoCorasick, MatchKind};
use std::sync::OnceLock;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::start;
use regex_automata::{meta, Anchored, Input};
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};
use regex_syntax::hir::{self, Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look};

use crate::fold::{FoldByte, FoldFinder};
use crate::literal::LiteralFinder;
use crate::tokens::{tokens, Brackets, Token, TokenKind};
use crate::windows::WindowSet;
use crate::{Error, ErrorKind, LineStream, LineTerminator, Match, Matcher, Options, Text};

/// A pattern compiled by `regex-automata`, searching bytes.
///
/// The syntax tree is rewritten before compilation: `\n` is removed from every
/// class and literal, `\A`/`\z` become line anchors, so the compiled regex
/// cannot match across lines and can scan a whole buffer at once.
#[derive(Debug)]
pub struct RustMatcher {
    regex: meta::Regex,
    min_len: usize,
    /// Literals one of which every match contains, when the regex starts
    /// with something the engine cannot skip ahead to (such as `\w+_RESUME`).
    inner: Option<InnerLiterals>,
    /// The rewritten syntax tree, for the streaming DFA built on first use.
    hir: Hir,
    stream_dfa: OnceLock<Option<DFA>>,
    /// The byte that ends a line.
    term: u8,
}

/// A required inner literal: candidates are found with it, and the regex
/// then runs only on each candidate's line.
#[derive(Debug)]
enum InnerLiterals {
    One(Box<LiteralFinder>),
    Many(AhoCorasick),
    /// The regex's own prefix literals, when there are a few and each holds
    /// a pair of rare bytes or all start with the same three: found by those
    /// pairs or that prefix (see [`WindowSet`]).
    Windows(WindowSet),
    /// A run of bytes some of which match either case (`-i`); `whole` when
    /// the run is the entire pattern, so a candidate is a match.
    Folded {
        finder: FoldFinder,
        whole: bool,
    },
}

impl InnerLiterals {
    /// Picks the best required literal set of a regex that lacks a prefix
    /// one, or a few prefix literals the engine would find more slowly.
    fn find(hir: &Hir) -> Option<InnerLiterals> {
        let prefix_of = |h: &Hir| -> Seq {
            let mut e = Extractor::new();
            e.kind(ExtractKind::Prefix).limit_total(64);
            e.extract(h)
        };
        let prefix_seq = prefix_of(hir);
        let prefixes = good(&prefix_seq);
        let parts: Vec<&Hir> = match hir.kind() {
            HirKind::Concat(subs) => {
                subs.iter().filter(|h| !matches!(h.kind(), HirKind::Look(_))).collect()
            }
            _ => Vec::new(),
        };
        // A regex with a usable prefix is fast in the engine already: its
        // first part's, or the whole pattern's (`[Pp][Mm]_(?:[Rr]…|[Ss]…)`,
        // a folded alternation factored by its common prefix, has one),
        // unless its prefixes are a few literals with rare byte pairs or a
        // three-byte prefix in common, and the engine would not search for
        // one long prefix they share.
        if prefixes.is_some() || parts.first().is_none_or(|h| good(&prefix_of(h)).is_some()) {
            if shares_a_long_prefix(prefix_seq) {
                return None;
            }
            return prefixes.and_then(|lits| WindowSet::new(&lits)).map(InnerLiterals::Windows);
        }
        // What every match of the pattern's tail from part i on starts with
        // (in `\w+@\w+\.(org|com)`, the tail from `\.` gives `.org` and
        // `.com`, where no single part gives three bytes).
        let best = (1..parts.len())
            .filter_map(|i| {
                let tail = Hir::concat(parts[i..].iter().map(|h| (*h).clone()).collect());
                good(&prefix_of(&tail))
            })
            .max_by_key(|lits| {
                (lits.iter().map(Vec::len).min().unwrap_or(0), usize::MAX - lits.len())
            })?;
        Some(if best.len() == 1 {
            InnerLiterals::One(Box::new(LiteralFinder::new(&best[0])))
        } else {
            // Leftmost semantics: the packed (Teddy) search serves them;
            // the standard kind runs the automaton over every byte.
            InnerLiterals::Many(
                AhoCorasick::builder().match_kind(MatchKind::LeftmostFirst).build(&best).ok()?,
            )
        })
    }

    /// The longest run of bytes (some matching either case) that every
    /// match contains, when it has a byte that folds: the engine's literal
    /// prefilters cannot use it (a case-blind literal of n letters has 2^n
    /// spellings).
    fn folded(hir: &Hir) -> Option<InnerLiterals> {
        let parts: &[Hir] = match hir.kind() {
            HirKind::Concat(subs) => subs,
            _ => std::slice::from_ref(hir),
        };
        let mut best: Vec<FoldByte> = Vec::new();
        let mut run = Vec::new();
        let mut whole = true;
        for part in parts {
            if !push_folded(part, &mut run) {
                whole = false;
                if run.len() > best.len() {
                    best = std::mem::take(&mut run);
                }
                run.clear();
            }
        }
        if run.len() > best.len() {
            best = run;
        }
        if best.iter().all(|f| f.mask == 0) {
            return None;
        }
        Some(InnerLiterals::Folded { finder: FoldFinder::new(best)?, whole })
    }

    fn find_in(&self, hay: &[u8], at: usize) -> Option<usize> {
        match self {
            InnerLiterals::One(f) => f.find(&hay[at..]).map(|i| at + i),
            InnerLiterals::Many(ac) => {
                ac.find(aho_corasick::Input::new(hay).span(at..hay.len())).map(|m| m.start())
            }
            InnerLiterals::Folded { finder, .. } => finder.find(&hay[at..]).map(|i| at + i),
            InnerLiterals::Windows(set) => set.find(hay, at),
        }
    }
}

/// Appends to `run` the bytes `hir` always matches, one after the other,
/// when it is a literal, a class of one byte or of the two cases of a
/// letter, or a capture or concatenation of those. False when it is anything
/// else: `run` then ends with the bytes matched before the piece that is not.
fn push_folded(hir: &Hir, run: &mut Vec<FoldByte>) -> bool {
    match hir.kind() {
        HirKind::Literal(hir::Literal(bytes)) => {
            run.extend(bytes.iter().map(|&b| FoldByte::exact(b)));
            true
        }
        HirKind::Class(Class::Bytes(c)) => {
            match c.ranges() {
                [one] if one.start() == one.end() => run.push(FoldByte::exact(one.start())),
                [upper, lower]
                    if upper.start() == upper.end()
                        && lower.start() == lower.end()
                        && upper.start().is_ascii_uppercase()
                        && lower.start() == upper.start().to_ascii_lowercase() =>
                {
                    run.push(FoldByte::either_case(lower.start()))
                }
                _ => return false,
            }
            true
        }
        HirKind::Capture(cap) => push_folded(&cap.sub, run),
        HirKind::Concat(subs) => subs.iter().all(|h| push_folded(h, run)),
        _ => false,
    }
}

/// Whether the engine, optimizing these prefix literals as it does, searches
/// for one prefix of at least four bytes they share (`MODULE_` for
/// `MODULE_LICENSE|MODULE_AUTHOR`): one memmem over a rare string is faster
/// than Teddy over pairs. Shorter shared prefixes (`E` for
/// `EINVAL|ENOMEM|EBUSY`) are what makes the engine slow.
fn shares_a_long_prefix(mut seq: Seq) -> bool {
    seq.optimize_for_prefix_by_preference();
    seq.literals().is_some_and(|lits| lits.len() == 1 && lits[0].len() >= 4)
}

/// The literals of a finite sequence long enough to be worth searching for.
fn good(seq: &Seq) -> Option<Vec<Vec<u8>>> {
    let lits = seq.literals()?;
    if lits.is_empty() || lits.len() > 64 || lits.iter().any(|l| l.len() < 3) {
        return None;
    }
    Some(lits.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// Perl-dialect patterns parsed and rewritten for grep's line semantics, not
/// yet compiled: the automatic engine choice reads the syntax tree before it
/// pays for the automata (`a{8000}`'s NFA was most of that pattern's start,
/// then thrown away for PCRE2).
pub(crate) struct Parsed {
    hir: Hir,
    multiline: bool,
    term: u8,
}

impl RustMatcher {
    /// Compiles Perl-dialect `patterns` (any of them may match).
    pub(crate) fn new(patterns: &[String], opts: &Options) -> Result<RustMatcher, Error> {
        Parsed::new(patterns, opts)?.build()
    }
}

impl Parsed {
    /// Parses `patterns` (any of them may match) as [`RustMatcher::new`]
    /// would compile them.
    pub(crate) fn new(patterns: &[String], opts: &Options) -> Result<Parsed, Error> {
        let term = opts.terminator.byte();
        let mut alternatives = Vec::with_capacity(patterns.len());
        for p in patterns {
            let hir = parse_with(p, opts).map_err(|e| Error::new(ErrorKind::Syntax(e.1)))?;
            if opts.multiline {
                // Matches may span lines: the tree is left as written.
                alternatives.push(hir);
                continue;
            }
            if opts.terminator == LineTerminator::Nul
                && hir.properties().look_set().contains_anchor_line()
            {
                // `(?m)^` anchors at a newline inside a NUL-ended line: the
                // engine has one configurable line terminator, so PCRE2.
                return Err(Error::new(ErrorKind::Unsupported(
                    "(?m) anchors with -z need PCRE2".into(),
                )));
            }
            alternatives.push(to_line_semantics(hir, term));
        }
        let mut hir = Hir::alternation(alternatives);
        if opts.line {
            hir = Hir::concat(vec![Hir::look(Look::StartLF), hir, Hir::look(Look::EndLF)]);
        } else if opts.word {
            let (start, end) = match opts.text {
                Text::Bytes => (Look::WordStartHalfAscii, Look::WordEndHalfAscii),
                Text::Unicode => (Look::WordStartHalfUnicode, Look::WordEndHalfUnicode),
            };
            hir = Hir::concat(vec![Hir::look(start), hir, Hir::look(end)]);
        }
        Ok(Parsed { hir, multiline: opts.multiline, term })
    }

    /// Whether the pattern repeats (more than once) something that can match
    /// the empty string, like `(a?)+` or `(\s*\w*)*`.
    pub(crate) fn has_nullable_loop(&self) -> bool {
        has_nullable_loop(&self.hir)
    }

    /// How many pattern positions counted repetitions add (see
    /// [`counted_repetition_size`]).
    pub(crate) fn counted_repetition_size(&self) -> usize {
        counted_repetition_size(&self.hir)
    }

    /// Compiles the parsed patterns.
    pub(crate) fn build(self) -> Result<RustMatcher, Error> {
        let Parsed { hir, multiline, term } = self;
        let min_len = hir.properties().minimum_len().unwrap_or(usize::MAX);
        // The inner literals look for a match in the line around one.
        let inner = match multiline {
            true => None,
            false => InnerLiterals::find(&hir).or_else(|| InnerLiterals::folded(&hir)),
        };
        let regex = meta::Regex::builder()
            .configure(
                meta::Config::new()
                    .utf8_empty(false)
                    .line_terminator(term)
                    // The engine's default asks for the CPU count, which
                    // reads cgroup files: a third of a tiny search's
                    // startup. The capacity only spreads threads over
                    // lock-protected stacks of caches, and 8 is the
                    // engine's own upper bound.
                    .pool_capacity(8),
            )
            .build_from_hir(&hir)
            .map_err(|e| Error::new(ErrorKind::Syntax(e.to_string())))?;
        Ok(RustMatcher { regex, min_len, inner, hir, stream_dfa: OnceLock::new(), term })
    }
}

impl RustMatcher {
    /// Whether the pattern repeats (more than once) something that can match
    /// the empty string (see [`Parsed::has_nullable_loop`]).
    #[cfg(test)]
    pub(crate) fn has_nullable_loop(&self) -> bool {
        has_nullable_loop(&self.hir)
    }
}

/// Whether `hir` repeats (more than once) something that can match the empty
/// string, like `(a?)+` or `(\s*\w*)*`.
fn has_nullable_loop(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Repetition(rep) => {
            let repeats = rep.max.is_none_or(|m| m > 1);
            (repeats && rep.sub.properties().minimum_len() == Some(0))
                || has_nullable_loop(&rep.sub)
        }
        HirKind::Capture(c) => has_nullable_loop(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(has_nullable_loop),
        _ => false,
    }
}

/// How many pattern positions the counted repetitions of `hir` add, such as
/// the 7999 extra copies of `a` in `a{8000}`. The engine's automata grow
/// with it and its search time with its square on a matching line
/// (`a{8000}` on an 8 KiB line: 0.6 s), where PCRE2's backtracking counts
/// instead (under 1 ms).
fn counted_repetition_size(hir: &Hir) -> usize {
    /// Positions in `h` and the extra ones its counted repetitions add.
    fn sizes(h: &Hir) -> (usize, usize) {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => (0, 0),
            HirKind::Literal(hir::Literal(bytes)) => (bytes.len(), 0),
            HirKind::Class(_) => (1, 0),
            HirKind::Repetition(rep) => {
                let (size, extra) = sizes(&rep.sub);
                let copies = rep.max.unwrap_or(rep.min).max(1) as usize;
                let total = size.saturating_mul(copies);
                let added = total - size;
                (total, extra.saturating_mul(copies).saturating_add(added))
            }
            HirKind::Capture(c) => sizes(&c.sub),
            HirKind::Concat(subs) | HirKind::Alternation(subs) => subs
                .iter()
                .map(sizes)
                .fold((0, 0), |(a, b), (c, d)| (a.saturating_add(c), b.saturating_add(d))),
        }
    }
    sizes(hir).1
}

impl Matcher for RustMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        let Some(inner) = &self.inner else {
            let input = Input::new(haystack).span(at..haystack.len());
            return Ok(self.regex.find(input).map(|m| Match::new(m.start(), m.end())));
        };
        // Matches never cross lines: a line without the literal cannot match.
        let mut at = at;
        while at <= haystack.len() {
            let Some(p) = inner.find_in(haystack, at) else { return Ok(None) };
            if let InnerLiterals::Folded { finder, whole: true } = inner {
                return Ok(Some(Match::new(p, p + finder.len())));
            }
            let ls = memchr::memrchr(self.term, &haystack[at..p]).map_or(at, |i| at + i + 1);
            let le = memchr::memchr(self.term, &haystack[p..]).map_or(haystack.len(), |i| p + i);
            let input = Input::new(&haystack[..le]).span(ls..le);
            if let Some(m) = self.regex.find(input) {
                return Ok(Some(Match::new(m.start(), m.end())));
            }
            at = le + 1;
        }
        Ok(None)
    }

    fn min_len(&self) -> usize {
        self.min_len
    }

    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        let mut caps = self.regex.create_captures();
        let input =
            Input::new(line).span(m.start..line.len()).anchored(regex_automata::Anchored::Yes);
        self.regex.search_captures(&input, &mut caps);
        groups.clear();
        match caps.get_match() {
            Some(found) if found.start() == m.start && found.end() == m.end => groups.extend(
                (0..caps.group_len())
                    .map(|i| caps.get_group(i).map(|s| Match::new(s.start, s.end))),
            ),
            _ => groups.push(Some(m)),
        }
        Ok(())
    }

    fn group_number(&self, name: &str) -> Option<usize> {
        self.regex.group_info().to_index(regex_automata::PatternID::ZERO, name)
    }

    fn bounded_len(&self) -> Option<usize> {
        let p = self.hir.properties();
        p.look_set().is_empty().then(|| p.maximum_len()).flatten()
    }

    /// Word boundaries are not anchors: a NUL and a newline are both
    /// non-word bytes, so cutting a line at a NUL changes no boundary.
    fn unanchored(&self) -> bool {
        !self.hir.properties().look_set().contains_anchor()
    }

    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        if self.term != b'\n' {
            return None;
        }
        let dfa = self
            .stream_dfa
            .get_or_init(|| {
                let nfa = thompson::Compiler::new()
                    .configure(
                        thompson::Config::new().which_captures(thompson::WhichCaptures::None),
                    )
                    .build_from_hir(&self.hir)
                    .ok()?;
                DFA::builder().build_from_nfa(nfa).ok()
            })
            .as_ref()?;
        let mut cache = dfa.create_cache();
        // A line starts after a newline: `^` and word boundaries see that.
        let config = start::Config::new().anchored(Anchored::No).look_behind(Some(b'\n'));
        let sid = dfa.start_state(&mut cache, &config).ok()?;
        Some(Box::new(DfaLine { dfa, cache, sid }))
    }
}

/// A lazy DFA walked byte by byte over one line.
struct DfaLine<'a> {
    dfa: &'a DFA,
    cache: Cache,
    sid: LazyStateID,
}

impl LineStream for DfaLine<'_> {
    fn feed(&mut self, bytes: &[u8]) -> Result<bool, Error> {
        for &b in bytes {
            self.sid = self.dfa.next_state(&mut self.cache, self.sid, b).map_err(gave_up)?;
            if self.sid.is_match() {
                return Ok(true);
            }
            if self.sid.is_dead() {
                return Ok(false);
            }
        }
        Ok(false)
    }

    fn finish(&mut self) -> Result<bool, Error> {
        if self.sid.is_match() {
            return Ok(true);
        }
        // Matches show one byte late: step over the line's newline, which
        // also lets `$` match at the end of the line.
        let sid = self.dfa.next_state(&mut self.cache, self.sid, b'\n').map_err(gave_up)?;
        Ok(sid.is_match())
    }
}

fn gave_up(e: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::Match(e.to_string()))
}

/// Parses a Perl-dialect pattern as the Rust engine reads it: bytes,
/// multi-line anchors (a NUL-ended line is the subject: `^` and `$` are
/// its ends), no octal escapes. An error gives the offset and the reason.
/// Parses a pattern with a matcher's options (`--multiline-dotall`'s `.`).
fn parse_with(pattern: &str, opts: &Options) -> Result<Hir, (Option<usize>, String)> {
    let dot_all = opts.multiline && opts.dot_all;
    parse_as(pattern, opts.ignore_case, opts.terminator, opts.text, dot_all)
}

pub(crate) fn parse(
    pattern: &str,
    ignore_case: bool,
    terminator: LineTerminator,
    text: Text,
) -> Result<Hir, (Option<usize>, String)> {
    parse_as(pattern, ignore_case, terminator, text, false)
}

fn parse_as(
    pattern: &str,
    ignore_case: bool,
    terminator: LineTerminator,
    text: Text,
    dot_all: bool,
) -> Result<Hir, (Option<usize>, String)> {
    let unicode = text == Text::Unicode;
    let rewritten;
    let pattern = match unicode {
        true => {
            rewritten = unicode_posix_classes(pattern);
            &rewritten
        }
        false => pattern,
    };
    regex_syntax::ParserBuilder::new()
        .unicode(unicode)
        .utf8(false)
        .multi_line(terminator == LineTerminator::Newline)
        .case_insensitive(ignore_case)
        .dot_matches_new_line(dot_all)
        .octal(false)
        .build()
        .parse(pattern)
        .map_err(|e| syntax_error_parts(&e))
}

/// POSIX classes as PCRE2 reads them in UTF mode with Unicode properties
/// (the Rust parser's are ASCII in any mode): `[[:alpha:]]` is `\p{L}`,
/// `[[:digit:]]` `\p{Nd}`, and so on; the others stay ASCII (PCRE2's
/// `graph`, `print` and `punct` rules are its own). Offsets after a
/// rewritten class move, so an error in such a pattern is named without
/// one (the pattern is checked as written first).
fn unicode_posix_classes(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut copied = 0;
    for t in tokens(pattern, Brackets::Perl) {
        let TokenKind::PosixClass { end } = t.kind else { continue };
        let class = &pattern[t.at..end];
        let (negated, name) = match class.strip_prefix("[:^") {
            Some(rest) => (true, rest.trim_end_matches(":]")),
            None => (false, class.trim_start_matches("[:").trim_end_matches(":]")),
        };
        let unicode = match name {
            "alpha" => "\\p{L}",
            "alnum" => "\\p{L}\\p{N}",
            "digit" => "\\p{Nd}",
            "lower" => "\\p{Ll}",
            "upper" => "\\p{Lu}",
            "space" => "\\s",
            "word" => "\\p{L}\\p{N}_",
            "blank" => "\\t\\p{Zs}",
            "cntrl" => "\\p{Cc}",
            _ => continue,
        };
        out.push_str(&pattern[copied..t.at]);
        match negated {
            // A negated POSIX class inside a class: a nested negated class.
            true => out.push_str(&format!("[^{unicode}]")),
            false => out.push_str(unicode),
        }
        copied = end;
    }
    out.push_str(&pattern[copied..]);
    out
}

/// The offset and the reason of a parse error.
fn syntax_error_parts(e: &regex_syntax::Error) -> (Option<usize>, String) {
    match e {
        regex_syntax::Error::Parse(e) => (Some(e.span().start.offset), e.kind().to_string()),
        regex_syntax::Error::Translate(e) => (Some(e.span().start.offset), e.kind().to_string()),
        _ => (None, e.to_string().replace('\n', " ")),
    }
}

/// Rewrites a syntax tree so that it never matches the line terminator
/// `term` and its text anchors are line anchors (the engine is configured
/// with the same terminator): each line behaves as if it were the whole
/// subject.
fn to_line_semantics(hir: Hir, term: u8) -> Hir {
    let again = |h: Hir| to_line_semantics(h, term);
    match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(hir::Literal(bytes)) => {
            if bytes.contains(&term) {
                Hir::fail()
            } else {
                Hir::literal(bytes)
            }
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([ClassBytesRange::new(term, term)]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Class(Class::Unicode(mut c)) => {
            let t = char::from(term);
            c.difference(&hir::ClassUnicode::new([hir::ClassUnicodeRange::new(t, t)]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::Start => Look::StartLF,
            Look::End => Look::EndLF,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(again(*rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(again(*cap.sub));
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(again).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.into_iter().map(again).collect()),
    }
}

/// Whether the Rust parser reads `pattern` with PCRE's meaning wherever it
/// accepts it. Constructs the two dialects read differently send the pattern
/// to PCRE2: class set operations (`&&`, `--`, `~~`) and nested classes,
/// `\v` (a vertical-space class in PCRE), `\<`/`\>` (literals in PCRE),
/// `{,n}`, `\b{...}`, and extended mode (which treats spaces in classes
/// differently).
pub(crate) fn has_rust_meaning(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let after = |t: &Token, n: usize| b.get(t.at + n).copied();
    tokens(pattern, Brackets::Perl).all(|t| match t.kind {
        TokenKind::Escape(Some('v' | '<' | '>' | 'Q' | 'E')) => false,
        TokenKind::Escape(Some('b' | 'B')) => after(&t, 2) != Some(b'{'),
        // A nested class (a POSIX class is a token of its own).
        TokenKind::Char { c: '[', in_class: true } => false,
        // An unknown POSIX class name: the Rust parser would read a nested
        // set of letters, PCRE2 reports it.
        TokenKind::PosixClass { end } => known_posix_class(&b[t.at..end]),
        // `[:space:]` outside brackets: PCRE2 rejects it, the Rust parser
        // reads a set of letters.
        TokenKind::ClassOpen { negated: false } if posix_syntax_at(b, t.at) => false,
        TokenKind::Char { c: c @ ('&' | '-' | '~'), in_class: true } => {
            after(&t, 1) != Some(c as u8)
        }
        TokenKind::Char { c: '{', in_class: false } => after(&t, 1) != Some(b','),
        // Possessive quantifiers: Rust reads `x++` as `(x+)+`.
        TokenKind::Char { c: '*' | '+' | '?' | '}', in_class: false } => after(&t, 1) != Some(b'+'),
        // Inline flags: extended mode differs between the dialects.
        TokenKind::Char { c: '(', in_class: false } if after(&t, 1) == Some(b'?') => !b[t.at + 2..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic() || **c == b'-')
            .any(|c| *c == b'x'),
        _ => true,
    })
}

/// Whether `[:name:]` (or `[:^name:]`) names a class both engines know.
fn known_posix_class(class: &[u8]) -> bool {
    let Some(name) = class.strip_prefix(b"[:").and_then(|c| c.strip_suffix(b":]")) else {
        // [=c=] and [.c.] are not Perl syntax at all.
        return false;
    };
    let name = name.strip_prefix(b"^").unwrap_or(name);
    matches!(
        name,
        b"alnum"
            | b"alpha"
            | b"ascii"
            | b"blank"
            | b"cntrl"
            | b"digit"
            | b"graph"
            | b"lower"
            | b"print"
            | b"punct"
            | b"space"
            | b"upper"
            | b"word"
            | b"xdigit"
    )
}

/// Whether the bracket at `at` starts POSIX class syntax (`[:name:]`,
/// `[.c.]`, `[=c=]`), which PCRE2 accepts only inside a class.
fn posix_syntax_at(b: &[u8], at: usize) -> bool {
    let Some(&kind @ (b':' | b'.' | b'=')) = b.get(at + 1) else { return false };
    let rest = &b[at + 2..];
    match rest.iter().position(|&c| c == b']') {
        Some(i) => i > 0 && rest[i - 1] == kind,
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::has_rust_meaning;

    #[test]
    fn inner_literal_candidates_find_every_match() {
        use crate::{Matcher, MatcherBuilder};
        let m = MatcherBuilder::new().build(&[br"\w+_RESUME".to_vec()]).unwrap();
        let crate::AnyMatcher::Rust(r) = &m else { panic!("rust engine expected") };
        assert!(r.inner.is_some());
        let hay = b"x PM_RESUME\n_RESUME\nfoo\nab_RESUME_RESUME z\n";
        let mut got = vec![];
        let mut at = 0;
        while let Some(x) = m.find_at(hay, at).unwrap() {
            got.push(&hay[x.start..x.end]);
            at = x.end;
        }
        let want: Vec<&[u8]> = vec![b"PM_RESUME", b"ab_RESUME_RESUME"];
        assert_eq!(got, want);
    }

    #[test]
    fn literal_alternations_with_rare_pairs_are_found_by_them() {
        use crate::{Engine, MatcherBuilder};
        let inner = |p: &str| {
            let m = MatcherBuilder::new().engine(Engine::Rust).build(&[p.as_bytes().to_vec()]);
            let m = m.unwrap();
            let crate::AnyMatcher::Rust(r) = m else { panic!("rust engine expected") };
            r.inner
        };
        for p in ["ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", "EINVAL|ENOMEM|EBUSY"] {
            assert!(matches!(inner(p), Some(super::InnerLiterals::Windows(_))), "{p}");
        }
        // A long shared prefix the engine searches for; no rare pair; one literal.
        for p in ["MODULE_LICENSE|MODULE_AUTHOR", "foo|bar|baz", "PM_RESUME"] {
            assert!(inner(p).is_none(), "{p}");
        }
    }

    #[test]
    fn dialect_differences_are_detected() {
        for p in [
            r"[a&&b]",
            r"[[a]b]",
            r"\v",
            r"\<a",
            r"a{,3}",
            r"(?x) a",
            r"[a--b]",
            r"\Qa.b\E",
            r"x++x",
            r"a{2}+",
            r"[[:notdef:]]",
            r"[[:alph:]]",
            r"[:space:]",
            r"a[:digit:]b",
        ] {
            assert!(!has_rust_meaning(p), "{p}");
        }
        for p in [
            r"[[:alpha:]]+",
            r"[]a]",
            r"[^]a]",
            r"a-b",
            r"[a-z]",
            r"\w+_RESUME",
            r"(?i)x",
            r"[^a][b]",
        ] {
            assert!(has_rust_meaning(p), "{p}");
        }
    }
}
