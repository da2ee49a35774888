//! The settings that shape a pattern: its dialect ([`Syntax`]), the
//! engine ([`Engine`]), the byte ending a line ([`LineTerminator`]), bytes
//! or Unicode ([`Text`]), and `Options`, what every engine is built with.

/// The dialect the patterns are written in.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Syntax {
    /// Perl-compatible regular expressions (the default; `-P` too).
    #[default]
    Perl,
    /// POSIX extended regular expressions (`-E`): read as the Perl dialect,
    /// with GNU grep's check of bracket expressions that look like a class
    /// without its brackets (`[:space:]`).
    Extended,
    /// POSIX basic regular expressions (`-G`), translated to the Perl dialect.
    Basic,
    /// Fixed strings (`-F`).
    Fixed,
}

/// The byte that ends a line, for the searcher, the matcher and the printer.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum LineTerminator {
    /// `\n`, grep's default.
    #[default]
    Newline,
    /// NUL (`-z`/`--null-data`): a newline is an ordinary byte inside a
    /// line, which is then the subject of the pattern as in `grep -z`
    /// (`^` and `$` anchor at its ends, `(?m)` at newlines within it).
    Nul,
}

impl LineTerminator {
    /// The terminating byte.
    pub fn byte(self) -> u8 {
        match self {
            LineTerminator::Newline => b'\n',
            LineTerminator::Nul => 0,
        }
    }
}

/// What a pattern's characters are: bytes (the C locale, as GNU grep's
/// `LC_ALL=C`), or Unicode characters in UTF-8 (a UTF-8 locale, as ripgrep
/// always): `.` and negated classes then match one whole character, `-i`
/// folds Unicode case, `\w \d \s \b` and POSIX classes cover Unicode,
/// `\p{...}` names Unicode properties. Bytes that are not UTF-8 in the
/// text never stop a search; a pattern that is not UTF-8 itself is read
/// as bytes.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Text {
    /// Bytes (the default).
    #[default]
    Bytes,
    /// Unicode characters encoded in UTF-8.
    Unicode,
}

/// Which engine runs a regular expression.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Engine {
    /// The Rust engine when it supports the pattern with grep's meaning, else PCRE2.
    #[default]
    Auto,
    /// Always PCRE2 (`-P`).
    Pcre2,
    /// Always the Rust engine; patterns it cannot run are an error.
    Rust,
}

/// Options that shape how each engine wraps the patterns.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub(crate) ignore_case: bool,
    pub(crate) word: bool,
    pub(crate) line: bool,
    pub(crate) terminator: LineTerminator,
    pub(crate) text: Text,
    /// `--multiline`: a match may span lines.
    pub(crate) multiline: bool,
    /// `--multiline-dotall`: `.` matches a newline too.
    pub(crate) dot_all: bool,
}
