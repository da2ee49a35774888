//! The command line as typed values, applied in command-line order: each
//! option's declaration (`flags::defs`) sets its fields, so that of two
//! options that decide the same thing the later one wins by construction
//! (`-l -L`, `-h -H`, `-a -I`, `--sort --sortr`, `-d skip -r`, `-i
//! --no-ignore-case`), as grep's getopt loop and ripgrep's flags do (the
//! loop is flags::apply). Plain data: nothing here reads the environment or
//! a file.

use std::ffi::OsString;

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
/// last matching one decides, as grep's): the filter's own type.
pub use trawl_run::NameRule;

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
    /// `--ocr`.
    pub ocr: bool,
    /// `--ocr-lang LANGS`.
    pub ocr_lang: Option<String>,
    /// `--ocr-dpi N`.
    pub ocr_dpi: Option<usize>,
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
