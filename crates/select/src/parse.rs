//! Parsing `find [-H|-L|-P] [PATH...] [EXPRESSION]` with GNU find's grammar.
//!
//! Precedence, highest first: `( )`, `!`/`-not`, juxtaposition/`-a`/`-and`,
//! `-o`/`-or`, `,`. Global options (`-maxdepth`, `-depth`, ...) are true
//! wherever they stand. Without an action, the expression is `( EXPR ) -print`.

use crate::command::{Extraction, FindCommand, Follow, Setup};
use crate::expr::{Action, Expr, Test};
use crate::regex_type::RegexType;

mod number;
mod primary;

use self::primary::number;

/// A mistake in a `find` command line.
#[derive(Debug)]
pub struct ParseError {
    /// What is wrong, in GNU find's words.
    pub message: String,
    /// What GNU find did while it read the arguments before the mistake
    /// (see [`crate::after_mistake`]).
    pub setup: Vec<Setup>,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
        setup: Vec::new(),
    };
    match read(args, &mut cmd) {
        Ok(()) => Ok(cmd),
        Err(message) => Err(ParseError { message, setup: cmd.setup }),
    }
}

/// Reads `args` into `cmd`.
fn read(args: &[Vec<u8>], cmd: &mut FindCommand) -> Result<(), String> {
    let mut i = 0;
    // Leading options.
    while i < args.len() {
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
                    return Err("missing argument to `-D'".into());
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
    let now = cmd.now;
    let mut p = Parser {
        toks: &args[i..],
        pos: 0,
        cmd,
        has_action: false,
        // GNU find's default is plain emacs, not `findutils-default`.
        regex_type: RegexType::Emacs,
        saw_prune: false,
        saw_delete: false,
        saw_depth: false,
        day_start: (now.0 - 86400, now.1),
        full_days: false,
        files0_from: None,
    };
    let expr = if p.toks.is_empty() {
        None
    } else {
        let e = p.parse_comma()?;
        if p.pos < p.toks.len() {
            let t = show(&p.toks[p.pos]);
            return Err(if t == ")" {
                "invalid expression; you have too many ')'".to_string()
            } else {
                format!("paths must precede expression: `{t}'")
            });
        }
        Some(e)
    };
    let files0_from = p.files0_from.take();
    if p.saw_delete && p.saw_prune && !p.saw_depth {
        return Err("The -delete action automatically turns on -depth, but -prune does nothing when -depth is in effect.  If you want to carry on anyway, just explicitly use the -depth option.".into());
    }
    let has_action = p.has_action;
    let print = Expr::Action(Action::Print(b'\n'));
    cmd.expr = match (expr, has_action) {
        (None, _) => print,
        (Some(e), true) => e,
        (Some(e), false) => Expr::And(Box::new(e), Box::new(print)),
    };
    if files0_from.is_some() {
        if let Some(first) = operands {
            return Err(format!(
                "extra operand '{}'\ntrawl: file operands cannot be combined with -files0-from",
                show(&first)
            ));
        }
        cmd.paths.clear();
    }
    cmd.files0_from = files0_from;
    Ok(())
}

pub(crate) fn now() -> (i64, i64) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as i64, d.subsec_nanos() as i64)
}

pub(crate) fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub(crate) struct Parser<'a> {
    pub(crate) toks: &'a [Vec<u8>],
    pub(crate) pos: usize,
    pub(crate) cmd: &'a mut FindCommand,
    pub(crate) has_action: bool,
    pub(crate) regex_type: RegexType,
    /// `-prune` and `-delete` seen, and `-depth` given explicitly.
    pub(crate) saw_prune: bool,
    pub(crate) saw_delete: bool,
    pub(crate) saw_depth: bool,
    /// Where `-mtime` & co. count days from: a day before the start, or
    /// the start of today once `-daystart` was read (positional, as in
    /// GNU find: tests before it are not moved).
    pub(crate) day_start: (i64, i64),
    /// `-daystart` was read (a second one changes nothing).
    pub(crate) full_days: bool,
    /// `-files0-from FILE`: the starting points, NUL-separated, in FILE
    /// (`-` for standard input); the last one given counts.
    pub(crate) files0_from: Option<Vec<u8>>,
}

impl Parser<'_> {
    pub(crate) fn peek(&self) -> Option<&[u8]> {
        self.toks.get(self.pos).map(Vec::as_slice)
    }

    pub(crate) fn arg(&mut self, opt: &[u8]) -> Result<Vec<u8>, String> {
        let a = self.toks.get(self.pos).cloned();
        self.pos += 1;
        a.ok_or_else(|| format!("missing argument to `{}'", show(opt)))
    }

    pub(crate) fn parse_comma(&mut self) -> Result<Expr, String> {
        let mut e = self.parse_or()?;
        while self.peek() == Some(b",") {
            self.pos += 1;
            let r = self.operand(",", Self::parse_or)?;
            e = Expr::Comma(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn parse_or(&mut self) -> Result<Expr, String> {
        let mut e = self.parse_and()?;
        while matches!(self.peek(), Some(b"-o" | b"-or")) {
            let op = show(self.peek().unwrap_or_default());
            self.pos += 1;
            let r = self.operand(&op, Self::parse_and)?;
            e = Expr::Or(Box::new(e), Box::new(r));
        }
        Ok(e)
    }

    fn parse_and(&mut self) -> Result<Expr, String> {
        let mut e = self.parse_not()?;
        loop {
            match self.peek() {
                Some(b"-a" | b"-and") => {
                    let op = show(self.peek().unwrap_or_default());
                    self.pos += 1;
                    let r = self.operand(&op, Self::parse_not)?;
                    e = Expr::And(Box::new(e), Box::new(r));
                }
                None | Some(b"-o" | b"-or" | b"," | b")") => return Ok(e),
                Some(_) => {
                    let r = self.parse_not()?;
                    e = Expr::And(Box::new(e), Box::new(r));
                }
            }
        }
    }

    /// The right operand of a binary operator.
    pub(crate) fn operand(
        &mut self,
        op: &str,
        f: fn(&mut Self) -> Result<Expr, String>,
    ) -> Result<Expr, String> {
        match self.peek() {
            None | Some(b")") => Err(format!(
                "invalid expression; you have used a binary operator '{op}' with nothing after it."
            )),
            _ => f(self),
        }
    }

    pub(crate) fn parse_not(&mut self) -> Result<Expr, String> {
        if matches!(self.peek(), Some(b"!" | b"-not")) {
            self.pos += 1;
            if matches!(self.peek(), None | Some(b")")) {
                return Err(
                    "invalid expression; you have used a unary operator '!' with nothing after it."
                        .into(),
                );
            }
            return Ok(Expr::Not(Box::new(self.parse_not()?)));
        }
        self.parse_primary()
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(s: &[&str]) -> Vec<Vec<u8>> {
        s.iter().map(|a| a.as_bytes().to_vec()).collect()
    }

    /// Found by fuzzing: a trailing `-D` read past the end of the arguments.
    #[test]
    fn debug_option_without_argument_is_an_error() {
        assert_eq!(parse(&args(&["-D"])).unwrap_err().message, "missing argument to `-D'");
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
