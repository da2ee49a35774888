//! Command-line parsing: GNU grep's option names, plus trawl's own.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use clap::{Arg, ArgAction, ArgMatches, Command};

/// What `--help` says before the options.
const BEFORE_OPTIONS: &str = "\
PATTERN is a Perl-compatible regular expression (-F: fixed strings, -G: POSIX basic
ones); with -e or -f every operand is a PATH. PATHs are files and directories,
searched recursively ('-' is standard input). With no PATH: standard input when it is a
pipe, a file or a socket, else (a terminal, /dev/null, closed) the current directory (with
-r, always the current directory).
Nothing is skipped unless asked: hidden, git-ignored and binary files are searched
(-k skips them, as rg). In a UTF-8 locale patterns are Unicode-aware; in C, bytes.";

/// What `--help` says after the options.
const AFTER_OPTIONS: &str = "\
Examples:
  trawl -n 'fn main' src           search a tree, in grep's format
  trawl -k -n TODO                 a code repository: skip git's ignores, hidden and binary files
  trawl --files -t rust            list the files a search would read (no pattern)
  trawl --vimgrep -w parse_args    FILE:LINE:COLUMN:TEXT for an editor's quickfix list
  trawl --docs -i 'invoice 2024' ~/Documents
                                   PDFs, office files, e-books, compressed files, archives
  trawl find . -name '*.log' -mtime -1 -contains ERROR
                                   GNU find's expressions, with content tests (trawl find --help)
  trawl index ~/src/linux          index a tree: searches below it read only what may match
                                   (trawl index --help)

Default arguments, one per line: $TRAWL_CONFIG_PATH, else $XDG_CONFIG_HOME/trawl/config
(--no-config ignores it). Exit status: 0 a line was selected, 1 none, 2 an error.";

/// The command's settings, without its arguments.
fn settings() -> Command {
    Command::new("trawl")
        .version(env!("CARGO_PKG_VERSION"))
        .about("Search huge file trees at the speed of the disk.")
        .before_help(BEFORE_OPTIONS)
        .after_help(AFTER_OPTIONS)
        .help_template("{about}\n\n{usage-heading} {usage}\n\n{before-help}{all-args}{after-help}")
        .override_usage("trawl [OPTIONS] PATTERN [PATH...]\n       trawl [OPTIONS] -e PATTERN... [PATH...]\n       trawl [OPTIONS] -f FILE... [PATH...]\n       trawl shard --request FILE\n       trawl merge --request FILE [STREAM...]")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .args_override_self(true)
}

/// The positional arguments: the pattern (unless -e or -f is given), then
/// the paths.
fn operands() -> Arg {
    Arg::new("pattern_or_path")
        .action(ArgAction::Append)
        .value_parser(clap::value_parser!(OsString))
        .num_args(0..)
        .value_name("PATTERN")
        .hide(true)
        .help("The pattern (unless -e or -f is given), then files and directories to search")
}

/// Whether the command line holds operands only (no argument starting
/// with `-`): then [`lean_command`] parses it as [`command`] would.
pub fn operands_only(argv: &[OsString]) -> bool {
    argv.iter().skip(1).all(|a| a.as_bytes().first() != Some(&b'-'))
}

/// The id of every argument of [`command`] but the operands' (a test
/// checks the two agree).
const LEAN_IDS: &[&str] = &[
    "regexp",
    "file",
    "fixed",
    "basic",
    "extended",
    "perl",
    "engine",
    "ignore_case",
    "no_ignore_case",
    "smart_case",
    "multiline",
    "multiline_dotall",
    "word",
    "line",
    "invert",
    "count",
    "files_with_matches",
    "files_without_match",
    "only_matching",
    "quiet",
    "no_messages",
    "line_number",
    "no_line_number",
    "byte_offset",
    "with_filename",
    "no_filename",
    "max_count",
    "after",
    "before",
    "context",
    "color",
    "null",
    "initial_tab",
    "devices",
    "directories",
    "null_data",
    "group_separator",
    "no_group_separator",
    "label",
    "binary_unix",
    "exclude_from",
    "encoding",
    "text",
    "skip_binary",
    "binary_files",
    "include",
    "exclude",
    "exclude_dir",
    "gitignore",
    "glob",
    "iglob",
    "type",
    "type_not",
    "type_add",
    "type_clear",
    "type_list",
    "files",
    "max_filesize",
    "no_hidden",
    "hidden",
    "no_gitignore",
    "code",
    "column",
    "no_column",
    "vimgrep",
    "heading",
    "no_heading",
    "trim",
    "max_columns",
    "max_columns_preview",
    "replace",
    "passthru",
    "hyperlink_format",
    "json",
    "stats",
    "sort",
    "sortr",
    "no_mmap",
    "line_buffered",
    "search_zip",
    "docs",
    "extract_jobs",
    "extract_timeout",
    "no_index",
    "no_cache",
    "max_archive_depth",
    "recursive",
    "dereference",
    "threads",
    "max_depth",
    "one_file_system",
    "no_config",
    "generate",
    "help",
    "version",
];

/// A command that parses operands only, as [`command`] does, in a tenth of
/// the time (a tiny search's start): the operands' argument alone. clap
/// checks that a looked-up id is defined only in builds with debug
/// assertions; elsewhere an id of no argument reads as absent, as one not
/// given does. Those builds (the tests') get every other argument's id, bare,
/// so each lookup is still checked; a release build skips them (95 arguments
/// made and dropped: 10 page faults of the start). The release tier of the
/// tests runs the operands-only searches again (.ci/test).
pub fn lean_command() -> Command {
    let lean = settings().arg(operands());
    match cfg!(debug_assertions) {
        true => lean.args(LEAN_IDS.iter().map(|&id| Arg::new(id).long(id))),
        false => lean,
    }
}

/// The command line of a search (grep's options and trawl's). Its arguments
/// are in the order clap keeps them (the completions' order): those without
/// a heading, then each heading's, in the order `--help` and the man page
/// show the headings. Within a heading `--help` orders them by
/// `display_order` (the numbers are those of an earlier listing; a new
/// argument takes a free number where it should show). Each heading is set
/// for the arguments after it (`next_help_heading`), not by `mut_arg`
/// afterwards: each `mut_arg` shifted the whole argument list, 0.1 ms of
/// every command line with an option.
pub fn command() -> Command {
    // A flag: true when given, absent otherwise. (Not SetTrue: clap gives
    // each SetTrue flag a default, made at every parse and searched at
    // every lookup; with some 150 flags that was a third of a tiny
    // search's start. Read them with `flag`.)
    let flag = |name: &'static str| {
        Arg::new(name)
            .action(ArgAction::Set)
            .num_args(0)
            .default_missing_value("true")
            .value_parser(clap::value_parser!(bool))
    };
    let many = |name: &'static str| {
        Arg::new(name).action(ArgAction::Append).value_parser(clap::value_parser!(OsString))
    };
    let num = |name: &'static str| Arg::new(name).value_parser(clap::value_parser!(u64));
    settings()
        .arg(operands())
        .next_help_heading("Patterns")
        .arg(many("regexp").short('e').long("regexp").value_name("PATTERN").help("Use PATTERN (may be repeated)").allow_hyphen_values(true).display_order(0))
        .arg(many("file").short('f').long("file").value_name("FILE").help("Read patterns from FILE, one per line").display_order(1))
        .arg(flag("fixed").short('F').long("fixed-strings").help("Patterns are fixed strings").display_order(2))
        .arg(flag("basic").short('G').long("basic-regexp").help("Patterns are POSIX basic regular expressions").display_order(3))
        .arg(flag("extended").short('E').long("extended-regexp").help("Patterns are extended regular expressions, read as Perl-compatible ones (the default): ERE's operators mean the same there, and a backslash before a letter follows Perl").display_order(4))
        .arg(flag("perl").short('P').long("perl-regexp").help("Use PCRE2 (with JIT)").display_order(5))
        .arg(Arg::new("engine").long("engine").value_parser(["auto", "rust", "pcre2"]).help("Regex engine: auto (Rust regex unless PCRE2 is needed), rust, pcre2").display_order(6))
        .arg(flag("ignore_case").short('i').short_alias('y').long("ignore-case").help("Ignore case (Unicode case folding in a UTF-8 locale, ASCII in C)").display_order(7))
        .arg(flag("no_ignore_case").long("no-ignore-case").help("Do not ignore case").display_order(8))
        .arg(flag("smart_case").short('S').long("smart-case").help("Ignore case unless a pattern has an uppercase letter").display_order(9))
        .arg(flag("word").short('w').long("word-regexp").help("Match only whole words").display_order(12))
        .arg(flag("line").short('x').long("line-regexp").help("Match only whole lines").display_order(13))
        .arg(flag("multiline").long("multiline").help("Let matches span lines: \\n matches a newline, and every line a match touches is printed (rg's -U; -U is grep's --binary here); each file is read whole").display_order(10))
        .arg(flag("multiline_dotall").long("multiline-dotall").help("With --multiline, '.' matches a newline too").display_order(11))
        .next_help_heading("Selecting lines")
        .arg(flag("invert").short('v').long("invert-match").help("Select non-matching lines").display_order(14))
        .arg(num("max_count").short('m').long("max-count").value_name("NUM").help("Stop after NUM selected lines per file").display_order(26))
        .arg(flag("null_data").short('z').long("null-data").help("Lines end with NUL, not newline, in input and output (for find -print0 lists); newlines are ordinary bytes").display_order(35))
        .next_help_heading("Output")
        .arg(flag("count").short('c').long("count").help("Print only a count of selected lines per file").display_order(15))
        .arg(flag("files_with_matches").short('l').long("files-with-matches").help("Print only names of files with selected lines").display_order(16))
        .arg(flag("files_without_match").short('L').long("files-without-match").help("Print only names of files with no selected lines").display_order(17))
        .arg(flag("only_matching").short('o').long("only-matching").help("Print only the matched parts of lines").display_order(18))
        .arg(flag("quiet").short('q').long("quiet").visible_alias("silent").help("Print nothing; exit 0 at the first match").display_order(19))
        .arg(flag("no_messages").short('s').long("no-messages").help("Suppress error messages about files").display_order(20))
        .arg(flag("line_number").short('n').long("line-number").help("Print line numbers").display_order(21))
        .arg(flag("no_line_number").short('N').long("no-line-number").help("Do not print line numbers (the default on a terminal is to print them)").display_order(22))
        .arg(flag("byte_offset").short('b').long("byte-offset").help("Print the byte offset of each line (or match with -o)").display_order(23))
        .arg(flag("with_filename").short('H').long("with-filename").help("Print the file name for each match").display_order(24))
        .arg(flag("no_filename").short('h').long("no-filename").help("Never print file names (grep's -h; the help is --help)").display_order(25))
        .arg(Arg::new("color").long("color").visible_alias("colour").value_name("WHEN").num_args(0..=1).require_equals(true).default_missing_value("auto").value_parser(["auto", "always", "never"]).help("Color output: auto (on a terminal), always, never; GREP_COLORS is understood").display_order(30))
        .arg(flag("null").short('Z').long("null").help("Print NUL after file names").display_order(31))
        .arg(flag("initial_tab").short('T').long("initial-tab").help("Put a tab between the prefix (name, line number, offset) and the line").display_order(32))
        .arg(Arg::new("label").long("label").value_name("LABEL").value_parser(clap::value_parser!(OsString)).help("Name standard input LABEL in the output").display_order(38))
        .arg(flag("column").long("column").help("Print the column (from 1, in bytes) of the first match after the line number (of each match with -o); implies -n").display_order(62))
        .arg(flag("no_column").long("no-column").overrides_with("column").help("Do not print columns").display_order(63))
        .arg(flag("vimgrep").long("vimgrep").help("Print FILE:LINE:COLUMN:LINE for every match (a line with two matches is printed twice), as editors' quickfix lists read").display_order(64))
        .arg(flag("heading").long("heading").help("Print each file's name on a line of its own above its lines, with an empty line between files").display_order(65))
        .arg(flag("no_heading").long("no-heading").overrides_with("heading").help("Print the file name on each line (the default)").display_order(66))
        .arg(flag("trim").long("trim").help("Drop the leading whitespace of printed lines").display_order(67))
        .arg(Arg::new("max_columns").short('M').long("max-columns").value_name("NUM").value_parser(clap::value_parser!(u64)).help("Omit lines longer than NUM bytes (as rg: '[Omitted long matching line]'); 0 for no limit").display_order(68))
        .arg(flag("max_columns_preview").long("max-columns-preview").help("With -M: print the first NUM characters of a longer line instead").display_order(69))
        .arg(Arg::new("replace").long("replace").value_name("TEXT").value_parser(clap::value_parser!(OsString)).allow_hyphen_values(true).help("Print each match replaced by TEXT ($1, ${2}, $name, ${name}: its groups; $$: a dollar); long form only, -r is grep's recursion").display_order(70))
        .arg(flag("passthru").long("passthru").visible_alias("passthrough").help("Print every line: those without a match as context lines").display_order(71))
        .arg(Arg::new("hyperlink_format").long("hyperlink-format").value_name("FORMAT").help("Make file names hyperlinks (OSC 8) when coloring: none (the default), default, file, vscode, vscode-insiders, vscodium, cursor, windsurf, kitty, grep+, macvim, textmate, or a format with {path} and {host}, {line}, {column}, {wslprefix}").display_order(72))
        .arg(flag("json").long("json").help("Print results as JSON Lines").display_order(73))
        .arg(flag("stats").long("stats").help("Print statistics at the end (every selected line and match counted, whatever the output mode)").display_order(74))
        .arg(Arg::new("sort").long("sort").value_name("BY").value_parser(["path", "modified", "accessed", "created", "none"]).help("Sort output: path (depth-first, by name bytes; searched in parallel), modified, accessed, created (oldest first; files are listed, sorted, then searched in order), or none").display_order(75))
        .arg(Arg::new("sortr").long("sortr").value_name("BY").value_parser(["path", "modified", "accessed", "created", "none"]).overrides_with("sort").help("As --sort, in reverse order (newest first)").display_order(76))
        .arg(flag("line_buffered").long("line-buffered").help("Write each line as soon as it is found").display_order(78))
        .next_help_heading("Context")
        .arg(num("after").short('A').long("after-context").value_name("NUM").help("Print NUM lines of trailing context").display_order(27))
        .arg(num("before").short('B').long("before-context").value_name("NUM").help("Print NUM lines of leading context").display_order(28))
        .arg(num("context").short('C').long("context").value_name("NUM").help("Print NUM lines of context").display_order(29))
        .arg(Arg::new("group_separator").long("group-separator").value_name("SEP").value_parser(clap::value_parser!(OsString)).help("Print SEP between groups of context lines (default --)").display_order(36))
        .arg(flag("no_group_separator").long("no-group-separator").help("Print nothing between groups of context lines").display_order(37))
        .next_help_heading("Choosing files")
        .arg(flag("recursive").short('r').long("recursive").help("Search directories recursively (always on)").display_order(86))
        .arg(flag("dereference").short('R').long("dereference-recursive").help("Recurse and follow symlinks").display_order(87))
        .arg(Arg::new("devices").short('D').long("devices").value_name("ACTION").value_parser(["read", "skip"]).help("Devices, FIFOs and sockets: read (also those met in recursion) or skip; by default those named as operands are read").display_order(33))
        .arg(Arg::new("directories").short('d').long("directories").value_name("ACTION").value_parser(["read", "recurse", "skip"]).help("Directory operands: recurse (the default), skip, or read (an error, as grep)").display_order(34))
        .arg(many("include").long("include").value_name("GLOB").help("Search only files whose name matches GLOB").display_order(45))
        .arg(many("exclude").long("exclude").value_name("GLOB").help("Skip files whose name matches GLOB").display_order(46))
        .arg(many("exclude_from").long("exclude-from").value_name("FILE").help("Skip files whose name matches a glob read from FILE (one per line)").display_order(40))
        .arg(many("exclude_dir").long("exclude-dir").value_name("GLOB").help("Skip directories whose name matches GLOB").display_order(47))
        .arg(flag("gitignore").long("gitignore").help("Honour .gitignore and .ignore files (inside a git repository also those of parent directories, .git/info/exclude and core.excludesFile); skip .git directories").display_order(48))
        .arg(flag("no_gitignore").long("no-gitignore").overrides_with("gitignore").help("Do not honour ignore files (the default; undoes --gitignore and -k)").display_order(60))
        .arg(many("glob").short('g').long("glob").value_name("GLOB").allow_hyphen_values(true).help("Search only files matching GLOB, or with !GLOB skip what it matches (files and directories); gitignore-style, matched against the path below the root given (braces, **); repeatable, the last matching glob wins, and when one includes, files no glob names are skipped").display_order(49))
        .arg(many("iglob").long("iglob").value_name("GLOB").allow_hyphen_values(true).help("As --glob, ignoring case").display_order(50))
        .arg(many("type").short('t').long("type").value_name("TYPE").help("Search only files of TYPE (ripgrep's type table, see --type-list; repeatable)").display_order(51))
        .arg(many("type_not").long("type-not").value_name("TYPE").help("Skip files of TYPE (rg's -T: -T is grep's --initial-tab here)").display_order(52))
        .arg(many("type_add").long("type-add").value_name("TYPE:GLOB").help("Add GLOB to TYPE's globs, or TYPE:include:OTHER,... its types' (for this run; put it in the configuration file to keep it)").display_order(53))
        .arg(many("type_clear").long("type-clear").value_name("TYPE").help("Forget TYPE's globs (before --type-add redefines it)").display_order(54))
        .arg(flag("type_list").long("type-list").help("List the file types and their globs, then exit").display_order(55))
        .arg(flag("files").long("files").help("List the files that would be searched (every filter applies; none is opened), without searching: all operands are paths").display_order(56))
        .arg(Arg::new("max_filesize").long("max-filesize").value_name("SIZE").value_parser(parse_size).help("Skip files larger than SIZE bytes (suffixes K, M, G: binary multiples)").display_order(57))
        .arg(flag("no_hidden").long("no-hidden").help("Skip hidden files and directories (a name starting with '.'), unless a --glob or --type names them").display_order(58))
        .arg(flag("hidden").long("hidden").overrides_with("no_hidden").help("Search hidden files and directories (the default; undoes --no-hidden and -k)").display_order(59))
        .arg(flag("code").short('k').long("code").help("Search a code repository as rg does by default: skip what git ignores (--gitignore), hidden files (--no-hidden) and binary files (-I)").display_order(61))
        .arg(Arg::new("max_depth").long("max-depth").value_name("N").value_parser(clap::value_parser!(usize)).help("Descend at most N directories below each path").display_order(89))
        .arg(flag("one_file_system").long("one-file-system").help("Do not cross file system boundaries").display_order(90))
        .next_help_heading("Binary files and encodings")
        .arg(flag("text").short('a').long("text").help("Search binary files as text").display_order(42))
        .arg(flag("skip_binary").short('I').help("Skip binary files (--binary-files=without-match)").display_order(43))
        .arg(Arg::new("binary_files").long("binary-files").value_name("TYPE").value_parser(["binary", "text", "without-match"]).help("binary (default), text, without-match").display_order(44))
        .arg(flag("binary_unix").short('U').long("binary").help("Accepted for GNU grep's sake: no effect on POSIX systems").display_order(39))
        .arg(Arg::new("encoding").long("encoding").value_name("LABEL").help("Decode files from LABEL (an encoding_rs label: latin1, utf-16le, shift_jis...; rg's -E, which is grep's here); 'none' searches raw bytes. By default a file starting with a UTF-16 or UTF-8 byte-order mark is transcoded to UTF-8 (-a searches its raw bytes)").display_order(41))
        .next_help_heading("Compressed files, archives and documents")
        .arg(flag("search_zip").long("search-zip").visible_alias("zip").help("Search inside compressed files (gzip, bzip2, xz, zstd, lz4) and archives (tar, zip), told by their bytes; members are named ARCHIVE{MEMBER}").display_order(79))
        .arg(flag("docs").long("docs").help("Search the text of documents too: office files and e-books read in-process (DOCX, PPTX, XLSX, ODT, ODS, ODP, EPUB), a paragraph or table row per line; PDFs through pdftotext (poppler-utils); PostScript, DVI, legacy Word and Excel files through gs, catdvi, catdoc and xls2csv when installed; your own extractors from $XDG_CONFIG_HOME/trawl/extractors.toml (see 'trawl extractors'); implies --search-zip").display_order(80))
        .arg(Arg::new("extract_jobs").long("extract-jobs").value_name("N").value_parser(clap::value_parser!(usize)).help("With --docs: at most N extractor processes (pdftotext, gs...) at once (default: one per CPU)").display_order(81))
        .arg(Arg::new("extract_timeout").long("extract-timeout").value_name("SECS").value_parser(clap::value_parser!(u64)).help("With --docs: kill an extractor process after SECS seconds (default 30)").display_order(82))
        .arg(Arg::new("max_archive_depth").long("max-archive-depth").value_name("N").value_parser(clap::value_parser!(usize)).help("With --search-zip: open at most N compressed streams and archives one inside another (default 8)").display_order(85))
        .arg(flag("no_cache").long("no-cache").help("With --docs: neither read nor fill the cache of extracted text (in $XDG_CACHE_HOME/trawl; see 'trawl cache')").display_order(84))
        .next_help_heading("Speed")
        .arg(Arg::new("threads").short('j').long("threads").value_name("N").value_parser(clap::value_parser!(usize)).help("Number of threads (default: the number of CPUs)").display_order(88))
        .arg(flag("no_mmap").long("no-mmap").help("Read large files instead of mapping them into memory").display_order(77))
        .arg(flag("no_index").long("no-index").help("Do not use an index made by 'trawl index' (a search it serves reads only the files that changed or may match; the output is the same)").display_order(83))
        .next_help_heading("Configuration and help")
        .arg(flag("no_config").long("no-config").help("Do not read the configuration file ($TRAWL_CONFIG_PATH, else $XDG_CONFIG_HOME/trawl/config: default arguments, one per line)").display_order(91))
        .arg(Arg::new("generate").long("generate").value_name("KIND").value_parser(crate::generate::KINDS).help("Print shell completions or the man page (complete-bash, complete-zsh, complete-fish, complete-powershell, complete-elvish, man) and exit").display_order(92))
        .arg(Arg::new("help").long("help").action(ArgAction::Help).help("Print help").display_order(93))
        .arg(Arg::new("version").short('V').long("version").action(ArgAction::Version).help("Print version").display_order(94))
}

/// The options whose value may be the next argument (so that a `-5` there
/// is a value, not a context count), read from the clap definition.
struct ValueOptions {
    shorts: Vec<u8>,
    longs: Vec<Vec<u8>>,
}

impl ValueOptions {
    fn of(cmd: &Command) -> ValueOptions {
        let mut v = ValueOptions { shorts: Vec::new(), longs: Vec::new() };
        for a in cmd.get_arguments() {
            // `--color[=WHEN]` never takes the next argument.
            let no_value = !a.get_action().takes_values()
                || a.get_num_args().is_some_and(|n| !n.takes_values());
            if a.is_positional() || no_value || a.is_require_equals_set() {
                continue;
            }
            let shorts =
                a.get_short().into_iter().chain(a.get_all_short_aliases().unwrap_or_default());
            v.shorts.extend(shorts.filter(char::is_ascii).map(|c| c as u8));
            let longs = a.get_long().into_iter().chain(a.get_all_aliases().unwrap_or_default());
            v.longs.extend(longs.map(|l| [b"--".as_slice(), l.as_bytes()].concat()));
        }
        v
    }
}

/// Whether the flag `id` (see [`command`]) was given.
pub fn flag(m: &ArgMatches, id: &str) -> bool {
    m.get_one::<bool>(id).copied().unwrap_or(false)
}

/// Rewrites grep's `-NUM` (context of NUM lines) as `--context=NUM`, and an
/// abbreviated long option as its full name (getopt_long's).
pub fn preprocess(args: Vec<OsString>, cmd: &Command) -> Vec<OsString> {
    let takes_value = ValueOptions::of(cmd);
    let long_names = crate::long_prefix::LongNames::of(cmd);
    let mut out = Vec::with_capacity(args.len());
    let mut value_next = false;
    let mut rest = false;
    for (i, a) in args.into_iter().enumerate() {
        if i == 0 || rest || value_next {
            value_next = false;
            out.push(a);
            continue;
        }
        let a = long_names.expanded(a);
        let b = a.as_bytes();
        if b == b"--" {
            rest = true;
            out.push(a);
            continue;
        }
        if b.len() > 1 && b[0] == b'-' && b[1..].iter().all(u8::is_ascii_digit) {
            let mut v = b"--context=".to_vec();
            v.extend_from_slice(&b[1..]);
            out.push(OsString::from_vec(v));
            continue;
        }
        // A short option cluster whose last letter takes a value, e.g. "-e".
        if b.len() >= 2 && b[0] == b'-' && b[1] != b'-' {
            let letters = &b[1..];
            if let Some(p) = letters.iter().position(|c| takes_value.shorts.contains(c)) {
                value_next = p == letters.len() - 1;
                // getopt's value is the rest of the cluster, `=` included
                // (`-e=x` looks for "=x"), where clap would drop the `=`.
                if letters.get(p + 1) == Some(&b'=') {
                    out.push(OsString::from_vec(b[..p + 2].to_vec()));
                    out.push(OsString::from_vec(letters[p + 1..].to_vec()));
                    continue;
                }
            }
        } else if takes_value.longs.iter().any(|l| l == b) {
            value_next = true;
        }
        out.push(a);
    }
    out
}

/// `--max-filesize`'s SIZE: bytes, or with a K, M or G suffix (1024s).
fn parse_size(s: &str) -> Result<u64, String> {
    let (digits, unit) = match s.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&s[..i], c.to_ascii_uppercase()),
        _ => (s, 'B'),
    };
    let shift = match unit {
        'B' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("unknown size suffix '{unit}' (K, M or G)")),
    };
    let n: u64 = digits.parse().map_err(|_| format!("'{s}' is not a size (e.g. 100K, 5M, 1G)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("'{s}' is too large"))
}

pub fn os_values(m: &ArgMatches, id: &str) -> Vec<OsString> {
    m.get_many::<OsString>(id).map(|v| v.cloned().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pre(args: &[&str]) -> Vec<String> {
        let argv = std::iter::once("trawl").chain(args.iter().copied()).map(OsString::from);
        preprocess(argv.collect(), &command())
            .into_iter()
            .skip(1)
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    /// A `-NUM` is a context count unless it is the value of the option
    /// before it: every option that takes a value, short or long, read
    /// from the clap definition (the hand-kept list lacked new options).
    #[test]
    fn a_number_after_a_value_option_stays_its_value() {
        assert_eq!(pre(&["-5", "x"]), ["--context=5", "x"]);
        for opt in ["-e", "-f", "-m", "-A", "-B", "-C", "-j", "--regexp", "--file", "--max-depth"] {
            assert_eq!(pre(&[opt, "-5", "x"]), [opt, "-5", "x"], "{opt}");
        }
        assert_eq!(pre(&["-ie", "-5"]), ["-ie", "-5"]);
        assert_eq!(pre(&["-ei", "-5"]), ["-ei", "--context=5"]);
        // --color takes its value only after '='.
        assert_eq!(pre(&["--color", "-5", "x"]), ["--color", "--context=5", "x"]);
        assert_eq!(pre(&["--", "-5"]), ["--", "-5"]);
    }

    /// getopt gives a short option the rest of its cluster as its value,
    /// `=` included; clap would drop a leading `=`.
    #[test]
    fn a_short_option_keeps_an_equals_sign_in_its_value() {
        assert_eq!(pre(&["-e=x", "f"]), ["-e", "=x", "f"]);
        assert_eq!(pre(&["-ie==", "f"]), ["-ie", "==", "f"]);
        assert_eq!(pre(&["-m=1"]), ["-m", "=1"]);
        assert_eq!(pre(&["-e", "-e=x"]), ["-e", "-e=x"]);
        assert_eq!(pre(&["-ex=y"]), ["-ex=y"]);
        assert_eq!(pre(&["--regexp=x"]), ["--regexp=x"]);
        assert_eq!(pre(&["--", "-e=x"]), ["--", "-e=x"]);
    }

    #[test]
    fn the_lean_command_knows_every_argument_of_the_full_one() {
        let ids = |c: Command| {
            let mut v: Vec<String> = c.get_arguments().map(|a| a.get_id().to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(lean_command()), ids(command()));
    }

    #[test]
    fn operands_only_means_no_argument_starts_with_a_dash() {
        let argv = |a: &[&str]| -> Vec<OsString> {
            std::iter::once("trawl").chain(a.iter().copied()).map(OsString::from).collect()
        };
        assert!(operands_only(&argv(&["hello", "a.txt", "", "dir/"])));
        assert!(operands_only(&argv(&[])));
        for a in [&["-n", "x"][..], &["x", "-"], &["x", "--"], &["-5", "x"], &["x", "--color"]] {
            assert!(!operands_only(&argv(a)), "{a:?}");
        }
    }

    /// The lean command parses an operands-only command line as the full
    /// one does: the same operands at the same indices, and every other
    /// argument absent.
    #[test]
    fn the_lean_command_parses_operands_as_the_full_one() {
        for a in [&["hello"][..], &["hello", "a", "b c", ""], &[], &["x\\y", "."]] {
            let argv: Vec<OsString> =
                std::iter::once("trawl").chain(a.iter().copied()).map(OsString::from).collect();
            let full = command().try_get_matches_from(&argv).unwrap();
            let lean = lean_command().try_get_matches_from(&argv).unwrap();
            let ops = |m: &ArgMatches| {
                let values = os_values(m, "pattern_or_path");
                let at: Vec<usize> =
                    m.indices_of("pattern_or_path").map(Iterator::collect).unwrap_or_default();
                (values, at)
            };
            assert_eq!(ops(&lean), ops(&full), "{a:?}");
            let given = |m: &ArgMatches| m.ids().map(|i| i.to_string()).collect::<Vec<_>>();
            assert_eq!(given(&lean), given(&full), "{a:?}");
        }
    }
}
