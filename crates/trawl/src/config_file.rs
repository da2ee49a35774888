//! Default arguments from a configuration file: `$TRAWL_CONFIG_PATH`, else
//! `$XDG_CONFIG_HOME/trawl/config` (`~/.config/trawl/config`). One
//! argument per line, as it would be written on the command line without
//! a shell's quoting (`--glob=!*.min.js`); blank lines and lines starting
//! with `#` are skipped, and so is whitespace around a line. The file's
//! arguments come before the command line's, so the command line wins;
//! `--no-config` ignores the file. The search modes read it (not `trawl
//! find`, `index`, `cache` or `extractors`).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use crate::unusable::Severity;

/// Where the file is looked for, and whether it must exist (a path named
/// by `$TRAWL_CONFIG_PATH` must; the default one need not).
fn location() -> Option<(PathBuf, Presence)> {
    if let Some(p) = std::env::var_os("TRAWL_CONFIG_PATH") {
        // Set but empty: no configuration file.
        return (!p.is_empty()).then(|| (PathBuf::from(p), Presence::Required));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some((base.join("trawl").join("config"), Presence::Optional))
}

#[derive(Clone, Copy, Eq, PartialEq)]
enum Presence {
    Required,
    Optional,
}

/// One argument read from the file, with its line number.
pub struct Line {
    pub number: usize,
    pub arg: OsString,
}

/// A configuration file that could not be read; the search goes on without
/// its defaults.
pub struct Unreadable {
    /// The one line to print (without `trawl: `).
    pub message: String,
    /// Whether it makes the exit status 2.
    pub severity: Severity,
}

/// The configuration file's arguments.
pub struct ConfigFile {
    pub path: PathBuf,
    pub lines: Vec<Line>,
}

impl ConfigFile {
    /// The file's arguments; `Ok(None)` when there is none to read.
    pub fn load() -> Result<Option<ConfigFile>, Unreadable> {
        let Some((path, presence)) = location() else { return Ok(None) };
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e)
                if e.kind() == std::io::ErrorKind::NotFound && presence == Presence::Optional =>
            {
                return Ok(None)
            }
            Err(e) => {
                let (severity, named) = match presence {
                    Presence::Required => (Severity::Error, " (named by TRAWL_CONFIG_PATH)"),
                    Presence::Optional => (Severity::Warning, ""),
                };
                let message = format!(
                    "{}{}: {}{named}; its defaults are not applied",
                    severity.prefix(),
                    path.display(),
                    trawl_diag::io_message(&e)
                );
                return Err(Unreadable { message, severity });
            }
        };
        Ok(Some(ConfigFile { lines: parse(&bytes), path }))
    }

    /// `FILE:LINE: message`, for an argument of the file.
    pub fn blame(&self, line: &Line, message: &str) -> String {
        format!("{}:{}: {message}", self.path.display(), line.number)
    }
}

/// The command line with the configuration file's arguments put first
/// (`argv` unchanged under `--no-config` or without a file). A file whose
/// arguments are wrong alone is an error naming its path and line; a file
/// that cannot be read is reported through `unreadable` and left out.
pub fn with_defaults(
    argv: Vec<OsString>,
    command: impl FnOnce() -> clap::Command,
    unreadable: impl FnOnce(Unreadable),
) -> Result<Vec<OsString>, String> {
    if disabled(&argv) {
        return Ok(argv);
    }
    let file = match ConfigFile::load() {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(argv),
        Err(u) => {
            unreadable(u);
            return Ok(argv);
        }
    };
    file.check(&command())?;
    let mut out = Vec::with_capacity(argv.len() + file.lines.len());
    let mut argv = argv.into_iter();
    out.extend(argv.next());
    out.extend(file.lines.into_iter().map(|l| l.arg));
    out.extend(argv);
    Ok(out)
}

impl ConfigFile {
    /// The file's arguments parsed alone: options only, each known and
    /// with a valid value.
    fn check(&self, cmd: &clap::Command) -> Result<(), String> {
        let parse = |n: usize| {
            let argv: Vec<OsString> = std::iter::once(OsString::from("trawl"))
                .chain(self.lines[..n].iter().map(|l| l.arg.clone()))
                .collect();
            let argv = crate::flags::command::preprocess(argv, cmd);
            cmd.clone().try_get_matches_from(&argv).map_err(|e| (e, argv))
        };
        let operand = |m: &clap::ArgMatches| m.contains_id(crate::flags::command::OPERANDS);
        match parse(self.lines.len()) {
            Ok(m) if operand(&m) => {
                // The line that makes the first prefix of the file hold an
                // operand (clap's indices count a flag's value too).
                let n = (1..=self.lines.len())
                    .find(|&n| parse(n).is_ok_and(|m| operand(&m)))
                    .unwrap_or(self.lines.len());
                Err(self.blame(
                    &self.lines[n - 1],
                    "not an option (a configuration file holds options only; a value goes after '=' or on the line after its option)",
                ))
            }
            Ok(_) => Ok(()),
            Err((e, argv)) => {
                // The line after the longest prefix that parses, or the
                // one after it when that holds the value found wrong (a
                // value may be on the line after its option).
                let ok = (0..self.lines.len()).rev().find(|&n| parse(n).is_ok()).unwrap_or(0);
                let value = match e.get(clap::error::ContextKind::InvalidValue) {
                    Some(clap::error::ContextValue::String(v)) => Some(v.clone()),
                    _ => None,
                };
                let at = match self.lines.get(ok + 1) {
                    Some(next) if value.is_some_and(|v| next.arg.as_bytes() == v.as_bytes()) => {
                        ok + 1
                    }
                    _ => ok,
                };
                let message = crate::flags::usage::message(&e, &argv);
                let first = message.lines().next().unwrap_or_default();
                Err(self.blame(&self.lines[at], first))
            }
        }
    }
}

/// The arguments of a configuration file's bytes.
fn parse(bytes: &[u8]) -> Vec<Line> {
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.trim_ascii();
            (!line.is_empty() && !line.starts_with(b"#"))
                .then(|| Line { number: i + 1, arg: OsString::from_vec(line.to_vec()) })
        })
        .collect()
}

/// Whether the command line turns the file off: `--no-config` before any
/// `--` (after it, it is an operand).
pub fn disabled(argv: &[OsString]) -> bool {
    argv.iter().skip(1).take_while(|a| a.as_bytes() != b"--").any(|a| a == "--no-config")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_surrounding_spaces_are_not_arguments() {
        let lines = parse(
            b"# defaults\n\n  --glob=!*.min.js  \n-i\n\t# indented comment\n--max-columns=150\n",
        );
        let got: Vec<(usize, &[u8])> = lines.iter().map(|l| (l.number, l.arg.as_bytes())).collect();
        assert_eq!(
            got,
            [
                (3, b"--glob=!*.min.js".as_slice()),
                (4, b"-i".as_slice()),
                (6, b"--max-columns=150".as_slice())
            ]
        );
    }

    #[test]
    fn no_config_after_double_dash_is_an_operand() {
        let argv = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert!(disabled(&argv(&["trawl", "--no-config", "x"])));
        assert!(!disabled(&argv(&["trawl", "--", "--no-config"])));
        assert!(!disabled(&argv(&["trawl", "x"])));
    }
}
