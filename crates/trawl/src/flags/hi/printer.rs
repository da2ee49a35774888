//! What is printed and how: the output mode, names, numbers, colors and
//! formats.

use std::os::unix::ffi::OsStrExt;

use trawl_printer::{Colors, OutputMode, PrinterConfig};

use super::facts::Facts;
use super::search::{lines_out, terminator, Lines};
use crate::flags::low::{ColorWhen, ListFiles, LowArgs};

/// The output mode: `--files`, `-q`, the last of `-l`/`-L`, `-c`,
/// `--json`, else lines, in that precedence.
pub fn mode(low: &LowArgs) -> OutputMode {
    if low.files {
        OutputMode::Files
    } else if low.quiet {
        OutputMode::Quiet
    } else if let Some(list) = low.list {
        match list {
            ListFiles::WithMatches => OutputMode::FilesWithMatches,
            ListFiles::WithoutMatch => OutputMode::FilesWithoutMatch,
        }
    } else if low.count {
        OutputMode::Count
    } else if low.json {
        OutputMode::Json
    } else {
        OutputMode::Lines
    }
}

/// Whether `--column` (or `--vimgrep`) prints columns: lines only.
fn column(low: &LowArgs, mode: OutputMode) -> bool {
    (low.column || low.vimgrep) && mode == OutputMode::Lines
}

/// Line numbers: asked for, or on by default on a terminal (-N turns them
/// off); JSON always has them; --column and --vimgrep imply -n (as rg).
pub fn line_number(low: &LowArgs, facts: &Facts, mode: OutputMode) -> bool {
    low.line_number.unwrap_or(facts.stdout_tty) || mode == OutputMode::Json || column(low, mode)
}

/// The colors, if any: `--color`, else a terminal that takes them, unless
/// `NO_COLOR` (no-color.org) is set; never in JSON. A deprecated
/// `GREP_COLOR` in effect adds a warning to `warnings`.
fn colors(
    low: &LowArgs,
    facts: &Facts,
    mode: OutputMode,
    warnings: &mut Vec<String>,
) -> Option<Colors> {
    let on = match low.color {
        Some(ColorWhen::Always) => true,
        Some(ColorWhen::Never) => false,
        _ if facts.no_color => false,
        _ => facts.stdout_tty && facts.term_colors,
    };
    (on && mode != OutputMode::Json).then(|| {
        let legacy = facts.grep_color.as_deref();
        let (c, legacy_in_effect) =
            Colors::from_env(legacy, facts.grep_colors.as_deref(), low.invert);
        if let Some(v) = legacy.filter(|_| legacy_in_effect) {
            warnings.push(format!("GREP_COLOR='{v}' is deprecated; use GREP_COLORS='mt={v}'"));
        }
        c
    })
}

/// The printer's settings; `with_filename` as the operands decide it; what
/// the user should be warned of goes to `warnings`.
pub fn printer_config(
    low: &LowArgs,
    facts: &Facts,
    with_filename: bool,
    warnings: &mut Vec<String>,
) -> Result<PrinterConfig, String> {
    let mode = mode(low);
    let json = mode == OutputMode::Json;
    let lines = Lines::of(low, mode);
    Ok(PrinterConfig {
        mode,
        with_filename,
        group_separator: match &low.group_separator {
            Some(Some(sep)) => Some(sep.as_bytes().to_vec()),
            Some(None) => None,
            None => Some(b"--".to_vec()),
        },
        member_names: low.with_filename != Some(false),
        line_number: line_number(low, facts, mode),
        byte_offset: low.byte_offset,
        only_matching: low.only_matching,
        invert: low.invert,
        context: lines_out(mode) && lines.group_breaks && !json,
        null: low.null,
        initial_tab: low.initial_tab,
        terminator: terminator(low),
        colors: colors(low, facts, mode, warnings),
        line_buffered: low.line_buffered,
        escape_names: facts.stdout_tty,
        column: column(low, mode),
        multiline: low.multiline,
        vimgrep: low.vimgrep && mode == OutputMode::Lines,
        heading: low.heading && mode == OutputMode::Lines,
        trim: low.trim,
        max_columns: low
            .max_columns
            .filter(|&n| n > 0)
            .map(|limit| trawl_printer::MaxColumns { limit, preview: low.max_columns_preview }),
        replace: low.replace.as_ref().map(|t| trawl_printer::Template::new(t.as_bytes())),
        hyperlinks: match &low.hyperlink_format {
            Some(f) => trawl_printer::Hyperlinks::new(f)?,
            None => None,
        },
        host: None,
    })
}
