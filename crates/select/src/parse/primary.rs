//! The primaries of a find expression: tests, actions and options, each
//! read with its arguments (`-name PAT`, `-size +N`, `-exec CMD {} +`...).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use trawl_matcher::MatcherBuilder;

use super::number::{float, signed, unsigned};
use super::{show, Parser};
use crate::command::{Extraction, Follow, Setup};
use crate::expr::{Action, Cmp, ExecSpec, Expr, FileFormat, PermMatch, Test, TimeField, Window};
use crate::format::Format;
use crate::glob::Glob;
use crate::regex_type::{self, RegexType};
use crate::{mode, users};

impl Parser<'_> {
    pub(crate) fn parse_primary(&mut self) -> Result<Expr, String> {
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
                self.cmd.extraction = Extraction::Documents;
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
                let (digits, unit) = match a.last() {
                    None => return Err("invalid null argument to -size".into()),
                    Some(b'c') => (&a[..a.len() - 1], 1),
                    Some(b'w') => (&a[..a.len() - 1], 2),
                    Some(b'b') => (&a[..a.len() - 1], 512),
                    Some(b'k') => (&a[..a.len() - 1], 1024),
                    Some(b'M') => (&a[..a.len() - 1], 1 << 20),
                    Some(b'G') => (&a[..a.len() - 1], 1 << 30),
                    Some(b'0'..=b'9') => (&a[..], 512),
                    Some(&c) => return Err(format!("invalid -size type `{}'", show(&[c]))),
                };
                let (cmp, rest) = signed(digits);
                let n = unsigned(rest)
                    .ok_or_else(|| format!("Invalid argument `{}' to -size", show(&a)))?;
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
                    return Err(format!("invalid predicate `{}'", show(t)));
                };
                let Some(a) = self.toks.get(self.pos).cloned() else {
                    return Err(format!("The '{}' test needs an argument", show(t)));
                };
                self.pos += 1;
                let reference = match field(y) {
                    None => crate::datetime::parse(&a, self.cmd.now).ok_or_else(|| {
                        format!(
                            "I cannot figure out how to interpret '{}' as a date or time",
                            show(&a)
                        )
                    })?,
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
                let invalid = || format!("invalid argument `{}' to `{}'", show(&a), show(t));
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
                let window = relative(&a, origin, unit).ok_or_else(invalid)?;
                test(Test::Time { field, window })
            }
            b"-used" => {
                let a = self.arg(t)?;
                let window = relative(&a, (0, 0), DAY)
                    .ok_or_else(|| format!("Invalid argument {} to -used", show(&a)))?;
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
                let n = unsigned(rest)
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
            b"-kind" => {
                let a = self.arg(t)?;
                test(Test::Kind(kinds(&a)?))
            }
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
                let spec = self.exec(t)?;
                self.cmd.execs.push(spec);
                let i = self.cmd.execs.len() - 1;
                self.action(Action::Exec(i))
            }
            _ if t.starts_with(b"-") => Err(format!("unknown predicate `{}'", show(t))),
            _ => Err(format!("paths must precede expression: `{}'", show(t))),
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
    fn format(&mut self, arg: &[u8]) -> Result<Format, String> {
        let (format, warnings) = Format::parse(arg)?;
        self.cmd.setup.extend(warnings.into_iter().map(Setup::Warn));
        Ok(format)
    }

    pub(crate) fn action(&mut self, a: Action) -> Result<Expr, String> {
        self.has_action = true;
        Ok(Expr::Action(a))
    }

    /// `-exec CMD ARGS ;` or `-exec CMD ARGS {} +`.
    pub(crate) fn exec(&mut self, opt: &[u8]) -> Result<ExecSpec, String> {
        if opt == b"-execdir" || opt == b"-okdir" {
            path_is_safe(&show(opt))?;
            // As GNU find: these turn -ignore_readdir_race off.
            self.cmd.ignore_readdir_race = false;
        }
        let mut argv = Vec::new();
        loop {
            let Some(a) = self.toks.get(self.pos) else {
                return Err(format!("missing argument to `{}'", show(opt)));
            };
            self.pos += 1;
            if a == b";" {
                break;
            }
            // `-ok ... {} +` does not batch: `+` is an argument there.
            let asks = opt.starts_with(b"-ok");
            if a == b"+" && !asks && argv.last().is_some_and(|l: &Vec<u8>| l == b"{}") {
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
                return Ok(ExecSpec { argv, batch: true, in_dir: opt == b"-execdir", ask: false });
            }
            argv.push(a.clone());
        }
        if argv.is_empty() {
            return Err(format!("missing argument to `{}'", show(opt)));
        }
        let in_dir = opt == b"-execdir" || opt == b"-okdir";
        let ask = opt.starts_with(b"-ok");
        Ok(ExecSpec { argv, batch: false, in_dir, ask })
    }
}

/// `-execdir` and `-okdir` run commands inside the directories walked: a
/// PATH that names the current directory (`.`, an empty entry) or a
/// relative one would run a program found there (GNU find refuses).
fn path_is_safe(action: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os("PATH") else { return Ok(()) };
    for entry in path.as_bytes().split(|&b| b == b':') {
        if entry.is_empty() || entry == b"." {
            return Err(format!("The current directory is included in the PATH environment variable, which is insecure in combination with the {action} action of find.  Please remove the current directory from your $PATH (that is, remove \".\", doubled colons, or leading or trailing colons)"));
        }
        if entry[0] != b'/' {
            return Err(format!("The relative path '{}' is included in the PATH environment variable, which is insecure in combination with the {action} action of find.  Please remove that entry from $PATH", show(entry)));
        }
    }
    Ok(())
}

pub(crate) fn number(arg: Option<&Vec<u8>>, opt: &str) -> Result<u64, String> {
    let a = arg.ok_or_else(|| format!("missing argument to `{opt}'"))?;
    std::str::from_utf8(a)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| format!("invalid argument `{}' to `{opt}'", show(a)))
}

/// Seconds in a day.
const DAY: i64 = 86400;

/// GNU find's relative time: `[+-]N` units back from `origin` (the
/// comparison's sense inverted: `+N`, more than N units ago, is a time
/// before the reference), N a floating-point number; None when N is not
/// one, or the time overflows.
pub(crate) fn relative(arg: &[u8], origin: (i64, i64), unit: i64) -> Option<Window> {
    let (cmp, rest) = signed(arg);
    let kind = match cmp {
        Cmp::Less => Cmp::Greater,
        Cmp::Greater => Cmp::Less,
        Cmp::Equal => Cmp::Equal,
    };
    let total = float(rest)? * unit as f64;
    let (seconds, fraction) = (total.trunc(), total.fract());
    if !seconds.is_finite() || seconds.abs() > 9.2e18 {
        return None;
    }
    let nanos = fraction * 1e9;
    let mut s = origin.0.checked_sub(seconds as i64)?;
    let mut ns = (origin.1 as f64 - nanos) as i64;
    if (origin.1 as f64) < nanos {
        ns += 1_000_000_000;
        s = s.checked_sub(1)?;
    }
    Some(Window { kind, reference: (s, ns), window: unit })
}

/// The start (local midnight) of the day holding the time `t` (seconds).
fn start_of_day(t: i64) -> (i64, i64) {
    // SAFETY: an all-zero tm is valid; localtime_r fills it in.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let time = t as libc::time_t;
    // SAFETY: both pointers are valid for the call.
    let ok = !unsafe { libc::localtime_r(&time, &mut tm) }.is_null();
    let since_midnight = match ok {
        true => i64::from(tm.tm_sec) + i64::from(tm.tm_min) * 60 + i64::from(tm.tm_hour) * 3600,
        false => t.rem_euclid(DAY),
    };
    (t - since_midnight, 0)
}

/// The time `y` of the file `path` (`-newerXY`'s reference): stat'd as
/// the symlink options say; its birth time from statx.
fn reference_time(path: &[u8], y: TimeField, follow: bool) -> Result<(i64, i64), String> {
    let st = stat_path(path, follow)?;
    Ok(match y {
        TimeField::Access => (st.st_atime, st.st_atime_nsec),
        TimeField::Change => (st.st_ctime, st.st_ctime_nsec),
        TimeField::Modify => (st.st_mtime, st.st_mtime_nsec),
        TimeField::Birth => crate::birth::of_path(path, follow)
            .ok()
            .flatten()
            .ok_or_else(|| format!("Cannot obtain birth time of file '{}'", show(path)))?,
    })
}

pub(crate) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || !s.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(s).ok()?.parse().ok()
}

pub(crate) fn stat_path(path: &[u8], follow: bool) -> Result<libc::stat, String> {
    let c = CString::new(path.to_vec()).map_err(|_| format!("'{}': invalid path", show(path)))?;
    // SAFETY: an all-zero stat is valid; (l)stat fills it in.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: NUL-terminated path and a valid out-pointer.
    let mut r = unsafe {
        if follow {
            libc::stat(c.as_ptr(), &mut st)
        } else {
            libc::lstat(c.as_ptr(), &mut st)
        }
    };
    // As GNU find: a link that cannot be followed (dangling, or through a
    // file) is the link itself.
    let errno = std::io::Error::last_os_error().raw_os_error();
    if r != 0 && follow && matches!(errno, Some(libc::ENOENT | libc::ENOTDIR)) {
        // SAFETY: as above.
        r = unsafe { libc::lstat(c.as_ptr(), &mut st) };
    }
    if r != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("'{}': {}", show(path), trawl_diag::io_message(&e)));
    }
    Ok(st)
}

/// Type letters (`f,d`) as a bit mask.
pub(crate) fn type_mask(arg: &[u8]) -> Result<u16, String> {
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

/// The kinds `-kind` names, comma-separated; `compressed`, `archive` and
/// `document` stand for their groups.
fn kinds(list: &[u8]) -> Result<Vec<trawl_extract::Kind>, String> {
    use trawl_extract::{Codec, Kind};
    let mut out = Vec::new();
    for name in list.split(|&b| b == b',') {
        let codec = |c| Kind::Compressed(c);
        match name {
            b"gzip" | b"gz" => out.push(codec(Codec::Gzip)),
            b"bzip2" | b"bz2" => out.push(codec(Codec::Bzip2)),
            b"xz" => out.push(codec(Codec::Xz)),
            b"zstd" | b"zst" => out.push(codec(Codec::Zstd)),
            b"lz4" => out.push(codec(Codec::Lz4)),
            b"compressed" => out.extend(
                [Codec::Gzip, Codec::Bzip2, Codec::Xz, Codec::Zstd, Codec::Lz4].map(codec),
            ),
            b"tar" => out.push(Kind::Tar),
            b"zip" => out.push(Kind::Zip),
            b"archive" => out.extend([Kind::Tar, Kind::Zip]),
            b"pdf" => out.push(Kind::Pdf),
            b"postscript" | b"ps" => out.push(Kind::PostScript),
            b"dvi" => out.push(Kind::Dvi),
            b"ole" => out.push(Kind::Ole),
            b"document" => out.extend(Kind::DOCUMENTS),
            b"plain" => out.push(Kind::Plain),
            _ => {
                return Err(format!(
                    "-kind: unknown kind '{}'; kinds are gzip, bzip2, xz, zstd, lz4, compressed, tar, zip, archive, pdf, postscript, dvi, ole, document, plain",
                    show(name)
                ))
            }
        }
    }
    Ok(out)
}
