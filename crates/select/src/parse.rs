//! Parsing `find [-H|-L|-P] [PATH...] [EXPRESSION]` with GNU find's grammar.
//!
//! Precedence, highest first: `( )`, `!`/`-not`, juxtaposition/`-a`/`-and`,
//! `-o`/`-or`, `,`. Global options (`-maxdepth`, `-depth`, ...) are true
//! wherever they stand. Without an action, the expression is `( EXPR ) -print`.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex};

use trawl_matcher::MatcherBuilder;

use crate::expr::{Action, Cmp, ExecSpec, Expr, FileFormat, PermMatch, Test, TimeField};
use crate::glob::Glob;
use crate::printf::Format;
use crate::regex_type::{self, RegexType};
use crate::{mode, users};

/// Which symlinks the walk follows.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum Follow {
    /// `-P` (the default): none.
    #[default]
    Never,
    /// `-H`: those named on the command line.
    Roots,
    /// `-L`: all.
    Always,
}

/// A parsed `find` command line.
#[derive(Debug)]
pub struct FindCommand {
    /// `-H`, `-L`, `-P`.
    pub follow: Follow,
    /// Starting points (`.` when none is given).
    pub paths: Vec<Vec<u8>>,
    /// The expression, with the implicit `-print` added.
    pub expr: Expr,
    /// `-maxdepth`.
    pub max_depth: Option<usize>,
    /// `-mindepth`.
    pub min_depth: usize,
    /// `-depth` (or implied by `-delete`): directories after their contents.
    pub depth_first: bool,
    /// `-xdev`, `-mount`.
    pub same_file_system: bool,
    /// `-ignore_readdir_race`: entries that vanish are not errors.
    pub ignore_readdir_race: bool,
    /// The commands of `-exec` and `-execdir`.
    pub execs: Vec<ExecSpec>,
    /// `-j N` (trawl): threads, 0 for automatic.
    pub threads: usize,
    /// `--sort` (trawl): depth-first, by name bytes.
    pub sorted: bool,
    /// The time the command started (seconds, nanoseconds), for `-mtime` & co.
    pub now: (i64, i64),
    /// `-print` escapes control characters (standard output is a terminal).
    pub escape_names: bool,
    /// Set when the run is interrupted: no more commands are started.
    pub cancel: trawl_search::Cancel,
    /// What the evaluating threads agree on (`-quit`, split output).
    pub(crate) turns: crate::turns::Turns,
}

/// Parses the arguments after `find`.
pub fn parse(args: &[Vec<u8>]) -> Result<FindCommand, String> {
    let mut cmd = FindCommand {
        follow: Follow::Never,
        paths: Vec::new(),
        expr: Expr::Test(Test::Const(true)),
        max_depth: None,
        min_depth: 0,
        depth_first: false,
        same_file_system: false,
        ignore_readdir_race: false,
        execs: Vec::new(),
        threads: 0,
        sorted: false,
        now: now(),
        escape_names: false,
        cancel: Default::default(),
        turns: Default::default(),
    };
    let mut i = 0;
    // Leading options.
    while i < args.len() {
        match args[i].as_slice() {
            b"-H" => cmd.follow = Follow::Roots,
            b"-L" => cmd.follow = Follow::Always,
            b"-P" => cmd.follow = Follow::Never,
            b"--sort" | b"--sort=path" => cmd.sorted = true,
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
    if cmd.paths.is_empty() {
        cmd.paths.push(b".".to_vec());
    }
    let mut p = Parser {
        toks: &args[i..],
        pos: 0,
        cmd: &mut cmd,
        has_action: false,
        regex_type: RegexType::Emacs,
        files: Vec::new(),
        saw_prune: false,
        saw_delete: false,
        saw_depth: false,
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
    Ok(cmd)
}

fn now() -> (i64, i64) {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as i64, d.subsec_nanos() as i64)
}

fn show(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn number(arg: Option<&Vec<u8>>, opt: &str) -> Result<u64, String> {
    let a = arg.ok_or_else(|| format!("missing argument to `{opt}'"))?;
    std::str::from_utf8(a)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| format!("invalid argument `{}' to `{opt}'", show(a)))
}

/// `+N`, `-N` or `N`; returns the comparison and the rest.
fn signed(arg: &[u8]) -> (Cmp, &[u8]) {
    match arg.first() {
        Some(b'+') => (Cmp::Greater, &arg[1..]),
        Some(b'-') => (Cmp::Less, &arg[1..]),
        _ => (Cmp::Equal, arg),
    }
}

fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

fn stat_path(path: &[u8], follow: bool) -> Result<libc::stat, String> {
    let c = CString::new(path.to_vec()).map_err(|_| format!("'{}': invalid path", show(path)))?;
    // SAFETY: an all-zero stat is valid; (l)stat fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated path and a valid out-pointer.
    let r = unsafe {
        if follow {
            libc::stat(c.as_ptr(), &mut st)
        } else {
            libc::lstat(c.as_ptr(), &mut st)
        }
    };
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("'{}': {}", show(path), trawl_diag::io_message(&e)));
    }
    Ok(st)
}

struct Parser<'a> {
    toks: &'a [Vec<u8>],
    pos: usize,
    cmd: &'a mut FindCommand,
    has_action: bool,
    regex_type: RegexType,
    /// Output files of `-fprint` & co., by name.
    files: Vec<(Vec<u8>, Arc<Mutex<File>>)>,
    /// `-prune` and `-delete` seen, and `-depth` given explicitly.
    saw_prune: bool,
    saw_delete: bool,
    saw_depth: bool,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&[u8]> {
        self.toks.get(self.pos).map(Vec::as_slice)
    }

    fn arg(&mut self, opt: &[u8]) -> Result<Vec<u8>, String> {
        let a = self.toks.get(self.pos).cloned();
        self.pos += 1;
        a.ok_or_else(|| format!("missing argument to `{}'", show(opt)))
    }

    fn parse_comma(&mut self) -> Result<Expr, String> {
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
    fn operand(
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

    fn parse_not(&mut self) -> Result<Expr, String> {
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

    fn parse_primary(&mut self) -> Result<Expr, String> {
        let tok = match self.peek() {
            Some(t) => t.to_vec(),
            None => return Err("invalid expression".into()),
        };
        self.pos += 1;
        let t = tok.as_slice();
        let test = |t: Test| Ok(Expr::Test(t));
        let yes = Ok(Expr::Test(Test::Const(true)));
        match t {
            b"(" => {
                if self.peek() == Some(b")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                let e = self.parse_comma()?;
                if self.peek() != Some(b")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.pos += 1;
                Ok(e)
            }
            b"-o" | b"-or" | b"-a" | b"-and" | b"," => Err(format!(
                "invalid expression; you have used a binary operator '{}' with nothing before it.",
                show(t)
            )),
            b")" => Err("invalid expression; you have too many ')'".into()),
            // Global options: true wherever they stand.
            b"-maxdepth" => {
                let a = self.arg(t)?;
                self.cmd.max_depth = Some(number(Some(&a), "-maxdepth")? as usize);
                yes
            }
            b"-mindepth" => {
                let a = self.arg(t)?;
                self.cmd.min_depth = number(Some(&a), "-mindepth")? as usize;
                yes
            }
            b"-depth" | b"-d" => {
                self.cmd.depth_first = true;
                self.saw_depth = true;
                yes
            }
            b"-xdev" | b"-mount" => {
                self.cmd.same_file_system = true;
                yes
            }
            b"-ignore_readdir_race" => {
                self.cmd.ignore_readdir_race = true;
                yes
            }
            b"-noignore_readdir_race" => {
                self.cmd.ignore_readdir_race = false;
                yes
            }
            b"-noleaf" | b"-warn" | b"-nowarn" => yes,
            b"-follow" => {
                self.cmd.follow = Follow::Always;
                yes
            }
            b"-regextype" => {
                let a = self.arg(t)?;
                self.regex_type = match a.as_slice() {
                    b"emacs" | b"findutils-default" => RegexType::Emacs,
                    b"posix-extended" | b"posix-egrep" | b"egrep" | b"posix-awk" | b"awk" | b"gnu-awk" => {
                        RegexType::Extended
                    }
                    b"posix-basic" | b"posix-minimal-basic" | b"grep" | b"ed" | b"sed" => RegexType::Basic,
                    _ => {
                        return Err(format!(
                            "Unknown regular expression type '{}'; valid types are 'findutils-default', 'ed', 'emacs', 'gnu-awk', 'grep', 'posix-awk', 'awk', 'posix-basic', 'posix-egrep', 'egrep', 'posix-extended', 'posix-minimal-basic', 'sed'.",
                            show(&a)
                        ))
                    }
                };
                yes
            }
            b"-true" => test(Test::Const(true)),
            b"-false" => test(Test::Const(false)),
            b"-name" | b"-iname" => {
                let a = self.arg(t)?;
                test(Test::Name(Glob::new(&a, t == b"-iname")?))
            }
            b"-path" | b"-ipath" | b"-wholename" | b"-iwholename" => {
                let a = self.arg(t)?;
                test(Test::Path(Glob::new(&a, t[1] == b'i')?))
            }
            b"-regex" | b"-iregex" => {
                let a = self.arg(t)?;
                let re = regex_type::compile(&a, self.regex_type, t == b"-iregex")?;
                test(Test::Regex(Box::new(re)))
            }
            b"-type" | b"-xtype" => {
                let a = self.arg(t)?;
                let mask = type_mask(&a)?;
                test(if t == b"-type" { Test::Type(mask) } else { Test::XType(mask) })
            }
            b"-size" => {
                let a = self.arg(t)?;
                let (cmp, rest) = signed(&a);
                let (digits, unit) = match rest.last() {
                    Some(b'c') => (&rest[..rest.len() - 1], 1),
                    Some(b'w') => (&rest[..rest.len() - 1], 2),
                    Some(b'b') => (&rest[..rest.len() - 1], 512),
                    Some(b'k') => (&rest[..rest.len() - 1], 1024),
                    Some(b'M') => (&rest[..rest.len() - 1], 1 << 20),
                    Some(b'G') => (&rest[..rest.len() - 1], 1 << 30),
                    _ => (rest, 512),
                };
                let n = parse_u64(digits)
                    .ok_or_else(|| format!("invalid -size type `{}'", show(&a)))?;
                test(Test::Size { cmp, n, unit })
            }
            b"-empty" => test(Test::Empty),
            b"-newer" | b"-anewer" | b"-cnewer" => {
                let a = self.arg(t)?;
                let st = stat_path(&a, self.cmd.follow != Follow::Never)?;
                let field = match t {
                    b"-anewer" => TimeField::Access,
                    b"-cnewer" => TimeField::Change,
                    _ => TimeField::Modify,
                };
                test(Test::Newer { field, than: (st.st_mtime, st.st_mtime_nsec) })
            }
            b"-mtime" | b"-atime" | b"-ctime" | b"-mmin" | b"-amin" | b"-cmin" => {
                let a = self.arg(t)?;
                let (cmp, rest) = signed(&a);
                let n = parse_u64(rest)
                    .ok_or_else(|| format!("invalid argument `{}' to `{}'", show(&a), show(t)))?;
                let field = match t[1] {
                    b'a' => TimeField::Access,
                    b'c' => TimeField::Change,
                    _ => TimeField::Modify,
                };
                let unit = if t.ends_with(b"min") { 60 } else { 86400 };
                test(Test::Age { field, cmp, n: n as i64, unit })
            }
            b"-perm" => {
                let a = self.arg(t)?;
                let (kind, rest) = match a.first() {
                    Some(b'-') => (PermMatch::All, &a[1..]),
                    Some(b'/') => (PermMatch::Any, &a[1..]),
                    Some(b'+')
                        if a.len() > 1 && a[1..].iter().all(|c| (b'0'..=b'7').contains(c)) =>
                    {
                        return Err(format!("invalid mode `{}'", show(&a)));
                    }
                    _ => (PermMatch::Exact, &a[..]),
                };
                let m = mode::parse(rest).ok_or_else(|| format!("invalid mode `{}'", show(&a)))?;
                test(Test::Perm { how: kind, mode: m })
            }
            b"-user" => {
                let a = self.arg(t)?;
                let uid = users::uid_by_name(&a)
                    .or_else(|| parse_u64(&a).map(|n| n as u32))
                    .ok_or_else(|| format!("'{}' is not the name of a known user", show(&a)))?;
                test(Test::Uid(Cmp::Equal, uid as u64))
            }
            b"-group" => {
                let a = self.arg(t)?;
                let gid =
                    users::gid_by_name(&a).or_else(|| parse_u64(&a).map(|n| n as u32)).ok_or_else(
                        || format!("'{}' is not the name of an existing group", show(&a)),
                    )?;
                test(Test::Gid(Cmp::Equal, gid as u64))
            }
            b"-uid" | b"-gid" | b"-links" | b"-inum" => {
                let a = self.arg(t)?;
                let (cmp, rest) = signed(&a);
                let n = parse_u64(rest)
                    .ok_or_else(|| format!("invalid argument `{}' to `{}'", show(&a), show(t)))?;
                test(match t {
                    b"-uid" => Test::Uid(cmp, n),
                    b"-gid" => Test::Gid(cmp, n),
                    b"-links" => Test::Links(cmp, n),
                    _ => Test::Inum(cmp, n),
                })
            }
            b"-nouser" => test(Test::NoUser),
            b"-nogroup" => test(Test::NoGroup),
            b"-samefile" => {
                let a = self.arg(t)?;
                let st = stat_path(&a, self.cmd.follow != Follow::Never)?;
                test(Test::SameFile { dev: st.st_dev, ino: st.st_ino })
            }
            b"-readable" => test(Test::Access(libc::R_OK)),
            b"-writable" => test(Test::Access(libc::W_OK)),
            b"-executable" => test(Test::Access(libc::X_OK)),
            b"-text" => test(Test::Text),
            b"-binary" => test(Test::Binary),
            b"-contains" => {
                let a = self.arg(t)?;
                let m = MatcherBuilder::new()
                    .build(std::slice::from_ref(&a))
                    .map_err(|e| format!("-contains '{}': {e}", show(&a)))?;
                test(Test::Contains(Arc::new(m)))
            }
            // Actions.
            b"-print" | b"-print0" => {
                self.action(Action::Print(if t == b"-print" { b'\n' } else { 0 }))
            }
            b"-printf" => {
                let a = self.arg(t)?;
                let f = Format::parse(&a)?;
                self.action(Action::Printf(f))
            }
            b"-fprint" | b"-fprint0" | b"-fprintf" | b"-fls" => {
                let path = self.arg(t)?;
                // The same file named twice is one stream (GNU find).
                let file = match self.files.iter().find(|(p, _)| *p == path) {
                    Some((_, f)) => f.clone(),
                    None => {
                        let file = File::create(OsStr::from_bytes(&path)).map_err(|e| {
                            format!("'{}': {}", show(&path), trawl_diag::io_message(&e))
                        })?;
                        let file = Arc::new(Mutex::new(file));
                        self.files.push((path.clone(), file.clone()));
                        file
                    }
                };
                match t {
                    b"-fls" => self.action(Action::Ls(Some(file))),
                    b"-fprintf" => {
                        let a = self.arg(t)?;
                        let f = Format::parse(&a)?;
                        self.action(Action::FPrint(file, FileFormat::Printf(f)))
                    }
                    _ => {
                        let end = if t == b"-fprint" { b'\n' } else { 0 };
                        self.action(Action::FPrint(file, FileFormat::Path(end)))
                    }
                }
            }
            b"-ls" => self.action(Action::Ls(None)),
            b"-prune" => {
                self.saw_prune = true;
                Ok(Expr::Action(Action::Prune))
            }
            b"-quit" => Ok(Expr::Action(Action::Quit)),
            b"-delete" => {
                self.cmd.depth_first = true;
                self.saw_delete = true;
                self.action(Action::Delete)
            }
            b"-exec" | b"-execdir" | b"-ok" | b"-okdir" => {
                if t.starts_with(b"-ok") {
                    return Err(format!(
                        "{} is not supported (it asks on the terminal); use -exec",
                        show(t)
                    ));
                }
                let spec = self.exec(t)?;
                self.cmd.execs.push(spec);
                let i = self.cmd.execs.len() - 1;
                self.action(Action::Exec(i))
            }
            _ if t.starts_with(b"-") => Err(format!("unknown predicate `{}'", show(t))),
            _ => Err(format!("paths must precede expression: `{}'", show(t))),
        }
    }

    fn action(&mut self, a: Action) -> Result<Expr, String> {
        self.has_action = true;
        Ok(Expr::Action(a))
    }

    /// `-exec CMD ARGS ;` or `-exec CMD ARGS {} +`.
    fn exec(&mut self, opt: &[u8]) -> Result<ExecSpec, String> {
        let mut argv = Vec::new();
        loop {
            let Some(a) = self.toks.get(self.pos) else {
                return Err(format!("missing argument to `{}'", show(opt)));
            };
            self.pos += 1;
            if a == b";" {
                break;
            }
            if a == b"+" && argv.last().is_some_and(|l: &Vec<u8>| l == b"{}") {
                argv.pop();
                if argv.is_empty() {
                    return Err(format!("missing argument to `{}'", show(opt)));
                }
                if argv.iter().any(|x| memchr::memmem::find(x, b"{}").is_some()) {
                    return Err(format!(
                        "only one instance of {{}} is supported with {} ... +",
                        show(opt)
                    ));
                }
                return Ok(ExecSpec {
                    argv,
                    batch: true,
                    in_dir: opt == b"-execdir",
                    shared: Default::default(),
                });
            }
            argv.push(a.clone());
        }
        if argv.is_empty() {
            return Err(format!("missing argument to `{}'", show(opt)));
        }
        Ok(ExecSpec { argv, batch: false, in_dir: opt == b"-execdir", shared: Default::default() })
    }
}

/// Type letters (`f,d`) as a bit mask.
fn type_mask(arg: &[u8]) -> Result<u16, String> {
    let mut mask = 0;
    for (i, part) in arg.split(|&c| c == b',').enumerate() {
        let bit = match part {
            b"f" => 1,
            b"d" => 2,
            b"l" => 4,
            b"p" => 8,
            b"s" => 16,
            b"b" => 32,
            b"c" => 64,
            b"D" => 128,
            [] => {
                return Err(if i == 0 {
                    "Arguments to -type should contain at least one letter".into()
                } else {
                    "Last file type in list argument to -type is missing, i.e., list is ending on: ','".into()
                })
            }
            _ => return Err(format!("Unknown argument to -type: {}", show(part))),
        };
        if mask & bit != 0 {
            return Err(format!(
                "Duplicate file type '{}' in the argument list to -type.",
                show(part)
            ));
        }
        mask |= bit;
    }
    Ok(mask)
}

/// The bit of a file type in a `-type` mask.
pub(crate) fn type_bit(t: trawl_walk::FileType) -> u16 {
    use trawl_walk::FileType as T;
    match t {
        T::File => 1,
        T::Dir => 2,
        T::Symlink => 4,
        T::Fifo => 8,
        T::Socket => 16,
        T::BlockDevice => 32,
        T::CharDevice => 64,
        T::Unknown => 0,
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
        assert_eq!(parse(&args(&["-D"])).unwrap_err(), "missing argument to `-D'");
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
