//! The Rust regex engine, rewritten for grep's line semantics: the
//! patterns parsed and rewritten (syntax.rs), compiled, and searched with
//! the help of the literals every match holds (inner.rs); a lazy DFA
//! decides a line fed in pieces.

mod inner;
pub(crate) mod syntax;

use std::sync::OnceLock;

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::hybrid::LazyStateID;
use regex_automata::nfa::thompson;
use regex_automata::util::start;
use regex_automata::{meta, Anchored, Input};
use regex_syntax::hir::{Hir, Look};

use crate::error::{Error, ErrorKind};
use crate::matcher::{LineStream, Match, Matcher};
use crate::options::{LineTerminator, Options, Text};

use self::inner::InnerLiterals;
use self::syntax::{counted_repetition_size, has_nullable_loop, parse_with, to_line_semantics};

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

#[cfg(test)]
mod tests {
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
}
