//! Each pattern checked on its own, before the patterns are combined: a
//! combination can hide a pattern's error (`-e '[' -e ']'` joined is a valid
//! class) or report it at an offset inside the combination. Also: which
//! patterns cannot share one regex, because they refer to groups by number
//! or name.

use crate::options::{LineTerminator, Text};
use crate::tokens::{tokens, Brackets, TokenKind};

/// Which parser decides whether a Perl-dialect pattern is valid.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Checker {
    /// PCRE2, the reference (`grep -P`).
    Pcre,
    /// The Rust parser (`--engine rust`).
    Rust,
}

/// Checks Perl-dialect `pattern` alone; `offset_valid` says whether offsets
/// into it are offsets into what the user wrote.
pub(crate) fn check_alone(
    pattern: &str,
    checker: Checker,
    offset_valid: bool,
    text: Text,
) -> Result<(), (Option<usize>, String)> {
    let unicode = text == Text::Unicode;
    let (offset, reason) = match checker {
        Checker::Pcre => {
            match pcre2::bytes::RegexBuilder::new().utf(unicode).ucp(unicode).build(pattern) {
                Ok(_) => return Ok(()),
                Err(e) => (e.offset(), crate::pcre::compile_error(&e)),
            }
        }
        Checker::Rust => {
            match crate::rust::syntax::parse(pattern, false, LineTerminator::Newline, text) {
                Ok(_) => return Ok(()),
                Err(e) => e,
            }
        }
    };
    Err((offset.filter(|_| offset_valid), reason))
}

/// Whether `pattern` refers to its own groups by number or name, or holds
/// something that reaches beyond its own alternative (backtracking verbs,
/// whole-pattern recursion), so that joining it with other patterns in one
/// alternation would change what it means.
pub(crate) fn refers_to_groups(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    tokens(pattern, Brackets::Perl).any(|t| match t.kind {
        TokenKind::Escape(Some('1'..='9' | 'g' | 'k')) => true,
        TokenKind::Char { c: '(', in_class: false } => match b.get(t.at + 1) {
            Some(b'*') => true,
            Some(b'?') => match b.get(t.at + 2) {
                // (?<name>…), but not the look-behinds (?<= and (?<!
                Some(b'<') => {
                    b.get(t.at + 3).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_')
                }
                // (?'name'…) (?&name) (?R) (?(condition) (?P<name>…) (?P=name) (?+1) (?1)
                Some(b'\'' | b'&' | b'R' | b'(' | b'P' | b'+' | b'0'..=b'9') => true,
                // (?-1), but not the flags of (?-i)
                Some(b'-') => b.get(t.at + 3).is_some_and(u8::is_ascii_digit),
                _ => false,
            },
            _ => false,
        },
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::refers_to_groups;

    #[test]
    fn patterns_that_refer_to_their_groups_are_found() {
        for p in [
            r"(a)\1",
            r"(a)\g{1}",
            r"(?<x>a)",
            r"(?'x'a)",
            r"(?P<x>a)",
            r"(a)(?1)",
            r"(?R)",
            r"(a)(?(1)b|c)",
            r"a(*COMMIT)b",
            r"(?&x)",
            r"(?-1)",
            r"(?+1)(a)",
            r"\k<x>",
        ] {
            assert!(refers_to_groups(p), "{p}");
        }
        for p in [r"(a)b", r"(?:a)", r"(?i)a", r"(?<=a)b", r"(?<!a)b", r"(?=a)", r"(?-i:a)"] {
            assert!(!refers_to_groups(p), "{p}");
        }
    }
}
