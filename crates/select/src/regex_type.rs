//! `-regex` dialects, translated to the Perl dialect and matched against the
//! whole path.

use regex_automata::meta::Regex;
use regex_automata::util::syntax;

use crate::parse::RegexType;

/// Compiles a `-regex` pattern of the given type, anchored at both ends.
pub fn compile(pattern: &[u8], kind: RegexType, ignore_case: bool) -> Result<Regex, String> {
    let text = String::from_utf8_lossy(pattern);
    let perl = match kind {
        RegexType::Emacs => emacs_to_perl(&text),
        RegexType::Extended => ere_to_perl(&text),
        RegexType::Basic => trawl_matcher::bre_to_perl(&text),
    };
    let anchored = format!(r"\A(?:{perl})\z");
    Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false).case_insensitive(ignore_case))
        .build(&anchored)
        .map_err(|e| format!("invalid regular expression '{text}': {e}"))
}

/// Emacs syntax (GNU find's default): `\( \) \| \{ \}` are operators and
/// their bare forms literals; `* + ?` are operators; `^`/`$` anchor only at
/// the ends of an expression; backslashes in brackets are literal.
fn emacs_to_perl(re: &str) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut at_start = true;
    while i < chars.len() {
        let c = chars[i];
        let was_start = at_start;
        at_start = false;
        match c {
            '\\' if i + 1 < chars.len() => {
                let n = chars[i + 1];
                i += 2;
                match n {
                    '(' | '|' => {
                        out.push(n);
                        at_start = true;
                    }
                    ')' | '{' | '}' => out.push(n),
                    '<' => out.push_str(r"\b(?=\w)"),
                    '>' => out.push_str(r"\b(?<=\w)"),
                    '`' => out.push_str(r"\A"),
                    '\'' => out.push_str(r"\z"),
                    '1'..='9' | 'w' | 'W' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(n);
                    }
                    _ => push_literal(&mut out, n),
                }
                continue;
            }
            '[' => {
                i = copy_bracket(&chars, i, &mut out);
                continue;
            }
            '*' | '+' | '?' if was_start => push_literal(&mut out, c),
            '^' if was_start => {
                out.push('^');
                at_start = true;
            }
            '^' => out.push_str(r"\^"),
            '$' => {
                let at_end = i + 1 == chars.len()
                    || (chars[i + 1] == '\\' && matches!(chars.get(i + 2), Some(')' | '|')));
                out.push_str(if at_end { "$" } else { r"\$" });
            }
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
        i += 1;
    }
    out
}

/// POSIX extended syntax: the Perl dialect but for literal backslashes in
/// brackets.
fn ere_to_perl(re: &str) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '[' => i = copy_bracket(&chars, i, &mut out),
            '\\' if i + 1 < chars.len() => {
                out.push('\\');
                out.push(chars[i + 1]);
                i += 2;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() || !c.is_ascii() {
        out.push(c);
    } else {
        out.push('\\');
        out.push(c);
    }
}

/// Copies a POSIX bracket expression, escaping what Perl reads differently.
fn copy_bracket(chars: &[char], start: usize, out: &mut String) -> usize {
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
        if c == '[' && matches!(chars.get(i + 1), Some(':' | '=' | '.')) {
            let kind = chars[i + 1];
            let mut j = i + 2;
            while j + 1 < chars.len() && !(chars[j] == kind && chars[j + 1] == ']') {
                j += 1;
            }
            out.extend(&chars[i..(j + 2).min(chars.len())]);
            i = j + 2;
            continue;
        }
        if c == '\\' || c == '[' {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    chars.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, kind: RegexType, s: &str) -> bool {
        compile(p.as_bytes(), kind, false).unwrap().is_match(s.as_bytes())
    }

    #[test]
    fn emacs_dialect() {
        assert!(m(r".*/\(foo\|bar\)\.c", RegexType::Emacs, "./a/foo.c"));
        assert!(!m(r".*/\(foo\|bar\)\.c", RegexType::Emacs, "./a/baz.c"));
        assert!(m(r".*(x).*", RegexType::Emacs, "./(x)"));
        assert!(m(r".*a+", RegexType::Emacs, "./aaa"));
        assert!(!m(r"foo", RegexType::Emacs, "./foo"), "anchored at both ends");
    }

    #[test]
    fn extended_dialect() {
        assert!(m(r".*/(foo|bar)\.c", RegexType::Extended, "./foo.c"));
        assert!(m(r".*[\]", RegexType::Extended, r"./\"));
    }
}
