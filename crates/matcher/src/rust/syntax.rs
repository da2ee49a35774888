//! A pattern as the Rust engine reads it: parsed (Unicode POSIX classes as
//! PCRE2 reads them), rewritten for grep's line semantics, checked for
//! constructs the two dialects read differently, and measured for what
//! sends a pattern to PCRE2 (loops over what can match empty, large
//! counted repetitions).

use regex_syntax::hir::{self, Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look};

use crate::options::{LineTerminator, Options, Text};
use crate::tokens::{tokens, Brackets, Token, TokenKind};

/// Parses a pattern with a matcher's options (`--multiline-dotall`'s `.`),
/// as [`parse`] does.
pub(crate) fn parse_with(pattern: &str, opts: &Options) -> Result<Hir, (Option<usize>, String)> {
    let dot_all = opts.multiline && opts.dot_all;
    parse_as(pattern, opts.ignore_case, opts.terminator, opts.text, dot_all)
}

/// Parses a Perl-dialect pattern as the Rust engine reads it: bytes,
/// multi-line anchors (a NUL-ended line is the subject: `^` and `$` are
/// its ends), no octal escapes. An error gives the offset and the reason.
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
pub(crate) fn to_line_semantics(hir: Hir, term: u8) -> Hir {
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

/// Whether `hir` repeats (more than once) something that can match the empty
/// string, like `(a?)+` or `(\s*\w*)*`.
pub(crate) fn has_nullable_loop(hir: &Hir) -> bool {
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
pub(crate) fn counted_repetition_size(hir: &Hir) -> usize {
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

#[cfg(test)]
mod tests {
    use super::has_rust_meaning;

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
