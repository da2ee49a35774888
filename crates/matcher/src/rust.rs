//! The Rust regex engine, rewritten for grep's line semantics.

use regex_automata::meta;
use regex_automata::Input;
use regex_syntax::hir::{self, Class, ClassBytes, ClassBytesRange, Hir, HirKind, Look};

use crate::{Error, ErrorKind, Match, Matcher, Options};

/// A pattern compiled by `regex-automata`, searching bytes.
///
/// The syntax tree is rewritten before compilation: `\n` is removed from every
/// class and literal, `\A`/`\z` become line anchors, so the compiled regex
/// cannot match across lines and can scan a whole buffer at once.
#[derive(Debug)]
pub struct RustMatcher {
    regex: meta::Regex,
    min_len: usize,
}

impl RustMatcher {
    /// Compiles Perl-dialect `patterns` (any of them may match).
    pub(crate) fn new(patterns: &[String], opts: &Options) -> Result<RustMatcher, Error> {
        let mut alternatives = Vec::with_capacity(patterns.len());
        for p in patterns {
            let hir = regex_syntax::ParserBuilder::new()
                .unicode(false)
                .utf8(false)
                .multi_line(true)
                .case_insensitive(opts.ignore_case)
                .octal(false)
                .build()
                .parse(p)
                .map_err(|e| Error::new(ErrorKind::Syntax(e.to_string())))?;
            alternatives.push(to_line_semantics(hir));
        }
        let mut hir = Hir::alternation(alternatives);
        if opts.line {
            hir = Hir::concat(vec![Hir::look(Look::StartLF), hir, Hir::look(Look::EndLF)]);
        } else if opts.word {
            hir = Hir::concat(vec![
                Hir::look(Look::WordStartHalfAscii),
                hir,
                Hir::look(Look::WordEndHalfAscii),
            ]);
        }
        let min_len = hir.properties().minimum_len().unwrap_or(usize::MAX);
        let regex = meta::Regex::builder()
            .configure(meta::Config::new().utf8_empty(false))
            .build_from_hir(&hir)
            .map_err(|e| Error::new(ErrorKind::Syntax(e.to_string())))?;
        Ok(RustMatcher { regex, min_len })
    }
}

impl Matcher for RustMatcher {
    #[inline]
    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, Error> {
        let input = Input::new(haystack).span(at..haystack.len());
        Ok(self.regex.find(input).map(|m| Match::new(m.start(), m.end())))
    }

    fn min_len(&self) -> usize {
        self.min_len
    }
}

/// Rewrites a syntax tree so that it never matches `\n` and its text anchors
/// are line anchors: each line behaves as if it were the whole subject.
fn to_line_semantics(hir: Hir) -> Hir {
    match hir.into_kind() {
        HirKind::Empty => Hir::empty(),
        HirKind::Literal(hir::Literal(bytes)) => {
            if bytes.contains(&b'\n') {
                Hir::fail()
            } else {
                Hir::literal(bytes)
            }
        }
        HirKind::Class(Class::Bytes(mut c)) => {
            c.difference(&ClassBytes::new([ClassBytesRange::new(b'\n', b'\n')]));
            Hir::class(Class::Bytes(c))
        }
        HirKind::Class(Class::Unicode(mut c)) => {
            c.difference(&hir::ClassUnicode::new([hir::ClassUnicodeRange::new('\n', '\n')]));
            Hir::class(Class::Unicode(c))
        }
        HirKind::Look(look) => Hir::look(match look {
            Look::Start => Look::StartLF,
            Look::End => Look::EndLF,
            other => other,
        }),
        HirKind::Repetition(mut rep) => {
            rep.sub = Box::new(to_line_semantics(*rep.sub));
            Hir::repetition(rep)
        }
        HirKind::Capture(mut cap) => {
            cap.sub = Box::new(to_line_semantics(*cap.sub));
            Hir::capture(cap)
        }
        HirKind::Concat(subs) => Hir::concat(subs.into_iter().map(to_line_semantics).collect()),
        HirKind::Alternation(subs) => {
            Hir::alternation(subs.into_iter().map(to_line_semantics).collect())
        }
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
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\\' {
            match b.get(i + 1) {
                Some(b'v' | b'<' | b'>' | b'Q' | b'E') => return false,
                Some(b'b' | b'B') if b.get(i + 2) == Some(&b'{') => return false,
                _ => {}
            }
            i += 2;
            continue;
        }
        if in_class {
            match c {
                b'[' => {
                    if b.get(i + 1) == Some(&b':') {
                        // A POSIX class such as [:alpha:]: skip to its end.
                        match find(b, i + 2, b":]") {
                            Some(end) => i = end + 2,
                            None => return false,
                        }
                        continue;
                    }
                    return false;
                }
                b']' if i > class_start => in_class = false,
                b'&' | b'-' | b'~' if b.get(i + 1) == Some(&c) => return false,
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'[' => {
                in_class = true;
                i += 1;
                if b.get(i) == Some(&b'^') {
                    i += 1;
                }
                // A ']' right after '[' or '[^' is a literal member.
                class_start = i + 1;
                if b.get(i) == Some(&b']') {
                    i += 1;
                }
                continue;
            }
            b'{' if b.get(i + 1) == Some(&b',') => return false,
            b'(' if b.get(i + 1) == Some(&b'?') => {
                // Inline flags: extended mode differs between the dialects.
                let mut j = i + 2;
                while j < b.len() && (b[j].is_ascii_alphabetic() || b[j] == b'-') {
                    if b[j] == b'x' {
                        return false;
                    }
                    j += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    true
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay.get(from..)?, needle).map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::has_rust_meaning;

    #[test]
    fn dialect_differences_are_detected() {
        for p in [r"[a&&b]", r"[[a]b]", r"\v", r"\<a", r"a{,3}", r"(?x) a", r"[a--b]", r"\Qa.b\E"] {
            assert!(!has_rust_meaning(p), "{p}");
        }
        for p in [r"[[:alpha:]]+", r"[]a]", r"[^]a]", r"a-b", r"[a-z]", r"\w+_RESUME", r"(?i)x"] {
            assert!(has_rust_meaning(p), "{p}");
        }
    }
}
