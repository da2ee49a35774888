//! The matcher's error type: an opaque [`Error`] with an [`ErrorKind`] (a
//! syntax error, an engine giving up, an unsupported combination, or the
//! [`BadPattern`]s found when each pattern is checked alone).

use std::fmt;

/// A pattern that does not compile, and why.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct BadPattern {
    /// Which pattern: its index among the patterns given to
    /// [`MatcherBuilder::build`](crate::MatcherBuilder::build), each line
    /// of a pattern holding newlines counted as one.
    pub index: usize,
    /// The byte offset in that pattern where the engine stopped, when known
    /// and meaningful in the text the user wrote.
    pub offset: Option<usize>,
    /// The reason, in the words of the reference (PCRE2 for the Perl
    /// dialect, GNU grep's parser for `-G`).
    pub reason: String,
}

/// An error building a matcher or running it.
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What went wrong.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The pattern is not valid; the message shows where.
    Syntax(String),
    /// The engine gave up on a haystack (for example PCRE2's backtracking limit).
    Match(String),
    /// A requested combination of options is not supported.
    Unsupported(String),
    /// Patterns that do not compile, each checked alone.
    Patterns(Vec<BadPattern>),
}

impl Error {
    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The patterns that do not compile, when that is what went wrong.
    pub fn bad_patterns(&self) -> &[BadPattern] {
        match &self.kind {
            ErrorKind::Patterns(bad) => bad,
            _ => &[],
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Syntax(m) | ErrorKind::Match(m) | ErrorKind::Unsupported(m) => {
                f.write_str(m)
            }
            ErrorKind::Patterns(bad) => {
                for (k, b) in bad.iter().enumerate() {
                    if k > 0 {
                        f.write_str("; ")?;
                    }
                    f.write_str(&b.reason)?;
                    if let Some(at) = b.offset {
                        write!(f, " (at offset {at})")?;
                    }
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Error {}
