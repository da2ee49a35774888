//! What a search's settings depend on besides its options, gathered once:
//! which standard streams are terminals, whether standard input holds
//! input, the locale, the color variables, and which operands are
//! directories. Everything here is read, nothing is changed.

use std::ffi::OsStr;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;

use crate::flags::low::LowArgs;

/// The environment's say in a search.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// Standard output is a terminal: colors, line numbers, escaped names.
    pub stdout_tty: bool,
    /// Standard error is a terminal: a bad pattern's caret.
    pub stderr_tty: bool,
    /// Standard input holds input (see crate::stdin_is_input).
    pub stdin_is_input: bool,
    /// The locale's characters are UTF-8.
    pub utf8: bool,
    /// `NO_COLOR` is set and not empty.
    pub no_color: bool,
    /// `TERM` is set and not `dumb`.
    pub term_colors: bool,
    /// `GREP_COLOR` (deprecated) and `GREP_COLORS`.
    pub grep_color: Option<String>,
    pub grep_colors: Option<String>,
    /// There is one path operand and it is a directory (one file named
    /// alone prints no names; more than one is not looked at).
    pub one_operand_is_dir: bool,
}

impl Facts {
    /// The facts of a search with the options `low`.
    pub fn gather(low: &LowArgs) -> Facts {
        let set = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
        let pattern_operand = low.patterns.is_empty() && !low.files;
        let mut paths = low.operands.iter().skip(usize::from(pattern_operand));
        let one_path = match (paths.next(), paths.next()) {
            (Some(p), None) => Some(p),
            _ => None,
        };
        Facts {
            stdout_tty: std::io::stdout().is_terminal(),
            stderr_tty: std::io::stderr().is_terminal(),
            stdin_is_input: crate::stdin_is_input(),
            utf8: trawl_run::utf8_locale(),
            no_color: set("NO_COLOR").is_some(),
            term_colors: std::env::var_os("TERM").is_some_and(|t| t != "dumb"),
            grep_color: std::env::var("GREP_COLOR").ok(),
            grep_colors: std::env::var("GREP_COLORS").ok(),
            one_operand_is_dir: one_path.is_some_and(|p| {
                p != "-"
                    && std::fs::metadata(OsStr::from_bytes(p.as_bytes()))
                        .is_ok_and(|md| md.is_dir())
            }),
        }
    }
}
