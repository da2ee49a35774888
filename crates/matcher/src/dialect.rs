//! The one translator of regular-expression dialects: POSIX basic (grep
//! `-G`, find `-regextype posix-basic`), POSIX extended (and awk) and emacs
//! (find's default) into the Perl dialect, spelled for the engine that runs
//! it. Matching stays leftmost-first (Perl) rather than POSIX
//! leftmost-longest, which can only change the extent of a match.

use crate::posix_error::PosixError;
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
    /// egrep (GNU's RE_SYNTAX_EGREP): extended, but `*` at the start of an
    /// expression is ignored, and a `{` that opens no valid interval is a
    /// literal.
    Egrep,
    /// awk (RE_SYNTAX_AWK): extended without intervals (braces are
    /// literal), back-references or GNU's operators (`\w`, `\<`: the
    /// letter); a backslash inside brackets quotes the next character;
    /// `*` at the start is a literal.
    Awk,
    /// posix-awk: extended with intervals (an invalid one is literal) and
    /// back-references, without GNU's operators; a backslash inside
    /// brackets quotes.
    PosixAwk,
    /// gnu-awk: extended with intervals (an invalid one is literal) and
    /// GNU's operators; a backslash inside brackets quotes; `*` at the
    /// start is a literal.
    GnuAwk,
}

impl Dialect {
    /// Extended syntax: Perl's operators, bare.
    fn extended(self) -> bool {
        matches!(
            self,
            Dialect::Extended | Dialect::Egrep | Dialect::Awk | Dialect::PosixAwk | Dialect::GnuAwk
        )
    }

    /// GNU's operators (`\w \W \s \S \b \B \< \> \` \'`).
    fn gnu_ops(self) -> bool {
        !matches!(self, Dialect::Awk | Dialect::PosixAwk)
    }

    /// Bare `{m,n}` intervals.
    fn bare_intervals(self) -> bool {
        matches!(self, Dialect::Extended | Dialect::Egrep | Dialect::PosixAwk | Dialect::GnuAwk)
    }
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
        Dialect::Basic | Dialect::Extended | Dialect::Egrep => Brackets::Posix,
        Dialect::Awk | Dialect::PosixAwk | Dialect::GnuAwk => Brackets::PosixEscapes,
        Dialect::Emacs => Brackets::Emacs,
    };
    let toks: Vec<Token> = tokens(pattern, brackets).collect();
    let mut out = String::with_capacity(pattern.len() + 8);
    // Where a following '*' is literal and '^' is an anchor.
    let mut at_start = true;
    // Open groups of the extended dialects (an unmatched `)` is a literal).
    let mut depth = 0usize;
    let mut class = Class::default();
    let mut skip = None;
    for (k, t) in toks.iter().enumerate() {
        if skip == Some(k) {
            continue;
        }
        let was_start = std::mem::replace(&mut at_start, false);
        match t.kind {
            TokenKind::ClassOpen { negated } => {
                class = Class { start: out.len(), negated, members: 0, last: None };
                out.push('[');
                if negated {
                    out.push('^');
                }
            }
            TokenKind::PosixClass { end } => {
                class.members += 1;
                class.last = None;
                match collating_element(&pattern[t.at..end]) {
                    // `[.c.]` and `[=c=]` in the C locale: the character itself.
                    Some(c) => push_literal(&mut out, c),
                    None => out.push_str(&pattern[t.at..end]),
                }
            }
            TokenKind::ClassClose => {
                if class.members == 0 {
                    // Only backward ranges (emacs): nothing, or everything.
                    out.truncate(class.start);
                    out.push_str(if class.negated { r"[\x00-\xff]" } else { r"[^\x00-\xff]" });
                } else {
                    out.push(']');
                }
            }
            TokenKind::Char { c: '-', in_class: true }
                if dialect == Dialect::Emacs && class.backward_range(toks.get(k + 1)) =>
            {
                // Emacs reads `z-a` as an empty range; Perl refuses it.
                let (at, _) = class.last.take().expect("a range start");
                out.truncate(at);
                class.members -= 1;
                skip = Some(k + 1);
            }
            TokenKind::Char { c, in_class: true } => {
                let next = pattern[t.at + c.len_utf8()..].chars().next();
                class.members += 1;
                class.last = Some((out.len(), c));
                push_member(&mut out, c, next);
            }
            TokenKind::Escape(None) => out.push('\\'),
            // Without GNU's operators, `\w` is the letter; without
            // back-references (awk), `\1` is the digit.
            TokenKind::Escape(Some(n))
                if !dialect.gnu_ops() && matches!(n, '<' | '>' | '`' | '\'' | '0')
                    || !dialect.gnu_ops() && n.is_ascii_alphabetic()
                    || dialect == Dialect::Awk && n.is_ascii_digit() =>
            {
                push_literal(&mut out, n)
            }
            TokenKind::Escape(Some(n)) => match (dialect, n) {
                (_, '<') => {
                    out.push_str(word_start(flavor));
                    at_start = dialect.extended();
                }
                (_, '>') => {
                    out.push_str(word_end(flavor));
                    at_start = dialect.extended();
                }
                (d, _) if d.extended() => {
                    out.push('\\');
                    out.push(n);
                    at_start = matches!(n, 'b' | 'B' | '`' | '\'');
                }
                (_, '(' | '|') => {
                    out.push(n);
                    at_start = true;
                }
                (_, ')') => out.push(')'),
                // At the start of an expression `\\{` is a literal (GNU).
                (Dialect::Basic, '{') if was_start => push_literal(&mut out, '{'),
                // `\\{,n\\}`: Perl needs the 0 (`{,n}` is literal in PCRE2).
                (Dialect::Basic, '{') if pattern.as_bytes().get(t.at + 2) == Some(&b',') => {
                    out.push_str("{0")
                }
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
                // egrep ignores a repetition of nothing; awk and gnu-awk
                // read it as itself (the others refuse it).
                (d, '*' | '+' | '?' | '{')
                    if was_start && d.extended() && (c != '{' || d.bare_intervals()) =>
                {
                    if d == Dialect::Egrep {
                        at_start = true;
                    } else {
                        push_literal(&mut out, c);
                    }
                }
                (Dialect::Awk, '{' | '}') => push_literal(&mut out, c),
                (Dialect::Egrep | Dialect::PosixAwk | Dialect::GnuAwk, '{')
                    if !opens_interval(&pattern[t.at + 1..]) =>
                {
                    push_literal(&mut out, c)
                }
                (d, '(' | '|') if d.extended() => {
                    depth += usize::from(c == '(');
                    out.push(c);
                    at_start = true;
                }
                (d, ')') if d.extended() && depth == 0 => push_literal(&mut out, c),
                (d, ')') if d.extended() => {
                    depth -= 1;
                    out.push(c);
                }
                (d, '^' | '$') if d.extended() => {
                    out.push(c);
                    at_start = true;
                }
                (d, _) if d.extended() => out.push(c),
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

/// The bracket expression being translated.
#[derive(Default)]
struct Class {
    /// Where it starts in the output.
    start: usize,
    negated: bool,
    /// Members written so far.
    members: usize,
    /// The last member written (where, which): a range may start there.
    last: Option<(usize, char)>,
}

impl Class {
    /// Whether a `-` here, before token `next`, ends a range that runs
    /// backwards.
    fn backward_range(&self, next: Option<&Token>) -> bool {
        match (self.last, next.map(|t| t.kind)) {
            (Some((_, from)), Some(TokenKind::Char { c: to, in_class: true })) => to < from,
            _ => false,
        }
    }
}

/// Whether the text after a `{` is a valid interval: `m}`, `m,}`, `,n}`,
/// `m,n}` (m ≤ n).
fn opens_interval(rest: &str) -> bool {
    let Some(end) = rest.find('}') else { return false };
    let body = &rest[..end];
    let number = |s: &str| s.is_empty() || s.bytes().all(|b| b.is_ascii_digit());
    match body.split_once(',') {
        Some((lo, hi)) => {
            let ok = number(lo) && number(hi) && !(lo.is_empty() && hi.is_empty());
            ok && match (lo.parse::<u32>(), hi.parse::<u32>()) {
                (Ok(lo), Ok(hi)) => lo <= hi,
                _ => true,
            }
        }
        None => !body.is_empty() && number(body),
    }
}

/// Whether `pattern` (read with POSIX brackets) holds a bracket expression
/// that GNU grep refuses as a misplaced class, `[:space:]` for
/// `[[:space:]]`: its members are single characters only (no range, no
/// class), the first and the last is `:`, and another is not (`[:a:]`,
/// `[^:alpha:]`; not `[::]`, `[:a-z:]` or `[:[:alpha:]:]`).
pub fn misplaced_class(pattern: &str) -> bool {
    // The bracket being read: its members so far, and whether it is still
    // one of single characters.
    let mut members: Option<(Vec<char>, bool)> = None;
    for t in tokens(pattern, Brackets::Posix) {
        match (t.kind, members.as_mut()) {
            (TokenKind::ClassOpen { .. }, _) => members = Some((Vec::new(), true)),
            (TokenKind::Char { c, in_class: true }, Some((m, plain))) => {
                // A `-` between members makes a range (the first and last
                // members are `:` in the shape looked for).
                *plain &= c != '-';
                m.push(c);
            }
            (TokenKind::PosixClass { .. }, Some((_, plain))) => *plain = false,
            (TokenKind::ClassClose, Some((m, plain))) => {
                let shape = *plain
                    && m.first() == Some(&':')
                    && m.last() == Some(&':')
                    && m.iter().any(|&c| c != ':');
                if shape {
                    return true;
                }
                members = None;
            }
            _ => {}
        }
    }
    false
}

/// A POSIX expression (`-E`, or `-G` once translated) spelled for the Perl
/// dialect trawl runs it in: a bracket expression whose first member is
/// `:`, `.` or `=` (`[:a-z:]`, `[=a=]`, `[::]`) is a plain one in POSIX,
/// where PCRE2 would refuse a misplaced class, so that member is escaped.
pub fn posix_brackets_for_perl(pattern: &str) -> std::borrow::Cow<'_, str> {
    let mut at_first_member = false;
    let mut escapes = Vec::new();
    for t in tokens(pattern, Brackets::Perl) {
        if let (true, TokenKind::Char { c: ':' | '.' | '=', in_class: true }) =
            (at_first_member, t.kind)
        {
            escapes.push(t.at);
        }
        at_first_member = matches!(t.kind, TokenKind::ClassOpen { .. });
    }
    if escapes.is_empty() {
        return std::borrow::Cow::Borrowed(pattern);
    }
    let mut out = String::with_capacity(pattern.len() + escapes.len());
    let mut from = 0;
    for at in escapes {
        out.push_str(&pattern[from..at]);
        out.push('\\');
        from = at;
    }
    out.push_str(&pattern[from..]);
    std::borrow::Cow::Owned(out)
}

/// Checks the back-references of a POSIX extended expression (`-E`, which
/// trawl reads as the Perl dialect) as GNU grep's parser does: `\N` may
/// name only a group closed before it (`(a)\1`, `((b)\2)`; not `(a\1)`,
/// nor a group that does not exist). Groups are counted as the Perl dialect
/// numbers them (`(?:…)` and the other `(?` forms capture nothing).
pub fn check_extended_references(pattern: &str) -> Result<(), PosixError> {
    let b = pattern.as_bytes();
    let mut open: Vec<Option<usize>> = Vec::new();
    let mut closed: Vec<bool> = Vec::new();
    for t in tokens(pattern, Brackets::Perl) {
        match t.kind {
            TokenKind::Char { c: '(', in_class: false } => match b.get(t.at + 1) {
                Some(b'?' | b'*') => open.push(None),
                _ => {
                    closed.push(false);
                    open.push(Some(closed.len()));
                }
            },
            TokenKind::Char { c: ')', in_class: false } => {
                if let Some(Some(n)) = open.pop() {
                    closed[n - 1] = true;
                }
            }
            TokenKind::Escape(Some(d @ '1'..='9'))
                if !closed.get(d as usize - '1' as usize).copied().unwrap_or(false) =>
            {
                return Err(PosixError::BadBackReference);
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks a POSIX basic expression the way GNU grep's parser does, with its
/// messages: unmatched `\\(`, `\\)`, `\\{` and `[`, bad interval contents,
/// intervals over 32767, and ranges that run backwards.
pub fn check_basic(pattern: &str) -> Result<(), PosixError> {
    let b = pattern.as_bytes();
    // The groups open (by number, innermost last), and whether each group
    // is closed: a back-reference may name only a closed one, however
    // deeply nested (`\(\(b\)\2\)`: group 2 closes before `\2`).
    let mut open: Vec<usize> = Vec::new();
    let mut closed: Vec<bool> = Vec::new();
    let mut members = Members::default();
    let mut in_class = false;
    for t in tokens(pattern, Brackets::Posix) {
        match t.kind {
            TokenKind::Escape(Some('(')) => {
                closed.push(false);
                open.push(closed.len());
            }
            TokenKind::Escape(Some(')')) => {
                let n = open.pop().ok_or(PosixError::UnmatchedClose)?;
                closed[n - 1] = true;
            }
            TokenKind::Escape(Some(d @ '1'..='9'))
                if !closed.get(d as usize - '1' as usize).copied().unwrap_or(false) =>
            {
                return Err(PosixError::BadBackReference);
            }
            TokenKind::Escape(Some('{')) if t.at > 0 => check_interval(&b[t.at + 2..])?,
            TokenKind::ClassOpen { .. } => {
                in_class = true;
                members = Members::default();
            }
            TokenKind::ClassClose => in_class = false,
            TokenKind::PosixClass { end } if !terminated(&b[t.at..end]) => {
                return Err(PosixError::UnmatchedBracket);
            }
            TokenKind::PosixClass { end } if !pattern[t.at..].starts_with("[:") => {
                let c = collating_element(&pattern[t.at..end]).ok_or(PosixError::BadCollation)?;
                members.add(c)?;
            }
            TokenKind::Char { c: '-', in_class: true } if members.may_start_range() => {
                members.range_from = members.last;
            }
            TokenKind::Char { c, in_class: true } => members.add(c)?,
            _ => {}
        }
    }
    if in_class {
        return Err(PosixError::UnmatchedBracket);
    }
    if misplaced_class(pattern) {
        return Err(PosixError::MisplacedClass);
    }
    if !open.is_empty() {
        return Err(PosixError::UnmatchedOpen);
    }
    Ok(())
}

/// The members of a bracket expression, as far as ranges need them.
#[derive(Default)]
pub(crate) struct Members {
    /// The last member, which a `-` would make a range's start.
    pub(crate) last: Option<char>,
    /// The start of a range whose end comes next.
    pub(crate) range_from: Option<char>,
}

impl Members {
    pub(crate) fn may_start_range(&self) -> bool {
        self.last.is_some() && self.range_from.is_none()
    }

    /// A member: ends a range, or may start one.
    pub(crate) fn add(&mut self, c: char) -> Result<(), PosixError> {
        if let Some(from) = self.range_from.take() {
            if c < from {
                return Err(PosixError::BadRangeEnd);
            }
            self.last = None;
        } else {
            self.last = Some(c);
        }
        Ok(())
    }
}

/// Whether a class token `[:…:]`, `[.….]` or `[=…=]` has its closing pair.
pub(crate) fn terminated(class: &[u8]) -> bool {
    class.len() >= 4 && class[class.len() - 2] == class[1] && class.ends_with(b"]")
}

/// The character of a collating element `[.c.]` or equivalence class
/// `[=c=]` of one character (the C locale has no longer ones).
pub(crate) fn collating_element(class: &str) -> Option<char> {
    let inner = class
        .strip_prefix("[.")
        .and_then(|c| c.strip_suffix(".]"))
        .or_else(|| class.strip_prefix("[=").and_then(|c| c.strip_suffix("=]")))?;
    let mut chars = inner.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

/// Checks the contents of an interval after its `\\{`: `m`, `m,`, `,n`,
/// `m,n` or `,`, up to `\\}`, with m ≤ n ≤ 32767.
fn check_interval(rest: &[u8]) -> Result<(), PosixError> {
    let end = memchr::memmem::find(rest, b"\\}").ok_or(PosixError::UnmatchedBrace)?;
    let body = &rest[..end];
    let number = |s: &[u8]| -> Result<Option<u32>, PosixError> {
        if s.is_empty() {
            return Ok(None);
        }
        if !s.iter().all(u8::is_ascii_digit) {
            return Err(PosixError::BadInterval);
        }
        let n = std::str::from_utf8(s).ok().and_then(|s| s.parse::<u32>().ok()).unwrap_or(u32::MAX);
        if n > 32767 {
            return Err(PosixError::TooBig);
        }
        Ok(Some(n))
    };
    let (lo, hi) = match body.iter().position(|&c| c == b',') {
        Some(i) => (number(&body[..i])?, number(&body[i + 1..])?),
        None if body.is_empty() => return Err(PosixError::BadInterval),
        None => {
            let n = number(body)?;
            (n, n)
        }
    };
    match (lo, hi) {
        (Some(lo), Some(hi)) if lo > hi => Err(PosixError::BadInterval),
        _ => Ok(()),
    }
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
    use crate::posix_error::PosixError;

    /// GNU grep's words for a misplaced class.
    const MISPLACED_CLASS: &str = PosixError::MisplacedClass.message();

    /// The check's message, as the tables below give it.
    fn check_basic(p: &str) -> Result<(), &'static str> {
        super::check_basic(p).map_err(PosixError::message)
    }

    /// The check's message, as the tables below give it.
    fn check_extended_references(p: &str) -> Result<(), &'static str> {
        super::check_extended_references(p).map_err(PosixError::message)
    }

    #[test]
    fn extended_brackets_starting_with_a_class_opener_are_plain_for_perl() {
        for (p, want) in [
            ("[:a-z:]", r"[\:a-z:]"),
            ("x[^=a=]", r"x[^\=a=]"),
            ("[::]|[.]", r"[\::]|[\.]"),
            ("[[:alpha:]]", "[[:alpha:]]"),
            ("a:b", "a:b"),
        ] {
            assert_eq!(super::posix_brackets_for_perl(p), want, "{p}");
        }
    }

    #[test]
    fn extended_back_references_name_only_closed_groups() {
        for p in [r"(a\1)", r"(a)\2", r"\1(a)", r"((a)\1)", r"(?:a)\1", r"(\1)*b"] {
            assert_eq!(check_extended_references(p), Err("Invalid back reference"), "{p}");
        }
        for p in [r"(a)\1", r"a(([bc])\2)*d", r"(?:x)(a)\1", r"[(]\(a\)", r"((a)(b))\3\1"] {
            assert_eq!(check_extended_references(p), Ok(()), "{p}");
        }
    }

    #[test]
    fn basic_expressions_are_checked_as_gnu_grep_does() {
        for (p, want) in [
            (r"\)", "Unmatched ) or \\)"),
            (r"\(", "Unmatched ( or \\("),
            (r"a\{1", "Unmatched \\{"),
            (r"a\{1a\}", "Invalid content of \\{\\}"),
            (r"a\{1,x\}", "Invalid content of \\{\\}"),
            (r"a\{\}", "Invalid content of \\{\\}"),
            (r"a\{2,1\}", "Invalid content of \\{\\}"),
            (r"a\{32768\}", "Regular expression too big"),
            (r"[b-a]", "Invalid range end"),
            (r"[a", "Unmatched [, [^, [:, [., or [="),
            (r"b\1", "Invalid back reference"),
            (r"\(a\1\)", "Invalid back reference"),
            (r"\(a\)\2", "Invalid back reference"),
            // A nested group closed before the reference may be named.
            (r"\(\(a\)\2\1\)", "Invalid back reference"),
            (r"[[.ab.]]", "Invalid collation character"),
            (r"[[=ab=]]", "Invalid collation character"),
            (r"[[.space.]]", "Invalid collation character"),
            (r"[c-[.a.]]", "Invalid range end"),
            (r"[:space:]", MISPLACED_CLASS),
            (r"x[^:alpha:]", MISPLACED_CLASS),
            (r"[:.:]", MISPLACED_CLASS),
            (r"[:ab:c:]", MISPLACED_CLASS),
        ] {
            assert_eq!(check_basic(p), Err(want), "{p}");
        }
        for p in [
            r"\(a\)\{1,3\}",
            r"\(a\)\(b\)\2",
            // Group 2, nested in group 1, is closed before `\2`.
            r"a\(\([bc]\)\2\)*d",
            r"a\(\(b\)*\2\)*d",
            r"[[.a.]-c]",
            r"[a-[.c.]]",
            r"xa\{,\}y",
            r"[a-z-]",
            r"[]-a]",
            r"[[:alpha:]-]",
            r"a\{3\}",
            r"\{1",
            // Not the shape of a misplaced class: GNU grep takes these.
            r"[::]",
            r"[:a]",
            r"[:a:b]",
            r"[:a-z:]",
            r"[:-a:]",
            r"[:[:alpha:]:]",
            r"[[:space:]]",
        ] {
            assert_eq!(check_basic(p), Ok(()), "{p}");
        }
    }

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
        assert_eq!(bre(r"xa\{,\}y"), r"xa{0,}y");
        assert_eq!(bre(r"\{1"), r"\{1");
        assert_eq!(bre(r"[[.a.][=b=]]"), r"[ab]");
        assert_eq!(bre(r"[[.^.]]"), r"[\^]");
        assert_eq!(bre(r"[a[.-.]b]"), r"[a\-b]");
        assert_eq!(bre(r"[[.].]]"), r"[\]]");
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
