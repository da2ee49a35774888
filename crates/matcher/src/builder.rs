//! [`MatcherBuilder`]: grep's options that shape the patterns (`-F`, `-G`,
//! `-E`, `-P`, `-i`, `-S`, `-w`, `-x`, `-z`, several `-e`), each pattern
//! checked alone, and the choice of engine (a plain pattern as a fixed
//! string, PCRE2 for what the Rust engine reads otherwise).

use crate::any::AnyMatcher;
use crate::check;
use crate::dialect::{self, to_perl, Dialect, Flavor};
use crate::error::{BadPattern, Error, ErrorKind};
use crate::fixed::{self, FixedMatcher};
use crate::options::{Engine, LineTerminator, Options, Syntax, Text};
use crate::pattern_text::{
    bytes_to_pattern, bytes_to_placeholders, escape, is_plain, pattern_has_uppercase,
    pattern_has_uppercase_letter, placeholders_to_escapes,
};
use crate::pcre::{Joining, PcreMatcher};
use crate::posix_error::PosixError;
use crate::rust::{self, RustMatcher};

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
                if !rust::syntax::has_rust_meaning(r) {
                    return None;
                }
                rust::syntax::parse(r, ignore_case, self.terminator, self.text_for(&lines)).ok()
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
                if let Some(r) = regexes.iter().find(|r| !rust::syntax::has_rust_meaning(r)) {
                    return Err(Error::new(ErrorKind::Unsupported(format!(
                        "'{r}': the Rust engine reads this pattern differently from Perl; use -P"
                    ))));
                }
                Ok(AnyMatcher::Rust(Box::new(RustMatcher::new(regexes, opts)?)))
            }
            Engine::Auto => {
                if regexes.iter().all(|r| rust::syntax::has_rust_meaning(r)) {
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
