//! `--help`'s "Output": modes, prefixes, colors and formats.

use super::{Flag, Given, Kind, Value};
use crate::flags::low::{ColorWhen, ListFiles, LowArgs, SortArg, SortBy};

/// `--color`'s words.
pub const COLORS: &[&str] = &["auto", "always", "never"];

/// `--sort`'s and `--sortr`'s words.
pub const SORTS: &[&str] = &["path", "modified", "accessed", "created", "none"];

/// `--sort BY` (or `--sortr BY` when `reverse`).
fn sort(low: &mut LowArgs, by: &str, reverse: bool) {
    let by = match by {
        "path" => SortBy::Path,
        "modified" => SortBy::Modified,
        "accessed" => SortBy::Accessed,
        "created" => SortBy::Created,
        _ => SortBy::None,
    };
    low.sort = Some(SortArg { by, reverse });
}

/// `--color[=WHEN]`.
fn color(l: &mut LowArgs, v: Given<'_>) {
    l.color = Some(match v.word() {
        "always" => ColorWhen::Always,
        "never" => ColorWhen::Never,
        _ => ColorWhen::Auto,
    })
}

/// `--hyperlink-format FORMAT`.
fn hyperlink_format(l: &mut LowArgs, v: Given<'_>) {
    l.hyperlink_format = Some(v.word().to_string())
}

pub const FLAGS: &[Flag] = &[
    Flag::switch("count", Some('c'), "count", |l, _| l.count = true)
        .help(15, "Print only a count of selected lines per file"),
    Flag::switch("files_with_matches", Some('l'), "files-with-matches", |l, _| {
        l.list = Some(ListFiles::WithMatches)
    })
    .help(16, "Print only names of files with selected lines"),
    Flag::switch("files_without_match", Some('L'), "files-without-match", |l, _| {
        l.list = Some(ListFiles::WithoutMatch)
    })
    .help(17, "Print only names of files with no selected lines"),
    Flag::switch("only_matching", Some('o'), "only-matching", |l, _| l.only_matching = true)
        .help(18, "Print only the matched parts of lines"),
    Flag::switch("quiet", Some('q'), "quiet", |l, _| l.quiet = true)
        .aliases(&["silent"])
        .help(19, "Print nothing; exit 0 at the first match"),
    Flag::switch("no_messages", Some('s'), "no-messages", |l, _| l.no_messages = true)
        .help(20, "Suppress error messages about files"),
    Flag::switch("line_number", Some('n'), "line-number", |l, _| l.line_number = Some(true))
        .help(21, "Print line numbers"),
    Flag::switch("no_line_number", Some('N'), "no-line-number", |l, _| {
        l.line_number = Some(false)
    })
    .help(22, "Do not print line numbers (the default on a terminal is to print them)"),
    Flag::switch("byte_offset", Some('b'), "byte-offset", |l, _| l.byte_offset = true)
        .help(23, "Print the byte offset of each line (or match with -o)"),
    Flag::switch("with_filename", Some('H'), "with-filename", |l, _| {
        l.with_filename = Some(true)
    })
    .help(24, "Print the file name for each match"),
    Flag::switch("no_filename", Some('h'), "no-filename", |l, _| l.with_filename = Some(false))
        .help(25, "Never print file names (grep's -h; the help is --help)"),
    Flag::valued("color", None, "color", Value::Optional("WHEN", Kind::Choice(COLORS), "auto"), color)
    .aliases(&["colour"])
    .help(30, "Color output: auto (on a terminal), always, never; GREP_COLORS is understood"),
    Flag::switch("null", Some('Z'), "null", |l, _| l.null = true)
        .help(31, "Print NUL after file names"),
    Flag::switch("initial_tab", Some('T'), "initial-tab", |l, _| l.initial_tab = true)
        .help(32, "Put a tab between the prefix (name, line number, offset) and the line"),
    Flag::valued("label", None, "label", Value::One("LABEL", Kind::Text), |l, v| {
        l.label = Some(v.text())
    })
    .help(38, "Name standard input LABEL in the output"),
    Flag::switch("column", None, "column", |l, _| l.column = true).help(
        62,
        "Print the column (from 1, in bytes) of the first match after the line number (of each \
         match with -o); implies -n",
    ),
    Flag::switch("no_column", None, "no-column", |l, _| l.column = false)
        .help(63, "Do not print columns"),
    Flag::switch("vimgrep", None, "vimgrep", |l, _| {
        l.vimgrep = true;
        l.heading = false;
    })
    .help(
        64,
        "Print FILE:LINE:COLUMN:LINE for every match (a line with two matches is printed twice), as \
         editors' quickfix lists read",
    ),
    Flag::switch("heading", None, "heading", |l, _| l.heading = true).help(
        65,
        "Print each file's name on a line of its own above its lines, with an empty line between \
         files",
    ),
    Flag::switch("no_heading", None, "no-heading", |l, _| l.heading = false)
        .help(66, "Print the file name on each line (the default)"),
    Flag::switch("trim", None, "trim", |l, _| l.trim = true)
        .help(67, "Drop the leading whitespace of printed lines"),
    Flag::valued("max_columns", Some('M'), "max-columns", Value::One("NUM", Kind::Count), |l, v| {
        l.max_columns = Some(v.count())
    })
    .help(
        68,
        "Omit lines longer than NUM bytes (as rg: '[Omitted long matching line]'); 0 for no limit",
    ),
    Flag::switch("max_columns_preview", None, "max-columns-preview", |l, _| {
        l.max_columns_preview = true
    })
    .help(69, "With -M: print the first NUM characters of a longer line instead"),
    Flag::valued("replace", None, "replace", Value::One("TEXT", Kind::Text), |l, v| {
        l.replace = Some(v.text())
    })
    .hyphen_values()
    .help(
        70,
        "Print each match replaced by TEXT ($1, ${2}, $name, ${name}: its groups; $$: a dollar); \
         long form only, -r is grep's recursion",
    ),
    Flag::switch("passthru", None, "passthru", |l, _| l.passthru = true)
        .aliases(&["passthrough"])
        .help(71, "Print every line: those without a match as context lines"),
    Flag::valued("hyperlink_format", None, "hyperlink-format", Value::One("FORMAT", Kind::Str), hyperlink_format)
    .help(
        72,
        "Make file names hyperlinks (OSC 8) when coloring: none (the default), default, file, \
         vscode, vscode-insiders, vscodium, cursor, windsurf, kitty, grep+, macvim, textmate, or a \
         format with {path} and {host}, {line}, {column}, {wslprefix}",
    ),
    Flag::switch("json", None, "json", |l, _| l.json = true)
        .help(73, "Print results as JSON Lines"),
    Flag::switch("stats", None, "stats", |l, _| l.stats = true).help(
        74,
        "Print statistics at the end (every selected line and match counted, whatever the output \
         mode)",
    ),
    Flag::valued("sort", None, "sort", Value::One("BY", Kind::Choice(SORTS)), |l, v| {
        sort(l, v.word(), false)
    })
    .help(
        75,
        "Sort output: path (depth-first, by name bytes; searched in parallel), modified, accessed, \
         created (oldest first; files are listed, sorted, then searched in order), or none",
    ),
    Flag::valued("sortr", None, "sortr", Value::One("BY", Kind::Choice(SORTS)), |l, v| {
        sort(l, v.word(), true)
    })
    .help(76, "As --sort, in reverse order (newest first)"),
    Flag::switch("line_buffered", None, "line-buffered", |l, _| l.line_buffered = true)
        .help(78, "Write each line as soon as it is found"),
];
