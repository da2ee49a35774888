//! The one translator of regular-expression dialects: POSIX basic (grep
//! `-G`, find `-regextype posix-basic`), POSIX extended (and awk) and emacs
//! (find's default) into the Perl dialect, spelled for the engine that runs
//! it. Matching stays leftmost-first (Perl) rather than POSIX
//! leftmost-longest, which can only change the extent of a match.

use crate::tokens::{tokens, Brackets, Token, TokenKind};

/// A dialect of regular expressions.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Dialect {
    /// Perl-compatible: passed through as it is.
    Perl,
    /// POSIX basic: `\( \) \{ \} \| \+ \?` are operators and their bare
    /// forms literals; `*` at the start of an expression is literal; `^` and
    /// `$` are anchors only at the ends of an expression.
    Basic,
    /// POSIX extended (and awk): Perl's operators, but a backslash inside
    /// brackets is a member.
    Extended,
    /// Emacs (GNU find's default): `\( \) \|` are operators and their bare
    /// forms literals; `* + ?` are operators; braces are literal (no
    /// intervals); brackets have no character classes.
    Emacs,
}

/// The engine a translation is spelled for: they write word edges
/// differently.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Flavor {
    /// The Rust engine (`\b{start}`, `\b{end}`).
    Rust,
    /// PCRE2 (lookarounds).
    Pcre,
}

/// Translates `pattern`, written in `dialect`, into the Perl dialect of
/// `flavor`'s engine. Everywhere: `\<` and `\>` become word edges, a
/// backslash inside a bracket expression is a member, back-references keep
/// their meaning, and what is not an operator is escaped.
pub fn to_perl(pattern: &str, dialect: Dialect, flavor: Flavor) -> String {
    let brackets = match dialect {
        Dialect::Perl => return pattern.to_string(),
        Dialect::Basic | Dialect::Extended => Brackets::Posix,
        Dialect::Emacs => Brackets::Emacs,
    };
    let toks: Vec<Token> = tokens(pattern, brackets).collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    // Where a following '*' is literal and '^' is an anchor.
    let mut at_start = true;
    for (k, t) in toks.iter().enumerate() {
        let was_start = std::mem::replace(&mut at_start, false);
        match t.kind {
            TokenKind::ClassOpen { negated } => {
                out.push('[');
                if negated {
                    out.push('^');
                }
            }
            TokenKind::PosixClass { end } => out.push_str(&pattern[t.at..end]),
            TokenKind::ClassClose => out.push(']'),
            TokenKind::Char { c, in_class: true } => {
                let next = pattern[t.at + c.len_utf8()..].chars().next();
                push_member(&mut out, c, next);
            }
            TokenKind::Escape(None) => out.push('\\'),
            TokenKind::Escape(Some(n)) => match (dialect, n) {
                (_, '<') => out.push_str(word_start(flavor)),
                (_, '>') => out.push_str(word_end(flavor)),
                (Dialect::Extended, _) => {
                    out.push('\\');
                    out.push(n);
                }
                (_, '(' | '|') => {
                    out.push(n);
                    at_start = true;
                }
                (_, ')') => out.push(')'),
                (Dialect::Basic, '{' | '}' | '+' | '?') => out.push(n),
                (_, '`') => out.push_str(r"\A"),
                (_, '\'') => out.push_str(r"\z"),
                (_, '1'..='9' | 'w' | 'W' | 'b' | 'B') | (Dialect::Basic, 's' | 'S') => {
                    out.push('\\');
                    out.push(n);
                }
                _ => push_literal(&mut out, n),
            },
            TokenKind::Char { c, in_class: false } => match (dialect, c) {
                (Dialect::Extended, _) => out.push(c),
                (Dialect::Basic, '*') | (Dialect::Emacs, '*' | '+' | '?') if was_start => {
                    push_literal(&mut out, c)
                }
                (_, '^') if was_start => {
                    out.push('^');
                    at_start = true;
                }
                (_, '^') => out.push_str(r"\^"),
                (_, '$') => {
                    let at_end = match toks.get(k + 1) {
                        None => true,
                        Some(next) => matches!(next.kind, TokenKind::Escape(Some(')' | '|'))),
                    };
                    out.push_str(if at_end { "$" } else { r"\$" });
                }
                (_, '(' | ')' | '{' | '}' | '|') | (Dialect::Basic, '+' | '?') => {
                    out.push('\\');
                    out.push(c);
                }
                _ => out.push(c),
            },
        }
    }
    out
}

/// Appends `c` as a literal of the Perl dialect (escaped if punctuation).
fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        out.push(c);
    } else {
        out.push('\\');
        out.push(c);
    }
}

/// Appends a member of a POSIX bracket expression, escaping what Perl
/// engines read differently: a backslash (a member in POSIX), `[`, and the
/// set operators `&&`, `~~` and `--` of the Rust engine; `]` can only be
/// the first member.
fn push_member(out: &mut String, c: char, next: Option<char>) {
    if matches!(c, '\\' | '[' | ']' | '&' | '~') || (c == '-' && next == Some('-')) {
        out.push('\\');
    }
    out.push(c);
}

fn word_start(f: Flavor) -> &'static str {
    match f {
        Flavor::Rust => r"\b{start}",
        Flavor::Pcre => r"\b(?=\w)",
    }
}

fn word_end(f: Flavor) -> &'static str {
    match f {
        Flavor::Rust => r"\b{end}",
        Flavor::Pcre => r"\b(?<=\w)",
    }
}

#[cfg(test)]
mod tests {
    use super::{to_perl, Dialect, Flavor};

    fn bre(p: &str) -> String {
        to_perl(p, Dialect::Basic, Flavor::Pcre)
    }

    #[test]
    fn basic_translations() {
        assert_eq!(bre(r"a\(b\)\{2\}"), r"a(b){2}");
        assert_eq!(bre(r"a(b)+?|c"), r"a\(b\)\+\?\|c");
        assert_eq!(bre(r"*a*"), r"\*a*");
        assert_eq!(bre(r"^a^b$c$"), r"^a\^b\$c$");
        assert_eq!(bre(r"[\]x]"), r"[\\]x]");
        assert_eq!(bre(r"[]x]"), r"[\]x]");
        assert_eq!(bre(r"[[:alpha:]_]\+"), r"[[:alpha:]_]+");
        assert_eq!(bre(r"\<w\>"), r"\b(?=\w)w\b(?<=\w)");
        assert_eq!(to_perl(r"\<w\>", Dialect::Basic, Flavor::Rust), r"\b{start}w\b{end}");
        assert_eq!(bre(r"\(a\)\1"), r"(a)\1");
        assert_eq!(bre(r"\(a$\)b$\|c"), r"(a$)b$|c");
    }

    #[test]
    fn emacs_and_extended_translations() {
        let emacs = |p| to_perl(p, Dialect::Emacs, Flavor::Rust);
        assert_eq!(emacs(r".*/\(foo\|bar\)\.c"), r".*/(foo|bar)\.c");
        assert_eq!(emacs(r"+a{2}(x)"), r"\+a\{2\}\(x\)");
        assert_eq!(emacs(r"[[:alpha:]]"), r"[\[:alpha:]]");
        assert_eq!(emacs(r"\s"), r"s");
        let ere = |p| to_perl(p, Dialect::Extended, Flavor::Pcre);
        assert_eq!(ere(r"(a|b)+[\]\<"), r"(a|b)+[\\]\b(?=\w)");
        assert_eq!(ere(r"[a--b&&c]"), r"[a\--b\&\&c]");
    }
}
