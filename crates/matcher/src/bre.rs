//! POSIX basic regular expressions (`-G`), translated to the Perl dialect.

/// Translates a POSIX basic regular expression into the Perl dialect.
///
/// `\( \) \{ \} \| \+ \?` become operators and their bare forms literals;
/// `*` at the start of an expression is literal; `^` and `$` are anchors only
/// at the ends of an expression; `\<` and `\>` become word-edge assertions;
/// a backslash inside a bracket expression is literal. Back-references keep
/// their meaning. Matching stays leftmost-first (Perl) rather than POSIX
/// leftmost-longest, which can only change what `-o` prints.
pub fn bre_to_perl(bre: &str) -> String {
    let chars: Vec<char> = bre.chars().collect();
    let mut out = String::with_capacity(bre.len() + 8);
    let mut i = 0;
    // True where a following '*' is literal and '^' is an anchor.
    let mut at_expr_start = true;
    while i < chars.len() {
        let c = chars[i];
        let was_start = at_expr_start;
        at_expr_start = false;
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match n {
                    '(' => {
                        out.push('(');
                        at_expr_start = true;
                    }
                    '|' => {
                        out.push('|');
                        at_expr_start = true;
                    }
                    ')' | '{' | '}' | '+' | '?' => out.push(n),
                    '<' => out.push_str(r"\b(?=\w)"),
                    '>' => out.push_str(r"\b(?<=\w)"),
                    '1'..='9' | 'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    '`' => out.push_str(r"\A"),
                    '\'' => out.push_str(r"\z"),
                    _ => push_literal(&mut out, n),
                }
                continue;
            }
            '[' => {
                i = copy_bracket(&chars, i, &mut out, true);
                continue;
            }
            '*' if was_start => out.push_str(r"\*"),
            '^' if was_start => {
                out.push('^');
                at_expr_start = true;
            }
            '^' => out.push_str(r"\^"),
            '$' => {
                let at_end = i + 1 == chars.len()
                    || (chars[i + 1] == '\\' && matches!(chars.get(i + 2), Some(')' | '|')));
                out.push_str(if at_end { "$" } else { r"\$" });
            }
            '(' | ')' | '{' | '}' | '|' | '+' | '?' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// Appends `c` as a literal of the Perl dialect (escaped if punctuation).
pub fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        out.push(c);
    } else {
        out.push('\\');
        out.push(c);
    }
}

/// Copies the POSIX bracket expression starting at `chars[start] == '['` in
/// the Perl dialect, escaping what Perl engines read differently (a
/// backslash is a member in POSIX; `[`, `&&`, `~~` and `--` are set syntax
/// in the Rust engine); returns the index after it. `classes` keeps
/// `[:alpha:]`-style classes (POSIX), else their `[` is a member (emacs).
pub fn copy_bracket(chars: &[char], start: usize, out: &mut String, classes: bool) -> usize {
    let mut i = start + 1;
    out.push('[');
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str(r"\]");
        i += 1;
    }
    while i < chars.len() {
        let c = chars[i];
        if c == ']' {
            out.push(']');
            return i + 1;
        }
        if classes && c == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
            let kind = chars[i + 1];
            let mut j = i + 2;
            while j + 1 < chars.len() && !(chars[j] == kind && chars[j + 1] == ']') {
                j += 1;
            }
            out.extend(&chars[i..(j + 2).min(chars.len())]);
            i = j + 2;
            continue;
        }
        if matches!(c, '\\' | '[' | '&' | '~') || (c == '-' && chars.get(i + 1) == Some(&'-')) {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    // Unterminated: the engine reports it.
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::bre_to_perl;

    #[test]
    fn translations() {
        assert_eq!(bre_to_perl(r"a\(b\)\{2\}"), r"a(b){2}");
        assert_eq!(bre_to_perl(r"a(b)+?|c"), r"a\(b\)\+\?\|c");
        assert_eq!(bre_to_perl(r"*a*"), r"\*a*");
        assert_eq!(bre_to_perl(r"^a^b$c$"), r"^a\^b\$c$");
        assert_eq!(bre_to_perl(r"[\]x]"), r"[\\]x]");
        assert_eq!(bre_to_perl(r"[[:alpha:]_]\+"), r"[[:alpha:]_]+");
        assert_eq!(bre_to_perl(r"\<w\>"), r"\b(?=\w)w\b(?<=\w)");
        assert_eq!(bre_to_perl(r"\(a\)\1"), r"(a)\1");
    }
}
