//! Extractors the user configures: a TOML file of `[[extractor]]` tables,
//! each a command that writes a document's text on its standard output,
//! and the files it reads, chosen by name (globs) and/or first bytes
//! (magic). They are asked before the built-in ones, in the file's order.
//!
//! ```toml
//! [[extractor]]
//! name = "djvu"
//! glob = ["*.djvu", "*.djv"]     # file names; with a slash, the whole path
//! magic = "AT&TFORM"             # first bytes (\xNN or \u00NN for any byte)
//! command = ["djvutxt", "{}", "/dev/stdout"]   # {}: the document's path
//! timeout = 60                   # seconds (default: --extract-timeout)
//! pages = true                   # the output ends each page with a form feed
//! text = true                    # the files are text: if the tool fails, their
//!                                # bytes are searched as they are (as grep would)
//! ```
//!
//! A table needs `glob` (or `iglob`, without regard to case) or `magic`;
//! given both, a file must match both. Without `{}` in `command`, the
//! document is the command's standard input.
//!
//! A mistake is an [`Error`] naming the file, line and column, its
//! [`ErrorKind`] saying what is wrong.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::kind::HEAD;
use crate::tools::{OnFailure, Provenance, Tool};
use crate::Layout;

/// A configured extractor: which files, and the tool that reads them.
#[derive(Debug)]
pub struct Configured {
    /// The command.
    pub tool: Tool,
    /// Globs matched against a name's last component.
    base: Option<GlobSet>,
    /// Globs (holding a slash) matched against the whole name.
    whole: Option<GlobSet>,
    /// What the first bytes must start with (one of them).
    magic: Vec<Vec<u8>>,
    /// Where the magic bytes are.
    offset: usize,
    /// How the table chose its files, for `trawl extractors`.
    pub rule: String,
}

impl Configured {
    /// Whether this extractor reads the file or member `name` whose first
    /// bytes are `head`.
    pub fn claims(&self, name: &[u8], head: &[u8]) -> bool {
        let named = match (&self.base, &self.whole) {
            (None, None) => true,
            (base, whole) => {
                let last = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
                base.as_ref().is_some_and(|g| g.is_match(bytes_path(last)))
                    || whole.as_ref().is_some_and(|g| g.is_match(bytes_path(name)))
            }
        };
        named
            && (self.magic.is_empty()
                || self
                    .magic
                    .iter()
                    .any(|m| head.get(self.offset..).is_some_and(|h| h.starts_with(m))))
    }
}

fn bytes_path(b: &[u8]) -> &Path {
    use std::os::unix::ffi::OsStrExt;
    Path::new(std::ffi::OsStr::from_bytes(b))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileTables {
    #[serde(default)]
    extractor: Vec<Spanned<Table>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Table {
    name: String,
    #[serde(default)]
    glob: OneOrMany,
    #[serde(default)]
    iglob: OneOrMany,
    #[serde(default)]
    magic: OneOrMany,
    #[serde(default)]
    magic_offset: usize,
    command: Vec<String>,
    timeout: Option<f64>,
    #[serde(default)]
    pages: bool,
    #[serde(default)]
    text: bool,
}

#[derive(Deserialize, Default)]
#[serde(untagged)]
enum OneOrMany {
    #[default]
    None,
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn items(&self) -> &[String] {
        match self {
            OneOrMany::None => &[],
            OneOrMany::One(s) => std::slice::from_ref(s),
            OneOrMany::Many(v) => v,
        }
    }
}

/// A mistake in a configuration file: where, and what.
#[derive(Debug)]
pub struct Error {
    /// The file.
    file: PathBuf,
    /// The line, from 1.
    line: usize,
    /// The column (in bytes), from 1.
    column: usize,
    /// What is wrong.
    kind: Box<ErrorKind>,
}

/// What is wrong in a configuration file.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file is not TOML, or not the tables expected.
    Toml(toml::de::Error),
    /// A table's `command` is empty.
    EmptyCommand {
        /// The extractor's name.
        extractor: String,
    },
    /// A table's `command` starts with an empty program.
    EmptyProgram {
        /// The extractor's name.
        extractor: String,
    },
    /// A table with neither `glob`, `iglob` nor `magic`.
    NoSelector {
        /// The extractor's name.
        extractor: String,
    },
    /// A glob that is not one.
    InvalidGlob {
        /// The extractor's name.
        extractor: String,
        /// The glob.
        glob: String,
        /// Why.
        error: globset::Error,
    },
    /// A table's globs could not be built together.
    GlobSet {
        /// The extractor's name.
        extractor: String,
        /// Why.
        error: globset::Error,
    },
    /// A magic with a character above `\xFF` (each stands for one byte).
    MagicNotBytes {
        /// The extractor's name.
        extractor: String,
        /// The magic.
        magic: String,
    },
    /// A magic that is empty or ends past the first [`HEAD`] bytes.
    MagicOutOfRange {
        /// The extractor's name.
        extractor: String,
        /// The magic.
        magic: String,
    },
    /// A timeout that is not a positive number of seconds.
    InvalidTimeout {
        /// The extractor's name.
        extractor: String,
        /// The timeout.
        timeout: f64,
    },
}

impl Error {
    /// The error of `kind` at byte `start` of `text`, the file `file`.
    fn at(kind: ErrorKind, file: &Path, text: &str, start: usize) -> Error {
        let start = start.min(text.len());
        let line = text[..start].matches('\n').count() + 1;
        let column = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
        Error { file: file.to_path_buf(), line, column, kind: Box::new(kind) }
    }

    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The line, from 1.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The column, from 1.
    pub fn column(&self) -> usize {
        self.column
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Toml(e) => f.write_str(e.message()),
            ErrorKind::EmptyCommand { extractor } => {
                write!(f, "extractor '{extractor}': `command` is empty")
            }
            ErrorKind::EmptyProgram { extractor } => {
                write!(f, "extractor '{extractor}': the command's program is empty")
            }
            ErrorKind::NoSelector { extractor } => write!(
                f,
                "extractor '{extractor}': give `glob`, `iglob` or `magic` (which files it reads)"
            ),
            ErrorKind::InvalidGlob { extractor, glob, error } => {
                write!(f, "extractor '{extractor}': glob '{glob}': {}", error.kind())
            }
            ErrorKind::GlobSet { extractor, error } => write!(f, "extractor '{extractor}': {error}"),
            ErrorKind::MagicNotBytes { extractor, magic } => write!(
                f,
                "extractor '{extractor}': magic '{magic}' has a character above \\xFF (one byte each)"
            ),
            ErrorKind::MagicOutOfRange { extractor, magic } => write!(
                f,
                "extractor '{extractor}': magic '{magic}' must be 1 to {HEAD} bytes within the first {HEAD}"
            ),
            ErrorKind::InvalidTimeout { extractor, timeout } => write!(
                f,
                "extractor '{extractor}': timeout {timeout} is not a positive number of seconds"
            ),
        }
    }
}

/// `FILE:LINE:COLUMN: what is wrong`, on one line.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = self.kind.to_string();
        let (file, line, column) = (self.file.display(), self.line, self.column);
        write!(f, "{file}:{line}:{column}: {}", what.trim().replace('\n', " "))
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            ErrorKind::Toml(error) => Some(error),
            ErrorKind::InvalidGlob { error, .. } | ErrorKind::GlobSet { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// Reads the configuration `text` of the file `file`. An error says
/// `FILE:LINE:COLUMN: what is wrong` on one line.
pub fn parse(text: &str, file: &Path) -> Result<Vec<Configured>, Error> {
    let tables: FileTables = toml::from_str(text).map_err(|e| {
        let start = e.span().map_or(0, |s| s.start);
        Error::at(ErrorKind::Toml(e), file, text, start)
    })?;
    tables
        .extractor
        .into_iter()
        .map(|t| {
            let start = t.span().start;
            table(t.into_inner(), file).map_err(|kind| Error::at(kind, file, text, start))
        })
        .collect()
}

fn table(t: Table, file: &Path) -> Result<Configured, ErrorKind> {
    let name = &t.name;
    let extractor = || name.clone();
    let Some((program, args)) = t.command.split_first() else {
        return Err(ErrorKind::EmptyCommand { extractor: extractor() });
    };
    if program.is_empty() {
        return Err(ErrorKind::EmptyProgram { extractor: extractor() });
    }
    if t.glob.items().is_empty() && t.iglob.items().is_empty() && t.magic.items().is_empty() {
        return Err(ErrorKind::NoSelector { extractor: extractor() });
    }
    let mut base = GlobSetBuilder::new();
    let mut whole = GlobSetBuilder::new();
    let (mut any_base, mut any_whole) = (false, false);
    for (pattern, fold) in
        t.glob.items().iter().map(|g| (g, false)).chain(t.iglob.items().iter().map(|g| (g, true)))
    {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .case_insensitive(fold)
            .build()
            .map_err(|error| ErrorKind::InvalidGlob {
                extractor: extractor(),
                glob: pattern.clone(),
                error,
            })?;
        if pattern.contains('/') {
            whole.add(glob);
            any_whole = true;
        } else {
            base.add(glob);
            any_base = true;
        }
    }
    let set = |b: GlobSetBuilder, any: bool| -> Result<Option<GlobSet>, ErrorKind> {
        if !any {
            return Ok(None);
        }
        b.build().map(Some).map_err(|error| ErrorKind::GlobSet { extractor: extractor(), error })
    };
    let mut magic = Vec::new();
    for m in t.magic.items() {
        let bytes: Option<Vec<u8>> = m.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect();
        let bytes = bytes
            .ok_or_else(|| ErrorKind::MagicNotBytes { extractor: extractor(), magic: m.clone() })?;
        if bytes.is_empty() || t.magic_offset + bytes.len() > HEAD {
            return Err(ErrorKind::MagicOutOfRange { extractor: extractor(), magic: m.clone() });
        }
        magic.push(bytes);
    }
    let timeout = match t.timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
        Some(timeout) => return Err(ErrorKind::InvalidTimeout { extractor: extractor(), timeout }),
    };
    let mut rule = Vec::new();
    for (key, items) in [("glob", &t.glob), ("iglob", &t.iglob), ("magic", &t.magic)] {
        if !items.items().is_empty() {
            rule.push(format!("{key} {}", items.items().join(" ")));
        }
    }
    let args = args.iter().map(OsString::from).collect();
    let mut tool = Tool::new(
        name,
        program.as_ref(),
        args,
        Provenance::Configured { file: file.to_path_buf() },
    );
    tool.timeout = timeout;
    tool.layout = if t.pages { Layout::Pages } else { Layout::Lines };
    if t.text {
        tool.on_failure = OnFailure::SearchBytes;
    }
    Ok(Configured {
        tool,
        base: set(base, any_base)?,
        whole: set(whole, any_whole)?,
        magic,
        offset: t.magic_offset,
        rule: rule.join("; "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Input;

    fn one(text: &str) -> Configured {
        let mut all = parse(text, Path::new("x.toml")).unwrap();
        assert_eq!(all.len(), 1);
        all.pop().unwrap()
    }

    #[test]
    fn globs_match_names_and_paths_and_magic_the_first_bytes() {
        let c = one("[[extractor]]\nname = 'djvu'\nglob = ['*.djvu', 'lib/**/*.djv']\n\
             command = ['djvutxt', '{}', '/dev/stdout']\ntimeout = 2.5\npages = true\n");
        assert!(c.claims(b"a/b/c.djvu", b""));
        assert!(c.claims(b"lib/x/y.djv", b""));
        assert!(!c.claims(b"other/y.djv", b""));
        assert!(!c.claims(b"c.DJVU", b""));
        assert_eq!(c.tool.input, Input::Path);
        assert_eq!(c.tool.layout, Layout::Pages);
        assert_eq!(c.tool.timeout, Some(Duration::from_millis(2500)));
        let m = one("[[extractor]]\nname = 'ole'\nmagic = \"\\u00D0\\u00CF\\u0011\\u00E0\"\n\
             iglob = '*.DOC'\ncommand = ['catdoc']\n");
        assert_eq!(m.tool.input, Input::Stdin);
        assert!(m.claims(b"x.doc", b"\xd0\xcf\x11\xe0rest"));
        assert!(!m.claims(b"x.doc", b"\xd0\xcf\x11"));
        assert!(!m.claims(b"x.txt", b"\xd0\xcf\x11\xe0rest"));
        // TOML 1.1's \xNN is one byte too.
        let x = one("[[extractor]]\nname = 'x'\nmagic = \"\\xD0\\xCF\"\ncommand = ['t']\n");
        assert!(x.claims(b"any", b"\xd0\xcf\x11"));
        let off =
            one("[[extractor]]\nname = 'o'\nmagic = 'ab'\nmagic_offset = 2\ncommand = ['t']\n");
        assert!(off.claims(b"any", b"xxabyy"));
        assert!(!off.claims(b"any", b"abyy"));
    }

    #[test]
    fn mistakes_are_named_by_file_line_and_column() {
        let err = |text: &str| parse(text, Path::new("c.toml")).unwrap_err().to_string();
        assert_eq!(
            err("\n[[extractor]]\nname = 'a'\ncommand = []\nglob = '*.a'\n"),
            "c.toml:2:1: extractor 'a': `command` is empty"
        );
        assert_eq!(
            err("[[extractor]]\nname = 'a'\ncommand = ['x']\n"),
            "c.toml:1:1: extractor 'a': give `glob`, `iglob` or `magic` (which files it reads)"
        );
        assert!(err("[[extractor]]\nname = 'a'\ncomand = ['x']\n")
            .starts_with("c.toml:3:1: unknown field `comand`"));
        assert!(err("[[extractor]]\nname = \n").starts_with("c.toml:2:8: "));
        assert!(err("[[extractor]]\nname = 'a'\nmagic = 'é€'\ncommand = ['x']\n")
            .contains("above \\xFF"));
        assert!(
            err("[[extractor]]\nname = 'a'\nglob = '[a'\ncommand = ['x']\n").contains("glob '[a'")
        );
        assert!(!err("[[extractor]]\nname = 'a'\nglob = '*'\ncommand = ['x']\ntimeout = -1\n")
            .is_empty());
    }

    #[test]
    fn a_mistake_holds_its_kind_and_place() {
        let err = |text: &str| parse(text, Path::new("c.toml")).unwrap_err();
        let e = err("[[extractor]]\nname = 'a'\nglob = '*'\ncommand = ['x']\ntimeout = -1\n");
        assert!(matches!(e.kind(), ErrorKind::InvalidTimeout { extractor, timeout }
            if extractor == "a" && *timeout == -1.0));
        assert_eq!((e.file(), e.line(), e.column()), (Path::new("c.toml"), 1, 1));
        assert_eq!(
            e.to_string(),
            "c.toml:1:1: extractor 'a': timeout -1 is not a positive number of seconds"
        );
        let e = err("\n\n[[extractor]]\nname = 'b'\nmagic = ''\ncommand = ['x']\n");
        assert!(matches!(e.kind(), ErrorKind::MagicOutOfRange { extractor, magic }
            if extractor == "b" && magic.is_empty()));
        assert_eq!((e.line(), e.column()), (3, 1));
        assert_eq!(
            e.to_string(),
            format!("c.toml:3:1: extractor 'b': magic '' must be 1 to {HEAD} bytes within the first {HEAD}")
        );
        let e = err("[[extractor]]\nname = 'a'\ncomand = ['x']\n");
        assert!(matches!(e.kind(), ErrorKind::Toml(_)));
        assert_eq!((e.line(), e.column()), (3, 1));
    }
}
