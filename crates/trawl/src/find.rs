//! `trawl find`: GNU find's expressions on the parallel walker.

use std::ffi::{OsStr, OsString};
use std::io::{self, IsTerminal};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::process::ExitCode;

use crate::report::{Ended, FailedWith};

use trawl_search::Cancel;

use trawl_printer::{Capture, Output, Stdout};
use trawl_select::expr::{Action, Expr};
use trawl_select::{Evaluator, Extraction, FindCommand, Follow, Run, RunSettings};
use trawl_walk::{Entry, Piece, Pieces, Visitor, WalkBuilder, WalkError, WalkErrorKind, WalkState};

/// Below this many entries handed over by indexes (and nothing else to
/// walk), a find runs on the calling thread: on 2 cores, starting the
/// walk's threads took longer than visiting a few hundred entries.
const FEW_TO_VISIT: usize = 1024;

pub const USAGE: &str = "\
Usage: trawl find [-H|-L|-P] [-j N] [--sort] [--no-index] [PATH...] [EXPRESSION]

GNU find's expressions, walked in parallel. Output order is free unless --sort
(depth-first, names in byte order) is given. Below a root indexed by
'trawl index', the entries come from the index (directories whose stamps
changed are read again); --no-index walks instead.

Operators: ( EXPR )  ! EXPR  -not EXPR  EXPR -a EXPR  EXPR -and EXPR
           EXPR -o EXPR  EXPR -or EXPR  EXPR , EXPR
Options:   -maxdepth N -mindepth N -depth -d -xdev -mount -daystart -follow
           -ignore_readdir_race -noignore_readdir_race -noleaf -warn -nowarn
           -files0-from FILE (NUL-separated starting points; - for stdin)
           -regextype TYPE (emacs, the default; findutils-default
             posix-basic posix-extended posix-egrep egrep awk posix-awk
             gnu-awk grep ed sed posix-minimal-basic)
           -search-zip (-contains, -text and -binary look at the text inside
             compressed files and archives)  -docs (and inside PDF, office
             and EPUB documents)  -ocr (and scanned documents: images and
             PDF pages without text, through Tesseract, in the locale's
             language or English), as grep's --search-zip, --docs and --ocr; before
             the paths, --max-archive-depth N, --extract-jobs N and
             --extract-timeout SECS bound them as they bound grep's
Tests:     -name -iname -path -ipath -wholename -iwholename -lname -ilname
           -regex -iregex -type -xtype -fstype -size -empty
           -newer -anewer -cnewer -newerXY REF (X, Y each of a B c m; Y t:
             REF is a date as GNU date reads it) -mtime -mmin -atime -amin
           -ctime -cmin -used -perm -user -group -uid -gid -nouser -nogroup
           -links -inum -samefile -readable -writable -executable -true -false
           -text -binary (a NUL byte in the first 8 KiB)  -contains PATTERN
           -kind LIST (by the first bytes: gzip bzip2 xz zstd lz4 compressed
             tar zip archive pdf postscript dvi ole document plain,
             comma-separated)
Actions:   -print -print0 -printf FMT -fprint FILE -fprint0 FILE -fprintf FILE FMT
           -ls -fls FILE -prune -quit -delete
           -exec CMD ; -exec CMD {} + -execdir CMD ; -execdir CMD {} +
           -ok CMD ; -okdir CMD ; (ask on standard error, answer on standard input)
";

struct FindVisitor<'a> {
    cmd: &'a FindCommand,
    run: &'a Run<'a>,
    /// The starting points as shown (as given, or a shard's displays).
    shown: &'a [Vec<u8>],
    eval: Evaluator<'a>,
    /// Sorted on several threads: where the evaluator prints.
    capture: Option<&'a Capture>,
    out: &'a dyn Output,
}

impl FindVisitor<'_> {
    fn evaluate(&mut self, e: &Entry<'_>, may_prune: bool) -> WalkState {
        if self.run.is_cancelled() {
            return WalkState::Quit;
        }
        if e.depth() < self.cmd.min_depth {
            return WalkState::Continue;
        }
        let o = self.eval.eval(e);
        if o.quit || self.eval.output_closed() {
            WalkState::Quit
        } else if o.prune && may_prune {
            WalkState::Skip
        } else {
            WalkState::Continue
        }
    }
}

impl Visitor for FindVisitor<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        // -L met a link it cannot follow for another reason than its
        // target's absence (a path through a file): GNU find says why and
        // goes on with the link itself.
        if let Some(err) = e.broken_link_error().filter(|e| e.raw_os_error() != Some(libc::ENOENT))
        {
            let path = String::from_utf8_lossy(e.path());
            self.eval.report(format!("'{path}': {}", trawl_diag::io_message(&err)));
        }
        if self.cmd.depth_first && e.file_type().is_dir() {
            // Evaluated after its contents.
            return WalkState::Continue;
        }
        self.evaluate(e, true)
    }

    fn visit_dir_end(&mut self, e: &Entry<'_>) -> WalkState {
        self.evaluate(e, false)
    }

    fn error(&mut self, err: WalkError) -> WalkState {
        // -ignore_readdir_race: what vanished since its directory was read
        // is passed over; a starting point that does not exist is still
        // reported (GNU find).
        if let WalkErrorKind::Io(e) = err.kind() {
            let root = self.shown.iter().any(|p| p.as_slice() == err.path());
            if self.cmd.ignore_readdir_race && e.raw_os_error() == Some(libc::ENOENT) && !root {
                return WalkState::Continue;
            }
        }
        let path = String::from_utf8_lossy(err.path());
        let line = match err.kind() {
            WalkErrorKind::Io(e) => format!("'{path}': {}", trawl_diag::io_message(e)),
            WalkErrorKind::Loop { ancestor } => format!(
                "File system loop detected; '{path}' is part of the same file system loop as '{}'.",
                String::from_utf8_lossy(ancestor)
            ),
            // find reads no ignore files.
            _ => format!("'{path}': not a regular file"),
        };
        self.eval.report(line);
        WalkState::Continue
    }

    /// Starting points are walked in order: what this thread printed of
    /// one goes out before anything of the next.
    fn operand_finished(&mut self) {
        self.eval.flush();
    }

    fn take_output(&mut self, out: &mut Pieces) {
        if let Some(capture) = self.capture {
            self.eval.flush();
            trawl_run::sorted::hand_over(capture, out);
        }
    }

    fn write_output(&mut self, pieces: &[Piece<'_>]) -> WalkState {
        if trawl_run::sorted::write(self.out, pieces).is_err() {
            // As the evaluator does: a closed output ends the run quietly.
            self.eval.close_output();
            return WalkState::Quit;
        }
        WalkState::Continue
    }
}

/// Whether evaluating `x` does nothing but test and print to standard
/// output: then a sorted walk may evaluate entries out of order, on every
/// thread, and write what they print in order. Other actions (`-exec`,
/// `-delete`, `-quit`, `-fprint`...) need the evaluations themselves in
/// order, on one thread.
pub fn prints_only(x: &Expr) -> bool {
    !x.any_action(&|a| {
        !matches!(a, Action::Print(_) | Action::Printf(_) | Action::Ls(None) | Action::Prune)
    })
}

/// Runs `trawl find ARGS`.
pub fn main(args: Vec<OsString>, cancel: Cancel) -> ExitCode {
    if args.first().is_some_and(|a| a == "--help") {
        print!("{USAGE}");
        return Ended::Ok.into();
    }
    let args: Vec<Vec<u8>> = args.into_iter().map(OsStringExt::into_vec).collect();
    let cmd = match trawl_select::parse(&args) {
        Ok(c) => c,
        Err(err) => {
            crate::report::error(trawl_select::after_mistake(err));
            return Ended::Failed(FailedWith::Find).into();
        }
    };
    let escape_names = std::io::stdout().is_terminal();
    let out = Stdout::for_find();
    match run(&cmd, RunSettings { cancel, escape_names }, &out, None) {
        true => Ended::Failed(FailedWith::Find).into(),
        false => Ended::Ok.into(),
    }
}

/// Runs `cmd`, writing to `out`; its starting points are shown as
/// `displays` say (a shard's), else as given. Whether it failed (find's
/// exit status 1).
pub fn run(
    cmd: &FindCommand,
    settings: RunSettings,
    out: &dyn Output,
    displays: Option<&[Vec<u8>]>,
) -> bool {
    let mut run = match Run::new(cmd, settings) {
        Ok(run) => run,
        Err(msg) => {
            crate::report::error(msg);
            return true;
        }
    };
    let shown: Vec<Vec<u8>> = displays.map_or_else(|| run.roots().to_vec(), <[_]>::to_vec);
    let mut failed = false;
    for msg in run.root_errors() {
        crate::report::error(msg);
        failed = true;
    }
    // How many threads walk: 0 until decided below (the CPUs are counted,
    // which reads cgroup files, only for a walk of more than one entry).
    let mut threads = cmd.threads;
    // Sorted: in parallel when evaluations only print (their output is
    // captured and written in order), else on one thread, in order.
    let in_order = cmd.sorted && threads != 1 && prints_only(&cmd.expr);
    // -ok and -okdir ask one question at a time, in walk order.
    if (cmd.sorted && !in_order) || cmd.asks() {
        threads = 1;
    }
    if cmd.extraction != Extraction::Bytes {
        let documents = cmd.extraction >= Extraction::Documents;
        let limits = trawl_extract::Limits::new(documents, cmd.limits);
        let ocr = (cmd.extraction == Extraction::Ocr).then(Default::default);
        match crate::extractors::extractor(limits, ocr.as_ref(), run.cancel(), true) {
            Ok(ex) => run = run.with_extractor(ex),
            Err(msg) => {
                crate::report::error(msg);
                return true;
            }
        }
    }
    // An index serves a walk that looks at each entry once, in any order,
    // never following links below the starting points, with nothing
    // pruned.
    let indexed = displays.is_none()
        && trawl_index::serves(&trawl_index::Search {
            kind: trawl_index::SearchKind::Names,
            no_index: cmd.no_index,
            order: match cmd.sorted || cmd.depth_first {
                true => trawl_index::Order::Other,
                false => trawl_index::Order::Any,
            },
            follows_links: cmd.follow == Follow::Always,
            chooses_entries: cmd.expr.any_action(&|a| matches!(a, Action::Prune)),
            one_file_system: cmd.same_file_system,
            reads_otherwise: false,
            lists_only: false,
            recurses: true,
        });
    let report = |msg: &[u8]| crate::report::say(msg);
    let mut walk = WalkBuilder::new();
    let mut served = Vec::new();
    // The entries indexes handed over.
    let mut listed = 0;
    // Entries whose names make the expression do nothing are not visited.
    let need = cmd.expr.name_needed_for_effect();
    let named = |name: &[u8]| need.as_ref().is_none_or(|n| n.is_match(name));
    for p in run.roots() {
        // -P names a link as a link: not the directory it points to.
        let link = cmd.follow == Follow::Never
            && std::fs::symlink_metadata(OsStr::from_bytes(p)).is_ok_and(|m| m.is_symlink());
        let depth_threads = (cmd.max_depth, cmd.threads);
        walk.start_operand();
        let handed = match indexed && !link {
            true => trawl_run::indexed::add_find_root(&mut walk, p, depth_threads, &named, &report),
            false => None,
        };
        served.push(handed.is_some());
        listed += handed.unwrap_or(0);
    }
    // Served alone: nothing waits on the disk, one thread per CPU; when
    // only a few entries are left to visit, the calling thread alone (a
    // thread started costs more than they take).
    if threads == 0 && served.iter().all(|&s| s) && !served.is_empty() {
        threads = if listed < FEW_TO_VISIT { 1 } else { trawl_diag::cpus() };
    }
    walk.follow_links(cmd.follow == Follow::Always)
        .follow_roots(cmd.follow != Follow::Never)
        .max_depth(cmd.max_depth)
        .same_file_system(cmd.same_file_system)
        .sorted(cmd.sorted)
        .post_order(cmd.depth_first)
        // POSIX: each starting point after the one before.
        .operands_in_order(run.roots().len() > 1);
    for ((p, display), served) in run.roots().iter().zip(&shown).zip(served) {
        if !served {
            walk.add_root_displayed(p, display);
        }
    }
    if threads == 0 {
        // Reading directories blocks on the disk when the cache is cold:
        // more threads than CPUs keep it busy (cold Linux tree: 0.34 s on 2
        // threads, 0.12 s on 24), and cost little when warm (27 ms vs 34 ms).
        threads = if walk.is_one_entry() { 1 } else { trawl_diag::cpus().max(24) };
    }
    walk.threads(threads);
    let captures: Vec<Capture> =
        (0..if in_order { threads } else { 0 }).map(|_| Capture::default()).collect();
    let visitors = walk.run(|i| {
        let capture = captures.get(i);
        let output: &dyn Output = match capture {
            Some(c) => c,
            None => out,
        };
        FindVisitor {
            cmd,
            run: &run,
            shown: &shown,
            eval: Evaluator::new(&run, output),
            capture,
            out,
        }
    });
    // A failed write to standard output is said once, at the end (as GNU
    // find's close_stdout), unless a command's run said it already.
    let mut write_error: Option<(io::Error, bool)> = None;
    let mut file_error_said = false;
    for v in visitors {
        let end = v.eval.finish();
        failed |= end.failed;
        file_error_said |= end.file_error_said;
        if let Some(e) = end.write_error {
            write_error.get_or_insert(e);
        }
    }
    if let Err(e) = out.flush() {
        if e.kind() != io::ErrorKind::BrokenPipe {
            failed = true;
            write_error.get_or_insert((e, false));
        }
    }
    if let Some((e, false)) = write_error {
        if !file_error_said {
            crate::report::error(format_args!("'standard output': {}", trawl_diag::io_message(&e)));
        }
        crate::report::error("write error");
    }
    failed |= !run.finish_execs();
    if run.is_cancelled() {
        crate::interrupt::die();
    }
    failed || crate::unusable::errored()
}
