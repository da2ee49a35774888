//! `-regex` dialects, translated to the Perl dialect and matched against the
//! whole path: the Rust engine, or PCRE2 when the pattern needs it
//! (back-references).

use regex_automata::meta;
use regex_automata::util::syntax;

use trawl_matcher::{copy_bracket, push_literal};

/// The dialect of `-regex`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum RegexType {
    /// GNU find's default (`emacs`).
    Emacs,
    /// `posix-extended` and kin.
    Extended,
    /// `posix-basic` and kin.
    Basic,
}

/// A compiled `-regex`.
#[derive(Debug)]
pub enum PathRegex {
    /// The Rust engine.
    Rust(meta::Regex),
    /// PCRE2, for back-references.
    Pcre(pcre2::bytes::Regex),
}

impl PathRegex {
    /// Whether the whole path matches.
    pub fn is_match(&self, path: &[u8]) -> bool {
        match self {
            PathRegex::Rust(r) => r.is_match(path),
            PathRegex::Pcre(r) => r.is_match(path).unwrap_or(false),
        }
    }
}

/// Which engine a translation is for: they spell word edges differently.
#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    Rust,
    Pcre,
}

/// Compiles a `-regex` pattern of the given type, anchored at both ends.
/// In the emacs dialect `.` does not match a newline; in the POSIX ones it does.
pub fn compile(pattern: &[u8], kind: RegexType, ignore_case: bool) -> Result<PathRegex, String> {
    let text = String::from_utf8_lossy(pattern);
    let dot_nl = kind != RegexType::Emacs;
    let translate = |f: Flavor| match kind {
        RegexType::Emacs => emacs_to_perl(&text, f),
        RegexType::Extended => ere_to_perl(&text, f),
        RegexType::Basic => {
            let p = trawl_matcher::bre_to_perl(&text);
            match f {
                Flavor::Pcre => p,
                // bre_to_perl spells word edges for PCRE.
                Flavor::Rust => {
                    p.replace(r"\b(?=\w)", r"\b{start}").replace(r"\b(?<=\w)", r"\b{end}")
                }
            }
        }
    };
    let rust = format!(r"\A(?:{})\z", translate(Flavor::Rust));
    let built = meta::Regex::builder()
        .syntax(
            syntax::Config::new()
                .unicode(false)
                .utf8(false)
                .case_insensitive(ignore_case)
                .dot_matches_new_line(dot_nl),
        )
        .build(&rust);
    match built {
        Ok(r) => Ok(PathRegex::Rust(r)),
        Err(rust_err) => {
            let pcre = format!(r"\A(?:{})\z", translate(Flavor::Pcre));
            pcre2::bytes::RegexBuilder::new()
                .utf(false)
                .caseless(ignore_case)
                .dotall(dot_nl)
                .jit_if_available(true)
                .build(&pcre)
                .map(PathRegex::Pcre)
                .map_err(|_| format!("invalid regular expression '{text}': {rust_err}"))
        }
    }
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

/// Emacs syntax (GNU find's default): `\( \) \|` are operators and their bare
/// forms literals; `* + ?` are operators; braces are literal (no intervals);
/// `^`/`$` anchor only at the ends of an expression; brackets have no
/// character classes and take backslashes literally.
fn emacs_to_perl(re: &str, f: Flavor) -> String {
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
                    ')' => out.push(')'),
                    '<' => out.push_str(word_start(f)),
                    '>' => out.push_str(word_end(f)),
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
                i = copy_bracket(&chars, i, &mut out, false);
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
fn ere_to_perl(re: &str, f: Flavor) -> String {
    let chars: Vec<char> = re.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '[' => i = copy_bracket(&chars, i, &mut out, true),
            '\\' if i + 1 < chars.len() => {
                match chars[i + 1] {
                    '<' => out.push_str(word_start(f)),
                    '>' => out.push_str(word_end(f)),
                    c => {
                        out.push('\\');
                        out.push(c);
                    }
                }
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
        assert!(m(r".*/x\{2\}", RegexType::Emacs, "./x{2}"), "no intervals");
        assert!(!m(r".*/x\{2\}", RegexType::Emacs, "./xx"));
        assert!(!m(r".*/[[:alpha:]]+", RegexType::Emacs, "./ab"), "no character classes");
        assert!(m(r".*\<Word.*", RegexType::Emacs, "./a Word"));
        assert!(m(r".*/\(a\)\1b", RegexType::Emacs, "./aab"), "back-references via PCRE2");
        assert!(!m(r".*", RegexType::Emacs, "a\nb"), "dot stops at a newline");
    }

    #[test]
    fn posix_dialects() {
        assert!(m(r".*/(foo|bar)\.c", RegexType::Extended, "./foo.c"));
        assert!(m(r".*[\]", RegexType::Extended, r"./\"));
        assert!(m(r".*/[[:alpha:]]+", RegexType::Extended, "./ab"));
        assert!(m(r".*", RegexType::Extended, "a\nb"));
        assert!(m(r".*/\(a\)\1b", RegexType::Basic, "./aab"));
        assert!(m(r".*\<Word.*", RegexType::Basic, "./a Word"));
    }
}
