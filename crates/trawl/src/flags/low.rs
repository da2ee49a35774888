//! The command line as typed values, applied in command-line order: each
//! option's declaration (`flags::defs`) sets its fields, so that of two
//! options that decide the same thing the later one wins by construction
//! (`-l -L`, `-h -H`, `-a -I`, `--sort --sortr`, `-d skip -r`, `-i
//! --no-ignore-case`), as grep's getopt loop and ripgrep's flags do. Plain
//! data: nothing here reads the environment or a file.

use std::ffi::OsString;

use clap::ArgMatches;

use super::defs::{self, Given, Kind, Value};

/// A pattern option, in command-line order.
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum PatternArg {
    /// `-e PATTERN`.
    Given(OsString),
    /// `-f FILE`.
    File(OsString),
}

/// `-F`, `-G`, `-E`, `-P`: the dialect named (more than one is an error).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Dialect {
    Fixed,
    Basic,
    Extended,
    Perl,
}

/// `--engine`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum EngineArg {
    Auto,
    Rust,
    Pcre2,
}

/// `-i`, `--no-ignore-case`, `-S`: the last one given.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Case {
    #[default]
    Sensitive,
    Insensitive,
    /// Insensitive unless a pattern has an upper-case letter.
    Smart,
}

/// `-l` or `-L`, the last one given.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ListFiles {
    WithMatches,
    WithoutMatch,
}

/// `--color`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// What `--sort`/`--sortr` sort by.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SortBy {
    Path,
    Modified,
    Accessed,
    Created,
    None,
}

/// `--sort BY` or `--sortr BY`, the last one given.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct SortArg {
    pub by: SortBy,
    pub reverse: bool,
}

/// `-D`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum DevicesArg {
    Read,
    Skip,
}

/// `-d`, or `-r`/`-R` after it (recurse).
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum DirectoriesArg {
    Read,
    Recurse,
    Skip,
}

/// `-a`, `-I`, `--binary-files`: the last one given.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum BinaryArg {
    Text,
    WithoutMatch,
    Binary,
}

/// `--include`, `--exclude` or `--exclude-from`, in command-line order (the
/// last matching one decides, as grep's).
#[derive(Clone, Debug, Eq, PartialEq)]
pub enum NameRule {
    Include(OsString),
    Exclude(OsString),
    /// The globs of this file, one per line, excluded.
    ExcludeFrom(OsString),
}

/// `--glob` or `--iglob`, in command-line order.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct GlobArg {
    pub glob: OsString,
    pub ignore_case: bool,
}

/// `--type-clear`, `--type-add`, `--type`, `--type-not`.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct TypeArgs {
    pub clear: Vec<OsString>,
    pub add: Vec<OsString>,
    pub select: Vec<OsString>,
    pub negate: Vec<OsString>,
}

/// Every option of a search, as given.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct LowArgs {
    // Patterns.
    /// `-e` and `-f`, in order.
    pub patterns: Vec<PatternArg>,
    /// The operands: the pattern (without `-e`/`-f`), then the paths.
    pub operands: Vec<OsString>,
    /// `-F`, `-G`, `-E`, `-P` given, each once.
    pub dialects: Vec<Dialect>,
    pub engine: Option<EngineArg>,
    pub case: Case,
    pub word: bool,
    pub line: bool,
    pub multiline: bool,
    pub multiline_dotall: bool,
    // Selecting lines.
    pub invert: bool,
    pub max_count: Option<u64>,
    pub null_data: bool,
    // Output.
    pub count: bool,
    pub list: Option<ListFiles>,
    pub only_matching: bool,
    pub quiet: bool,
    pub no_messages: bool,
    /// `-n` (true) or `-N` (false), the last one given.
    pub line_number: Option<bool>,
    pub byte_offset: bool,
    /// `-H` (true) or `-h` (false), the last one given.
    pub with_filename: Option<bool>,
    pub color: Option<ColorWhen>,
    pub null: bool,
    pub initial_tab: bool,
    pub label: Option<OsString>,
    pub column: bool,
    pub vimgrep: bool,
    /// `--heading` after any `--no-heading` or `--vimgrep`.
    pub heading: bool,
    pub trim: bool,
    pub max_columns: Option<u64>,
    pub max_columns_preview: bool,
    pub replace: Option<OsString>,
    pub passthru: bool,
    pub hyperlink_format: Option<String>,
    pub json: bool,
    pub stats: bool,
    pub sort: Option<SortArg>,
    pub line_buffered: bool,
    // Context.
    pub after: Option<u64>,
    pub before: Option<u64>,
    pub context: Option<u64>,
    /// `--group-separator SEP` (Some) or `--no-group-separator` (None),
    /// the last one given.
    pub group_separator: Option<Option<OsString>>,
    // Choosing files.
    /// `-r` or `-R` given.
    pub recursive: bool,
    /// `-R`.
    pub dereference: bool,
    pub devices: Option<DevicesArg>,
    pub directories: Option<DirectoriesArg>,
    pub name_rules: Vec<NameRule>,
    pub exclude_dir: Vec<OsString>,
    /// `--gitignore` or `-k` (true), `--no-gitignore` (false): the last.
    pub gitignore: bool,
    pub globs: Vec<GlobArg>,
    pub types: TypeArgs,
    pub type_list: bool,
    pub files: bool,
    pub max_filesize: Option<u64>,
    /// `--no-hidden` or `-k` (true), `--hidden` (false): the last.
    pub no_hidden: bool,
    /// `-k`.
    pub code: bool,
    pub max_depth: Option<usize>,
    pub one_file_system: bool,
    // Binary files and encodings.
    pub binary: Option<BinaryArg>,
    pub encoding: Option<String>,
    // Compressed files, archives and documents.
    pub search_zip: bool,
    pub docs: bool,
    pub extract_jobs: Option<usize>,
    pub extract_timeout: Option<u64>,
    pub max_archive_depth: Option<usize>,
    pub no_cache: bool,
    // Speed.
    pub threads: Option<usize>,
    pub no_mmap: bool,
    pub no_index: bool,
    // Configuration and help.
    pub generate: Option<String>,
}

impl LowArgs {
    /// The command line clap parsed, applied in command-line order.
    pub fn from_matches(m: &ArgMatches) -> LowArgs {
        let mut low = LowArgs::default();
        // Every value given, with its place on the command line.
        let mut given: Vec<(usize, &defs::Flag, Given<'_>)> = Vec::new();
        for id in m.ids() {
            let id = id.as_str();
            if id == super::command::OPERANDS {
                low.operands = values::<OsString>(m, id).cloned().collect();
                continue;
            }
            let Some(flag) = defs::find(id) else { continue };
            let at: Vec<usize> = m.indices_of(id).map(Iterator::collect).unwrap_or_default();
            let kind = match flag.value {
                Value::Switch => None,
                Value::One(_, kind) | Value::Many(_, kind) | Value::Optional(_, kind, _) => {
                    Some(kind)
                }
            };
            let values: Vec<Given<'_>> = match kind {
                None => at.iter().map(|_| Given::Switch).collect(),
                Some(Kind::Text) => values::<OsString>(m, id).map(|v| Given::Text(v)).collect(),
                Some(Kind::Choice(_) | Kind::Str) => {
                    values::<String>(m, id).map(|v| Given::Word(v)).collect()
                }
                Some(Kind::Count | Kind::Size) => {
                    values::<u64>(m, id).map(|&v| Given::Count(v)).collect()
                }
                Some(Kind::Number) => values::<usize>(m, id).map(|&v| Given::Number(v)).collect(),
            };
            given.extend(at.into_iter().zip(values).map(|(at, v)| (at, flag, v)));
        }
        given.sort_by_key(|&(at, ..)| at);
        for (_, flag, value) in given {
            (flag.apply)(&mut low, value);
        }
        low
    }
}

/// The values of `id` as clap stored them.
fn values<'m, T: Clone + Send + Sync + 'static>(
    m: &'m ArgMatches,
    id: &str,
) -> impl Iterator<Item = &'m T> {
    m.try_get_many::<T>(id).ok().flatten().into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn low(args: &[&str]) -> LowArgs {
        let argv: Vec<OsString> =
            std::iter::once("trawl").chain(args.iter().copied()).map(OsString::from).collect();
        let cmd = crate::flags::command::command();
        let argv = crate::flags::command::preprocess(argv, &cmd);
        LowArgs::from_matches(&cmd.try_get_matches_from(argv).unwrap())
    }

    /// Of two options that decide one thing, the later wins, whichever it
    /// is (grep's getopt loop; ripgrep's flags).
    #[test]
    fn the_later_of_two_options_wins() {
        assert_eq!(low(&["-l", "-L", "x"]).list, Some(ListFiles::WithoutMatch));
        assert_eq!(low(&["-L", "-l", "x"]).list, Some(ListFiles::WithMatches));
        assert_eq!(low(&["-h", "-H", "x"]).with_filename, Some(true));
        assert_eq!(low(&["-H", "-h", "x"]).with_filename, Some(false));
        assert_eq!(low(&["-a", "-I", "x"]).binary, Some(BinaryArg::WithoutMatch));
        assert_eq!(low(&["-I", "--binary-files=text", "x"]).binary, Some(BinaryArg::Text));
        assert_eq!(low(&["-i", "--no-ignore-case", "x"]).case, Case::Sensitive);
        assert_eq!(low(&["--no-ignore-case", "-i", "x"]).case, Case::Insensitive);
        assert_eq!(low(&["-i", "-S", "x"]).case, Case::Smart);
        assert_eq!(low(&["-N", "-n", "x"]).line_number, Some(true));
        let sort = low(&["--sortr", "modified", "--sort", "path", "x"]).sort;
        assert_eq!(sort, Some(SortArg { by: SortBy::Path, reverse: false }));
        assert_eq!(low(&["-d", "skip", "-r", "x"]).directories, Some(DirectoriesArg::Recurse));
        assert_eq!(low(&["-r", "-d", "skip", "x"]).directories, Some(DirectoriesArg::Skip));
        assert_eq!(
            low(&["--no-group-separator", "--group-separator=%", "x"]).group_separator,
            Some(Some("%".into()))
        );
        assert_eq!(
            low(&["--group-separator=%", "--no-group-separator", "x"]).group_separator,
            Some(None)
        );
        assert!(!low(&["-k", "--no-gitignore", "x"]).gitignore);
        assert!(low(&["--no-gitignore", "-k", "x"]).gitignore);
        assert!(!low(&["-k", "--hidden", "x"]).no_hidden);
        assert!(!low(&["--heading", "--vimgrep", "x"]).heading);
        assert!(low(&["--vimgrep", "--heading", "x"]).heading);
        assert!(!low(&["--column", "--no-column", "x"]).column);
    }

    /// Options that accumulate keep command-line order, whatever their
    /// kind: patterns, name rules, globs.
    #[test]
    fn repeated_options_keep_their_order() {
        let l = low(&["-e", "a", "-f", "p", "-e", "b", "--exclude=*.c", "--include=x.c", "."]);
        assert_eq!(
            l.patterns,
            [
                PatternArg::Given("a".into()),
                PatternArg::File("p".into()),
                PatternArg::Given("b".into())
            ]
        );
        assert_eq!(
            l.name_rules,
            [NameRule::Exclude("*.c".into()), NameRule::Include("x.c".into())]
        );
        assert_eq!(l.operands, [OsString::from(".")]);
        let l = low(&["--iglob", "A", "-g", "b", "x"]);
        let globs: Vec<(&str, bool)> =
            l.globs.iter().map(|g| (g.glob.to_str().unwrap(), g.ignore_case)).collect();
        assert_eq!(globs, [("A", true), ("b", false)]);
    }
}
