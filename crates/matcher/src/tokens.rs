//! The one scanner of pattern text: splits a pattern into escapes, bracket
//! expressions (with their members) and other characters, following the
//! bracket rules of its dialect. Translating a dialect, checking whether
//! the Rust engine reads a pattern as PCRE2 does, choosing how PCRE2
//! searches a buffer and `--smart-case` all read patterns through it.

/// How the inside of a bracket expression is read.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Brackets {
    /// Perl: a backslash escapes the next character; `[:name:]` is a class
    /// when its `:]` follows somewhere, else `[` is a member.
    Perl,
    /// POSIX (basic and extended): a backslash is a member; `[:name:]`,
    /// `[=c=]` and `[.c.]` are classes, running to the end of the pattern
    /// when unterminated (for the engine to report).
    Posix,
    /// Emacs: a backslash is a member, and so is `[` (no classes).
    Emacs,
    /// Awk (GNU's RE_BACKSLASH_ESCAPE_IN_LISTS): as POSIX, but a backslash
    /// makes the character after it a member (`[\]]`, `[\\]`).
    PosixEscapes,
}

/// One piece of pattern text, starting at byte `at`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Token {
    /// Byte offset of the token's first character.
    pub(crate) at: usize,
    pub(crate) kind: TokenKind,
}

/// What a piece of pattern text is.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum TokenKind {
    /// A backslash and the character after it (None: the pattern ends with
    /// the backslash). Inside a bracket expression only with
    /// [`Brackets::Perl`].
    Escape(Option<char>),
    /// `[` opening a bracket expression, with its `^` when `negated`.
    ClassOpen { negated: bool },
    /// A POSIX class such as `[:alpha:]` inside a bracket expression; its
    /// text is `at..end`.
    PosixClass { end: usize },
    /// `]` closing a bracket expression.
    ClassClose,
    /// Any other character; `in_class` inside a bracket expression (where a
    /// `]` right after the opening is a member).
    Char { c: char, in_class: bool },
}

/// The tokens of `pattern`, read with the bracket rules `brackets`.
pub(crate) fn tokens(pattern: &str, brackets: Brackets) -> Tokens<'_> {
    Tokens { text: pattern, at: 0, class: ClassState::Outside, brackets, quoted: false }
}

/// Where the scanner is relative to bracket expressions.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum ClassState {
    Outside,
    /// Just after `[` or `[^`: a `]` here is a member.
    Opened,
    Inside,
}

/// Iterator over the tokens of a pattern (see [`tokens`]).
pub(crate) struct Tokens<'a> {
    text: &'a str,
    at: usize,
    class: ClassState,
    brackets: Brackets,
    /// Between Perl's `\Q` and `\E`: every character is a literal.
    quoted: bool,
}

impl Tokens<'_> {
    /// The end of a POSIX class starting at `at` (`[` followed by one of
    /// the class kinds), if the dialect reads one there.
    fn posix_class_end(&self, at: usize) -> Option<usize> {
        let b = self.text.as_bytes();
        let kind = *b.get(at + 1)?;
        match self.brackets {
            Brackets::Emacs => None,
            Brackets::Perl if kind == b':' => {
                memchr::memmem::find(&b[at + 2..], b":]").map(|i| at + 2 + i + 2)
            }
            Brackets::Perl => None,
            Brackets::Posix | Brackets::PosixEscapes if matches!(kind, b':' | b'=' | b'.') => {
                let close = [kind, b']'];
                Some(memchr::memmem::find(&b[at + 2..], &close).map_or(b.len(), |i| at + 2 + i + 2))
            }
            Brackets::Posix | Brackets::PosixEscapes => None,
        }
    }
}

impl Iterator for Tokens<'_> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let at = self.at;
        let mut chars = self.text[at..].chars();
        let c = chars.next()?;
        self.at += c.len_utf8();
        let in_class = self.class != ClassState::Outside;
        if self.quoted {
            if c == '\\' && chars.next() == Some('E') {
                self.at += 1;
                self.quoted = false;
                return Some(Token { at, kind: TokenKind::Escape(Some('E')) });
            }
            if in_class {
                self.class = ClassState::Inside;
            }
            return Some(Token { at, kind: TokenKind::Char { c, in_class } });
        }
        let opened = self.class == ClassState::Opened;
        if in_class {
            self.class = ClassState::Inside;
        }
        let kind = match c {
            // Awk: the character after a backslash is a member.
            '\\' if in_class && self.brackets == Brackets::PosixEscapes => match chars.next() {
                Some(n) => {
                    self.at += n.len_utf8();
                    TokenKind::Char { c: n, in_class }
                }
                None => TokenKind::Char { c, in_class },
            },
            '\\' if !in_class || self.brackets == Brackets::Perl => {
                let next = chars.next();
                self.at += next.map_or(0, char::len_utf8);
                // Perl's \Q quotes up to \E (or the end).
                self.quoted = next == Some('Q') && self.brackets == Brackets::Perl;
                TokenKind::Escape(next)
            }
            '[' if !in_class => {
                let negated = chars.next() == Some('^');
                if negated {
                    self.at += 1;
                }
                self.class = ClassState::Opened;
                TokenKind::ClassOpen { negated }
            }
            ']' if in_class && !opened => {
                self.class = ClassState::Outside;
                TokenKind::ClassClose
            }
            '[' if in_class => match self.posix_class_end(at) {
                Some(end) => {
                    self.at = end;
                    TokenKind::PosixClass { end }
                }
                None => TokenKind::Char { c, in_class },
            },
            _ => TokenKind::Char { c, in_class },
        };
        Some(Token { at, kind })
    }
}

#[cfg(test)]
mod tests {
    use super::{tokens, Brackets, TokenKind::*};

    fn kinds(p: &str, b: Brackets) -> Vec<super::TokenKind> {
        tokens(p, b).map(|t| t.kind).collect()
    }

    #[test]
    fn brackets_follow_the_dialect() {
        let ch = |c, in_class| Char { c, in_class };
        assert_eq!(
            kinds(r"[]\a]", Brackets::Perl),
            [ClassOpen { negated: false }, ch(']', true), Escape(Some('a')), ClassClose]
        );
        assert_eq!(
            kinds(r"[^]\]", Brackets::Posix),
            [ClassOpen { negated: true }, ch(']', true), ch('\\', true), ClassClose]
        );
        assert_eq!(
            kinds(r"[[:alpha:]]", Brackets::Posix),
            [ClassOpen { negated: false }, PosixClass { end: 10 }, ClassClose]
        );
        assert_eq!(
            kinds(r"[[:a]", Brackets::Emacs),
            [ClassOpen { negated: false }, ch('[', true), ch(':', true), ch('a', true), ClassClose]
        );
        assert_eq!(
            kinds(r"[[:a]", Brackets::Perl),
            [ClassOpen { negated: false }, ch('[', true), ch(':', true), ch('a', true), ClassClose]
        );
        assert_eq!(
            kinds(r"[[=a", Brackets::Posix),
            [ClassOpen { negated: false }, PosixClass { end: 4 }]
        );
        assert_eq!(kinds("é\\", Brackets::Perl), [ch('é', false), Escape(None)]);
        // Awk: a backslash quotes the member after it.
        assert_eq!(
            kinds(r"[\]\\a]", Brackets::PosixEscapes),
            [
                ClassOpen { negated: false },
                ch(']', true),
                ch('\\', true),
                ch('a', true),
                ClassClose
            ]
        );
        // \Q...\E quotes brackets (Perl only).
        assert_eq!(
            kinds(r"\Q[\E[", Brackets::Perl),
            [Escape(Some('Q')), ch('[', false), Escape(Some('E')), ClassOpen { negated: false }]
        );
    }
}
