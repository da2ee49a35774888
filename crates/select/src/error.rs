//! What can be wrong in a `find` command line, and what can stop a run
//! from starting: each [`ErrorKind`] carries what it is about (the
//! argument, the option, the path, the I/O error), and says it in GNU
//! find's words, which trawl's tests compare with GNU find's own.

use std::fmt;
use std::io;

use crate::report::show;

/// A mistake in a `find` command line, or what stopped a run from
/// starting (an output file that cannot be created, a `-files0-from`
/// list that cannot be read), or something wrong inside that list.
#[derive(Debug)]
pub struct Error {
    kind: Box<ErrorKind>,
}

/// What is wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The expression ends where an operand is needed (`( `).
    MissingExpression,
    /// `( )`.
    EmptyParentheses,
    /// A `(` that is never closed.
    UnclosedParenthesis,
    /// A `)` that closes nothing.
    TooManyCloseParentheses,
    /// A binary operator (`-o`, `-a`, `,`) with no operand before it.
    NothingBeforeOperator {
        /// The operator as written.
        operator: String,
    },
    /// A binary operator with no operand after it.
    NothingAfterOperator {
        /// The operator as written.
        operator: String,
    },
    /// `!` or `-not` with no operand after it.
    NothingAfterNot,
    /// A starting point after the expression began.
    PathAfterExpression {
        /// The argument.
        path: Vec<u8>,
    },
    /// An argument starting with `-` that is no primary.
    UnknownPredicate {
        /// The argument.
        predicate: Vec<u8>,
    },
    /// `-newerXY` with letters that name no time.
    InvalidPredicate {
        /// The argument.
        predicate: Vec<u8>,
    },
    /// `-delete` and `-prune` without an explicit `-depth`.
    DeleteWithPrune,
    /// A starting point given beside `-files0-from`.
    OperandWithFiles0From {
        /// The first starting point.
        operand: Vec<u8>,
    },
    /// An option or primary at the end, without its argument.
    MissingArgument {
        /// The option or primary.
        option: String,
    },
    /// `-newerXY` at the end, without its argument.
    TestNeedsArgument {
        /// The test.
        test: String,
    },
    /// An argument that is not the number (or time) an option takes.
    InvalidArgument {
        /// The option or primary.
        option: String,
        /// Its argument.
        argument: Vec<u8>,
    },
    /// `-regextype` with a name it does not know.
    UnknownRegexType {
        /// The name.
        name: Vec<u8>,
    },
    /// `-size ''`.
    EmptySize,
    /// `-size` with a unit letter it does not know.
    UnknownSizeUnit {
        /// The letter.
        unit: u8,
    },
    /// `-size` with an argument that is not a number.
    InvalidSize {
        /// The argument.
        argument: Vec<u8>,
    },
    /// `-used` with an argument that is not a number.
    InvalidUsed {
        /// The argument.
        argument: Vec<u8>,
    },
    /// `-newerXt` with a time it cannot read.
    UnknownDate {
        /// The argument.
        argument: Vec<u8>,
    },
    /// `-perm` with a mode it cannot read.
    InvalidMode {
        /// The argument.
        argument: Vec<u8>,
    },
    /// `-user` with a name that is no user (nor a number).
    UnknownUser {
        /// The name.
        name: Vec<u8>,
    },
    /// `-group` with a name that is no group (nor a number).
    UnknownGroup {
        /// The name.
        name: Vec<u8>,
    },
    /// `-type ''` (or one starting with `,`).
    EmptyTypeList,
    /// `-type` with an empty letter after a `,`.
    EmptyTypeInList,
    /// `-type` with a letter it does not know.
    UnknownType {
        /// The letter (or the word) given.
        letter: Vec<u8>,
    },
    /// `-type` with a letter given twice.
    DuplicateType {
        /// The letter.
        letter: Vec<u8>,
    },
    /// `-kind` with a name it does not know.
    UnknownKind {
        /// The name.
        name: Vec<u8>,
    },
    /// `-contains` with a pattern the grep matcher refuses.
    ContainsPattern {
        /// The pattern.
        pattern: Vec<u8>,
        /// Why.
        error: trawl_matcher::Error,
    },
    /// A `-regex` that glibc would refuse in the `-regextype` given.
    RefusedRegex {
        /// The pattern.
        pattern: Vec<u8>,
        /// glibc's reason.
        reason: trawl_matcher::PosixError,
    },
    /// A `-regex` that neither engine compiles.
    UncompiledRegex {
        /// The pattern.
        pattern: Vec<u8>,
        /// The Rust engine's reason.
        error: regex_automata::meta::BuildError,
    },
    /// A `-name`, `-path` or `-lname` pattern holding a NUL byte.
    PatternHoldsNul {
        /// The pattern.
        pattern: Vec<u8>,
    },
    /// A `-printf` format ending in `%`.
    PercentAtEnd,
    /// A `-printf` directive reserved for the future (`%{`, `%[`, `%(`).
    ReservedDirective {
        /// The letter after `%`.
        conversion: u8,
    },
    /// `-exec … {} +` with `{}` also elsewhere.
    SecondBracesInBatch {
        /// The action.
        action: String,
    },
    /// `-execdir`/`-okdir` with the current directory in `$PATH`.
    CurrentDirInPath {
        /// The action.
        action: String,
    },
    /// `-execdir`/`-okdir` with a relative directory in `$PATH`.
    RelativeDirInPath {
        /// The action.
        action: String,
        /// The entry of `$PATH`.
        entry: Vec<u8>,
    },
    /// `-newerBY`'s reference file has no birth time.
    NoBirthTime {
        /// The file.
        path: Vec<u8>,
    },
    /// A reference file's name holds a NUL byte.
    PathHoldsNul {
        /// The name.
        path: Vec<u8>,
    },
    /// A reference file (`-newer`, `-samefile`) that cannot be stat'd.
    Stat {
        /// The file.
        path: Vec<u8>,
        /// Why.
        error: io::Error,
    },
    /// A file of `-fprint` & co. that cannot be created.
    CreateOutput {
        /// The file.
        path: Vec<u8>,
        /// Why.
        error: io::Error,
    },
    /// `-files0-from -` with `-ok` or `-okdir`, whose answers come from
    /// standard input too.
    Files0FromStdinWithOk,
    /// `-files0-from FILE` with `-ok` or `-okdir`, FILE being standard
    /// input under another name.
    Files0IsStdinWithOk {
        /// The file.
        file: Vec<u8>,
    },
    /// `-files0-from`'s file cannot be opened.
    Files0Open {
        /// The file.
        file: Vec<u8>,
        /// Why.
        error: io::Error,
    },
    /// `-files0-from`'s file could not be read to its end.
    Files0Read {
        /// The file (`-` for standard input).
        file: Vec<u8>,
        /// Why.
        error: io::Error,
    },
    /// An empty name in `-files0-from`'s file.
    Files0EmptyName {
        /// The file (`-` for standard input).
        file: Vec<u8>,
        /// The name's number, from 1.
        number: usize,
    },
}

impl Error {
    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// What is wrong, taken.
    pub fn into_kind(self) -> ErrorKind {
        *self.kind
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error { kind: Box::new(kind) }
    }
}

/// `-files0-from`'s file as its messages quote it.
fn quoted(file: &[u8]) -> String {
    match file {
        b"-" => "'(standard input)'".to_string(),
        _ => format!("'{}'", show(file)),
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ErrorKind::*;
        let io = trawl_diag::io_message;
        match self {
            MissingExpression => f.write_str("invalid expression"),
            EmptyParentheses => {
                f.write_str("invalid expression; empty parentheses are not allowed.")
            }
            UnclosedParenthesis => f.write_str(
                "invalid expression; I was expecting to find a ')' somewhere but did not see one.",
            ),
            TooManyCloseParentheses => f.write_str("invalid expression; you have too many ')'"),
            NothingBeforeOperator { operator } => write!(
                f,
                "invalid expression; you have used a binary operator '{operator}' with nothing before it."
            ),
            NothingAfterOperator { operator } => write!(
                f,
                "invalid expression; you have used a binary operator '{operator}' with nothing after it."
            ),
            NothingAfterNot => f.write_str(
                "invalid expression; you have used a unary operator '!' with nothing after it.",
            ),
            PathAfterExpression { path } => {
                write!(f, "paths must precede expression: `{}'", show(path))
            }
            UnknownPredicate { predicate } => write!(f, "unknown predicate `{}'", show(predicate)),
            InvalidPredicate { predicate } => write!(f, "invalid predicate `{}'", show(predicate)),
            DeleteWithPrune => f.write_str("The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option."),
            OperandWithFiles0From { operand } => write!(
                f,
                "extra operand '{}'\ntrawl: file operands cannot be combined with -files0-from",
                show(operand)
            ),
            MissingArgument { option } => write!(f, "missing argument to `{option}'"),
            TestNeedsArgument { test } => write!(f, "The '{test}' test needs an argument"),
            InvalidArgument { option, argument } => {
                write!(f, "invalid argument `{}' to `{option}'", show(argument))
            }
            UnknownRegexType { name } => write!(
                f,
                "Unknown regular expression type '{}'; valid types are 'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', 'posix-basic', 'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed'.",
                show(name)
            ),
            EmptySize => f.write_str("invalid null argument to -size"),
            UnknownSizeUnit { unit } => write!(f, "invalid -size type `{}'", show(&[*unit])),
            InvalidSize { argument } => write!(f, "Invalid argument `{}' to -size", show(argument)),
            InvalidUsed { argument } => write!(f, "Invalid argument {} to -used", show(argument)),
            UnknownDate { argument } => write!(
                f,
                "I cannot figure out how to interpret '{}' as a date or time",
                show(argument)
            ),
            InvalidMode { argument } => write!(f, "invalid mode `{}'", show(argument)),
            UnknownUser { name } => write!(f, "'{}' is not the name of a known user", show(name)),
            UnknownGroup { name } => {
                write!(f, "'{}' is not the name of an existing group", show(name))
            }
            EmptyTypeList => f.write_str("Arguments to -type should contain at least one letter"),
            EmptyTypeInList => f.write_str(
                "Last file type in list argument to -type is missing, i.e., list is ending on: ','",
            ),
            UnknownType { letter } => write!(f, "Unknown argument to -type: {}", show(letter)),
            DuplicateType { letter } => write!(
                f,
                "Duplicate file type '{}' in the argument list to -type.",
                show(letter)
            ),
            UnknownKind { name } => write!(
                f,
                "-kind: unknown kind '{}'; kinds are gzip, bzip2, xz, zstd, lz4, compressed, tar, zip, archive, pdf, postscript, dvi, ole, document, plain",
                show(name)
            ),
            ContainsPattern { pattern, error } => {
                write!(f, "-contains '{}': {error}", show(pattern))
            }
            RefusedRegex { pattern, reason } => {
                write!(f, "failed to compile regular expression '{}': {reason}", show(pattern))
            }
            UncompiledRegex { pattern, error } => {
                write!(f, "failed to compile regular expression '{}': {error}", show(pattern))
            }
            PatternHoldsNul { .. } => f.write_str("a pattern holds a NUL byte"),
            PercentAtEnd => f.write_str("error: % at end of format string"),
            ReservedDirective { conversion } => write!(
                f,
                "error: the format directive `%{}' is reserved for future use",
                *conversion as char
            ),
            SecondBracesInBatch { action } => {
                write!(f, "only one instance of {{}} is supported with {action} ... +")
            }
            CurrentDirInPath { action } => write!(f, "The current directory is included in the PATH environment variable, which is insecure in combination with the {action} action of find.  Please remove the current directory from your $PATH (that is, remove \".\", doubled colons, or leading or trailing colons)"),
            RelativeDirInPath { action, entry } => write!(f, "The relative path '{}' is included in the PATH environment variable, which is insecure in combination with the {action} action of find.  Please remove that entry from $PATH", show(entry)),
            NoBirthTime { path } => write!(f, "Cannot obtain birth time of file '{}'", show(path)),
            PathHoldsNul { path } => write!(f, "'{}': invalid path", show(path)),
            Stat { path, error } | CreateOutput { path, error } => {
                write!(f, "'{}': {}", show(path), io(error))
            }
            // These two end with a newline of their own in GNU find (an
            // empty line follows them).
            Files0FromStdinWithOk => f.write_str(
                "option -files0-from reading from standard input cannot be combined with -ok, -okdir\n",
            ),
            Files0IsStdinWithOk { file } => writeln!(
                f,
                "option -files0-from: standard input must not refer to the same file when combined with -ok, -okdir: {}",
                quoted(file)
            ),
            Files0Open { file, error } => {
                write!(f, "cannot open {} for reading: {}", quoted(file), io(error))
            }
            Files0Read { file, error } => {
                write!(f, "{}: read error: {}", quoted(file), io(error))
            }
            Files0EmptyName { file, number } => {
                write!(f, "{}:{number}: invalid zero-length file name", quoted(file))
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::ContainsPattern { error, .. } => Some(error),
            ErrorKind::RefusedRegex { reason, .. } => Some(reason),
            ErrorKind::UncompiledRegex { error, .. } => Some(error),
            ErrorKind::Stat { error, .. }
            | ErrorKind::CreateOutput { error, .. }
            | ErrorKind::Files0Open { error, .. }
            | ErrorKind::Files0Read { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorKind;
    use crate::parse_at;
    use trawl_matcher::PosixError;

    /// The mistake in `line`, parsed.
    fn mistake(line: &[&str]) -> crate::ParseError {
        let args: Vec<Vec<u8>> = line.iter().map(|a| a.as_bytes().to_vec()).collect();
        parse_at(&args, (1_700_000_000, 0)).unwrap_err()
    }

    #[test]
    fn mistakes_hold_what_they_are_about_and_are_said_in_gnu_finds_words() {
        let e = mistake(&["-name"]);
        assert!(matches!(e.kind(), ErrorKind::MissingArgument { option } if option == "-name"));
        assert_eq!(e.to_string(), "missing argument to `-name'");
        let e = mistake(&["-mtime", "x"]);
        assert!(matches!(e.kind(), ErrorKind::InvalidArgument { option, argument }
            if option == "-mtime" && argument == b"x"));
        assert_eq!(e.to_string(), "invalid argument `x' to `-mtime'");
        let e = mistake(&["-size", "3x"]);
        assert!(matches!(e.kind(), ErrorKind::UnknownSizeUnit { unit: b'x' }));
        assert_eq!(e.to_string(), "invalid -size type `x'");
        let e = mistake(&["-type", "f,f"]);
        assert!(matches!(e.kind(), ErrorKind::DuplicateType { letter } if letter == b"f"));
        assert_eq!(e.to_string(), "Duplicate file type 'f' in the argument list to -type.");
        let e = mistake(&["-true", "-o"]);
        assert!(
            matches!(e.kind(), ErrorKind::NothingAfterOperator { operator } if operator == "-o")
        );
        assert_eq!(
            e.to_string(),
            "invalid expression; you have used a binary operator '-o' with nothing after it."
        );
        let e = mistake(&["(", ")"]);
        assert!(matches!(e.kind(), ErrorKind::EmptyParentheses));
        assert_eq!(e.to_string(), "invalid expression; empty parentheses are not allowed.");
        let e = mistake(&["-printf", "%"]);
        assert!(matches!(e.kind(), ErrorKind::PercentAtEnd));
        assert_eq!(e.to_string(), "error: % at end of format string");
        let e = mistake(&["-exec", "echo", "{}", "{}", "+"]);
        assert!(matches!(e.kind(), ErrorKind::SecondBracesInBatch { action } if action == "-exec"));
        assert_eq!(e.to_string(), "only one instance of {} is supported with -exec ... +");
        let e = mistake(&["-newer", "/nonexistent/x"]);
        assert!(matches!(e.kind(), ErrorKind::Stat { path, .. } if path == b"/nonexistent/x"));
        assert_eq!(e.to_string(), "'/nonexistent/x': No such file or directory");
    }

    #[test]
    fn a_refused_regex_holds_glibcs_reason() {
        let e = mistake(&["-regextype", "posix-extended", "-regex", "a{1"]);
        assert!(matches!(e.kind(), ErrorKind::RefusedRegex { pattern, reason }
            if pattern == b"a{1" && *reason == PosixError::UnmatchedBrace));
        assert_eq!(e.to_string(), "failed to compile regular expression 'a{1': Unmatched \\{");
    }
}
