//! GNU getopt_long's abbreviations of long options: `--line-n` is
//! `--line-number` when no other long option starts so. Where a prefix
//! starts several of trawl's options but only one of GNU grep's, grep's
//! wins, so that every abbreviation grep takes means the same here (`--col`
//! is `--color`, though trawl also has `--column`).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use clap::Command;

/// GNU grep 3.8's long options (its `--help`).
const GREP_LONGS: &[&str] = &[
    "after-context",
    "basic-regexp",
    "before-context",
    "binary",
    "binary-files",
    "byte-offset",
    "color",
    "colour",
    "context",
    "count",
    "dereference-recursive",
    "devices",
    "directories",
    "exclude",
    "exclude-dir",
    "exclude-from",
    "extended-regexp",
    "file",
    "files-with-matches",
    "files-without-match",
    "fixed-strings",
    "group-separator",
    "help",
    "ignore-case",
    "include",
    "initial-tab",
    "invert-match",
    "label",
    "line-buffered",
    "line-number",
    "line-regexp",
    "max-count",
    "no-filename",
    "no-group-separator",
    "no-ignore-case",
    "no-messages",
    "null",
    "null-data",
    "only-matching",
    "perl-regexp",
    "quiet",
    "recursive",
    "regexp",
    "silent",
    "text",
    "version",
    "with-filename",
    "word-regexp",
];

/// Every long option of a command (aliases included), with its argument.
pub struct LongNames<'c> {
    /// (name without `--`, the argument's id).
    names: Vec<(&'c str, &'c str)>,
}

impl<'c> LongNames<'c> {
    pub fn of(cmd: &'c Command) -> LongNames<'c> {
        let mut names = Vec::new();
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            let longs = a.get_long().into_iter().chain(a.get_all_aliases().unwrap_or_default());
            names.extend(longs.map(|l| (l, id)));
        }
        // --help and --version are clap's own.
        for builtin in ["help", "version"] {
            if !names.iter().any(|(n, _)| *n == builtin) {
                names.push((builtin, builtin));
            }
        }
        LongNames { names }
    }

    /// `arg` with the long option it abbreviates written in full (its
    /// `=VALUE` kept); any other argument as it is.
    pub fn expanded(&self, arg: OsString) -> OsString {
        let Some(given) = arg.as_bytes().strip_prefix(b"--") else { return arg };
        let (name, value) = match memchr::memchr(b'=', given) {
            Some(eq) => given.split_at(eq),
            None => (given, &b""[..]),
        };
        match self.expand(name) {
            Some(full) => OsString::from_vec([b"--", full.as_bytes(), value].concat()),
            None => arg,
        }
    }

    /// The full name of the option `given` (without `--` or `=VALUE`)
    /// abbreviates, if it is an abbreviation of exactly one (None for a
    /// full name, an unknown one or an ambiguous one: the parser says).
    fn expand(&self, given: &[u8]) -> Option<&'c str> {
        if given.is_empty() || self.names.iter().any(|(n, _)| n.as_bytes() == given) {
            return None;
        }
        let starts: Vec<(&str, &str)> =
            self.names.iter().copied().filter(|(n, _)| n.as_bytes().starts_with(given)).collect();
        let grep: Vec<(&str, &str)> =
            starts.iter().copied().filter(|(n, _)| GREP_LONGS.contains(n)).collect();
        only_one(&starts).or_else(|| only_one(&grep))
    }
}

impl<'c> LongNames<'c> {
    /// When `given` (without `--` or `=VALUE`) is not a full name and
    /// abbreviates several options (without one of GNU grep's to choose):
    /// every name it abbreviates, in the command's order, for getopt's
    /// message ("option '--co' is ambiguous; possibilities: ...").
    pub fn ambiguous(&self, given: &[u8]) -> Option<Vec<&'c str>> {
        if given.is_empty() || self.names.iter().any(|(n, _)| n.as_bytes() == given) {
            return None;
        }
        let starts: Vec<(&str, &str)> =
            self.names.iter().copied().filter(|(n, _)| n.as_bytes().starts_with(given)).collect();
        if starts.len() < 2 || self.expand(given).is_some() {
            return None;
        }
        Some(starts.into_iter().map(|(n, _)| n).collect())
    }
}

/// The name of the one option all of `names` are names of.
fn only_one<'c>(names: &[(&'c str, &'c str)]) -> Option<&'c str> {
    let &(first, id) = names.first()?;
    names.iter().all(|(_, other)| *other == id).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(given: &str) -> Option<String> {
        let cmd = crate::flags::command::command();
        LongNames::of(&cmd).expand(given.as_bytes()).map(str::to_string)
    }

    #[test]
    fn a_unique_prefix_names_its_option() {
        assert_eq!(expand("line-n").as_deref(), Some("line-number"));
        assert_eq!(expand("inc").as_deref(), Some("include"));
        assert_eq!(expand("files-with-m").as_deref(), Some("files-with-matches"));
    }

    #[test]
    fn grep_options_win_over_trawl_ones() {
        assert_eq!(expand("col").as_deref(), Some("color"));
        assert_eq!(expand("coun").as_deref(), Some("count"));
    }

    #[test]
    fn an_ambiguous_prefix_lists_every_option_it_abbreviates() {
        let cmd = crate::flags::command::command();
        let names = LongNames::of(&cmd);
        let co = names.ambiguous(b"co").expect("--co is ambiguous");
        for grep in ["context", "color", "colour", "count"] {
            assert!(co.contains(&grep), "{co:?}");
        }
        assert!(co.iter().all(|n| n.starts_with("co")), "{co:?}");
        assert_eq!(names.ambiguous(b"col"), None, "--col is grep's --color");
        assert_eq!(names.ambiguous(b"count"), None, "a full name");
        assert_eq!(names.ambiguous(b"zzz"), None, "unknown");
    }

    #[test]
    fn full_unknown_and_ambiguous_names_are_left_to_the_parser() {
        assert_eq!(expand("count"), None);
        assert_eq!(expand("zzz"), None);
        assert_eq!(expand("no"), None);
        assert_eq!(expand("fi"), None);
    }
}
