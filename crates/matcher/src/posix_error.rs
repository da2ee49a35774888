//! Why a POSIX-dialect pattern is refused: glibc regcomp's error codes
//! (`REG_EBRACK`, `REG_BADBR`, …) with their messages as glibc words them,
//! and GNU grep's own word for a misplaced character class. The checks of
//! grep's `-G`/`-E` patterns (`dialect`) and of find's `-regextype`
//! dialects ([`crate::check_find_regex`]) give one of these.

use std::fmt;

/// A reason glibc's regcomp (or GNU grep's parser) refuses a pattern.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum PosixError {
    /// `REG_EBRACK`: a `[` (or `[:`, `[.`, `[=`) without its closing pair.
    UnmatchedBracket,
    /// `REG_EPAREN`: a group opened and never closed.
    UnmatchedOpen,
    /// `REG_ERPAREN`: a group closed that was never opened.
    UnmatchedClose,
    /// `REG_EBRACE`: an interval `\{` (or `{`) without its end.
    UnmatchedBrace,
    /// `REG_BADBR`: an interval whose contents are not `m`, `m,`, `,n` or
    /// `m,n` with m ≤ n.
    BadInterval,
    /// `REG_ESIZE`: an interval count over 32767.
    TooBig,
    /// `REG_ERANGE`: a range that runs backwards (`[z-a]`).
    BadRangeEnd,
    /// `REG_ESUBREG`: a back-reference to a group not closed before it.
    BadBackReference,
    /// `REG_ECTYPE`: an unknown class name (`[[:foo:]]`).
    BadClassName,
    /// `REG_ECOLLATE`: a collating element that is not one character.
    BadCollation,
    /// `REG_EESCAPE`: a backslash at the end.
    TrailingBackslash,
    /// `REG_BADRPT`: a repetition operator with nothing to repeat.
    NothingToRepeat,
    /// GNU grep's refusal of a class written without its own brackets
    /// (`[:space:]` for `[[:space:]]`).
    MisplacedClass,
}

impl PosixError {
    /// The message, in glibc's (or GNU grep's) words.
    pub const fn message(self) -> &'static str {
        match self {
            PosixError::UnmatchedBracket => "Unmatched [, [^, [:, [., or [=",
            PosixError::UnmatchedOpen => "Unmatched ( or \\(",
            PosixError::UnmatchedClose => "Unmatched ) or \\)",
            PosixError::UnmatchedBrace => "Unmatched \\{",
            PosixError::BadInterval => "Invalid content of \\{\\}",
            PosixError::TooBig => "Regular expression too big",
            PosixError::BadRangeEnd => "Invalid range end",
            PosixError::BadBackReference => "Invalid back reference",
            PosixError::BadClassName => "Invalid character class name",
            PosixError::BadCollation => "Invalid collation character",
            PosixError::TrailingBackslash => "Trailing backslash",
            PosixError::NothingToRepeat => "Invalid preceding regular expression",
            PosixError::MisplacedClass => "character class syntax is [[:space:]], not [:space:]",
        }
    }
}

impl fmt::Display for PosixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for PosixError {}

#[cfg(test)]
mod tests {
    use super::PosixError;
    use crate::check_find_regex;
    use crate::Dialect;

    #[test]
    fn a_refused_pattern_gives_its_kind_in_glibcs_words() {
        let err = check_find_regex("a{1", Dialect::Extended).unwrap_err();
        assert_eq!(err, PosixError::UnmatchedBrace);
        assert_eq!(err.to_string(), "Unmatched \\{");
        let err = check_find_regex("[a", Dialect::Emacs).unwrap_err();
        assert_eq!(err, PosixError::UnmatchedBracket);
        assert_eq!(err.to_string(), "Unmatched [, [^, [:, [., or [=");
    }
}
