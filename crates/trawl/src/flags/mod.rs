//! The command line of a search, from what the user typed to what a run
//! needs, in four steps (ripgrep's defs → lowargs → hiargs):
//!
//! ```text
//! defs/      every option declared once: names, value, help, heading, and
//!            how it changes LowArgs (the parser, --help, the man page and
//!            the completions are made from these declarations)
//! command    the clap command; grep's -NUM, getopt's abbreviations and
//!            short-option values applied before clap reads the arguments;
//!            usage: command-line mistakes in grep's words
//! low        LowArgs: the options as typed values (plain data)
//! apply      the parsed command line applied to LowArgs in command-line
//!            order, so the later of two options wins by construction
//! hi         what a run is: facts about the environment gathered once
//!            (terminals, standard input, the operands), the files options
//!            name read (-f, --exclude-from), settings derived from them
//!            without side effects, then resources opened (the matcher
//!            compiled, the extractor and its cache, an index, standard
//!            output's identity) into the Config
//! ```

mod apply;
pub mod command;
mod defs;
pub mod hi;
pub mod long_prefix;
pub mod low;
pub mod subcommands;
pub mod usage;

use std::ffi::OsString;

pub use low::LowArgs;

/// What parsing a command line gave.
pub enum Parsed {
    /// The options of a search.
    Search(Box<LowArgs>),
    /// `--help` or `--version`, printed: the run is over.
    Done,
}

/// What a command line asks for, nothing printed yet.
pub enum Asked {
    /// The options of a search.
    Search(Box<LowArgs>),
    /// `--help` or `--version`: clap's text, to print.
    HelpOrVersion(clap::Error),
}

/// Parses a search's command line (the configuration file's arguments
/// already in it), printing --help's or --version's text when asked; an
/// error is the message, in grep's words.
pub fn parse(argv: Vec<OsString>) -> Result<Parsed, String> {
    match read(argv)? {
        Asked::Search(low) => Ok(Parsed::Search(low)),
        Asked::HelpOrVersion(e) => {
            let _ = e.print();
            Ok(Parsed::Done)
        }
    }
}

/// Parses a search's command line as [`parse`] does, printing nothing.
pub fn read(argv: Vec<OsString>) -> Result<Asked, String> {
    // A command line of operands only, the common tiny search, is parsed
    // without building every option (see command::lean_command).
    let (command, argv) = match command::operands_only(&argv) {
        true => (command::lean_command(), argv),
        false => {
            let command = command::command();
            let argv = command::preprocess(argv, &command);
            (command, argv)
        }
    };
    match command.try_get_matches_from(&argv) {
        Ok(m) => Ok(Asked::Search(Box::new(apply::low_args(&m)))),
        Err(e) if e.use_stderr() => Err(usage::message(&e, &argv)),
        Err(e) => Ok(Asked::HelpOrVersion(e)),
    }
}
