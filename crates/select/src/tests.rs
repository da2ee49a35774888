//! The parse as plain data, and runs made from it: parsing twice gives the
//! same command, parsing touches no file, and one command runs any number
//! of times alike (what a run shares is the run's, not the command's).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Mutex;

use trawl_walk::{Entry, Visitor, WalkBuilder, WalkError, WalkState};

use crate::{after_mistake, parse_at, Evaluator, FindCommand, Run, RunSettings, Setup};
use trawl_printer::Output;

/// A fixed start, so that two parses read times alike.
const NOW: (i64, i64) = (1_700_000_000, 0);

fn args(s: &[&str]) -> Vec<Vec<u8>> {
    s.iter().map(|a| a.as_bytes().to_vec()).collect()
}

fn bytes(p: &Path) -> Vec<u8> {
    p.as_os_str().as_bytes().to_vec()
}

/// Every kind of primary, with the arguments they read.
fn rich_command_line(dir: &Path) -> Vec<Vec<u8>> {
    let out = dir.join("out");
    let line = "-L -j 3 a b -maxdepth 4 -regextype posix-extended ( -name *.c -o -iregex \
        .*/x(y|z) ) ! -type d,l -size +2k -mtime -1.5 -daystart -mmin 3 -perm /u=x -uid 0 \
        -links -3 -used 2 -kind archive,pdf -contains ne(e)dle -text , \
        -printf %p_%-10s_%#m_%TY\\n -fprintf OUT %P\\0 -fls OUT -exec echo {} + \
        -ok wc {} ; -prune -newermt";
    let mut words: Vec<Vec<u8>> = line
        .split_whitespace()
        .map(|w| if w == "OUT" { bytes(&out) } else { w.as_bytes().to_vec() })
        .collect();
    words.push(b"2024-01-01 12:00".to_vec());
    words
}

#[test]
fn parsing_twice_gives_equal_commands() {
    let dir = tempfile::tempdir().unwrap();
    let line = rich_command_line(dir.path());
    let first = parse_at(&line, NOW).unwrap();
    let second = parse_at(&line, NOW).unwrap();
    assert_eq!(format!("{first:?}"), format!("{second:?}"));
    assert_eq!(first.paths, vec![b"a".to_vec(), b"b".to_vec()]);
    assert_eq!(first.execs.len(), 2);
}

#[test]
fn parsing_creates_no_file_and_reads_none() {
    let dir = tempfile::tempdir().unwrap();
    let (out, list) = (dir.path().join("out"), dir.path().join("list"));
    let line = args(&[
        "-fprint",
        out.to_str().unwrap(),
        "-printf",
        "%Q",
        "-fls",
        out.to_str().unwrap(),
        "-files0-from",
        list.to_str().unwrap(),
    ]);
    let cmd = parse_at(&line, NOW).unwrap();
    assert!(!out.exists(), "-fprint's file was created by the parse");
    // The steps a run does first, in the order GNU find does them.
    let warning = "warning: unrecognized format directive `%Q'".to_string();
    let want = vec![Setup::Open(bytes(&out)), Setup::Warn(warning), Setup::Open(bytes(&out))];
    assert_eq!(cmd.setup, want);
    // The starting points are read when a run starts.
    assert_eq!(cmd.files0_from, Some(bytes(&list)));
    assert!(cmd.paths.is_empty());
}

#[test]
fn a_run_opens_the_files_and_reads_the_starting_points() {
    let dir = tempfile::tempdir().unwrap();
    let (out, list) = (dir.path().join("out"), dir.path().join("list"));
    std::fs::write(&list, b"x\0\0y").unwrap();
    let line = args(&["-files0-from", list.to_str().unwrap(), "-fprint", out.to_str().unwrap()]);
    let cmd = parse_at(&line, NOW).unwrap();
    let run = Run::new(&cmd, RunSettings::default()).unwrap();
    assert!(out.exists());
    assert_eq!(run.roots(), [b"x".to_vec(), b"y".to_vec()]);
    let errors = [format!("'{}':2: invalid zero-length file name", list.display())];
    assert_eq!(run.root_errors(), errors);
    // The list is read again by a second run.
    std::fs::write(&list, b"z").unwrap();
    let again = Run::new(&cmd, RunSettings::default()).unwrap();
    assert_eq!(again.roots(), [b"z".to_vec()]);
}

#[test]
fn a_run_fails_on_an_output_file_it_cannot_open() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("missing/out");
    let cmd = parse_at(&args(&["-fprint", out.to_str().unwrap()]), NOW).unwrap();
    let err = Run::new(&cmd, RunSettings::default()).unwrap_err();
    assert_eq!(err, format!("'{}': No such file or directory", out.display()));
}

#[test]
fn after_a_mistake_the_files_named_before_it_are_created() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let err = parse_at(&args(&["-fprint", out.to_str().unwrap(), "-bad"]), NOW).unwrap_err();
    assert!(!out.exists());
    assert_eq!(after_mistake(err), "unknown predicate `-bad'");
    assert!(out.exists());
    // A file that cannot be opened is said instead of the mistake, as GNU
    // find stops at it before reading on.
    let missing = dir.path().join("missing/out");
    let err = parse_at(&args(&["-fprint", missing.to_str().unwrap(), "-bad"]), NOW).unwrap_err();
    let said = format!("'{}': No such file or directory", missing.display());
    assert_eq!(after_mistake(err), said);
}

/// Standard output, for a test.
#[derive(Default)]
struct Collected(Mutex<Vec<u8>>);

impl Output for Collected {
    fn write(&self, bytes: &[u8], _chunk: trawl_printer::Chunk) -> std::io::Result<()> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(())
    }
}

struct Evaluating<'r>(Evaluator<'r>);

impl Visitor for Evaluating<'_> {
    fn visit(&mut self, e: &Entry<'_>) -> WalkState {
        let o = self.0.eval(e);
        match (o.quit, o.prune) {
            (true, _) => WalkState::Quit,
            (false, true) => WalkState::Skip,
            (false, false) => WalkState::Continue,
        }
    }

    fn error(&mut self, _: WalkError) -> WalkState {
        WalkState::Continue
    }
}

/// What one run of `cmd` prints, walking on one thread in name order.
fn run_once(cmd: &FindCommand) -> Vec<u8> {
    let run = Run::new(cmd, RunSettings::default()).unwrap();
    let out = Collected::default();
    let mut walk = WalkBuilder::new();
    for root in run.roots() {
        walk.add_root(OsStr::from_bytes(root));
    }
    walk.threads(1).sorted(true);
    for v in walk.run(|_| Evaluating(Evaluator::new(&run, &out))) {
        assert!(!v.0.finish().failed);
    }
    assert!(run.finish_execs());
    out.0.into_inner().unwrap()
}

#[test]
fn one_command_runs_twice_alike() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["a/b/c", "a/d", "e"] {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, f).unwrap();
    }
    let root = dir.path().to_str().unwrap();
    // -quit: the first run's quitting is its own, not the command's.
    let cmd = parse_at(&args(&[root, "-name", "b", "-print", "-quit"]), NOW).unwrap();
    let parsed = format!("{cmd:?}");
    let first = run_once(&cmd);
    assert_eq!(first, format!("{root}/a/b\n").into_bytes());
    assert_eq!(run_once(&cmd), first);
    // Nothing was written into the command.
    assert_eq!(format!("{cmd:?}"), parsed);
    // -ls's columns grow within a run, and start anew in the next.
    let cmd = parse_at(&args(&[root, "-type", "f", "-ls"]), NOW).unwrap();
    let first = run_once(&cmd);
    assert_eq!(first.iter().filter(|&&b| b == b'\n').count(), 3);
    assert_eq!(run_once(&cmd), first);
}
