//! What glibc's `re_compile_pattern` refuses in the dialects of GNU find's
//! `-regextype` (emacs, extended and the awk and egrep variants), with its
//! messages, found left to right as its parser finds them. The translation
//! to the Perl dialect ([`crate::to_perl`]) assumes a pattern that passed.

use crate::dialect::{check_basic, collating_element, Dialect, Members};
use crate::posix_error::PosixError;
use crate::tokens::{tokens, Brackets, TokenKind};

/// The syntax bits of a dialect that decide what is an error.
struct Syntax {
    /// Groups and alternation are spelled `\(`, `\)`, `\|`.
    backslash_groups: bool,
    /// `{m,n}` intervals.
    intervals: bool,
    /// A repetition operator with nothing to repeat is an error
    /// (RE_CONTEXT_INVALID_OPS) ...
    context_invalid_ops: bool,
    /// ... or else is dropped (RE_CONTEXT_INDEP_OPS), or else is a literal.
    context_indep_ops: bool,
    /// `^` and `$` are anchors anywhere (RE_CONTEXT_INDEP_ANCHORS).
    anchors_anywhere: bool,
    /// An unmatched `)` is a literal (RE_UNMATCHED_RIGHT_PAREN_ORD).
    unmatched_close_is_literal: bool,
    /// `[z-a]` is an error (RE_NO_EMPTY_RANGES).
    no_empty_ranges: bool,
    /// `[:alpha:]` classes inside brackets (RE_CHAR_CLASSES).
    char_classes: bool,
    /// `\1` is a back-reference (not RE_NO_BK_REFS).
    back_references: bool,
    /// An invalid interval is a literal `{` (RE_INVALID_INTERVAL_ORD).
    invalid_interval_is_literal: bool,
    /// `\<`, `\b` and the like are anchors (not RE_NO_GNU_OPS).
    gnu_ops: bool,
}

impl Syntax {
    fn of(dialect: Dialect) -> Syntax {
        let extended = Syntax {
            backslash_groups: false,
            intervals: true,
            context_invalid_ops: true,
            context_indep_ops: true,
            anchors_anywhere: true,
            unmatched_close_is_literal: true,
            no_empty_ranges: true,
            char_classes: true,
            back_references: true,
            invalid_interval_is_literal: false,
            gnu_ops: true,
        };
        match dialect {
            Dialect::Emacs => Syntax {
                backslash_groups: true,
                intervals: false,
                context_invalid_ops: false,
                context_indep_ops: false,
                anchors_anywhere: false,
                unmatched_close_is_literal: false,
                no_empty_ranges: false,
                char_classes: false,
                ..extended
            },
            Dialect::Egrep => {
                Syntax { context_invalid_ops: false, invalid_interval_is_literal: true, ..extended }
            }
            Dialect::Awk => Syntax {
                intervals: false,
                context_invalid_ops: false,
                context_indep_ops: false,
                back_references: false,
                gnu_ops: false,
                ..extended
            },
            Dialect::GnuAwk => Syntax {
                context_invalid_ops: false,
                context_indep_ops: false,
                invalid_interval_is_literal: true,
                ..extended
            },
            Dialect::PosixAwk => {
                Syntax { invalid_interval_is_literal: true, gnu_ops: false, ..extended }
            }
            Dialect::Extended | Dialect::Perl | Dialect::Basic => extended,
        }
    }
}

/// Checks `pattern` as glibc compiles it for find's `-regextype` of
/// `dialect`; the error is glibc's reason (its message as glibc words it).
pub fn check_find_regex(pattern: &str, dialect: Dialect) -> Result<(), PosixError> {
    let brackets = match dialect {
        Dialect::Perl => return Ok(()),
        Dialect::Basic => return check_basic(pattern),
        Dialect::Emacs => Brackets::Emacs,
        Dialect::Extended | Dialect::Egrep => Brackets::Posix,
        Dialect::Awk | Dialect::PosixAwk | Dialect::GnuAwk => Brackets::PosixEscapes,
    };
    let syn = Syntax::of(dialect);
    let b = pattern.as_bytes();
    // Open groups (their numbers) and the groups closed so far.
    let mut open: Vec<usize> = Vec::new();
    let mut groups = 0usize;
    let mut closed: Vec<bool> = Vec::new();
    // Where an expression starts: a repetition here has nothing to repeat.
    let mut expression_start = true;
    let mut in_class = false;
    let mut members = Members::default();
    // The byte where a literal interval text ends (glibc rolls back over it).
    let mut skip_to = 0usize;
    for t in tokens(pattern, brackets) {
        if t.at < skip_to {
            continue;
        }
        let starts = std::mem::replace(&mut expression_start, false);
        match t.kind {
            TokenKind::ClassOpen { .. } => {
                in_class = true;
                members = Members::default();
            }
            TokenKind::ClassClose => in_class = false,
            TokenKind::PosixClass { end } => {
                let text = &pattern[t.at..end];
                if !crate::dialect::terminated(text.as_bytes()) {
                    return Err(PosixError::UnmatchedBracket);
                }
                if let Some(name) = text.strip_prefix("[:").and_then(|s| s.strip_suffix(":]")) {
                    if !syn.char_classes {
                        continue;
                    }
                    if !CLASSES.contains(&name) {
                        return Err(PosixError::BadClassName);
                    }
                    members = Members::default();
                } else {
                    let c = collating_element(text).ok_or(PosixError::BadCollation)?;
                    if syn.no_empty_ranges {
                        members.add(c)?;
                    }
                }
            }
            TokenKind::Char { c: '-', in_class: true } if members.may_start_range() => {
                members.range_from = members.last;
            }
            TokenKind::Char { c, in_class: true } => {
                if syn.no_empty_ranges {
                    members.add(c)?;
                } else {
                    members.last = Some(c);
                    members.range_from = None;
                }
            }
            TokenKind::Escape(None) => return Err(PosixError::TrailingBackslash),
            TokenKind::Escape(Some(c)) => {
                let group = syn.backslash_groups;
                match c {
                    '(' if group => {
                        groups += 1;
                        open.push(groups);
                        closed.push(false);
                        expression_start = true;
                    }
                    ')' if group => match open.pop() {
                        Some(n) => closed[n - 1] = true,
                        None => return Err(PosixError::UnmatchedClose),
                    },
                    '|' if group => expression_start = true,
                    '1'..='9' if syn.back_references => {
                        let n = c as usize - '0' as usize;
                        if !closed.get(n - 1).copied().unwrap_or(false) {
                            return Err(PosixError::BadBackReference);
                        }
                    }
                    '<' | '>' | 'b' | 'B' | '`' | '\'' if syn.gnu_ops => expression_start = true,
                    _ => {}
                }
            }
            TokenKind::Char { c, in_class: false } => {
                let group = !syn.backslash_groups;
                let repeat = matches!(c, '*' | '+' | '?') || (c == '{' && syn.intervals);
                match c {
                    _ if repeat && starts => {
                        if syn.context_invalid_ops {
                            return Err(PosixError::NothingToRepeat);
                        }
                        // Dropped (the next token still starts), or a literal.
                        expression_start = syn.context_indep_ops;
                    }
                    '{' if repeat => {
                        // Else a literal `{`.
                        if let Some(len) = interval(&b[t.at + 1..], &syn)? {
                            skip_to = t.at + 1 + len;
                        }
                    }
                    '(' if group => {
                        groups += 1;
                        open.push(groups);
                        closed.push(false);
                        expression_start = true;
                    }
                    ')' if group => match open.pop() {
                        Some(n) => closed[n - 1] = true,
                        None if syn.unmatched_close_is_literal => {}
                        None => return Err(PosixError::UnmatchedClose),
                    },
                    '|' if group => expression_start = true,
                    '^' if syn.anchors_anywhere || starts => expression_start = true,
                    '$' if syn.anchors_anywhere => expression_start = true,
                    _ => {}
                }
            }
        }
    }
    if in_class {
        return Err(PosixError::UnmatchedBracket);
    }
    if !open.is_empty() {
        return Err(PosixError::UnmatchedOpen);
    }
    Ok(())
}

/// The class names of the C locale.
const CLASSES: [&str; 12] = [
    "alpha", "upper", "lower", "digit", "xdigit", "space", "print", "punct", "graph", "cntrl",
    "blank", "alnum",
];

/// The largest count of an interval (glibc's RE_DUP_MAX).
const DUP_MAX: i64 = 0x7fff;

/// Reads the interval after a `{` as glibc does: Some(length up to and
/// including its `}`), None when it is not one and the dialect reads the
/// `{` as a literal; else glibc's error.
fn interval(rest: &[u8], syn: &Syntax) -> Result<Option<usize>, PosixError> {
    /// Reads digits up to `,` or `}`: -1 for none, -2 for anything else
    /// (or the end), as glibc's fetch_number.
    fn number(rest: &[u8], at: &mut usize) -> (i64, Option<u8>) {
        let mut n = -1i64;
        loop {
            let Some(&c) = rest.get(*at) else { return (-2, None) };
            *at += if c == b'\\' && *at + 1 < rest.len() { 2 } else { 1 };
            if c == b'}' || c == b',' {
                return (n, Some(c));
            }
            n = match (c.is_ascii_digit(), n) {
                (false, _) | (_, -2) => -2,
                (true, -1) => i64::from(c - b'0'),
                (true, _) => (n * 10 + i64::from(c - b'0')).min(DUP_MAX + 1),
            };
        }
    }
    let mut at = 0;
    let (mut start, mut token) = number(rest, &mut at);
    if start == -1 {
        if token != Some(b',') {
            return Err(PosixError::BadInterval);
        }
        start = 0;
    }
    let mut end = -2;
    if start != -2 {
        end = match token {
            Some(b'}') => start,
            Some(b',') => {
                let (n, t) = number(rest, &mut at);
                token = t;
                n
            }
            _ => -2,
        };
    }
    if start == -2 || end == -2 {
        if syn.invalid_interval_is_literal {
            return Ok(None);
        }
        return Err(if token.is_none() {
            PosixError::UnmatchedBrace
        } else {
            PosixError::BadInterval
        });
    }
    if (end != -1 && start > end) || token != Some(b'}') {
        return Err(PosixError::BadInterval);
    }
    if (if end == -1 { start } else { end }) > DUP_MAX {
        return Err(PosixError::TooBig);
    }
    Ok(Some(at))
}

#[cfg(test)]
mod tests {
    use crate::Dialect::{self, *};
    use crate::PosixError;

    /// The check's message, as the assertions below give it.
    fn check(pattern: &str, dialect: Dialect) -> Result<(), &'static str> {
        super::check_find_regex(pattern, dialect).map_err(PosixError::message)
    }

    #[test]
    fn errors_are_glibcs_in_each_dialect() {
        let bad = "Invalid preceding regular expression";
        assert_eq!(check("*.*/{l", Extended), Err(bad));
        assert_eq!(check("a|*b", Extended), Err(bad));
        assert_eq!(check("^*", Extended), Err(bad));
        assert_eq!(check("(+a)", PosixAwk), Err(bad));
        for ok in [Egrep, Awk, GnuAwk, Emacs] {
            assert_eq!(check("*.*/{l", ok), Ok(()), "{ok:?}");
        }
        assert_eq!(check("a{1", Extended), Err("Unmatched \\{"));
        assert_eq!(check("a{x}", Extended), Err("Invalid content of \\{\\}"));
        assert_eq!(check("a{2,1}", Egrep), Err("Invalid content of \\{\\}"));
        assert_eq!(check("a{}", Egrep), Err("Invalid content of \\{\\}"));
        assert_eq!(check("a{x}", Egrep), Ok(()));
        assert_eq!(check("a{99999}", Extended), Err("Regular expression too big"));
        assert_eq!(check("a{,3}b{2,}", Extended), Ok(()));
        assert_eq!(check("(a", Extended), Err("Unmatched ( or \\("));
        assert_eq!(check("a)", Extended), Ok(()));
        assert_eq!(check("a\\)", Emacs), Err("Unmatched ) or \\)"));
        assert_eq!(check("\\(a\\1\\)", Emacs), Err("Invalid back reference"));
        assert_eq!(check("\\(a\\)\\1", Emacs), Ok(()));
        assert_eq!(check("(a)\\2", Extended), Err("Invalid back reference"));
        assert_eq!(check("\\2", Awk), Ok(()));
        assert_eq!(check("[z-a]", Extended), Err("Invalid range end"));
        assert_eq!(check("[z-a]", Emacs), Ok(()));
        assert_eq!(check("[[:foo:]]", Extended), Err("Invalid character class name"));
        assert_eq!(check("[[:foo:]]", Emacs), Ok(()));
        assert_eq!(check("[a", Emacs), Err("Unmatched [, [^, [:, [., or [="));
        assert_eq!(check("a\\", GnuAwk), Err("Trailing backslash"));
        assert_eq!(check("[\\]]", Awk), Ok(()));
    }
}
