//! ripgrep's ways of choosing the files a search reads, all opt-in (trawl,
//! as grep, reads everything unless asked): `--glob`/`--iglob`
//! (gitignore-style globs matched against the path below the root given,
//! `!` to exclude, the last matching glob wins; when some glob includes,
//! files no glob names are left out), `--type`/`--type-not` (the `ignore`
//! crate's table, ripgrep's own, with `--type-add` and `--type-clear`),
//! and hidden files.
//!
//! As in ripgrep, a glob that names an entry decides for it (a hidden
//! file a glob includes is read); else a type that excludes it, then one
//! that includes it (hidden or not), then hidden-ness. Entries named on the
//! command line are always read: the rules choose among those found by
//! recursion.
//!
//! A glob or type that cannot be used is an [`Error`], its [`ErrorKind`]
//! holding the argument and the `ignore` crate's reason.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};
use ignore::types::{Types, TypesBuilder};
use ignore::Match;

/// Whether hidden entries (a name starting with `.`) are read.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Hidden {
    /// Read, as grep reads them (the default).
    #[default]
    Searched,
    /// Skipped, directories with their contents (`--no-hidden`, `-k`).
    Skipped,
}

/// Whether a glob is matched with case.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum GlobCase {
    /// `--glob`.
    Sensitive,
    /// `--iglob`.
    Insensitive,
}

/// What the rules say of an entry found by recursion.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Choice {
    /// Read the file, or enter the directory.
    Read,
    /// Leave it (and, for a directory, all below it) out.
    Leave,
}

/// Collects the command line's globs and types, in order.
pub struct RulesBuilder {
    globs: OverrideBuilder,
    any_glob: bool,
    /// The type table, made when a type option is met (ripgrep's default
    /// table of some 400 globs is a tenth of a tiny search's start).
    types: Option<TypesBuilder>,
    any_type: bool,
    hidden: Hidden,
}

impl Default for RulesBuilder {
    fn default() -> Self {
        RulesBuilder {
            globs: OverrideBuilder::new(""),
            any_glob: false,
            types: None,
            any_type: false,
            hidden: Hidden::Searched,
        }
    }
}

/// The type table with ripgrep's types.
fn default_types() -> TypesBuilder {
    let mut types = TypesBuilder::new();
    types.add_defaults();
    types
}

/// A glob, a type name or definition that cannot be used.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
}

/// What is wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A glob, type name or definition that is not UTF-8.
    NotUtf8 {
        /// The argument.
        argument: Vec<u8>,
    },
    /// A `--glob` or `--iglob` that is not a glob.
    InvalidGlob {
        /// The glob.
        glob: String,
        /// Why.
        error: ignore::Error,
    },
    /// A `--type-add` definition that is not one.
    InvalidTypeAdd {
        /// The definition.
        definition: String,
        /// Why.
        error: ignore::Error,
    },
    /// The globs, together, could not be built.
    Globs(ignore::Error),
    /// The types could not be built (a type selected that is not defined).
    Types(ignore::Error),
}

impl Error {
    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Error {
        Error { kind }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::NotUtf8 { argument } => {
                write!(f, "'{}' is not UTF-8", String::from_utf8_lossy(argument))
            }
            ErrorKind::InvalidGlob { glob, error } => write!(f, "invalid glob '{glob}': {error}"),
            ErrorKind::InvalidTypeAdd { definition, error } => {
                write!(f, "invalid --type-add '{definition}': {error}")
            }
            ErrorKind::Globs(error) | ErrorKind::Types(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::NotUtf8 { .. } => None,
            ErrorKind::InvalidGlob { error, .. }
            | ErrorKind::InvalidTypeAdd { error, .. }
            | ErrorKind::Globs(error)
            | ErrorKind::Types(error) => Some(error),
        }
    }
}

fn text(b: &[u8]) -> Result<&str, Error> {
    std::str::from_utf8(b).map_err(|_| ErrorKind::NotUtf8 { argument: b.to_vec() }.into())
}

impl RulesBuilder {
    /// A glob (`!GLOB` excludes), in command-line order.
    pub fn glob(&mut self, glob: &[u8], case: GlobCase) -> Result<&mut Self, Error> {
        let g = text(glob)?;
        self.globs.case_insensitive(case == GlobCase::Insensitive).map_err(ErrorKind::Globs)?;
        let invalid = |error| ErrorKind::InvalidGlob { glob: g.to_string(), error };
        self.globs.add(g).map_err(invalid)?;
        self.any_glob = true;
        Ok(self)
    }

    /// `--type-add NAME:GLOB` (or `NAME:include:OTHER,...`).
    pub fn type_add(&mut self, def: &[u8]) -> Result<&mut Self, Error> {
        let d = text(def)?;
        let invalid = |error| ErrorKind::InvalidTypeAdd { definition: d.to_string(), error };
        self.types().add_def(d).map_err(invalid)?;
        Ok(self)
    }

    /// `--type-clear NAME`: forget the type's globs (before redefining it).
    pub fn type_clear(&mut self, name: &[u8]) -> Result<&mut Self, Error> {
        self.types().clear(text(name)?);
        Ok(self)
    }

    /// `--type NAME`: read files of this type (and of the others selected).
    pub fn select(&mut self, name: &[u8]) -> Result<&mut Self, Error> {
        self.types().select(text(name)?);
        self.any_type = true;
        Ok(self)
    }

    /// `--type-not NAME`: leave files of this type out.
    pub fn negate(&mut self, name: &[u8]) -> Result<&mut Self, Error> {
        self.types().negate(text(name)?);
        self.any_type = true;
        Ok(self)
    }

    fn types(&mut self) -> &mut TypesBuilder {
        self.types.get_or_insert_with(default_types)
    }

    /// Whether hidden entries are read.
    pub fn hidden(&mut self, hidden: Hidden) -> &mut Self {
        self.hidden = hidden;
        self
    }

    /// The type table as `--type-list` prints it: `name: glob, glob`.
    pub fn type_list(&self) -> Vec<String> {
        let defaults;
        let types = match &self.types {
            Some(t) => t,
            None => {
                defaults = default_types();
                &defaults
            }
        };
        types
            .definitions()
            .iter()
            .map(|d| format!("{}: {}", d.name(), d.globs().join(", ")))
            .collect()
    }

    /// The rules, or `None` when none is in force.
    pub fn build(&self) -> Result<Option<Rules>, Error> {
        if !self.any_glob && !self.any_type && self.hidden == Hidden::Searched {
            return Ok(None);
        }
        let globs = self.globs.build().map_err(ErrorKind::Globs)?;
        // (No type option: a table with nothing selected, which matches
        // nothing.)
        let types = match &self.types {
            Some(t) => t.build(),
            None => TypesBuilder::new().build(),
        };
        let types = types.map_err(ErrorKind::Types)?;
        Ok(Some(Rules { globs, types, hidden: self.hidden }))
    }
}

/// The built rules.
pub struct Rules {
    globs: Override,
    types: Types,
    hidden: Hidden,
}

/// An entry as the rules see it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum EntryKind {
    /// A directory (entered or not).
    Dir,
    /// Anything else.
    File,
}

impl Rules {
    /// Whether a glob includes the entry at `below_root`: then ignore files
    /// do not leave it out (as in ripgrep, a glob overrides them).
    pub fn named_by_glob(&self, below_root: &[u8], kind: EntryKind) -> bool {
        let path = Path::new(OsStr::from_bytes(below_root));
        matches!(self.globs.matched(path, kind == EntryKind::Dir), Match::Whitelist(_))
    }

    /// What the rules say of the entry at `below_root` (its path below the
    /// root it was found from, `a/b.c`).
    pub fn choose(&self, below_root: &[u8], kind: EntryKind) -> Choice {
        let is_dir = kind == EntryKind::Dir;
        let path = Path::new(OsStr::from_bytes(below_root));
        match self.globs.matched(path, is_dir) {
            Match::Whitelist(_) => return Choice::Read,
            Match::Ignore(_) => return Choice::Leave,
            Match::None => {}
        }
        let typed = match self.types.matched(path, is_dir) {
            Match::Ignore(_) => return Choice::Leave,
            Match::Whitelist(_) => true,
            Match::None => false,
        };
        let name = below_root.rsplit(|&b| b == b'/').next().unwrap_or(below_root);
        if !typed && self.hidden == Hidden::Skipped && name.first() == Some(&b'.') {
            return Choice::Leave;
        }
        Choice::Read
    }
}

/// The part of `path` below its root: its last `depth` components (names
/// hold no `/`, so the count is exact).
pub fn below_root(path: &[u8], depth: usize) -> &[u8] {
    if depth == 0 {
        return b"";
    }
    let mut seen = 0;
    for (i, &b) in path.iter().enumerate().rev() {
        if b == b'/' {
            seen += 1;
            if seen == depth {
                return &path[i + 1..];
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(build: impl FnOnce(&mut RulesBuilder)) -> Rules {
        let mut b = RulesBuilder::default();
        build(&mut b);
        b.build().unwrap().expect("some rule")
    }

    #[test]
    fn the_last_matching_glob_wins_and_an_include_leaves_the_rest_out() {
        let r = rules(|b| {
            b.glob(b"*.rs", GlobCase::Sensitive).unwrap();
            b.glob(b"!skip*.rs", GlobCase::Sensitive).unwrap();
        });
        assert_eq!(r.choose(b"src/main.rs", EntryKind::File), Choice::Read);
        assert_eq!(r.choose(b"src/skip_me.rs", EntryKind::File), Choice::Leave);
        assert_eq!(r.choose(b"README.md", EntryKind::File), Choice::Leave);
        // Directories are entered unless a glob excludes them.
        assert_eq!(r.choose(b"src", EntryKind::Dir), Choice::Read);
    }

    #[test]
    fn iglob_ignores_case_and_excluded_directories_are_left() {
        let r = rules(|b| {
            b.glob(b"!target/", GlobCase::Sensitive).unwrap();
            b.glob(b"*.TXT", GlobCase::Insensitive).unwrap();
        });
        assert_eq!(r.choose(b"a/notes.txt", EntryKind::File), Choice::Read);
        assert_eq!(r.choose(b"target", EntryKind::Dir), Choice::Leave);
    }

    #[test]
    fn types_select_and_negate_by_name() {
        let r = rules(|b| {
            b.select(b"rust").unwrap();
        });
        assert_eq!(r.choose(b"x/lib.rs", EntryKind::File), Choice::Read);
        assert_eq!(r.choose(b"x/lib.c", EntryKind::File), Choice::Leave);
        let r = rules(|b| {
            b.negate(b"c").unwrap();
        });
        assert_eq!(r.choose(b"x/lib.c", EntryKind::File), Choice::Leave);
        assert_eq!(r.choose(b"x/lib.h", EntryKind::File), Choice::Leave);
        assert_eq!(r.choose(b"x/lib.rs", EntryKind::File), Choice::Read);
        let r = rules(|b| {
            b.type_add(b"mine:*.mine").unwrap().select(b"mine").unwrap();
        });
        assert_eq!(r.choose(b"a.mine", EntryKind::File), Choice::Read);
        assert_eq!(r.choose(b"a.rs", EntryKind::File), Choice::Leave);
    }

    #[test]
    fn an_unknown_type_is_an_error() {
        let mut b = RulesBuilder::default();
        b.select(b"nosuchtype").unwrap();
        let err = b.build().err().expect("unknown type refused");
        assert!(matches!(err.kind(), ErrorKind::Types(_)), "{err:?}");
        assert!(err.to_string().contains("nosuchtype"), "{err}");
    }

    #[test]
    fn hidden_entries_are_left_unless_a_glob_or_type_includes_them() {
        let r = rules(|b| {
            b.hidden(Hidden::Skipped);
        });
        assert_eq!(r.choose(b".git", EntryKind::Dir), Choice::Leave);
        assert_eq!(r.choose(b"a/.env", EntryKind::File), Choice::Leave);
        assert_eq!(r.choose(b"a/env", EntryKind::File), Choice::Read);
        let r = rules(|b| {
            b.hidden(Hidden::Skipped).glob(b".github/**", GlobCase::Sensitive).unwrap();
        });
        assert_eq!(r.choose(b".github/ci.yml", EntryKind::File), Choice::Read);
    }

    #[test]
    fn below_root_keeps_the_last_components() {
        assert_eq!(below_root(b"./a/b/c.txt", 3), b"a/b/c.txt");
        assert_eq!(below_root(b"/x/y", 1), b"y");
        assert_eq!(below_root(b"y", 0), b"");
        assert_eq!(below_root(b"a/b", 2), b"a/b");
    }
}
