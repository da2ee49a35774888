//! The primaries of a find expression: tests, actions and options, each
//! read with its arguments (`-name PAT`, `-size +N`, `-exec CMD {} +`...),
//! and the state GNU find's parser keeps while it reads them.

use std::sync::Arc;

use trawl_matcher::MatcherBuilder;

use super::exec;
use super::number::{number, signed, unsigned};
use super::values::{
    kinds, parse_u64, path_is_safe, reference_time, relative, start_of_day, stat_path, type_mask,
    DAY,
};
use crate::command::{Extraction, FindCommand, Follow, Setup};
use crate::error::{Error, ErrorKind};
use crate::expr::{Action, Cmp, Expr, FileFormat, PermMatch, Test, TimeField, Window};
use crate::format::Format;
use crate::glob::Glob;
use crate::regex_type::{self, RegexType};
use crate::report::show;
use crate::{mode, users};

/// The expression's arguments being read, and what the primaries read so
/// far set: the command's global options, and what GNU find's parser keeps
/// (the regular expression type, where days start, what `-delete` and
/// `-prune` imply).
pub(super) struct Reader<'a> {
    toks: &'a [Vec<u8>],
    pos: usize,
    /// The command being read.
    pub(super) cmd: &'a mut FindCommand,
    /// An action was read (else `-print` is added).
    pub(super) has_action: bool,
    /// `-regextype`'s, for the `-regex` read after it.
    regex_type: RegexType,
    /// `-prune` and `-delete` seen, and `-depth` given explicitly.
    pub(super) saw_prune: bool,
    pub(super) saw_delete: bool,
    pub(super) saw_depth: bool,
    /// Where `-mtime` & co. count days from: a day before the start, or
    /// the start of today once `-daystart` was read (positional, as in
    /// GNU find: tests before it are not moved).
    day_start: (i64, i64),
    /// `-daystart` was read (a second one changes nothing).
    full_days: bool,
    /// `-files0-from FILE`: the last one given counts.
    pub(super) files0_from: Option<Vec<u8>>,
}

impl<'a> Reader<'a> {
    /// A reader of `toks` into `cmd`.
    pub(super) fn new(toks: &'a [Vec<u8>], cmd: &'a mut FindCommand) -> Self {
        let now = cmd.now;
        Reader {
            toks,
            pos: 0,
            cmd,
            has_action: false,
            // GNU find's default is plain emacs, not `findutils-default`.
            regex_type: RegexType::Emacs,
            saw_prune: false,
            saw_delete: false,
            saw_depth: false,
            day_start: (now.0 - DAY, now.1),
            full_days: false,
            files0_from: None,
        }
    }

    /// The next argument, not taken.
    pub(super) fn peek(&self) -> Option<&[u8]> {
        self.toks.get(self.pos).map(Vec::as_slice)
    }

    /// Takes the next argument.
    pub(super) fn next(&mut self) -> Option<Vec<u8>> {
        let a = self.toks.get(self.pos).cloned();
        self.pos += 1;
        a
    }

    /// Takes the argument of `opt`.
    fn arg(&mut self, opt: &[u8]) -> Result<Vec<u8>, Error> {
        self.next().ok_or_else(|| ErrorKind::MissingArgument { option: show(opt) }.into())
    }

    /// The primary `t` (taken already: no operator, no parenthesis), with
    /// its arguments.
    pub(super) fn primary(&mut self, t: &[u8]) -> Result<Expr, Error> {
        let test = |t: Test| Ok(Expr::Test(t));
        let yes = Ok(Expr::Test(Test::Const(true)));
        match t {
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
            b"-files0-from" => {
                let a = self.arg(t)?;
                self.files0_from = Some(a);
                yes
            }
            b"-search-zip" => {
                self.cmd.extraction = self.cmd.extraction.max(Extraction::Archives);
                yes
            }
            b"-docs" => {
                self.cmd.extraction = self.cmd.extraction.max(Extraction::Documents);
                yes
            }
            b"-ocr" => {
                self.cmd.extraction = Extraction::Ocr;
                yes
            }
            b"-follow" => {
                self.cmd.follow = Follow::Always;
                yes
            }
            b"-regextype" => {
                let a = self.arg(t)?;
                self.regex_type = match a.as_slice() {
                    b"findutils-default" => RegexType::FindutilsDefault,
                    b"emacs" => RegexType::Emacs,
                    b"posix-extended" => RegexType::Extended,
                    b"posix-egrep" | b"egrep" => RegexType::Egrep,
                    b"awk" => RegexType::Awk,
                    b"posix-awk" => RegexType::PosixAwk,
                    b"gnu-awk" => RegexType::GnuAwk,
                    b"posix-basic" | b"posix-minimal-basic" | b"grep" | b"ed" | b"sed" => {
                        RegexType::Basic
                    }
                    _ => return Err(ErrorKind::UnknownRegexType { name: a }.into()),
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
                let (digits, unit) = match a.last() {
                    None => return Err(ErrorKind::EmptySize.into()),
                    Some(b'c') => (&a[..a.len() - 1], 1),
                    Some(b'w') => (&a[..a.len() - 1], 2),
                    Some(b'b') => (&a[..a.len() - 1], 512),
                    Some(b'k') => (&a[..a.len() - 1], 1024),
                    Some(b'M') => (&a[..a.len() - 1], 1 << 20),
                    Some(b'G') => (&a[..a.len() - 1], 1 << 30),
                    Some(b'0'..=b'9') => (&a[..], 512),
                    Some(&unit) => return Err(ErrorKind::UnknownSizeUnit { unit }.into()),
                };
                let (cmp, rest) = signed(digits);
                let Some(n) = unsigned(rest) else {
                    return Err(ErrorKind::InvalidSize { argument: a }.into());
                };
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
                let reference = (st.st_mtime, st.st_mtime_nsec);
                test(Test::Time {
                    field,
                    window: Window { kind: Cmp::Greater, reference, window: 0 },
                })
            }
            _ if t.len() == 8 && t.starts_with(b"-newer") => {
                let field = |c: u8| match c {
                    b'a' => Some(TimeField::Access),
                    b'B' => Some(TimeField::Birth),
                    b'c' => Some(TimeField::Change),
                    b'm' => Some(TimeField::Modify),
                    _ => None,
                };
                let (x, y) = (field(t[6]), t[7]);
                let (Some(x), true) = (x, y == b't' || field(y).is_some()) else {
                    return Err(ErrorKind::InvalidPredicate { predicate: t.to_vec() }.into());
                };
                let Some(a) = self.toks.get(self.pos).cloned() else {
                    return Err(ErrorKind::TestNeedsArgument { test: show(t) }.into());
                };
                self.pos += 1;
                let reference = match field(y) {
                    None => match crate::datetime::parse(&a, self.cmd.now) {
                        Some(time) => time,
                        None => return Err(ErrorKind::UnknownDate { argument: a }.into()),
                    },
                    Some(y) => reference_time(&a, y, self.cmd.follow != Follow::Never)?,
                };
                test(Test::Time {
                    field: x,
                    window: Window { kind: Cmp::Greater, reference, window: 0 },
                })
            }
            b"-mtime" | b"-atime" | b"-ctime" | b"-mmin" | b"-amin" | b"-cmin" => {
                let a = self.arg(t)?;
                let field = match t[1] {
                    b'a' => TimeField::Access,
                    b'c' => TimeField::Change,
                    _ => TimeField::Modify,
                };
                // As GNU find: days count back from a day before the start
                // (from the start of today after -daystart), minutes from
                // the start (the end of today); `-N` days from a second
                // short of a day later.
                let (origin, unit) = match t.ends_with(b"min") {
                    true => ((self.day_start.0 + DAY, self.day_start.1), 60),
                    false if a.first() == Some(&b'-') => {
                        ((self.day_start.0 + DAY - 1, self.day_start.1), DAY)
                    }
                    false => (self.day_start, DAY),
                };
                let Some(window) = relative(&a, origin, unit) else {
                    return Err(ErrorKind::InvalidArgument { option: show(t), argument: a }.into());
                };
                test(Test::Time { field, window })
            }
            b"-used" => {
                let a = self.arg(t)?;
                let Some(window) = relative(&a, (0, 0), DAY) else {
                    return Err(ErrorKind::InvalidUsed { argument: a }.into());
                };
                test(Test::Used(window))
            }
            b"-daystart" => {
                if !self.full_days {
                    self.day_start = start_of_day(self.day_start.0 + DAY);
                    self.full_days = true;
                }
                yes
            }
            b"-lname" | b"-ilname" => {
                let a = self.arg(t)?;
                test(Test::LinkName(Glob::new(&a, t == b"-ilname")?))
            }
            b"-fstype" => {
                let a = self.arg(t)?;
                test(Test::FsType(a))
            }
            b"-perm" => {
                let a = self.arg(t)?;
                let (kind, rest) = match a.first() {
                    Some(b'-') => (PermMatch::All, &a[1..]),
                    Some(b'/') => (PermMatch::Any, &a[1..]),
                    Some(b'+')
                        if a.len() > 1 && a[1..].iter().all(|c| (b'0'..=b'7').contains(c)) =>
                    {
                        return Err(ErrorKind::InvalidMode { argument: a }.into());
                    }
                    _ => (PermMatch::Exact, &a[..]),
                };
                let Some(m) = mode::parse(rest) else {
                    return Err(ErrorKind::InvalidMode { argument: a }.into());
                };
                test(Test::Perm { how: kind, mode: m })
            }
            b"-user" => {
                let a = self.arg(t)?;
                let Some(uid) = users::uid_by_name(&a).or_else(|| parse_u64(&a).map(|n| n as u32))
                else {
                    return Err(ErrorKind::UnknownUser { name: a }.into());
                };
                test(Test::Uid(Cmp::Equal, uid as u64))
            }
            b"-group" => {
                let a = self.arg(t)?;
                let Some(gid) = users::gid_by_name(&a).or_else(|| parse_u64(&a).map(|n| n as u32))
                else {
                    return Err(ErrorKind::UnknownGroup { name: a }.into());
                };
                test(Test::Gid(Cmp::Equal, gid as u64))
            }
            b"-uid" | b"-gid" | b"-links" | b"-inum" => {
                let a = self.arg(t)?;
                let (cmp, rest) = signed(&a);
                let Some(n) = unsigned(rest) else {
                    return Err(ErrorKind::InvalidArgument { option: show(t), argument: a }.into());
                };
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
            b"-kind" => {
                let a = self.arg(t)?;
                test(Test::Kind(kinds(&a)?))
            }
            b"-contains" => {
                let a = self.arg(t)?;
                let m = match MatcherBuilder::new().build(std::slice::from_ref(&a)) {
                    Ok(m) => m,
                    Err(error) => {
                        return Err(ErrorKind::ContainsPattern { pattern: a, error }.into());
                    }
                };
                test(Test::Contains(Arc::new(m)))
            }
            // Actions.
            b"-print" | b"-print0" => {
                self.action(Action::Print(if t == b"-print" { b'\n' } else { 0 }))
            }
            b"-printf" => {
                let a = self.arg(t)?;
                let f = self.format(&a)?;
                self.action(Action::Printf(f))
            }
            b"-fprint" | b"-fprint0" | b"-fprintf" | b"-fls" => {
                let path = self.arg(t)?;
                let file = self.out_file(path);
                match t {
                    b"-fls" => self.action(Action::Ls(Some(file))),
                    b"-fprintf" => {
                        let a = self.arg(t)?;
                        let f = self.format(&a)?;
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
                if t == b"-execdir" || t == b"-okdir" {
                    path_is_safe(&show(t))?;
                    // As GNU find: these turn -ignore_readdir_race off.
                    self.cmd.ignore_readdir_race = false;
                }
                let (spec, taken) = exec::spec(t, self.toks.get(self.pos..).unwrap_or_default())?;
                self.pos += taken;
                self.cmd.execs.push(spec);
                let i = self.cmd.execs.len() - 1;
                self.action(Action::Exec(i))
            }
            _ if t.starts_with(b"-") => {
                Err(ErrorKind::UnknownPredicate { predicate: t.to_vec() }.into())
            }
            _ => Err(ErrorKind::PathAfterExpression { path: t.to_vec() }.into()),
        }
    }

    /// The number of the output file `path` of `-fprint` & co., opened
    /// when a run starts.
    fn out_file(&mut self, path: Vec<u8>) -> usize {
        let setup = &mut self.cmd.setup;
        let number = setup.iter().filter(|s| matches!(s, Setup::Open(_))).count();
        setup.push(Setup::Open(path));
        number
    }

    /// A `-printf` format; what GNU find warns about it is said when a
    /// run starts.
    fn format(&mut self, arg: &[u8]) -> Result<Format, Error> {
        let (format, warnings) = Format::parse(arg)?;
        self.cmd.setup.extend(warnings.into_iter().map(Setup::Warn));
        Ok(format)
    }

    fn action(&mut self, a: Action) -> Result<Expr, Error> {
        self.has_action = true;
        Ok(Expr::Action(a))
    }
}
