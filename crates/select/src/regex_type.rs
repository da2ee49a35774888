//! `-regex` dialects, translated to the Perl dialect and matched against the
//! whole path: the Rust engine, or PCRE2 when the pattern needs it
//! (back-references).

use regex_automata::meta;
use regex_automata::util::syntax;

use trawl_matcher::{check_find_regex, to_perl, Dialect, Flavor};

use crate::error::{Error, ErrorKind};

/// The dialect of `-regex` (GNU find's `-regextype`, with the syntax
/// glibc gives each name).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum RegexType {
    /// `findutils-default`: emacs, `.` matching a newline.
    FindutilsDefault,
    /// `emacs`, the default without `-regextype`: `.` does not match a
    /// newline.
    Emacs,
    /// `posix-extended`.
    Extended,
    /// `egrep`, `posix-egrep`.
    Egrep,
    /// `awk`.
    Awk,
    /// `posix-awk`.
    PosixAwk,
    /// `gnu-awk`.
    GnuAwk,
    /// `posix-basic`, `grep`, `ed`, `sed`, `posix-minimal-basic`.
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

/// Compiles a `-regex` pattern of the given type, anchored at both ends.
/// Only in the emacs dialect does `.` not match a newline.
pub fn compile(pattern: &[u8], kind: RegexType, ignore_case: bool) -> Result<PathRegex, Error> {
    let text = String::from_utf8_lossy(pattern);
    let dot_nl = kind != RegexType::Emacs;
    let dialect = match kind {
        RegexType::FindutilsDefault | RegexType::Emacs => Dialect::Emacs,
        RegexType::Extended => Dialect::Extended,
        RegexType::Egrep => Dialect::Egrep,
        RegexType::Awk => Dialect::Awk,
        RegexType::PosixAwk => Dialect::PosixAwk,
        RegexType::GnuAwk => Dialect::GnuAwk,
        RegexType::Basic => Dialect::Basic,
    };
    check_find_regex(&text, dialect)
        .map_err(|reason| ErrorKind::RefusedRegex { pattern: pattern.to_vec(), reason })?;
    let translate = |f: Flavor| to_perl(&text, dialect, f);
    let rust = format!(r"\A(?:{})\z", translate(Flavor::Rust));
    let built = meta::Regex::builder()
        .syntax(
            syntax::Config::new()
                .unicode(false)
                .utf8(false)
                .case_insensitive(ignore_case)
                .dot_matches_new_line(dot_nl),
        )
        // Without a capacity the engine reads cgroup files for the CPU count.
        .configure(meta::Config::new().pool_capacity(8))
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
                .map_err(|_| {
                    ErrorKind::UncompiledRegex { pattern: pattern.to_vec(), error: rust_err }.into()
                })
        }
    }
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
        assert!(m(r".*", RegexType::FindutilsDefault, "a\nb"), "but it does in findutils-default");
    }

    #[test]
    fn awk_and_egrep_dialects() {
        // Awk: a backslash in brackets quotes the next character.
        assert!(m(r".*/[\[\*]", RegexType::Awk, "w/["));
        assert!(!m(r".*/[\[\*]", RegexType::Awk, r"w/\"));
        assert!(m(r".*/[\[\*]", RegexType::Extended, r"w/\"));
        assert!(m(r".*/[\]]", RegexType::GnuAwk, "w/]"));
        // awk has no intervals, nor GNU's operators.
        assert!(m(r".*/x{2}", RegexType::Awk, "./x{2}"));
        assert!(m(r".*/x{2}", RegexType::PosixAwk, "./xx"));
        assert!(m(r".*/\w", RegexType::Awk, "./w"));
        assert!(m(r".*/\w", RegexType::GnuAwk, "./a"));
        // egrep: a leading * is ignored, an invalid interval is literal.
        assert!(m(r"*.*/{l", RegexType::Egrep, "./{l"));
        assert!(m(r".*/a{2}", RegexType::Egrep, "./aa"));
        assert!(compile(br"*.*/{l", RegexType::Extended, false).is_err());
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
