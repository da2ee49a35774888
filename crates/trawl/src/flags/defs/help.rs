//! `--help`'s "Configuration and help".

use super::{Flag, Kind, Special, Value};

/// What `--generate` can write.
pub const GENERATE_KINDS: [&str; 6] = [
    "complete-bash",
    "complete-zsh",
    "complete-fish",
    "complete-powershell",
    "complete-elvish",
    "man",
];

pub const FLAGS: &[Flag] = &[
    // Read before parsing (config_file.rs); declared for --help and clap.
    Flag::switch("no_config", None, "no-config", |_, _| {}).help(
        91,
        "Do not read the configuration file ($TRAWL_CONFIG_PATH, else \
         $XDG_CONFIG_HOME/trawl/config: default arguments, one per line)",
    ),
    Flag::valued(
        "generate",
        None,
        "generate",
        Value::One("KIND", Kind::Choice(&GENERATE_KINDS)),
        |l, v| l.generate = Some(v.word().to_string()),
    )
    .help(
        92,
        "Print shell completions or the man page (complete-bash, complete-zsh, complete-fish, \
         complete-powershell, complete-elvish, man) and exit",
    ),
    Flag::switch("help", None, "help", |_, _| {}).special(Special::Help).help(93, "Print help"),
    Flag::switch("version", Some('V'), "version", |_, _| {})
        .special(Special::Version)
        .help(94, "Print version"),
];
