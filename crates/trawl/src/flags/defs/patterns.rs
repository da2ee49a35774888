//! `--help`'s "Patterns": where patterns come from, their dialect, the
//! engine, case and what a match must cover.

use super::{Flag, Kind, Value};
use crate::flags::low::{Case, Dialect, EngineArg, LowArgs, PatternArg};

/// `--engine`'s words.
pub const ENGINES: &[&str] = &["auto", "rust", "pcre2"];

/// Adds `d` to the dialects named (once).
fn dialect(low: &mut LowArgs, d: Dialect) {
    if !low.dialects.contains(&d) {
        low.dialects.push(d);
    }
}

pub const FLAGS: &[Flag] = &[
    Flag::valued("regexp", Some('e'), "regexp", Value::Many("PATTERN", Kind::Text), |l, v| {
        l.patterns.push(PatternArg::Given(v.text()))
    })
    .hyphen_values()
    .help(0, "Use PATTERN (may be repeated)"),
    Flag::valued("file", Some('f'), "file", Value::Many("FILE", Kind::Text), |l, v| {
        l.patterns.push(PatternArg::File(v.text()))
    })
    .help(1, "Read patterns from FILE, one per line"),
    Flag::switch("fixed", Some('F'), "fixed-strings", |l, _| dialect(l, Dialect::Fixed))
        .help(2, "Patterns are fixed strings"),
    Flag::switch("basic", Some('G'), "basic-regexp", |l, _| dialect(l, Dialect::Basic))
        .help(3, "Patterns are POSIX basic regular expressions"),
    Flag::switch("extended", Some('E'), "extended-regexp", |l, _| dialect(l, Dialect::Extended))
        .help(
        4,
        "Patterns are extended regular expressions, read as Perl-compatible ones (the default): \
             ERE's operators mean the same there, and a backslash before a letter follows Perl",
    ),
    Flag::switch("perl", Some('P'), "perl-regexp", |l, _| dialect(l, Dialect::Perl))
        .help(5, "Use PCRE2 (with JIT)"),
    Flag::valued("engine", None, "engine", Value::One("", Kind::Choice(ENGINES)), |l, v| {
        l.engine = Some(match v.word() {
            "rust" => EngineArg::Rust,
            "pcre2" => EngineArg::Pcre2,
            _ => EngineArg::Auto,
        })
    })
    .help(6, "Regex engine: auto (Rust regex unless PCRE2 is needed), rust, pcre2"),
    Flag::switch("ignore_case", Some('i'), "ignore-case", |l, _| l.case = Case::Insensitive)
        .short_aliases(&['y'])
        .help(7, "Ignore case (Unicode case folding in a UTF-8 locale, ASCII in C)"),
    Flag::switch("no_ignore_case", None, "no-ignore-case", |l, _| l.case = Case::Sensitive)
        .help(8, "Do not ignore case"),
    Flag::switch("smart_case", Some('S'), "smart-case", |l, _| l.case = Case::Smart)
        .help(9, "Ignore case unless a pattern has an uppercase letter"),
    Flag::switch("word", Some('w'), "word-regexp", |l, _| l.word = true)
        .help(12, "Match only whole words"),
    Flag::switch("line", Some('x'), "line-regexp", |l, _| l.line = true)
        .help(13, "Match only whole lines"),
    Flag::switch("multiline", None, "multiline", |l, _| l.multiline = true).help(
        10,
        "Let matches span lines: \\n matches a newline, and every line a match touches is printed \
         (rg's -U; -U is grep's --binary here); each file is read whole",
    ),
    Flag::switch("multiline_dotall", None, "multiline-dotall", |l, _| l.multiline_dotall = true)
        .help(11, "With --multiline, '.' matches a newline too"),
];
