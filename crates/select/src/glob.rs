//! Shell patterns with fnmatch(3) semantics, as `-name` and `-path` use them.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};

/// A compiled pattern: `*` and `?` match any byte, `/` included (no
/// FNM_PATHNAME), a leading `.` too (no FNM_PERIOD); `[...]` classes with
/// `!` or `^` negation; `\` escapes; braces are literal.
#[derive(Clone, Debug)]
pub struct Glob {
    matcher: GlobMatcher,
    /// A pattern without metacharacters, compared directly.
    literal: Option<Vec<u8>>,
    ignore_case: bool,
}

impl Glob {
    /// Compiles `pattern`.
    pub fn new(pattern: &[u8], ignore_case: bool) -> Result<Glob, String> {
        let literal = (!pattern.iter().any(|c| matches!(c, b'*' | b'?' | b'[' | b'\\')))
            .then(|| if ignore_case { pattern.to_ascii_lowercase() } else { pattern.to_vec() });
        let text = translate(pattern, false);
        let matcher = match build(&text, ignore_case) {
            Ok(m) => m,
            // fnmatch reads an unterminated '[' as itself.
            Err(_) => build(&translate(pattern, true), ignore_case)?,
        };
        Ok(Glob { matcher, literal, ignore_case })
    }

    /// Whether `name` matches.
    pub fn is_match(&self, name: &[u8]) -> bool {
        if let Some(lit) = &self.literal {
            return if self.ignore_case {
                name.eq_ignore_ascii_case(lit)
            } else {
                name == lit.as_slice()
            };
        }
        self.matcher.is_match(Path::new(OsStr::from_bytes(name)))
    }
}

fn build(text: &str, ignore_case: bool) -> Result<GlobMatcher, String> {
    GlobBuilder::new(text)
        .literal_separator(false)
        .backslash_escape(true)
        .case_insensitive(ignore_case)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

/// Rewrites fnmatch syntax for globset: braces escaped, `[^` as `[!`, and
/// (when `escape_brackets`) every `[` literal. Invalid UTF-8 bytes cannot be
/// expressed; they become `?`, which matches them.
fn translate(pattern: &[u8], escape_brackets: bool) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < pattern.len() {
        let c = pattern[i];
        match c {
            b'{' | b'}' | b',' => {
                out.push('\\');
                out.push(c as char);
            }
            b'[' if escape_brackets => out.push_str("\\["),
            b'[' if pattern.get(i + 1) == Some(&b'^') => {
                out.push_str("[!");
                i += 1;
            }
            b'\\' if i + 1 < pattern.len() => {
                out.push('\\');
                i += 1;
                push_byte(&mut out, pattern, &mut i);
                continue;
            }
            _ => {
                push_byte(&mut out, pattern, &mut i);
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Pushes the character starting at `p[*i]` and advances past it.
fn push_byte(out: &mut String, p: &[u8], i: &mut usize) {
    let len = match p[*i] {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    match p.get(*i..*i + len).and_then(|s| std::str::from_utf8(s).ok()) {
        Some(s) => {
            out.push_str(s);
            *i += len;
        }
        None => {
            out.push('?');
            *i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn fnmatch_semantics() {
        let g = |p: &str| Glob::new(p.as_bytes(), false).unwrap();
        assert!(g("*.c").is_match(b"grep.c"));
        assert!(g("*").is_match(b".hidden"));
        assert!(g("a*b").is_match(b"a/x/b"));
        assert!(g("{a,b}").is_match(b"{a,b}"));
        assert!(!g("{a,b}").is_match(b"a"));
        assert!(g("[!a]x").is_match(b"bx"));
        assert!(g("[^a]x").is_match(b"bx"));
        assert!(!g("[^a]x").is_match(b"ax"));
        assert!(g("[").is_match(b"["));
        assert!(g("\\*").is_match(b"*"));
        assert!(!g("\\*").is_match(b"x"));
        assert!(Glob::new(b"GREP.C", true).unwrap().is_match(b"grep.c"));
        assert!(Glob::new(b"*.C", true).unwrap().is_match(b"grep.c"));
    }
}
