//! Shell patterns with fnmatch(3) semantics, as `-name` and `-path` use
//! them: the C library's own fnmatch, as GNU find calls it, on the bytes
//! of names (trawl runs in the C locale: a byte is a character, names that
//! are not UTF-8 match as they are). `*` and `?` match any byte, `/`
//! included (no FNM_PATHNAME), a leading `.` too (no FNM_PERIOD); `[...]`
//! classes with `!` or `^` negation and `[:alpha:]`; `\` escapes; braces
//! are literal; a pattern fnmatch finds invalid matches nothing.
//!
//! Patterns without metacharacters, and `*SUFFIX` or `PREFIX*` ones, are
//! compared directly (most `-name` patterns), without a call.

use std::cell::RefCell;
use std::ffi::CString;

use crate::error::{Error, ErrorKind};

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Glob {
    how: How,
    ignore_case: bool,
}

#[derive(Clone, Debug)]
enum How {
    /// No metacharacter: the bytes themselves (lowercased when case is
    /// ignored).
    Literal(Vec<u8>),
    /// `*` then literal bytes.
    Suffix(Vec<u8>),
    /// Literal bytes then `*`.
    Prefix(Vec<u8>),
    /// Anything else: fnmatch.
    Fnmatch(CString),
}

fn is_meta(b: u8) -> bool {
    matches!(b, b'*' | b'?' | b'[' | b'\\')
}

impl Glob {
    /// Compiles `pattern` (any bytes but NUL: one is
    /// [`ErrorKind::PatternHoldsNul`]).
    pub fn new(pattern: &[u8], ignore_case: bool) -> Result<Glob, Error> {
        let lower = |b: &[u8]| if ignore_case { b.to_ascii_lowercase() } else { b.to_vec() };
        let how = if !pattern.iter().any(|&b| is_meta(b)) {
            How::Literal(lower(pattern))
        } else if let Some(rest) =
            pattern.strip_prefix(b"*").filter(|r| !r.iter().any(|&b| is_meta(b)))
        {
            How::Suffix(lower(rest))
        } else if let Some(rest) =
            pattern.strip_suffix(b"*").filter(|r| !r.iter().any(|&b| is_meta(b)))
        {
            How::Prefix(lower(rest))
        } else {
            let c = CString::new(pattern.to_vec())
                .map_err(|_| ErrorKind::PatternHoldsNul { pattern: pattern.to_vec() })?;
            How::Fnmatch(c)
        };
        Ok(Glob { how, ignore_case })
    }

    /// Whether `name` matches.
    pub fn is_match(&self, name: &[u8]) -> bool {
        let eq = |a: &[u8], b: &[u8]| match self.ignore_case {
            true => a.eq_ignore_ascii_case(b),
            false => a == b,
        };
        match &self.how {
            How::Literal(lit) => eq(name, lit),
            How::Suffix(s) => name.len() >= s.len() && eq(&name[name.len() - s.len()..], s),
            How::Prefix(p) => name.len() >= p.len() && eq(&name[..p.len()], p),
            How::Fnmatch(pattern) => fnmatch(pattern, name, self.ignore_case),
        }
    }
}

/// fnmatch(3) of `name` (NUL-free: file names are) against `pattern`.
fn fnmatch(pattern: &CString, name: &[u8], ignore_case: bool) -> bool {
    thread_local! {
        /// The name, NUL-terminated, in a buffer reused from call to call.
        static NAME: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    if name.contains(&0) {
        return false;
    }
    NAME.with(|buf| {
        let mut buf = buf.borrow_mut();
        buf.clear();
        buf.extend_from_slice(name);
        buf.push(0);
        let flags = if ignore_case { libc::FNM_CASEFOLD } else { 0 };
        // SAFETY: both strings are NUL-terminated and live for the call.
        unsafe { libc::fnmatch(pattern.as_ptr(), buf.as_ptr().cast(), flags) == 0 }
    })
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
        assert!(g("[[:digit:]]x").is_match(b"7x"));
        assert!(g("x?").is_match(b"x/"));
        assert!(Glob::new(b"GREP.C", true).unwrap().is_match(b"grep.c"));
        assert!(Glob::new(b"*.C", true).unwrap().is_match(b"grep.c"));
        assert!(Glob::new(b"G*", true).unwrap().is_match(b"grep.c"));
        assert!(Glob::new(b"[G]rep.?", true).unwrap().is_match(b"grep.c"));
    }

    /// A lone trailing backslash matches nothing (GNU find: no error).
    #[test]
    fn a_trailing_backslash_matches_nothing() {
        let g = Glob::new(b"\\", false).unwrap();
        assert!(!g.is_match(b"\\"));
        assert!(!g.is_match(b""));
    }

    /// Bytes that are not UTF-8 match as bytes: `\xff*` is not `?*`.
    #[test]
    fn names_that_are_not_utf8_match_byte_for_byte() {
        let g = Glob::new(b"\xff*", false).unwrap();
        assert!(g.is_match(b"\xffabc"));
        assert!(!g.is_match(b"\xfe"));
        assert!(!g.is_match(b"abc"));
        let g = Glob::new(b"a[\xfe\xff]", false).unwrap();
        assert!(g.is_match(b"a\xfe") && !g.is_match(b"a\xfd"));
        let g = Glob::new(b"?", false).unwrap();
        assert!(g.is_match(b"\xff") && !g.is_match("é".as_bytes()), "a byte each");
    }
}
