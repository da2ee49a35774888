//! The loop that applies a parsed command line to [`LowArgs`]: every value
//! given, with its place on the command line, handed to its option's
//! declaration in command-line order (so the later of two options wins).

use std::ffi::OsString;

use clap::ArgMatches;

use super::defs::{self, Given, Kind, Value};
use super::low::LowArgs;

/// The command line clap parsed, applied in command-line order.
pub fn low_args(m: &ArgMatches) -> LowArgs {
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
            Value::One(_, kind) | Value::Many(_, kind) | Value::Optional(_, kind, _) => Some(kind),
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
    use crate::flags::low::*;

    fn low(args: &[&str]) -> LowArgs {
        let argv: Vec<OsString> =
            std::iter::once("trawl").chain(args.iter().copied()).map(OsString::from).collect();
        let cmd = crate::flags::command::command();
        let argv = crate::flags::command::preprocess(argv, &cmd);
        low_args(&cmd.try_get_matches_from(argv).unwrap())
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
