//! Every option of a search, declared once: its names, its value, where
//! `--help` shows it, its help, and how it changes [`LowArgs`]. The clap
//! command (the parser, `--help`, the man page and the completions) is made
//! from these declarations (see `flags::command`), and the parsed command
//! line is applied through them, in command-line order (see `flags::low`).
//!
//! The declarations are grouped by their `--help` heading, one file each,
//! in the order the headings show.

mod binary;
mod choosing;
mod context;
mod extract;
mod help;
mod output;
mod patterns;
mod selecting;
mod speed;

use std::ffi::{OsStr, OsString};

use super::low::LowArgs;

/// What a value is (how clap checks it, and how it is handed over).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// Any bytes.
    Text,
    /// UTF-8 text.
    Str,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// A count (`-m`, `-A`): u64.
    Count,
    /// A number of things (`-j`, `--max-depth`): usize.
    Number,
    /// A size with an optional K, M or G suffix: u64 bytes.
    Size,
}

/// Whether an option takes a value, and how.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    /// None: a switch.
    Switch,
    /// One (the next argument, or after `=`): its placeholder and kind.
    One(&'static str, Kind),
    /// As `One`, repeatable, every one kept in order.
    Many(&'static str, Kind),
    /// Only after `=` (`--color[=WHEN]`); without one, the default given.
    Optional(&'static str, Kind, &'static str),
}

/// What clap does with an option besides storing it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Special {
    /// Nothing.
    None,
    /// `--help`: print the help and exit.
    Help,
    /// `--version`.
    Version,
}

/// A value as handed to an option's [`Flag::apply`] (checked by clap
/// against its [`Kind`] already).
#[derive(Clone, Copy, Debug)]
pub enum Given<'a> {
    /// A switch.
    Switch,
    /// A value of kind [`Kind::Text`].
    Text(&'a OsStr),
    /// A value of kind [`Kind::Choice`] or [`Kind::Str`].
    Word(&'a str),
    /// A value of kind [`Kind::Count`] or [`Kind::Size`].
    Count(u64),
    /// A value of kind [`Kind::Number`].
    Number(usize),
}

impl<'a> Given<'a> {
    /// The value of a [`Kind::Text`] option.
    pub fn text(self) -> OsString {
        match self {
            Given::Text(t) => t.to_os_string(),
            _ => OsString::new(),
        }
    }

    /// The value of a [`Kind::Choice`] or [`Kind::Str`] option.
    pub fn word(self) -> &'a str {
        match self {
            Given::Word(w) => w,
            _ => "",
        }
    }

    /// The value of a [`Kind::Count`] or [`Kind::Size`] option.
    pub fn count(self) -> u64 {
        match self {
            Given::Count(n) => n,
            _ => 0,
        }
    }

    /// The value of a [`Kind::Number`] option.
    pub fn number(self) -> usize {
        match self {
            Given::Number(n) => n,
            _ => 0,
        }
    }
}

/// One option of a search.
#[derive(Clone, Copy)]
pub struct Flag {
    /// Its id (clap's, and the tests').
    pub id: &'static str,
    /// Its long name, without `--`.
    pub long: &'static str,
    /// Its letter.
    pub short: Option<char>,
    /// Other letters, not shown (`-y` for `-i`).
    pub short_aliases: &'static [char],
    /// Other long names, shown (`--colour`).
    pub aliases: &'static [&'static str],
    /// Its value.
    pub value: Value,
    /// A value may start with `-` (`-e -x`, `--glob !*.c`).
    pub hyphen_values: bool,
    /// What clap does with it besides.
    pub special: Special,
    /// Its place under the heading.
    pub order: usize,
    /// Its help.
    pub help: &'static str,
    /// How it changes the arguments, applied in command-line order.
    pub apply: fn(&mut LowArgs, Given<'_>),
}

impl Flag {
    /// A switch `--long` (`-short`), applied by `apply`.
    pub const fn switch(
        id: &'static str,
        short: Option<char>,
        long: &'static str,
        apply: fn(&mut LowArgs, Given<'_>),
    ) -> Flag {
        Flag {
            id,
            long,
            short,
            short_aliases: &[],
            aliases: &[],
            value: Value::Switch,
            hyphen_values: false,
            special: Special::None,
            order: 0,
            help: "",
            apply,
        }
    }

    /// An option with a value.
    pub const fn valued(
        id: &'static str,
        short: Option<char>,
        long: &'static str,
        value: Value,
        apply: fn(&mut LowArgs, Given<'_>),
    ) -> Flag {
        Flag { value, ..Flag::switch(id, short, long, apply) }
    }

    /// This flag, shown at `order` with `help`.
    pub const fn help(self, order: usize, help: &'static str) -> Flag {
        Flag { order, help, ..self }
    }

    /// This flag, with other long names.
    pub const fn aliases(self, aliases: &'static [&'static str]) -> Flag {
        Flag { aliases, ..self }
    }

    /// This flag, with other letters.
    pub const fn short_aliases(self, short_aliases: &'static [char]) -> Flag {
        Flag { short_aliases, ..self }
    }

    /// This flag, whose value may start with `-`.
    pub const fn hyphen_values(self) -> Flag {
        Flag { hyphen_values: true, ..self }
    }

    /// This flag, which clap acts on itself.
    pub const fn special(self, special: Special) -> Flag {
        Flag { special, ..self }
    }
}

/// The headings, in the order `--help` shows them, and their options in
/// the order clap keeps them (the completions' and the man page's).
pub const HEADINGS: [(&str, &[Flag]); 9] = [
    ("Patterns", patterns::FLAGS),
    ("Selecting lines", selecting::FLAGS),
    ("Output", output::FLAGS),
    ("Context", context::FLAGS),
    ("Choosing files", choosing::FLAGS),
    ("Binary files and encodings", binary::FLAGS),
    ("Compressed files, archives and documents", extract::FLAGS),
    ("Speed", speed::FLAGS),
    ("Configuration and help", help::FLAGS),
];

/// Every option, after its heading.
pub fn all() -> impl Iterator<Item = (&'static str, &'static Flag)> {
    HEADINGS.into_iter().flat_map(|(heading, flags)| flags.iter().map(move |f| (heading, f)))
}

/// The option whose id is `id`.
pub fn find(id: &str) -> Option<&'static Flag> {
    all().map(|(_, f)| f).find(|f| f.id == id)
}
