//! The find expression tree.

use std::sync::Arc;

use trawl_matcher::AnyMatcher;

use crate::format::Format;
use crate::glob::Glob;

/// A node of a find expression.
#[derive(Debug)]
pub enum Expr {
    /// `A -a B`: B only if A is true.
    And(Box<Expr>, Box<Expr>),
    /// `A -o B`: B only if A is false.
    Or(Box<Expr>, Box<Expr>),
    /// `! A`.
    Not(Box<Expr>),
    /// `A , B`: both, the value of B.
    Comma(Box<Expr>, Box<Expr>),
    /// A test: no side effect.
    Test(Test),
    /// An action: a side effect, and a truth value.
    Action(Action),
}

impl Expr {
    /// Whether some action of the expression satisfies `p`.
    pub fn any_action(&self, p: &impl Fn(&Action) -> bool) -> bool {
        match self {
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
                a.any_action(p) || b.any_action(p)
            }
            Expr::Not(a) => a.any_action(p),
            Expr::Test(_) => false,
            Expr::Action(a) => p(a),
        }
    }
}

/// How a number compares: `+N`, `-N` or `N`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Cmp {
    /// `-N`: less than N.
    Less,
    /// `N`: exactly N.
    Equal,
    /// `+N`: more than N.
    Greater,
}

impl Cmp {
    /// Compares `value` with `n`.
    pub fn holds(self, value: i128, n: i128) -> bool {
        match self {
            Cmp::Less => value < n,
            Cmp::Equal => value == n,
            Cmp::Greater => value > n,
        }
    }
}

/// Which timestamp a time test reads.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum TimeField {
    /// Last access.
    Access,
    /// Creation (statx's birth time, where the file system keeps it).
    Birth,
    /// Last status change.
    Change,
    /// Last modification.
    Modify,
}

/// How a time compares with a reference time, as GNU find's time tests
/// compare: the reference is worked out when the expression is read
/// (`-mtime 2`: two days before the start, or before the start of today
/// after `-daystart`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    /// Greater: after the reference; Less: before it; Equal: after it by
    /// at most `window` seconds.
    pub kind: Cmp,
    /// The reference (seconds, nanoseconds; the nanoseconds may fall
    /// outside 0..1e9, as GNU find leaves them).
    pub reference: (i64, i64),
    /// Seconds (a day for `-mtime`, a minute for `-mmin`).
    pub window: i64,
}

impl Window {
    /// Whether the time `t` (seconds, nanoseconds) is in the window.
    pub fn holds(&self, t: (i64, i64)) -> bool {
        // In seconds, as doubles, as GNU find subtracts them.
        let diff = (t.0 as f64 - self.reference.0 as f64) + 1e-9 * (t.1 - self.reference.1) as f64;
        let same = t == self.reference;
        match self.kind {
            Cmp::Greater => !same && diff > 0.0,
            Cmp::Less => !same && diff < 0.0,
            Cmp::Equal => diff > 0.0 && diff <= self.window as f64,
        }
    }
}

/// How `-perm` compares.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum PermMatch {
    /// `-perm MODE`: exactly these bits.
    Exact,
    /// `-perm -MODE`: at least all these bits.
    All,
    /// `-perm /MODE`: any of these bits (or none given).
    Any,
}

/// A test.
#[derive(Debug)]
pub enum Test {
    /// `-true` / `-false`.
    Const(bool),
    /// `-name`, `-iname`: the base name.
    Name(Glob),
    /// `-path`, `-ipath`, `-wholename`: the whole path.
    Path(Glob),
    /// `-regex`, `-iregex`: the whole path, anchored at both ends.
    Regex(Box<crate::regex_type::PathRegex>),
    /// `-type`: a set of type letters, as a bit mask.
    Type(u16),
    /// `-xtype`: like `-type` on the other side of a symlink.
    XType(u16),
    /// `-size N[cwbkMG]`: size rounded up to units.
    Size {
        /// `+N`, `-N` or `N`.
        cmp: Cmp,
        /// N, in units.
        n: u64,
        /// Bytes per unit.
        unit: u64,
    },
    /// `-empty`.
    Empty,
    /// `-mtime`, `-mmin` & co., `-newer` & co., `-newerXY`: one of the
    /// entry's times compared with a reference.
    Time {
        /// The entry's timestamp compared.
        field: TimeField,
        /// The comparison.
        window: Window,
    },
    /// `-used N`: accessed N days after its status last changed (the delta
    /// compared as GNU find compares it; false when accessed before).
    Used(Window),
    /// `-lname`, `-ilname`: a symbolic link whose target matches.
    LinkName(Glob),
    /// `-fstype TYPE`: on a file system of this type (as the mount table
    /// says: the last mount of the entry's device).
    FsType(Vec<u8>),
    /// `-perm`.
    Perm {
        /// `-perm MODE`, `-perm -MODE` or `-perm /MODE`.
        how: PermMatch,
        /// The mode bits, for files and for directories (a symbolic `X`
        /// gives directories execute bits).
        mode: (u32, u32),
    },
    /// `-user`, `-uid`.
    Uid(Cmp, u64),
    /// `-group`, `-gid`.
    Gid(Cmp, u64),
    /// `-nouser`.
    NoUser,
    /// `-nogroup`.
    NoGroup,
    /// `-links N`.
    Links(Cmp, u64),
    /// `-inum N`.
    Inum(Cmp, u64),
    /// `-samefile FILE`: the same device and inode.
    SameFile {
        /// The reference's device.
        dev: u64,
        /// The reference's inode.
        ino: u64,
    },
    /// `-readable`, `-writable`, `-executable`: access(2) with this mode.
    Access(i32),
    /// `-text`: a regular file whose first block has no NUL byte.
    Text,
    /// `-binary`: a regular file whose first block has a NUL byte.
    Binary,
    /// `-contains PATTERN`: a line of the file matches.
    Contains(Arc<AnyMatcher>),
    /// `-kind LIST`: a regular file whose first bytes say it is one of
    /// these kinds (gzip, tar, zip, pdf, postscript, ...; plain for anything
    /// else).
    Kind(Vec<trawl_extract::Kind>),
}

/// An action.
#[derive(Debug)]
pub enum Action {
    /// `-print` (newline) or `-print0` (NUL).
    Print(u8),
    /// `-printf FORMAT`.
    Printf(Format),
    /// `-fprint FILE`, `-fprint0 FILE`, `-fprintf FILE FORMAT`: to the
    /// command's output file of this number (see [`crate::Setup::Open`]).
    FPrint(usize, FileFormat),
    /// `-ls` (or `-fls FILE`: to the output file of this number).
    Ls(Option<usize>),
    /// `-prune`: do not descend (without -depth).
    Prune,
    /// `-quit`: stop the walk.
    Quit,
    /// `-delete`.
    Delete,
    /// `-exec`, `-execdir` (index into [`crate::FindCommand::execs`]).
    Exec(usize),
}

/// What `-fprint*` writes.
#[derive(Debug)]
pub enum FileFormat {
    /// The path and this terminator.
    Path(u8),
    /// A `-printf` format.
    Printf(Format),
}

/// A command of `-exec` or `-execdir`.
#[derive(Debug)]
pub struct ExecSpec {
    /// The command and its arguments; `{}` is replaced by the path.
    pub argv: Vec<Vec<u8>>,
    /// `+`: many paths per command (the `{}` is the last argument).
    pub batch: bool,
    /// `-execdir`: run in the file's directory, with `./NAME`.
    pub in_dir: bool,
    /// `-ok`, `-okdir`: ask on standard error first, and read the answer
    /// from standard input (the command's own is /dev/null).
    pub ask: bool,
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
