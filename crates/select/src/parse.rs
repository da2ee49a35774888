//! Parsing `find [-H|-L|-P] [PATH...] [EXPRESSION]` with GNU find's grammar.
//!
//! Precedence, highest first: `( )`, `!`/`-not`, juxtaposition/`-a`/`-and`,
//! `-o`/`-or`, `,`. Global options (`-maxdepth`, `-depth`, ...) are true
//! wherever they stand. Without an action, the expression is `( EXPR ) -print`.

use crate::command::{Extraction, FindCommand, Follow, Setup};
use crate::error::{Error, ErrorKind};
use crate::expr::{Action, Expr, Test};
use crate::report::show;
use trawl_extract::AskedLimits;

mod exec;
mod number;
mod primary;
mod values;

use self::number::number;
use self::primary::Reader;

/// A mistake in a `find` command line, with what GNU find did while it
/// read the arguments before it.
#[derive(Debug)]
pub struct ParseError {
    /// What is wrong (said in GNU find's words).
    pub(crate) error: Error,
    /// What GNU find did while it read the arguments before the mistake
    /// (see [`crate::after_mistake`]).
    pub(crate) setup: Vec<Setup>,
}

impl ParseError {
    /// What is wrong.
    pub fn kind(&self) -> &ErrorKind {
        self.error.kind()
    }

    /// What GNU find did while it read the arguments before the mistake.
    pub fn setup(&self) -> &[Setup] {
        &self.setup
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for ParseError {}

/// Parses the arguments after `find`, the command starting now.
pub fn parse(args: &[Vec<u8>]) -> Result<FindCommand, ParseError> {
    parse_at(args, now())
}

/// Parses the arguments after `find`, the command starting at `now`
/// (seconds and nanoseconds since the epoch: what `-mtime` & co. count
/// from).
pub fn parse_at(args: &[Vec<u8>], now: (i64, i64)) -> Result<FindCommand, ParseError> {
    let mut cmd = FindCommand {
        follow: Follow::Never,
        paths: Vec::new(),
        files0_from: None,
        expr: Expr::Test(Test::Const(true)),
        max_depth: None,
        min_depth: 0,
        depth_first: false,
        same_file_system: false,
        ignore_readdir_race: false,
        execs: Vec::new(),
        threads: 0,
        sorted: false,
        no_index: false,
        now,
        extraction: Extraction::Bytes,
        limits: AskedLimits::default(),
        setup: Vec::new(),
    };
    match read(args, &mut cmd) {
        Ok(()) => Ok(cmd),
        Err(error) => Err(ParseError { error, setup: cmd.setup }),
    }
}

/// Reads `args` into `cmd`.
fn read(args: &[Vec<u8>], cmd: &mut FindCommand) -> Result<(), Error> {
    let mut i = 0;
    // Leading options.
    while i < args.len() {
        if let Some((option, inline)) = limit_option(&args[i]) {
            let value = match inline {
                Some(v) => Some(v.to_vec()),
                None => {
                    i += 1;
                    args.get(i).cloned()
                }
            };
            (option.set)(&mut cmd.limits, number(value.as_ref(), &show(option.name))?);
            i += 1;
            continue;
        }
        match args[i].as_slice() {
            b"-H" => cmd.follow = Follow::Roots,
            b"-L" => cmd.follow = Follow::Always,
            b"-P" => cmd.follow = Follow::Never,
            b"--sort" | b"--sort=path" => cmd.sorted = true,
            b"--no-index" => cmd.no_index = true,
            b"-j" | b"--threads" => {
                i += 1;
                cmd.threads = number(args.get(i), "-j")? as usize;
            }
            b"-D" => {
                // Debug options of GNU find: accepted and ignored.
                i += 1;
                if i >= args.len() {
                    return Err(ErrorKind::MissingArgument { option: "-D".into() }.into());
                }
            }
            b"--" => {
                i += 1;
                break;
            }
            a if a.starts_with(b"--threads=") => {
                cmd.threads = number(Some(&a[10..].to_vec()), "--threads")? as usize;
            }
            a if a.starts_with(b"-O") && a[2..].iter().all(u8::is_ascii_digit) => {}
            a if a.starts_with(b"-j") && a.len() > 2 && a[2..].iter().all(u8::is_ascii_digit) => {
                cmd.threads = number(Some(&a[2..].to_vec()), "-j")? as usize;
            }
            _ => break,
        }
        i += 1;
    }
    // Starting points: up to the first argument that starts the expression.
    while i < args.len() {
        let a = &args[i];
        if (a.len() > 1 && a[0] == b'-') || a == b"(" || a == b"!" {
            break;
        }
        cmd.paths.push(a.clone());
        i += 1;
    }
    let operands = cmd.paths.first().cloned();
    if cmd.paths.is_empty() {
        cmd.paths.push(b".".to_vec());
    }
    let toks = &args[i..];
    let mut r = Reader::new(toks, cmd);
    let expr = if toks.is_empty() {
        None
    } else {
        let e = comma(&mut r)?;
        if let Some(t) = r.peek() {
            return Err(match t {
                b")" => ErrorKind::TooManyCloseParentheses,
                _ => ErrorKind::PathAfterExpression { path: t.to_vec() },
            }
            .into());
        }
        Some(e)
    };
    if r.saw_delete && r.saw_prune && !r.saw_depth {
        return Err(ErrorKind::DeleteWithPrune.into());
    }
    let (has_action, files0_from) = (r.has_action, r.files0_from.take());
    let print = Expr::Action(Action::Print(b'\n'));
    cmd.expr = match (expr, has_action) {
        (None, _) => print,
        (Some(e), true) => e,
        (Some(e), false) => Expr::And(Box::new(e), Box::new(print)),
    };
    if files0_from.is_some() {
        if let Some(first) = operands {
            return Err(ErrorKind::OperandWithFiles0From { operand: first }.into());
        }
        cmd.paths.clear();
    }
    cmd.files0_from = files0_from;
    Ok(())
}

/// One of trawl's leading options that bound what `-search-zip` and
/// `-docs` extract, as grep's.
struct LimitOption {
    /// `--NAME`.
    name: &'static [u8],
    /// Sets its limit.
    set: fn(&mut AskedLimits, u64),
}

const LIMIT_OPTIONS: [LimitOption; 3] = [
    LimitOption { name: b"--max-archive-depth", set: |l, n| l.max_depth = Some(n as usize) },
    LimitOption { name: b"--extract-jobs", set: |l, n| l.jobs = Some(n as usize) },
    LimitOption { name: b"--extract-timeout", set: |l, n| l.timeout_secs = Some(n) },
];

/// `arg` as one of [`LIMIT_OPTIONS`], with its value when given as
/// `--NAME=VALUE`.
fn limit_option(arg: &[u8]) -> Option<(&'static LimitOption, Option<&[u8]>)> {
    LIMIT_OPTIONS.iter().find_map(|o| match arg.strip_prefix(o.name)? {
        [] => Some((o, None)),
        [b'=', value @ ..] => Some((o, Some(value))),
        _ => None,
    })
}

/// The time now (seconds, nanoseconds since the epoch).
fn now() -> (i64, i64) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as i64, d.subsec_nanos() as i64)
}

/// `A , B`: the lowest precedence.
fn comma(r: &mut Reader<'_>) -> Result<Expr, Error> {
    let mut e = or(r)?;
    while r.peek() == Some(b",") {
        r.next();
        let rhs = operand(r, ",", or)?;
        e = Expr::Comma(Box::new(e), Box::new(rhs));
    }
    Ok(e)
}

/// `A -o B`.
fn or(r: &mut Reader<'_>) -> Result<Expr, Error> {
    let mut e = and(r)?;
    while let Some(op @ (b"-o" | b"-or")) = r.peek() {
        let op = show(op);
        r.next();
        let rhs = operand(r, &op, and)?;
        e = Expr::Or(Box::new(e), Box::new(rhs));
    }
    Ok(e)
}

/// `A -a B`, or `A B`.
fn and(r: &mut Reader<'_>) -> Result<Expr, Error> {
    let mut e = not(r)?;
    loop {
        match r.peek() {
            Some(op @ (b"-a" | b"-and")) => {
                let op = show(op);
                r.next();
                let rhs = operand(r, &op, not)?;
                e = Expr::And(Box::new(e), Box::new(rhs));
            }
            None | Some(b"-o" | b"-or" | b"," | b")") => return Ok(e),
            Some(_) => {
                let rhs = not(r)?;
                e = Expr::And(Box::new(e), Box::new(rhs));
            }
        }
    }
}

/// The right operand of the binary operator `op`, read by `f`.
fn operand(
    r: &mut Reader<'_>,
    op: &str,
    f: fn(&mut Reader<'_>) -> Result<Expr, Error>,
) -> Result<Expr, Error> {
    match r.peek() {
        None | Some(b")") => {
            Err(ErrorKind::NothingAfterOperator { operator: op.to_string() }.into())
        }
        _ => f(r),
    }
}

/// `! A`, `-not A`.
fn not(r: &mut Reader<'_>) -> Result<Expr, Error> {
    if matches!(r.peek(), Some(b"!" | b"-not")) {
        r.next();
        if matches!(r.peek(), None | Some(b")")) {
            return Err(ErrorKind::NothingAfterNot.into());
        }
        return Ok(Expr::Not(Box::new(not(r)?)));
    }
    group_or_primary(r)
}

/// `( A )`, or a primary.
fn group_or_primary(r: &mut Reader<'_>) -> Result<Expr, Error> {
    let Some(tok) = r.next() else { return Err(ErrorKind::MissingExpression.into()) };
    match tok.as_slice() {
        b"(" => {
            if r.peek() == Some(b")") {
                return Err(ErrorKind::EmptyParentheses.into());
            }
            let e = comma(r)?;
            if r.peek() != Some(b")") {
                return Err(ErrorKind::UnclosedParenthesis.into());
            }
            r.next();
            Ok(e)
        }
        t @ (b"-o" | b"-or" | b"-a" | b"-and" | b",") => {
            Err(ErrorKind::NothingBeforeOperator { operator: show(t) }.into())
        }
        b")" => Err(ErrorKind::TooManyCloseParentheses.into()),
        t => r.primary(t),
    }
}

#[cfg(test)]
mod tests {
    use super::parse;
    use crate::ErrorKind;

    fn args(s: &[&str]) -> Vec<Vec<u8>> {
        s.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    /// Found by fuzzing: a trailing `-D` read past the end of the arguments.
    #[test]
    fn debug_option_without_argument_is_an_error() {
        let err = parse(&args(&["-D"])).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::MissingArgument { option } if option == "-D"));
        assert_eq!(err.to_string(), "missing argument to `-D'");
    }

    #[test]
    fn precedence_and_implicit_print() {
        let c = parse(&args(&["d", "-name", "a", "-o", "-name", "b", ",", "-type", "f"])).unwrap();
        assert_eq!(c.paths, vec![b"d".to_vec()]);
        // ((-name a -o -name b) , -type f) -a -print
        let text = format!("{:?}", c.expr);
        assert!(text.starts_with("And(Comma(Or("), "{text}");
    }
}
