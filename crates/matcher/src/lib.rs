//! The matcher: one small trait and the engines behind it.
//!
//! trawl searches whole buffers that hold many lines, yet every engine here
//! honours grep's line semantics: a match never spans a newline, `^` and `$`
//! anchor at line boundaries, and look-around cannot see past the line. The
//! searcher can therefore run one engine call over a buffer of thousands of
//! lines and only look for line boundaries around the matches it gets back.
//!
//! Three engines implement [`Matcher`]:
//! - [`RustMatcher`]: the Rust regex engine (`regex-automata`'s meta regex over
//!   bytes), with the pattern's syntax tree rewritten so that no class can
//!   match `\n`. The default.
//! - [`PcreMatcher`]: PCRE2 with JIT, for what the Rust engine lacks
//!   (look-around, backreferences, atomic groups, `\K`, recursion, ...).
//! - [`FixedMatcher`]: fixed strings (`-F`, or a pattern with no special
//!   byte): a vector search for one, a case-blind pair filter, a shift table
//!   (Wu-Manber), windows of four bytes 64 positions at a time (9 to 64
//!   strings, case-sensitive, AVX-512 VBMI), a shift-or filter (more than
//!   64, case-sensitive) or Aho-Corasick for several (other sets of several
//!   go to the Rust engine as an alternation).
//!
//! [`MatcherBuilder`] holds the grep options that shape a pattern (`-F`, `-G`,
//! `-i`, `-S`, `-w`, `-x`, several `-e`) and picks the engine.
//!
//! Pattern text is read by one tokenizer (`tokens`), which the engine
//! choice, PCRE2's buffer mode and `--smart-case` share; [`to_perl`]
//! translates the POSIX and emacs dialects (grep `-G`, find `-regextype`)
//! for either engine. A POSIX pattern that glibc or GNU grep would refuse is
//! named by a [`PosixError`] ([`check_find_regex`] for find's dialects).
//!
//! ```
//! use trawl_matcher::{Matcher, MatcherBuilder};
//! let m = MatcherBuilder::new().build(&["fo+".into()]).unwrap();
//! let hit = m.find_at(b"one\nfoo two\n", 0).unwrap().unwrap();
//! assert_eq!((hit.start, hit.end), (4, 7));
//! ```
#![deny(missing_docs)]

mod budget;
mod check;
mod dialect;
mod factor;
mod fixed;
mod fold;
mod fold_set;
mod follow;
mod literal;
mod pcre;
mod pcre_info;
mod posix_error;
mod quads;
mod regcomp;
mod rust;
mod shift;
mod shift_or;
mod slots;
mod tokens;
mod wide_pairs;
mod windows;

use std::fmt;

pub use crate::check::BadPattern;
pub use crate::dialect::{to_perl, Dialect, Flavor};
pub use crate::fixed::FixedMatcher;
use crate::pcre::Joining;
pub use crate::pcre::PcreMatcher;
pub use crate::posix_error::PosixError;
pub use crate::regcomp::check_find_regex;
pub use crate::rust::RustMatcher;

/// The byte range of one match in a haystack.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct Match {
    /// Offset of the first byte of the match.
    pub start: usize,
    /// Offset one past the last byte of the match.
    pub end: usize,
}

impl Match {
    /// Creates a match covering `start..end`.
    pub fn new(start: usize, end: usize) -> Match {
        Match { start, end }
    }

    /// Whether the match is empty.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// A compiled pattern that finds matches in a buffer of `\n`-terminated lines.
///
/// Implementations guarantee grep's line semantics: a returned match lies
/// within one line, and the result is the same as if each line had been
/// searched on its own (with `at` as the start offset into the line).
pub trait Matcher: Send + Sync {
    /// Returns the leftmost match that starts at or after `at`.
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error>;

    /// The length of the shortest possible match: a file shorter than this
    /// cannot match and need not be read.
    fn min_len(&self) -> usize {
        0
    }

    /// Whether the pattern is free of line anchors (`^`, `$`, `-x`), so
    /// that where a line has no match, no piece of it has one: a searcher
    /// may then look for a match in a file before cutting its lines at NUL
    /// bytes (grep's binary-file rule), and skip the NUL check when there is
    /// none. False when unsure.
    fn unanchored(&self) -> bool {
        false
    }

    /// A matcher that decides whether one line matches from pieces fed in
    /// order, so a line too long to hold need not be held; None when the
    /// engine cannot do that.
    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        None
    }

    /// The capture groups of `m`, a match [`Matcher::find_at`] found in
    /// `line` (searched on its own): `groups[i]` is group `i` (0: the whole
    /// match), None for a group that took no part. An engine without groups
    /// (fixed strings) gives the match alone.
    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        let _ = line;
        groups.clear();
        groups.push(Some(m));
        Ok(())
    }

    /// The number of the group named `name`, if the pattern has one.
    fn group_number(&self, name: &str) -> Option<usize> {
        let _ = name;
        None
    }

    /// The longest a match can be, when nothing but its own bytes decides
    /// it (no anchor, word boundary or look-around): then a match found in
    /// a piece of a line, at a start followed by that many bytes of the
    /// piece, is the line's, so a line too long to hold can be searched
    /// for `-o` piece by piece. None when unknown.
    fn bounded_len(&self) -> Option<usize> {
        None
    }
}

/// Decides whether one line matches, fed in pieces.
pub trait LineStream {
    /// Feeds the next bytes of the line (without its terminator). Returns
    /// `Ok(true)` once a match is certain (the rest need not be fed), `Err`
    /// if the engine gave up.
    fn feed(&mut self, bytes: &[u8]) -> Result<bool, Error>;

    /// Ends the line; returns whether it matched.
    fn finish(&mut self) -> Result<bool, Error>;
}

/// An error building a matcher or running it.
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The pattern is not valid; the message shows where.
    Syntax(String),
    /// The engine gave up on a haystack (for example PCRE2's backtracking limit).
    Match(String),
    /// A requested combination of options is not supported.
    Unsupported(String),
    /// Patterns that do not compile, each checked alone.
    Patterns(Vec<BadPattern>),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The patterns that do not compile, when that is what went wrong.
    pub fn bad_patterns(&self) -> &[BadPattern] {
        match &self.kind {
            ErrorKind::Patterns(bad) => bad,
            _ => &[],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Syntax(m) | ErrorKind::Match(m) | ErrorKind::Unsupported(m) => {
                f.write_str(m)
            }
            ErrorKind::Patterns(bad) => {
                for (k, b) in bad.iter().enumerate() {
                    if k > 0 {
                        f.write_str("; ")?;
                    }
                    f.write_str(&b.reason)?;
                    if let Some(at) = b.offset {
                        write!(f, " (at offset {at})")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Error {}

/// The dialect the patterns are written in.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Syntax {
    /// Perl-compatible regular expressions (the default; `-P` too).
    #[default]
    Perl,
    /// POSIX extended regular expressions (`-E`): read as the Perl dialect,
    /// with GNU grep's check of bracket expressions that look like a class
    /// without its brackets (`[:space:]`).
    Extended,
    /// POSIX basic regular expressions (`-G`), translated to the Perl dialect.
    Basic,
    /// Fixed strings (`-F`).
    Fixed,
}

/// The byte that ends a line, for the searcher, the matcher and the printer.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum LineTerminator {
    /// `\n`, grep's default.
    #[default]
    Newline,
    /// NUL (`-z`/`--null-data`): a newline is an ordinary byte inside a
    /// line, which is then the subject of the pattern as in `grep -z`
    /// (`^` and `$` anchor at its ends, `(?m)` at newlines within it).
    Nul,
}

impl LineTerminator {
    /// The terminating byte.
    pub fn byte(self) -> u8 {
        match self {
            LineTerminator::Newline => b'\n',
            LineTerminator::Nul => 0,
        }
    }
}

/// What a pattern's characters are: bytes (the C locale, as GNU grep's
/// `LC_ALL=C`), or Unicode characters in UTF-8 (a UTF-8 locale, as ripgrep
/// always): `.` and negated classes then match one whole character, `-i`
/// folds Unicode case, `\w \d \s \b` and POSIX classes cover Unicode,
/// `\p{...}` names Unicode properties. Bytes that are not UTF-8 in the
/// text never stop a search; a pattern that is not UTF-8 itself is read
/// as bytes.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Text {
    /// Bytes (the default).
    #[default]
    Bytes,
    /// Unicode characters encoded in UTF-8.
    Unicode,
}

/// Which engine runs a regular expression.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Engine {
    /// The Rust engine when it supports the pattern with grep's meaning, else PCRE2.
    #[default]
    Auto,
    /// Always PCRE2 (`-P`).
    Pcre2,
    /// Always the Rust engine; patterns it cannot run are an error.
    Rust,
}

/// Builds a matcher from grep options and patterns.
#[derive(Clone, Debug, Default)]
pub struct MatcherBuilder {
    syntax: Syntax,
    engine: Engine,
    ignore_case: bool,
    smart_case: bool,
    word: bool,
    line: bool,
    terminator: LineTerminator,
    text: Text,
    multiline: bool,
    dot_all: bool,
}

impl MatcherBuilder {
    /// A builder with grep's defaults (Perl dialect, automatic engine).
    pub fn new() -> MatcherBuilder {
        MatcherBuilder::default()
    }

    /// The dialect of the patterns.
    pub fn syntax(&mut self, syntax: Syntax) -> &mut Self {
        self.syntax = syntax;
        self
    }

    /// The engine for regular expressions.
    pub fn engine(&mut self, engine: Engine) -> &mut Self {
        self.engine = engine;
        self
    }

    /// `-i`: ASCII case-insensitive matching (the C locale).
    pub fn ignore_case(&mut self, yes: bool) -> &mut Self {
        self.ignore_case = yes;
        self
    }

    /// `-S`: case-insensitive unless a pattern has an uppercase letter.
    pub fn smart_case(&mut self, yes: bool) -> &mut Self {
        self.smart_case = yes;
        self
    }

    /// `-w`: a match must not be preceded or followed by a word character.
    pub fn word(&mut self, yes: bool) -> &mut Self {
        self.word = yes;
        self
    }

    /// `-x`: a match must cover the whole line.
    pub fn line(&mut self, yes: bool) -> &mut Self {
        self.line = yes;
        self
    }

    /// The byte that ends a line (`-z`: NUL).
    pub fn terminator(&mut self, terminator: LineTerminator) -> &mut Self {
        self.terminator = terminator;
        self
    }

    /// `--multiline`: a match may span lines (`\n` matches a newline); the
    /// searcher then gives the matcher whole texts, not lines.
    pub fn multiline(&mut self, yes: bool) -> &mut Self {
        self.multiline = yes;
        self
    }

    /// `--multiline-dotall`: with `--multiline`, `.` matches a newline.
    pub fn dot_all(&mut self, yes: bool) -> &mut Self {
        self.dot_all = yes;
        self
    }

    /// Whether patterns are read as bytes or as Unicode text.
    pub fn text(&mut self, text: Text) -> &mut Self {
        self.text = text;
        self
    }

    /// The text mode in force for `lines`: Unicode only when asked for and
    /// every pattern is UTF-8.
    fn text_for(&self, lines: &[Vec<u8>]) -> Text {
        match self.text {
            Text::Unicode if lines.iter().all(|l| std::str::from_utf8(l).is_ok()) => Text::Unicode,
            _ => Text::Bytes,
        }
    }

    /// Compiles `patterns`; a line matches when any of them matches. A
    /// pattern that contains newlines counts as one pattern per line (grep).
    ///
    /// Each pattern is checked alone before they are combined; the error
    /// then lists every pattern that does not compile
    /// ([`Error::bad_patterns`]).
    pub fn build(&self, patterns: &[Vec<u8>]) -> Result<AnyMatcher, Error> {
        let (lines, ignore_case) = self.lines(patterns);
        let text = self.text_for(&lines);
        let opts = Options {
            ignore_case,
            word: self.word,
            line: self.line,
            terminator: self.terminator,
            text,
            multiline: self.multiline,
            dot_all: self.dot_all,
        };
        if lines.is_empty() {
            // `-f /dev/null`: no pattern, no match.
            return Ok(AnyMatcher::Fixed(FixedMatcher::new(&[], false)?));
        }

        // A pattern of letters, digits, `_`, `-`, spaces and other bytes that
        // mean nothing in any dialect is its own fixed string: no regex to
        // parse and compile (a third of a tiny search's start).
        let syntax = if self.engine == Engine::Auto && lines.iter().all(|l| is_plain(l)) {
            Syntax::Fixed
        } else {
            self.syntax
        };
        let regexes: Vec<String> = match syntax {
            Syntax::Fixed => {
                // Unicode case: the fixed-string searches fold ASCII only, and
                // `k` and `s` have non-ASCII folds (K, ſ).
                let unicode_case = text == Text::Unicode
                    && ignore_case
                    && lines
                        .iter()
                        .flatten()
                        .any(|b| !b.is_ascii() || matches!(b.to_ascii_lowercase(), b'k' | b's'));
                let by_regex =
                    self.word || self.line || self.engine == Engine::Pcre2 || unicode_case;
                if !by_regex && !fixed::regex_engine_first(&lines, ignore_case) {
                    return Ok(AnyMatcher::Fixed(FixedMatcher::new(&lines, ignore_case)?));
                }
                // Longest first: leftmost-first then equals grep -F's leftmost-longest.
                let mut sorted: Vec<&Vec<u8>> = lines.iter().collect();
                sorted.sort_by_key(|p| std::cmp::Reverse(p.len()));
                let escaped: Vec<String> = sorted.iter().map(|p| escape(p, text)).collect();
                if by_regex {
                    return self.compile(&escaped, &opts);
                }
                return match self.compile(&escaped, &opts) {
                    Ok(m @ AnyMatcher::Rust(_)) => Ok(m),
                    // Too large for the regex engine (a huge case-blind set).
                    _ => Ok(AnyMatcher::Fixed(FixedMatcher::new(&lines, ignore_case)?)),
                };
            }
            Syntax::Basic | Syntax::Extended | Syntax::Perl => self.perl_patterns(&lines)?,
        };
        // Joined, one pattern can hide another's error: several are checked
        // first; one is checked only when it fails, to name its position.
        if regexes.len() > 1 {
            self.check_each(&lines, &regexes)?;
            return self.compile(&regexes, &opts);
        }
        self.compile(&regexes, &opts)
            .map_err(|e| self.check_each(&lines, &regexes).err().unwrap_or(e))
    }

    /// The patterns, one per line (a pattern holding newlines is several),
    /// and whether case is ignored (`-i`, or `--smart-case` with no upper
    /// case letter in any of them).
    fn lines(&self, patterns: &[Vec<u8>]) -> (Vec<Vec<u8>>, bool) {
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for p in patterns {
            lines.extend(p.split(|&b| b == b'\n').map(<[u8]>::to_vec));
        }
        let unicode = self.text_for(&lines) == Text::Unicode;
        let upper = |p: &Vec<u8>| match unicode {
            true => pattern_has_uppercase(p),
            false => pattern_has_uppercase_letter(p),
        };
        let ignore_case = self.ignore_case || (self.smart_case && !lines.iter().any(upper));
        (lines, ignore_case)
    }

    /// The patterns (one per line) in the Perl dialect both engines read
    /// (`-G` translated); an error lists the `-G` patterns that are wrong.
    fn perl_patterns(&self, lines: &[Vec<u8>]) -> Result<Vec<String>, Error> {
        Ok(match self.syntax {
            Syntax::Fixed => lines.iter().map(|p| escape(p, self.text_for(lines))).collect(),
            // Spelled for PCRE2: `\<` and `\>` need its lookarounds, so the
            // Rust engine declines a pattern holding them.
            Syntax::Basic => {
                let mut out = Vec::with_capacity(lines.len());
                let mut bad = Vec::new();
                for (index, p) in lines.iter().enumerate() {
                    // Bytes that are not UTF-8 stand in as private-use
                    // characters while the dialect is translated, then become
                    // `\xHH` (a translated `\x` would be a literal x).
                    let text = bytes_to_placeholders(p);
                    if let Err(reason) = dialect::check_basic(&text) {
                        bad.push(BadPattern { index, offset: None, reason: reason.to_string() });
                    }
                    let perl = to_perl(&text, Dialect::Basic, Flavor::Pcre);
                    let perl = placeholders_to_escapes(&dialect::posix_brackets_for_perl(&perl));
                    // With NUL ending lines, GNU's `.` matches a newline.
                    out.push(match self.terminator {
                        LineTerminator::Nul => format!("(?s){perl}"),
                        LineTerminator::Newline => perl,
                    });
                }
                if !bad.is_empty() {
                    return Err(Error::new(ErrorKind::Patterns(bad)));
                }
                out
            }
            Syntax::Extended => {
                let bad: Vec<BadPattern> = lines
                    .iter()
                    .enumerate()
                    .filter_map(|(index, p)| {
                        let text = bytes_to_placeholders(p);
                        let reason = match dialect::misplaced_class(&text) {
                            true => Err(PosixError::MisplacedClass),
                            false => dialect::check_extended_references(&text),
                        };
                        let reason = reason.err()?.to_string();
                        Some(BadPattern { index, offset: None, reason })
                    })
                    .collect();
                if !bad.is_empty() {
                    return Err(Error::new(ErrorKind::Patterns(bad)));
                }
                lines
                    .iter()
                    .map(|p| dialect::posix_brackets_for_perl(&bytes_to_pattern(p)).into_owned())
                    .collect()
            }
            Syntax::Perl => lines.iter().map(|p| bytes_to_pattern(p)).collect(),
        })
    }

    /// The syntax trees of `patterns` as the Rust engine parses them, for
    /// the index's query planner: every line a pattern matches, its tree
    /// matches too (`-w` and `-x` only narrow what matches, so they are
    /// left out). None when a pattern has no such tree (PCRE-only syntax,
    /// or an error): then every file may match.
    pub fn syntax_trees(&self, patterns: &[Vec<u8>]) -> Option<Vec<regex_syntax::hir::Hir>> {
        let (lines, ignore_case) = self.lines(patterns);
        let regexes = self.perl_patterns(&lines).ok()?;
        regexes
            .iter()
            .map(|r| {
                if !rust::has_rust_meaning(r) {
                    return None;
                }
                rust::parse(r, ignore_case, self.terminator, self.text_for(&lines)).ok()
            })
            .collect()
    }

    /// Checks each Perl-dialect pattern alone; the error lists all that fail.
    fn check_each(&self, lines: &[Vec<u8>], regexes: &[String]) -> Result<(), Error> {
        let checker = match self.engine {
            Engine::Rust => check::Checker::Rust,
            Engine::Auto | Engine::Pcre2 => check::Checker::Pcre,
        };
        // Offsets in a translated pattern are not offsets in the user's.
        let perl = matches!(self.syntax, Syntax::Perl | Syntax::Extended);
        let same_text = |p: &[u8], r: &str| perl && p == r.as_bytes();
        // The default engine words a misplaced class as GNU grep does (as
        // under -G and -E); `-P` keeps PCRE2's words, as grep -P.
        let reworded = |p: &[u8], failure: (Option<usize>, String)| match self.engine {
            Engine::Auto | Engine::Rust
                if perl && dialect::misplaced_class(&bytes_to_placeholders(p)) =>
            {
                (None, PosixError::MisplacedClass.to_string())
            }
            _ => failure,
        };
        let bad: Vec<BadPattern> = regexes
            .iter()
            .zip(lines)
            .enumerate()
            .filter_map(|(index, (r, p))| {
                check::check_alone(r, checker, same_text(p, r), self.text_for(lines))
                    .err()
                    .map(|failure| reworded(p, failure))
                    .map(|(offset, reason)| BadPattern { index, offset, reason })
            })
            .collect();
        if bad.is_empty() {
            Ok(())
        } else {
            Err(Error::new(ErrorKind::Patterns(bad)))
        }
    }

    /// Compiles checked Perl-dialect patterns with the chosen engine.
    fn compile(&self, regexes: &[String], opts: &Options) -> Result<AnyMatcher, Error> {
        let joining = if regexes.len() > 1 && regexes.iter().any(|r| check::refers_to_groups(r)) {
            Joining::Apart
        } else {
            Joining::Together
        };
        let pcre = || PcreMatcher::new(regexes, opts, joining).map(AnyMatcher::Pcre);
        match self.engine {
            Engine::Pcre2 => pcre(),
            Engine::Rust => {
                if let Some(r) = regexes.iter().find(|r| !rust::has_rust_meaning(r)) {
                    return Err(Error::new(ErrorKind::Unsupported(format!(
                        "'{r}': the Rust engine reads this pattern differently from Perl; use -P"
                    ))));
                }
                Ok(AnyMatcher::Rust(Box::new(RustMatcher::new(regexes, opts)?)))
            }
            Engine::Auto => {
                if regexes.iter().all(|r| rust::has_rust_meaning(r)) {
                    // Decided from the syntax tree, before the automata are built.
                    if let Ok(parsed) = rust::Parsed::new(regexes, opts) {
                        // Repeating something that can match empty: PCRE2 ends
                        // such loops differently, which changes match extents.
                        if parsed.has_nullable_loop() {
                            return pcre();
                        }
                        // Large counted repetitions blow up the automata;
                        // PCRE2 is the reference for every pattern, so only
                        // its failure to compile one keeps the Rust engine.
                        if parsed.counted_repetition_size() > MAX_COUNTED_REPETITION {
                            if let Ok(m) = pcre() {
                                return Ok(m);
                            }
                        }
                        if let Ok(m) = parsed.build() {
                            return Ok(AnyMatcher::Rust(Box::new(m)));
                        }
                    }
                }
                pcre()
            }
        }
    }
}

/// The most pattern positions counted repetitions may add before the
/// automatic choice prefers PCRE2 (see `Parsed::counted_repetition_size`:
/// `a{1000}` costs the Rust engine 10 ms on an 8 KiB line of `a`, `a{2000}`
/// 60 ms, `a{8000}` 0.6 s).
const MAX_COUNTED_REPETITION: usize = 500;

/// Options that shape how each engine wraps the patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub(crate) ignore_case: bool,
    pub(crate) word: bool,
    pub(crate) line: bool,
    pub(crate) terminator: LineTerminator,
    pub(crate) text: Text,
    /// `--multiline`: a match may span lines.
    pub(crate) multiline: bool,
    /// `--multiline-dotall`: `.` matches a newline too.
    pub(crate) dot_all: bool,
}

/// The matcher chosen at run time; dispatches to one engine.
#[derive(Debug)]
pub enum AnyMatcher {
    /// The Rust regex engine.
    Rust(Box<RustMatcher>),
    /// PCRE2.
    Pcre(PcreMatcher),
    /// Aho-Corasick over fixed strings.
    Fixed(FixedMatcher),
}

impl AnyMatcher {
    /// A short name of the engine, for `--stats` and debugging.
    pub fn engine_name(&self) -> &'static str {
        match self {
            AnyMatcher::Rust(_) => "rust-regex",
            AnyMatcher::Pcre(_) => "pcre2",
            AnyMatcher::Fixed(m) => m.engine(),
        }
    }
}

impl Matcher for AnyMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        match self {
            AnyMatcher::Rust(m) => m.find_at(haystack, at),
            AnyMatcher::Pcre(m) => m.find_at(haystack, at),
            AnyMatcher::Fixed(m) => m.find_at(haystack, at),
        }
    }

    fn unanchored(&self) -> bool {
        match self {
            AnyMatcher::Rust(m) => m.unanchored(),
            AnyMatcher::Pcre(m) => m.unanchored(),
            AnyMatcher::Fixed(m) => m.unanchored(),
        }
    }

    fn min_len(&self) -> usize {
        match self {
            AnyMatcher::Rust(m) => m.min_len(),
            AnyMatcher::Pcre(m) => m.min_len(),
            AnyMatcher::Fixed(m) => m.min_len(),
        }
    }

    fn line_stream(&self) -> Option<Box<dyn LineStream + '_>> {
        match self {
            AnyMatcher::Rust(m) => m.line_stream(),
            AnyMatcher::Pcre(m) => m.line_stream(),
            AnyMatcher::Fixed(m) => m.line_stream(),
        }
    }

    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        match self {
            AnyMatcher::Rust(r) => r.captures(line, m, groups),
            AnyMatcher::Pcre(r) => r.captures(line, m, groups),
            AnyMatcher::Fixed(r) => r.captures(line, m, groups),
        }
    }

    fn group_number(&self, name: &str) -> Option<usize> {
        match self {
            AnyMatcher::Rust(r) => r.group_number(name),
            AnyMatcher::Pcre(r) => r.group_number(name),
            AnyMatcher::Fixed(r) => r.group_number(name),
        }
    }

    fn bounded_len(&self) -> Option<usize> {
        match self {
            AnyMatcher::Rust(r) => r.bounded_len(),
            AnyMatcher::Pcre(r) => r.bounded_len(),
            AnyMatcher::Fixed(r) => r.bounded_len(),
        }
    }
}

/// Whether a pattern contains an uppercase ASCII letter that is not part of
/// an escape such as `\S` or `\W` (for `--smart-case`).
pub fn pattern_has_uppercase_letter(pattern: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pattern);
    tokens::tokens(&text, tokens::Brackets::Perl).any(|t| match t.kind {
        tokens::TokenKind::Char { c, .. } => c.is_ascii_uppercase(),
        tokens::TokenKind::PosixClass { end } => {
            text[t.at..end].bytes().any(|b| b.is_ascii_uppercase())
        }
        _ => false,
    })
}

/// As [`pattern_has_uppercase_letter`], for Unicode text: any uppercase
/// letter (`É` too).
fn pattern_has_uppercase(pattern: &[u8]) -> bool {
    let text = String::from_utf8_lossy(pattern);
    tokens::tokens(&text, tokens::Brackets::Perl).any(|t| match t.kind {
        tokens::TokenKind::Char { c, .. } => c.is_uppercase(),
        tokens::TokenKind::PosixClass { end } => text[t.at..end].chars().any(char::is_uppercase),
        _ => false,
    })
}

/// Turns pattern bytes into pattern text: invalid UTF-8 bytes become `\xHH`
/// escapes, which both engines read as that byte (the C locale).
fn bytes_to_pattern(p: &[u8]) -> String {
    match std::str::from_utf8(p) {
        Ok(s) => s.to_string(),
        Err(_) => {
            let mut out = String::new();
            for chunk in p.utf8_chunks() {
                out.push_str(chunk.valid());
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            }
            out
        }
    }
}

/// The first of 256 private-use characters standing for bytes that are not
/// UTF-8 while a POSIX pattern is translated.
const BYTE_PLACEHOLDER: u32 = 0xF0000;

/// Pattern bytes as text, each byte that is not UTF-8 as a placeholder.
fn bytes_to_placeholders(p: &[u8]) -> String {
    let mut out = String::with_capacity(p.len());
    for chunk in p.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BYTE_PLACEHOLDER + u32::from(b)).expect("a private-use char"));
        }
    }
    out
}

/// Placeholders back to `\xHH` escapes, which both engines read as that
/// byte (the C locale).
fn placeholders_to_escapes(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for c in p.chars() {
        match (c as u32).checked_sub(BYTE_PLACEHOLDER) {
            Some(b) if b < 256 => out.push_str(&format!("\\x{b:02X}")),
            _ => out.push(c),
        }
    }
    out
}

/// Whether `p` reads the same as a fixed string in every dialect (BRE, ERE,
/// Perl): letters, digits, `_`, `-`, space, `,`, `:`, `;`, `/`, `=`, `@`,
/// `%`, `&`, `!`, `~`, `'`, `"`, `<`, `>` (GNU's `\<` needs the backslash),
/// and non-ASCII bytes, taken one by one in the C locale. `#` is left out
/// (a comment under `(?x)`, which needs a `(` anyway, but kept simple).
fn is_plain(p: &[u8]) -> bool {
    p.iter().all(|&b| {
        b.is_ascii_alphanumeric()
            || b >= 0x80
            || matches!(
                b,
                b'_' | b'-'
                    | b' '
                    | b','
                    | b':'
                    | b';'
                    | b'/'
                    | b'='
                    | b'@'
                    | b'%'
                    | b'&'
                    | b'!'
                    | b'~'
                    | b'\''
                    | b'"'
                    | b'<'
                    | b'>'
            )
    })
}

/// Escapes fixed-string bytes as a Perl pattern that matches them literally.
/// A fixed string as a pattern of the text mode: in Unicode mode its
/// non-ASCII characters stay themselves (`\xHH` would name a character).
fn escape(p: &[u8], text: Text) -> String {
    match (text, std::str::from_utf8(p)) {
        (Text::Unicode, Ok(s)) => {
            let mut out = String::with_capacity(p.len());
            for c in s.chars() {
                if c.is_ascii() && !(c.is_ascii_alphanumeric() || c == '_' || c == ' ') {
                    out.push_str(&format!("\\x{:02X}", c as u32));
                } else {
                    out.push(c);
                }
            }
            out
        }
        _ => escape_bytes(p),
    }
}

fn escape_bytes(p: &[u8]) -> String {
    let mut out = String::new();
    for &b in p {
        if b.is_ascii_alphanumeric() || b == b'_' || b == b' ' {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests;
