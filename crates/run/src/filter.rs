//! `--include`, `--exclude` and `--exclude-dir` as GNU grep reads them,
//! and ripgrep's `--glob`, `--type` and `--no-hidden` choices. A name met
//! in recursion is matched by its base name; a name given on the command
//! line by itself and by every part of it after a `/` (gnulib's unanchored
//! exclude, so `--exclude-dir='s*'` skips the operand `a/sub/..`); an
//! archive member by its base name and its path in the archive.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;

use trawl_select::glob::Glob;
use trawl_select::rules::{Choice, EntryKind, Rules, RulesBuilder};

/// How a path came to be looked at: what its globs are matched against.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Reached {
    /// Named on the command line.
    Operand,
    /// The `.` searched when no path is given: never skipped (grep).
    ImplicitDot,
    /// Found by recursion.
    Recursion,
    /// A member of an archive, by its path inside it.
    Member,
}

/// `--include`, `--exclude` and `--exclude-dir`: fnmatch(3) patterns, as
/// GNU grep matches them, on the bytes of names (never converted).
pub struct Filter {
    /// `--include` and `--exclude` in command-line order (true: include).
    rules: Vec<(bool, NamePattern)>,
    exclude_dir: Vec<NamePattern>,
    /// ripgrep's choices: `--glob`, `--type`, `--no-hidden` (for entries
    /// found by recursion).
    pub chosen: Option<std::sync::Arc<Rules>>,
    /// `--max-filesize`: larger files are skipped.
    pub max_filesize: Option<u64>,
}

impl Filter {
    /// Whether `--max-filesize` leaves out a file; `size` is asked only
    /// when there is a limit (None: unknown, kept).
    pub fn too_large(&self, size: impl FnOnce() -> Option<u64>) -> bool {
        self.max_filesize.is_some_and(|limit| size().is_some_and(|s| s > limit))
    }
}

/// What `--include` and `--exclude` say of a file.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Verdict {
    /// Searched: the last option naming it is an `--include`, or none
    /// names it and the first option is not an `--include`.
    Kept,
    /// The last option naming it is an `--exclude`.
    Excluded,
    /// No option names it, and the first one is an `--include`.
    NotIncluded,
}

/// One `--include`, `--exclude` or `--exclude-dir` pattern.
struct NamePattern {
    glob: Glob,
    /// It holds `*`, `?`, `[` or `]`: gnulib matches it with fnmatch,
    /// else by equality (which also tries the parts of a name that start
    /// with a `/`).
    wild: bool,
}

fn glob(pattern: &[u8]) -> Result<NamePattern, String> {
    let glob = Glob::new(pattern, false)
        .map_err(|e| format!("invalid glob '{}': {e}", String::from_utf8_lossy(pattern)))?;
    let wild = pattern.iter().any(|b| matches!(b, b'*' | b'?' | b'[' | b']'));
    Ok(NamePattern { glob, wild })
}

impl NamePattern {
    /// Whether it matches `path`, reached as `reached` says.
    fn matches(&self, path: &[u8], reached: Reached) -> bool {
        let g = &self.glob;
        match reached {
            Reached::Recursion => g.is_match(base_name(path)),
            Reached::Member => g.is_match(base_name(path)) || g.is_match(trimmed(path)),
            // The name as given, then what follows each `/` (a pattern
            // with wildcards skips the parts that start with another `/`;
            // after a last `/` comes "").
            Reached::Operand | Reached::ImplicitDot => {
                g.is_match(path)
                    || memchr::memchr_iter(b'/', path)
                        .filter(|&i| !self.wild || path.get(i + 1) != Some(&b'/'))
                        .any(|i| g.is_match(&path[i + 1..]))
            }
        }
    }
}

/// `--include`, `--exclude` or `--exclude-from`, in command-line order
/// (the last that matches a name wins).
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum NameRule {
    Include(OsString),
    Exclude(OsString),
    /// The globs of this file, one per line, excluded.
    ExcludeFrom(OsString),
}

/// The options a [`Filter`] is made of, as given.
pub struct FilterOptions<'a> {
    /// `--include`, `--exclude` and `--exclude-from`, in order.
    pub name_rules: &'a [NameRule],
    /// `--exclude-dir`'s globs.
    pub exclude_dir: &'a [OsString],
    /// `--max-filesize`.
    pub max_filesize: Option<u64>,
}

impl Filter {
    /// The filter of `options`, with the bytes of its `--exclude-from`
    /// files (in order) and its `--glob`/`--type` rules.
    pub fn new(
        options: FilterOptions<'_>,
        exclude_from: &[Vec<u8>],
        chosen: RulesBuilder,
    ) -> Result<Filter, String> {
        // GNU grep's rule: the last matching option wins, in command-line
        // order, whichever kind it is.
        let mut rules: Vec<(bool, NamePattern)> = Vec::new();
        let mut files = exclude_from.iter();
        for rule in options.name_rules {
            match rule {
                NameRule::Include(g) => rules.push((true, glob(g.as_bytes())?)),
                NameRule::Exclude(g) => rules.push((false, glob(g.as_bytes())?)),
                // --exclude-from=FILE: its globs, one per line, where the
                // option is.
                NameRule::ExcludeFrom(_) => {
                    let text = files.next().map_or(&[][..], Vec::as_slice);
                    // gnulib's add_exclude_fp: trailing white space (a CR,
                    // blanks) is not part of a pattern, and blank lines hold
                    // none.
                    let c_space = |b: &u8| b.is_ascii_whitespace() || *b == 0x0b;
                    let patterns = text.split(|&b| b == b'\n').map(|l| {
                        let end = l.iter().rposition(|b| !c_space(b)).map_or(0, |i| i + 1);
                        &l[..end]
                    });
                    for line in patterns.filter(|l| !l.is_empty()) {
                        rules.push((false, glob(line)?));
                    }
                }
            }
        }
        // `--exclude-dir=dir/` names the directory `dir`.
        let exclude_dir = options
            .exclude_dir
            .iter()
            .map(|g| glob(trimmed(g.as_bytes())))
            .collect::<Result<_, _>>()?;
        Ok(Filter {
            rules,
            exclude_dir,
            chosen: chosen.build().map_err(|e| e.to_string())?.map(std::sync::Arc::new),
            max_filesize: options.max_filesize,
        })
    }

    /// What `--glob`, `--type` and `--no-hidden` say of an entry found by
    /// recursion (`depth` > 0), printed as `path`.
    pub fn chosen(&self, path: &[u8], depth: usize, kind: EntryKind) -> bool {
        match &self.chosen {
            Some(rules) if depth > 0 => {
                rules.choose(trawl_select::rules::below_root(path, depth), kind) == Choice::Read
            }
            _ => true,
        }
    }

    /// What `--include` and `--exclude` say of the file (or archive
    /// member) printed as `path`.
    pub fn verdict(&self, path: &[u8], reached: Reached) -> Verdict {
        if self.rules.is_empty() {
            return Verdict::Kept;
        }
        for (include, g) in self.rules.iter().rev() {
            if g.matches(path, reached) {
                return if *include { Verdict::Kept } else { Verdict::Excluded };
            }
        }
        match self.rules.first() {
            Some((true, _)) => Verdict::NotIncluded,
            _ => Verdict::Kept,
        }
    }

    /// Whether the file printed as `path` is searched.
    pub fn file_ok(&self, path: &[u8], reached: Reached) -> bool {
        self.verdict(path, reached) == Verdict::Kept
    }

    /// Whether the directory printed as `path` is entered.
    pub fn dir_ok(&self, path: &[u8], reached: Reached) -> bool {
        if reached == Reached::ImplicitDot {
            return true;
        }
        !self.exclude_dir.iter().any(|g| g.matches(path, reached))
    }
}

/// `path` without its trailing slashes (a path of slashes stays).
fn trimmed(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b != b'/') {
        Some(i) => &path[..=i],
        None => path,
    }
}

/// The last component of `path`, trailing slashes aside.
fn base_name(path: &[u8]) -> &[u8] {
    let t = trimmed(path);
    match memchr::memrchr(b'/', t) {
        Some(i) => &t[i + 1..],
        None => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, path: &[u8], reached: Reached) -> bool {
        glob(pattern.as_bytes()).unwrap().matches(path, reached)
    }

    #[test]
    fn a_name_found_by_recursion_is_matched_by_its_base_name() {
        assert!(m("a.c", b"d/sub/a.c", Reached::Recursion));
        assert!(!m("d*", b"d/sub/a.c", Reached::Recursion));
        assert!(!m("*/a.c", b"d/sub/a.c", Reached::Recursion));
    }

    #[test]
    fn an_operand_is_matched_by_every_part_after_a_slash() {
        assert!(m("s*", b"d/sub/x/..", Reached::Operand));
        assert!(m("x/..", b"d/sub/x/..", Reached::Operand));
        assert!(!m("..", b"d/sub/x/../", Reached::Operand));
        assert!(m("d/a*", b"./d/a.c", Reached::Operand));
        assert!(!m("sub", b"d/sub/", Reached::Operand));
        assert!(m("", b"d/sub/", Reached::Operand));
    }

    #[test]
    fn only_a_pattern_without_wildcards_meets_a_part_starting_with_a_slash() {
        assert!(m("/a.c", b"d//a.c", Reached::Operand));
        assert!(!m("/a.[c]", b"d//a.c", Reached::Operand));
        assert!(m("a.[c]", b"d//a.c", Reached::Operand));
    }
}
