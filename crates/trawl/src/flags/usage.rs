//! Command-line mistakes reported as GNU grep reports them: one line naming
//! the option, then the usage line and where to find help, exit status 2
//! (clap's own block of usage and tips is for `--help`).

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The message for a command line that clap refused, in GNU grep's words.
pub fn message(e: &clap::Error, argv: &[std::ffi::OsString]) -> String {
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        _ => String::new(),
    };
    // clap names the option with its value placeholder: "--regexp <PATTERN>".
    let option = context(ContextKind::InvalidArg);
    let option = option.split([' ', '=', '[']).next().unwrap_or_default().to_string();
    let value = context(ContextKind::InvalidValue);
    let first = match e.kind() {
        ErrorKind::UnknownArgument => match option.strip_prefix("--") {
            Some(name) => {
                // As written, with its `=VALUE` (clap names the option only).
                let with_value = format!("{option}=");
                let given =
                    argv.iter().map(|a| a.to_string_lossy()).find(|a| a.starts_with(&with_value));
                let given = given.as_deref().unwrap_or(&option);
                match ambiguous(name) {
                    Some(names) => {
                        let listed: Vec<String> =
                            names.iter().map(|n| format!("'--{n}'")).collect();
                        let listed = listed.join(" ");
                        format!("option '{given}' is ambiguous; possibilities: {listed}")
                    }
                    None => format!("unrecognized option '{given}'"),
                }
            }
            None => format!("invalid option -- '{}'", option.trim_start_matches('-')),
        },
        ErrorKind::InvalidValue if value.is_empty() => {
            // The option is the last argument; name it as it was written.
            match argv.last().map(|a| a.to_string_lossy()) {
                Some(a) if a.len() > 1 && a.starts_with('-') && !a.starts_with("--") => {
                    missing_value(&format!("-{}", a.chars().last().unwrap_or('-')))
                }
                _ => missing_value(&option),
            }
        }
        ErrorKind::NoEquals => missing_value(&option),
        ErrorKind::TooManyValues if option.starts_with("--") => {
            format!("option '{option}' doesn't allow an argument")
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            return invalid_value(e, &option, &value)
        }
        _ => {
            // Anything else: clap's first line, without its "error: ".
            let text = e.to_string();
            let line = text.lines().next().unwrap_or_default();
            line.trim_start_matches("error: ").to_string()
        }
    };
    format!("{first}\n{}", usage_lines())
}

/// The options `name` (a long option without `--`) abbreviates, when it
/// abbreviates several (see flags::long_prefix).
fn ambiguous(name: &str) -> Option<Vec<String>> {
    let cmd = super::command::command();
    let names = super::long_prefix::LongNames::of(&cmd).ambiguous(name.as_bytes())?;
    Some(names.into_iter().map(str::to_string).collect())
}

fn missing_value(option: &str) -> String {
    match option.strip_prefix("--") {
        Some(_) => format!("option '{option}' requires an argument"),
        None => format!("option requires an argument -- '{}'", option.trim_start_matches('-')),
    }
}

/// A value an option does not take: GNU grep's words for the options it
/// has, else "invalid argument" with the valid ones listed.
fn invalid_value(e: &clap::Error, option: &str, value: &str) -> String {
    // clap names an option by its long name, however it was written.
    match option {
        "--max-count" => "invalid max count".into(),
        "--after-context" | "--before-context" | "--context" => {
            format!("{value}: invalid context length argument")
        }
        "--devices" => "unknown devices method".into(),
        "--binary-files" => "unknown binary-files type".into(),
        name => {
            let mut out = format!("invalid argument '{value}' for '{name}'");
            if let Some(ContextValue::Strings(valid)) = e.get(ContextKind::ValidValue) {
                out.push_str("\nValid arguments are:");
                for v in valid {
                    out.push_str(&format!("\n  - '{v}'"));
                }
            }
            format!("{out}\n{}", usage_lines())
        }
    }
}

/// The two lines after a usage error.
fn usage_lines() -> &'static str {
    "Usage: trawl [OPTION]... PATTERNS [FILE]...\nTry 'trawl --help' for more information."
}
