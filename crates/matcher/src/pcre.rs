//! PCRE2 with JIT, kept to grep's line semantics.

use pcre2::bytes::{Regex, RegexBuilder};

use crate::error::{Error, ErrorKind};
use crate::matcher::{Match, Matcher};
use crate::options::{LineTerminator, Options, Text};
use crate::pcre_info;
use crate::tokens::{tokens, Brackets, TokenKind};

/// A pattern compiled by PCRE2 (with JIT where available), in the C locale:
/// bytes, ASCII classes and case folding, as `LC_ALL=C grep -P`.
///
/// GNU grep runs PCRE2 on one line at a time. Doing the same here would cost
/// one call per line, so for most patterns the whole buffer is scanned in
/// multi-line mode and a hit is confirmed on its line alone only when the
/// buffer could have changed the answer (the match crossed a newline, or a
/// look-around may have seen the neighbouring line). Patterns whose result on
/// a buffer could miss a line's match (negative look-around, atomic groups,
/// possessive quantifiers, `\A`, `\z`, verbs, recursion, ...) run line by line.
#[derive(Debug)]
pub struct PcreMatcher {
    /// One regex, or one per pattern when they cannot share one.
    parts: Vec<Part>,
}

/// Whether several patterns are compiled as one alternation.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Joining {
    /// One regex: `(?:p1)|(?:p2)|…`.
    Together,
    /// One regex per pattern, for patterns that refer to their own groups
    /// by number or name (joined, `(b)\1` would refer to another pattern's
    /// group); the leftmost match wins, the earlier pattern on a tie, as in
    /// an alternation.
    Apart,
}

/// One compiled regex and how far its buffer-wide hits can be trusted.
#[derive(Debug)]
struct Part {
    regex: Regex,
    mode: Mode,
    /// A byte every match holds, when PCRE2 knows no first byte: only
    /// the lines that hold it are searched, each alone. (Whole buffers
    /// cost more there: PCRE2 checks that the byte follows a start
    /// position, which in a buffer it always does, somewhere below.)
    required: Option<u8>,
    /// The byte that ends a line.
    term: u8,
}

/// How a buffer-wide hit relates to the per-line answer.
#[derive(Clone, Copy, Debug, Eq, PartialEq, PartialOrd, Ord)]
enum Mode {
    /// A hit inside one line is the line's answer.
    Direct,
    /// Positive look-around may have looked past the line: confirm every hit.
    ConfirmAlways,
    /// The buffer may hide a line's match: search each line on its own.
    LineByLine,
    /// `--multiline`: a match may span lines; the buffer's hit is the answer.
    Spanning,
}

impl PcreMatcher {
    /// Compiles Perl-dialect `patterns` (any of them may match).
    pub(crate) fn new(
        patterns: &[String],
        opts: &Options,
        joining: Joining,
    ) -> Result<PcreMatcher, Error> {
        let parts = match joining {
            Joining::Together => vec![Part::new(patterns, opts)?],
            Joining::Apart => patterns
                .iter()
                .map(|p| Part::new(std::slice::from_ref(p), opts))
                .collect::<Result<_, _>>()?,
        };
        Ok(PcreMatcher { parts })
    }
}

impl Part {
    fn new(patterns: &[String], opts: &Options) -> Result<Part, Error> {
        // A NUL-ended line is searched alone as the subject, as `grep -Pz`
        // does: `^` and `$` at its ends (`$` not before a final newline:
        // grep sets PCRE2_DOLLAR_ENDONLY), `(?m)` anchors at its newlines.
        let record = opts.terminator == LineTerminator::Nul;
        let mode = if opts.multiline {
            Mode::Spanning
        } else if record {
            Mode::LineByLine
        } else {
            patterns.iter().map(|p| classify(p)).max().unwrap_or(Mode::Direct)
        };
        let dollar_end_only = |p: &String| if record { dollar_end_only(p) } else { p.clone() };
        let joined = if patterns.len() == 1 {
            dollar_end_only(&patterns[0])
        } else {
            patterns
                .iter()
                .map(|p| format!("(?:{})", dollar_end_only(p)))
                .collect::<Vec<_>>()
                .join("|")
        };
        // The same wrappers as GNU grep's pcresearch.c.
        let full = if opts.line && record {
            format!("^(?:{joined})\\z")
        } else if opts.line {
            format!("^(?:{joined})$")
        } else if opts.word {
            format!("(?<!\\w)(?:{joined})(?!\\w)")
        } else {
            joined
        };
        let regex = RegexBuilder::new()
            .caseless(opts.ignore_case)
            .multi_line(!record)
            .dotall(opts.dot_all)
            .utf(opts.text == Text::Unicode)
            .ucp(opts.text == Text::Unicode)
            .jit_if_available(true)
            .max_jit_stack_size(Some(16 << 20))
            .build(&full)
            .map_err(|e| Error::new(ErrorKind::Syntax(compile_error(&e))))?;
        let required = match opts.multiline {
            true => None,
            false => pcre_info::required_byte(&full, opts.ignore_case, !record),
        };
        Ok(Part { regex, mode, required, term: opts.terminator.byte() })
    }

    fn find_raw(&self, subject: &[u8], at: usize) -> Result<Option<(usize, usize)>, Error> {
        match self.regex.find_at(subject, at) {
            Ok(Some(m)) => Ok(Some((m.start(), m.end().max(m.start())))),
            Ok(None) => Ok(None),
            Err(e) => Err(Error::new(ErrorKind::Match(match_error(&e)))),
        }
    }

    /// Searches the line `hay[ls..le]` alone, from `at`.
    fn find_in_line(
        &self,
        hay: &[u8],
        ls: usize,
        le: usize,
        at: usize,
    ) -> Result<Option<Match>, Error> {
        Ok(self.find_raw(&hay[ls..le], at - ls)?.map(|(s, e)| Match::new(ls + s, ls + e)))
    }

    fn find_at(&self, hay: &[u8], mut at: usize) -> Result<Option<Match>, Error> {
        if self.mode == Mode::Spanning {
            return Ok(self.find_raw(hay, at)?.map(|(s, e)| Match::new(s, e)));
        }
        if let Some(byte) = self.required {
            let other = if byte.is_ascii_alphabetic() { byte ^ 0x20 } else { byte };
            while at <= hay.len() {
                let Some(p) = memchr::memchr2(byte, other, &hay[at..]).map(|i| at + i) else {
                    return Ok(None);
                };
                let ls = line_start(hay, p, self.term);
                let le = line_end(hay, p, self.term);
                if let Some(m) = self.find_in_line(hay, ls, le, at.max(ls))? {
                    return Ok(Some(m));
                }
                at = le + 1;
            }
            return Ok(None);
        }
        if self.mode == Mode::LineByLine {
            let mut ls = line_start(hay, at, self.term);
            loop {
                let le = line_end(hay, ls, self.term);
                if let Some(m) = self.find_in_line(hay, ls, le, at.max(ls))? {
                    return Ok(Some(m));
                }
                if le >= hay.len() {
                    return Ok(None);
                }
                ls = le + 1;
                at = ls;
            }
        }
        loop {
            let Some((s, e)) = self.find_raw(hay, at)? else { return Ok(None) };
            let ls = line_start(hay, s, self.term);
            let le = line_end(hay, s, self.term);
            if self.mode == Mode::Direct && e <= le {
                return Ok(Some(Match::new(s, e)));
            }
            if let Some(m) = self.find_in_line(hay, ls, le, at.max(ls))? {
                return Ok(Some(m));
            }
            if le >= hay.len() {
                return Ok(None);
            }
            at = le + 1;
        }
    }
}

/// PCRE2's reason for refusing a pattern, without the crate's prefix
/// ("PCRE2: error compiling pattern at offset N: ").
pub(crate) fn compile_error(e: &pcre2::Error) -> String {
    let text = e.to_string();
    let reason = match text.splitn(3, ": ").nth(2) {
        Some(reason) => reason.to_string(),
        None => text,
    };
    // The engine's option names are not the user's business:
    // "two named subpatterns have the same name (PCRE2_DUPNAMES not set)".
    match reason.find(" (PCRE2_") {
        Some(i) if reason.ends_with(')') => reason[..i].to_string(),
        _ => reason,
    }
}

/// A matching error in GNU grep's words (pcresearch.c).
fn match_error(e: &pcre2::Error) -> String {
    // The codes of pcre2.h.
    match e.code() {
        -47 => "exceeded PCRE's backtracking limit".into(),
        -53 => "exceeded PCRE's nested backtracking limit".into(),
        -63 => "exceeded PCRE's heap limit".into(),
        -46 => "exhausted PCRE JIT stack".into(),
        -48 => "memory exhausted".into(),
        -52 => "PCRE detected recurse loop".into(),
        code => format!("internal PCRE error: {code}"),
    }
}

impl Matcher for PcreMatcher {
    fn find_at(&self, hay: &[u8], at: usize) -> Result<Option<Match>, Error> {
        let [first, rest @ ..] = self.parts.as_slice() else { return Ok(None) };
        let mut best = first.find_at(hay, at)?;
        for part in rest {
            // Only a match that starts earlier can win, and a match never
            // spans lines: the search ends with the best match's line.
            let limit = match part.mode {
                Mode::Spanning => hay.len(),
                _ => best.map_or(hay.len(), |b| line_end(hay, b.start, part.term)),
            };
            if let Some(m) = part.find_at(&hay[..limit], at)? {
                if best.is_none_or(|b| m.start < b.start) {
                    best = Some(m);
                }
            }
        }
        Ok(best)
    }

    /// The groups of the first part whose match at `m.start` is `m` (the
    /// part that found it).
    fn captures(
        &self,
        line: &[u8],
        m: Match,
        groups: &mut Vec<Option<Match>>,
    ) -> Result<(), Error> {
        groups.clear();
        for part in &self.parts {
            let mut locs = part.regex.capture_locations();
            let found = part
                .regex
                .captures_read_at(&mut locs, line, m.start)
                .map_err(|e| Error::new(ErrorKind::Match(e.to_string())))?;
            if found.is_some_and(|f| f.start() == m.start && f.end() == m.end) {
                groups.extend((0..locs.len()).map(|i| locs.get(i).map(|(s, e)| Match::new(s, e))));
                return Ok(());
            }
        }
        groups.push(Some(m));
        Ok(())
    }

    fn group_number(&self, name: &str) -> Option<usize> {
        let names = self.parts.first()?.regex.capture_names();
        names.iter().position(|n| n.as_deref() == Some(name))
    }
}

fn line_start(hay: &[u8], pos: usize, term: u8) -> usize {
    memchr::memrchr(term, &hay[..pos]).map_or(0, |i| i + 1)
}

fn line_end(hay: &[u8], pos: usize, term: u8) -> usize {
    memchr::memchr(term, &hay[pos..]).map_or(hay.len(), |i| pos + i)
}

/// `pattern` with PCRE2_DOLLAR_ENDONLY's meaning, which the crate cannot
/// set: each `$` outside a class becomes `\z`. A pattern that turns on
/// multi-line mode, where `$` means before any newline, is left as it is.
fn dollar_end_only(pattern: &str) -> String {
    let b = pattern.as_bytes();
    let toks: Vec<_> = tokens(pattern, Brackets::Perl).collect();
    let multi_line = toks.iter().any(|t| {
        matches!(t.kind, TokenKind::Char { c: '(', in_class: false })
            && b.get(t.at + 1) == Some(&b'?')
            && b[t.at + 2..]
                .iter()
                .take_while(|c| c.is_ascii_alphabetic() || **c == b'-')
                .any(|c| *c == b'm')
    });
    if multi_line {
        return pattern.to_string();
    }
    let mut out = String::with_capacity(pattern.len() + 4);
    let mut last = 0;
    let mut quoted = false;
    for t in toks {
        match t.kind {
            TokenKind::Escape(Some('Q')) => quoted = true,
            TokenKind::Escape(Some('E')) => quoted = false,
            TokenKind::Char { c: '$', in_class: false } if !quoted => {
                out.push_str(&pattern[last..t.at]);
                out.push_str("\\z");
                last = t.at + 1;
            }
            _ => {}
        }
    }
    out.push_str(&pattern[last..]);
    out
}

/// Decides how far a buffer-wide search can be trusted for `pattern`; errs
/// toward the slower, always-right modes.
fn classify(pattern: &str) -> Mode {
    let b = pattern.as_bytes();
    let mut mode = Mode::Direct;
    for t in tokens(pattern, Brackets::Perl) {
        let next = b.get(t.at + 1).copied();
        match t.kind {
            // \A \z \Z \G anchor to the subject; \g and \k without a brace
            // may be subroutine calls.
            TokenKind::Escape(Some('A' | 'z' | 'Z' | 'G')) => return Mode::LineByLine,
            TokenKind::Escape(Some('g' | 'k')) if b.get(t.at + 2) != Some(&b'{') => {
                return Mode::LineByLine
            }
            TokenKind::Char { c: '*' | '+' | '?' | '}', in_class: false } if next == Some(b'+') => {
                return Mode::LineByLine
            }
            TokenKind::Char { c: '(', in_class: false } if next == Some(b'*') => {
                return Mode::LineByLine
            }
            TokenKind::Char { c: '(', in_class: false } if next == Some(b'?') => {
                let rest = &b[t.at + 2..];
                if rest.starts_with(b"=") || rest.starts_with(b"<=") {
                    mode = mode.max(Mode::ConfirmAlways);
                } else if rest.starts_with(b":")
                    || rest.starts_with(b"#")
                    || rest.starts_with(b"|")
                    || rest.starts_with(b"'")
                    || rest.starts_with(b"P<")
                    || (rest.starts_with(b"<") && !rest.starts_with(b"<!"))
                {
                    // Groups, comments, branch resets and named groups.
                } else {
                    // Flag groups (other than m) keep their meaning in a buffer.
                    let flags = rest.iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'-');
                    let mut flags_ok = true;
                    let mut n = 0;
                    for &f in flags {
                        n += 1;
                        if !matches!(f, b'i' | b's' | b'x' | b'U' | b'J' | b'n' | b'-') {
                            flags_ok = false;
                        }
                    }
                    let terminated = matches!(rest.get(n), Some(b')' | b':'));
                    if !(flags_ok && n > 0 && terminated) {
                        return Mode::LineByLine;
                    }
                }
            }
            _ => {}
        }
    }
    mode
}

#[cfg(test)]
mod tests {
    use super::{classify, Mode};

    #[test]
    fn dollar_means_the_end_of_the_subject() {
        use super::dollar_end_only;
        assert_eq!(dollar_end_only(r"a$|b\$[$]"), r"a\z|b\$[$]");
        assert_eq!(dollar_end_only(r"\Q$\E$"), r"\Q$\E\z");
        assert_eq!(dollar_end_only(r"(?m)a$"), r"(?m)a$");
    }

    #[test]
    fn classification() {
        assert_eq!(classify(r"(\w+)\s*=\s*\1\b"), Mode::Direct);
        assert_eq!(classify(r"(?i)copyright \(c\)"), Mode::Direct);
        assert_eq!(classify(r"(?<=struct )\w+"), Mode::ConfirmAlways);
        assert_eq!(classify(r"(?<name>a)\k{name}"), Mode::Direct);
        assert_eq!(classify(r"foo(?!bar)"), Mode::LineByLine);
        assert_eq!(classify(r"(?<!a)b"), Mode::LineByLine);
        assert_eq!(classify(r"a*+"), Mode::LineByLine);
        assert_eq!(classify(r"(?>a)"), Mode::LineByLine);
        assert_eq!(classify(r"\Aa"), Mode::LineByLine);
        assert_eq!(classify(r"(?-m)^a"), Mode::LineByLine);
        assert_eq!(classify(r"[(?!]"), Mode::Direct);
        assert_eq!(classify(r"(*UTF)a"), Mode::LineByLine);
    }
}
