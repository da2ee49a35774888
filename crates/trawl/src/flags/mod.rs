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

/// Parses a search's command line (the configuration file's arguments
/// already in it); an error is the message, in grep's words.
pub fn parse(argv: Vec<OsString>) -> Result<Parsed, String> {
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
        Ok(m) => Ok(Parsed::Search(Box::new(apply::low_args(&m)))),
        Err(e) if e.use_stderr() => Err(usage::message(&e, &argv)),
        Err(e) => {
            let _ = e.print();
            Ok(Parsed::Done)
        }
    }
}
