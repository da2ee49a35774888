//! The clap command made from the declarations (`flags::defs`): the
//! parser, `--help`, the man page and the completions all read it; the
//! lean command for a command line of operands only; and grep's habits clap
//! lacks, applied to the arguments before it reads them (`-NUM`, getopt's
//! abbreviations and short-option values).

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use clap::{Arg, ArgAction, Command};

use super::defs::{self, Flag, Kind, Special, Value};

/// The id of the operands' argument.
pub const OPERANDS: &str = "pattern_or_path";

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
    Arg::new(OPERANDS)
        .action(ArgAction::Append)
        .value_parser(clap::value_parser!(OsString))
        .num_args(0..)
        .value_name("PATTERN")
        .hide(true)
        .help("The pattern (unless -e or -f is given), then files and directories to search")
}

/// The clap argument of an option's declaration.
fn arg(f: &Flag) -> Arg {
    let mut a = Arg::new(f.id).help(f.help).display_order(f.order);
    if !f.long.is_empty() {
        a = a.long(f.long);
    }
    if let Some(c) = f.short {
        a = a.short(c);
    }
    for &c in f.short_aliases {
        a = a.short_alias(c);
    }
    for &l in f.aliases {
        a = a.visible_alias(l);
    }
    if f.hyphen_values {
        a = a.allow_hyphen_values(true);
    }
    match (f.special, f.value) {
        (Special::Help, _) => a.action(ArgAction::Help),
        (Special::Version, _) => a.action(ArgAction::Version),
        // A flag: true when given, absent otherwise. (Not SetTrue: clap
        // gives each SetTrue flag a default, made at every parse and
        // searched at every lookup; with some 150 flags that was a third
        // of a tiny search's start.)
        (Special::None, Value::Switch) => a
            .action(ArgAction::Set)
            .num_args(0)
            .default_missing_value("true")
            .value_parser(clap::value_parser!(bool)),
        (Special::None, Value::One("", kind)) => parsed(a, kind),
        (Special::None, Value::One(name, kind)) => parsed(a.value_name(name), kind),
        (Special::None, Value::Many(name, kind)) => {
            parsed(a.value_name(name).action(ArgAction::Append), kind)
        }
        (Special::None, Value::Optional(name, kind, default)) => parsed(
            a.value_name(name).num_args(0..=1).require_equals(true).default_missing_value(default),
            kind,
        ),
    }
}

/// `a` reading values of `kind`.
fn parsed(a: Arg, kind: Kind) -> Arg {
    match kind {
        Kind::Text => a.value_parser(clap::value_parser!(OsString)),
        Kind::Str => a,
        Kind::Choice(words) => a.value_parser(words.to_vec()),
        Kind::Count => a.value_parser(clap::value_parser!(u64)),
        Kind::Number => a.value_parser(clap::value_parser!(usize)),
        Kind::Size => a.value_parser(parse_size),
    }
}

/// The command line of a search (grep's options and trawl's), from the
/// declarations: under each heading in `--help`'s order, its options in the
/// order clap keeps them (the completions'); `--help` orders them within a
/// heading by their place. Each heading is set for the arguments after it
/// (`next_help_heading`), not by `mut_arg` afterwards (each `mut_arg`
/// shifted the whole argument list, 0.1 ms of every command line with an
/// option).
pub fn command() -> Command {
    let mut cmd = settings().arg(operands());
    let mut current = "";
    for (heading, f) in defs::all() {
        if heading != current {
            current = heading;
            cmd = cmd.next_help_heading(heading);
        }
        cmd = cmd.arg(arg(f));
    }
    cmd
}

/// Whether the command line holds operands only (no argument starting
/// with `-`): then [`lean_command`] parses it as [`command`] would.
pub fn operands_only(argv: &[OsString]) -> bool {
    argv.iter().skip(1).all(|a| a.as_bytes().first() != Some(&b'-'))
}

/// A command that parses operands only, as [`command`] does, in a tenth of
/// the time (a tiny search's start): the operands' argument alone. Nothing
/// looks up another argument's id in what it parses (LowArgs reads the ids
/// given), so it is the same in every build.
pub fn lean_command() -> Command {
    settings().arg(operands())
}

/// The options whose value may be the next argument (so that a `-5` there
/// is a value, not a context count).
struct ValueOptions {
    shorts: Vec<u8>,
    longs: Vec<Vec<u8>>,
}

impl ValueOptions {
    fn of_declarations() -> ValueOptions {
        let mut v = ValueOptions { shorts: Vec::new(), longs: Vec::new() };
        for (_, f) in defs::all() {
            // `--color[=WHEN]` never takes the next argument.
            if !matches!(f.value, Value::One(..) | Value::Many(..)) {
                continue;
            }
            let shorts = f.short.into_iter().chain(f.short_aliases.iter().copied());
            v.shorts.extend(shorts.filter(char::is_ascii).map(|c| c as u8));
            let longs = std::iter::once(f.long).chain(f.aliases.iter().copied());
            v.longs.extend(longs.filter(|l| !l.is_empty()).map(|l| [b"--", l.as_bytes()].concat()));
        }
        v
    }
}

/// Rewrites grep's `-NUM` (context of NUM lines) as `--context=NUM`, and an
/// abbreviated long option as its full name (getopt_long's).
pub fn preprocess(args: Vec<OsString>, cmd: &Command) -> Vec<OsString> {
    let takes_value = ValueOptions::of_declarations();
    let long_names = super::long_prefix::LongNames::of(cmd);
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
    /// from the declarations (the hand-kept list lacked new options).
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
            let ops = |m: &clap::ArgMatches| {
                let values: Vec<OsString> = m
                    .get_many::<OsString>(OPERANDS)
                    .map(|v| v.cloned().collect())
                    .unwrap_or_default();
                let at: Vec<usize> =
                    m.indices_of(OPERANDS).map(Iterator::collect).unwrap_or_default();
                (values, at)
            };
            assert_eq!(ops(&lean), ops(&full), "{a:?}");
            let given = |m: &clap::ArgMatches| m.ids().map(|i| i.to_string()).collect::<Vec<_>>();
            assert_eq!(given(&lean), given(&full), "{a:?}");
        }
    }

    /// Every declaration is one clap argument, with its names.
    #[test]
    fn every_declared_option_is_an_argument_of_the_command() {
        let cmd = command();
        for (heading, f) in defs::all() {
            let a = cmd.get_arguments().find(|a| a.get_id() == f.id).expect(f.id);
            assert_eq!(a.get_long().unwrap_or(""), f.long, "{}", f.id);
            assert_eq!(a.get_short(), f.short, "{}", f.id);
            assert_eq!(a.get_help_heading(), Some(heading), "{}", f.id);
        }
        // And nothing else but the operands.
        assert_eq!(cmd.get_arguments().count(), defs::all().count() + 1);
    }
}
