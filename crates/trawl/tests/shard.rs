//! `trawl shard` and `trawl merge` (issue 44, docs/DISTRIBUTED.md): the
//! roots of one run split into three shards, each run by `trawl shard`,
//! then merged, must print what one `trawl --sort path` (or `trawl find
//! --sort`) over the same roots prints, byte for byte once the `WORKER:`
//! each display adds is removed, with the same exit status and messages.
//! And a truncated shard is named (exit 2), a copy of a shard counts once,
//! a request for another trawl is refused.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::extract::sh;
use crate::util::{clip, Cmd, Run, Tree};

/// The workers' names: what the merged output's names start with.
const WORKERS: [&str; 3] = ["wkA", "wkB", "wkC"];

/// The roots, as one trawl is given them (the last one a file).
const ROOTS: [&str; 6] = ["r0", "r1", "r2", "r3", "r4", "r5.txt"];

/// A tree of roots, and a place outside it for requests and streams.
struct Fixture {
    tree: Tree,
    work: tempfile::TempDir,
}

/// Text, binary and compressed files, archives, a PDF, names and lines
/// that are not UTF-8, a name starting with a dash, a damaged gzip.
fn fixture() -> Fixture {
    let t = Tree::new();
    t.file("r0/x.txt", "a\nfoo 1\nb\nc\nd\nfoo 2\ne\n");
    t.file("r0/d/y.txt", "foo 3\nbar\n");
    t.file("r0/d/z.c", "int foo;\nreturn 0;\n");
    t.file("r0/empty.txt", "");
    t.file_bytes(b"r1/caf\xe9.txt", b"foo \xff\xfe bar\nplain\n");
    t.file("r1/notes.md", "FOO upper\nfoo lower\nxfoox\nfoo foo foo\n");
    t.file("r2/bin.dat", b"foo\0bar\nfoo\n");
    let mut late = String::new();
    for i in 0..2000 {
        late.push_str(&format!("foo {i}\n"));
    }
    late.push_str("x\0y foo\nfoo end\n");
    t.file("r2/late.bin", late);
    t.file("r3/a.txt", "foo in gz\nno\n");
    sh(&t.path().join("r3"), "gzip", &["a.txt"]);
    t.file("r3/src/m1.txt", "a\nfoo\nb\n");
    t.file("r3/src/m2.txt", "c\nfoo\nd\n");
    sh(&t.path().join("r3"), "zip", &["-qr", "arch.zip", "src"]);
    fs::remove_dir_all(t.path().join("r3/src")).unwrap();
    t.file("r3/bad.gz", b"\x1f\x8b\x08\x00garbage, not deflate");
    let pdf = crate::documents::pdf(&[&["foo on page one"], &["nothing", "foo page two"]]);
    t.file("r3/doc.pdf", pdf);
    t.file("r4/deep/er/file.txt", "foo deep\n");
    t.file("r4/-dash.txt", "foo dash\n");
    t.file("r4/sp ace.txt", "foo space\nnone\n");
    t.file("r4/README", "no match\n");
    t.file("r5.txt", "foo single\nlast\n");
    sh(t.path(), "touch", &["-d", "2020-01-01", "r0/x.txt", "r4/README"]);
    Fixture { tree: t, work: tempfile::tempdir().unwrap() }
}

/// A root of a request: operand, path, and whether it is a part.
type RootSpec<'a> = (u64, &'a str, bool);

/// Args as the request carries them.
fn args_json(args: &[&str]) -> Value {
    Value::Array(args.iter().map(|a| json!(a)).collect())
}

/// Each of the roots' `WORKER:` taken out.
fn strip(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    for w in WORKERS {
        let prefix = format!("{w}:");
        out = replace(&out, prefix.as_bytes(), b"");
    }
    out
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

impl Fixture {
    fn path(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }

    /// Writes shard `i`'s request of `command` over `roots`.
    fn request(&self, i: usize, command: &str, args: &[&str], roots: &[RootSpec<'_>]) -> PathBuf {
        self.request_with(i, command, args, roots, |_| {})
    }

    fn request_with(
        &self,
        i: usize,
        command: &str,
        args: &[&str],
        roots: &[RootSpec<'_>],
        edit: impl FnOnce(&mut Value),
    ) -> PathBuf {
        let w = WORKERS[i];
        let roots: Vec<Value> = roots
            .iter()
            .map(|&(operand, path, part)| {
                json!({"operand": operand, "path": path, "display": format!("{w}:{path}"), "part": part})
            })
            .collect();
        let operands = 1 + roots.iter().map(|r| r["operand"].as_u64().unwrap()).max().unwrap_or(0);
        let mut r = json!({
            "protocol": 1,
            "trawl_version": env!("CARGO_PKG_VERSION"),
            "extractors": null,
            "shard": format!("{w}:{i}"),
            "command": command,
            "args": args_json(args),
            "roots": roots,
            "operands": operands,
        });
        edit(&mut r);
        let p = self.path(&format!("request-{i}.json"));
        fs::write(&p, serde_json::to_vec(&r).unwrap()).unwrap();
        p
    }

    /// Runs a shard: its stream, in a file.
    fn shard(&self, request: &Path, i: usize) -> PathBuf {
        let run = self.tree.trawl().args(["shard", "--request"]).arg_path(request).run();
        run.assert_code(0);
        assert!(
            run.stderr.is_empty(),
            "a shard says nothing on standard error: {}",
            clip(&run.stderr)
        );
        let p = self.path(&format!("stream-{i}"));
        fs::write(&p, &run.stdout).unwrap();
        p
    }

    fn merge(&self, request: &Path, streams: &[PathBuf]) -> Run {
        let mut c = self.tree.trawl().args(["merge", "--request"]).arg_path(request);
        for s in streams {
            c = c.arg_path(s);
        }
        c.run()
    }

    /// The roots dealt to three shards (each every third, as given), run,
    /// merged.
    fn sharded(&self, command: &str, args: &[&str], roots: &[&str]) -> Run {
        let mut streams = Vec::new();
        let mut first = None;
        for i in 0..3 {
            let mine: Vec<RootSpec<'_>> = roots
                .iter()
                .enumerate()
                .filter(|(k, _)| k % 3 == i)
                .map(|(k, r)| (k as u64, *r, false))
                .collect();
            // Every shard knows how many operands the client has.
            let operands = roots.len() as u64;
            let req =
                self.request_with(i, command, args, &mine, |r| r["operands"] = json!(operands));
            streams.push(self.shard(&req, i));
            first.get_or_insert(req);
        }
        self.merge(&first.unwrap(), &streams)
    }
}

trait ArgPath {
    fn arg_path(self, p: &Path) -> Self;
}

impl ArgPath for Cmd {
    fn arg_path(self, p: &Path) -> Cmd {
        self.args([p.as_os_str()])
    }
}

/// Standard error's lines, sorted (shards run at once), `WORKER:` out.
fn messages(b: &[u8]) -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = strip(b).split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
    lines.sort();
    lines
}

/// A JSON message with what differs between runs taken out: times, and the
/// bytes printed (checked on their own), the host; names without their
/// `WORKER:`.
fn normal_json(line: &[u8]) -> Value {
    let mut v: Value = serde_json::from_slice(line).unwrap();
    fn strip_name(v: &mut Value) {
        if let Some(t) = v.get("text").and_then(Value::as_str) {
            let s = String::from_utf8(strip(t.as_bytes())).unwrap();
            *v = json!({"text": s});
        } else if let Some(b) = v.get("bytes").and_then(Value::as_str) {
            let raw = base64::engine::general_purpose::STANDARD.decode(b).unwrap();
            let b = base64::engine::general_purpose::STANDARD.encode(strip(&raw));
            *v = json!({"bytes": b});
        }
    }
    if let Some(data) = v.get_mut("data").and_then(Value::as_object_mut) {
        data.remove("host");
        data.remove("elapsed_total");
        for key in ["path", "archive"] {
            if let Some(p) = data.get_mut(key) {
                strip_name(p);
            }
        }
        if let Some(stats) = data.get_mut("stats").and_then(Value::as_object_mut) {
            stats.remove("elapsed");
            stats.remove("bytes_printed");
        }
    }
    v
}

/// JSON's bytes printed: every begin, match and context message (not
/// end, nor the summary), as the summary must count them.
fn json_printed(out: &[u8]) -> (u64, Option<u64>) {
    let mut printed = 0;
    let mut summary = None;
    for line in out.split_inclusive(|&b| b == b'\n') {
        let v: Value = serde_json::from_slice(line).unwrap();
        match v["type"].as_str().unwrap() {
            "begin" | "match" | "context" => printed += line.len() as u64,
            "summary" => summary = v["data"]["stats"]["bytes_printed"].as_u64(),
            _ => {}
        }
    }
    (printed, summary)
}

/// `--stats`'s text split from the output before it, its time and bytes
/// printed taken out (the bytes printed returned).
fn split_stats(out: &[u8]) -> (Vec<u8>, Vec<String>, u64) {
    let text = String::from_utf8_lossy(out).into_owned();
    // The empty line before the line that counts the matches.
    let line = text.rfind(" matches").and_then(|i| text[..i].rfind('\n')).expect("--stats");
    let at = line.checked_sub(1).filter(|&i| text.as_bytes()[i] == b'\n').map_or(line, |i| i);
    let body = out[..at].to_vec();
    let mut printed = 0;
    let lines = text[at + 1..]
        .lines()
        .filter_map(|l| {
            if l.ends_with(" seconds") {
                return None;
            }
            if let Some(n) = l.strip_suffix(" bytes printed") {
                printed = n.parse().unwrap();
                return None;
            }
            Some(l.to_string())
        })
        .collect();
    (body, lines, printed)
}

/// The merged run equals one trawl's (`args` for the failure message).
fn assert_same(args: &[&str], want: &Run, got: &Run) {
    let ctx = || {
        format!(
            "{args:?}\n--- one trawl ({}):\n{}\n--- merged ({}):\n{}\n--- its stderr:\n{}",
            want.code,
            clip(&want.stdout),
            got.code,
            clip(&got.stdout),
            clip(&got.stderr)
        )
    };
    assert_eq!(got.code, want.code, "exit status: {}", ctx());
    assert_eq!(messages(&got.stderr), messages(&want.stderr), "messages: {}", ctx());
    if args.contains(&"--json") {
        let (want_printed, want_summary) = json_printed(&want.stdout);
        let (got_printed, got_summary) = json_printed(&got.stdout);
        assert_eq!(want_summary, Some(want_printed), "one trawl's own count: {}", ctx());
        assert_eq!(got_summary, Some(got_printed), "bytes printed: {}", ctx());
        let norm = |b: &[u8]| -> Vec<Value> {
            b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).map(normal_json).collect()
        };
        assert_eq!(norm(&got.stdout), norm(&want.stdout), "{}", ctx());
        return;
    }
    if args.contains(&"--stats") {
        let (want_body, want_stats, want_printed) = split_stats(&want.stdout);
        let (got_body, got_stats, got_printed) = split_stats(&got.stdout);
        assert_eq!(strip(&got_body), want_body, "{}", ctx());
        assert_eq!(got_stats, want_stats, "{}", ctx());
        // The merged output prints each name with its WORKER: in front.
        let prefixes = (got_body.len() - strip(&got_body).len()) as u64;
        assert_eq!(got_printed, want_printed + prefixes, "bytes printed: {}", ctx());
        return;
    }
    assert!(strip(&got.stdout) == want.stdout, "output: {}", ctx());
}

/// One trawl --sort path over `roots`, and the same split into shards.
fn compare_grep(f: &Fixture, args: &[&str], roots: &[&str]) {
    let want = f.tree.trawl().args(["--sort", "path"]).args(args).args(roots).run();
    let got = f.sharded("grep", args, roots);
    assert_same(args, &want, &got);
}

fn compare_all(sets: &[&[&str]]) {
    let f = fixture();
    for args in sets {
        compare_grep(&f, args, &ROOTS);
    }
}

#[test]
fn sharded_searches_print_what_one_trawl_prints() {
    compare_all(&[
        &["foo"],
        &["-n", "foo"],
        &["-H", "foo"],
        &["-h", "-n", "foo"],
        &["-i", "FOO"],
        &["-w", "foo"],
        &["-x", "foo 1"],
        &["-F", "foo"],
        &["-E", "fo+|bar"],
        &["-e", "foo", "-e", "bar"],
        &["-b", "foo"],
        &["--column", "-n", "foo"],
        &["--vimgrep", "foo"],
        &["-T", "-n", "foo"],
        &["--replace", "X", "foo"],
        &["--trim", "foo"],
        &["-z", "foo"],
        &["nothing matches this"],
    ]);
}

#[test]
fn sharded_context_groups_are_separated_as_in_one_run() {
    compare_all(&[
        &["-C1", "-n", "foo"],
        &["-A1", "foo"],
        &["-B2", "foo"],
        &["-C0", "foo"],
        &["-o", "-n", "-C1", "foo"],
        &["-o", "-v", "-C1", "foo"],
        &["-v", "-C1", "foo"],
        &["--heading", "foo"],
        &["--heading", "-n", "-C1", "foo"],
        &["--group-separator=XX", "-C1", "foo"],
        &["--no-group-separator", "-C1", "foo"],
        &["--passthru", "foo"],
        &["--color=always", "-n", "-C1", "foo"],
        &["--color=always", "--heading", "foo"],
        &["-m2", "-A1", "foo"],
    ]);
}

#[test]
fn sharded_counts_names_and_matches_print_what_one_trawl_prints() {
    compare_all(&[
        &["-c", "foo"],
        &["-c", "-v", "foo"],
        &["-l", "foo"],
        &["-L", "foo"],
        &["-Z", "-l", "foo"],
        &["-o", "foo"],
        &["-o", "-b", "foo"],
        &["-v", "foo"],
        &["-m1", "foo"],
        &["-m1", "-c", "foo"],
        &["-q", "foo"],
        &["-q", "nothing matches this"],
        &["--files"],
        &["--max-depth", "1", "foo"],
    ]);
}

#[test]
fn sharded_json_and_stats_are_summed_as_one_run_counts() {
    compare_all(&[
        &["--json", "foo"],
        &["--json", "-C1", "foo"],
        &["--json", "-v", "foo"],
        &["--json", "--search-zip", "foo"],
        &["--stats", "foo"],
        &["--stats", "-c", "foo"],
        &["--stats", "-l", "foo"],
        &["--stats", "-q", "foo"],
        &["--stats", "-C1", "--search-zip", "foo"],
    ]);
}

#[test]
fn sharded_recursion_filters_binary_files_and_archives_print_what_one_trawl_prints() {
    compare_all(&[
        &["-r", "--include", "*.txt", "foo"],
        &["-r", "--exclude", "*.txt", "foo"],
        &["-r", "--exclude-dir", "d", "-n", "foo"],
        &["-r", "--include", "*.c", "--include", "*.md", "-c", "foo"],
        &["-a", "foo"],
        &["-I", "foo"],
        &["--binary-files=without-match", "-c", "foo"],
        &["-C1", "foo"],
        &["--search-zip", "foo"],
        &["--search-zip", "-C1", "-n", "foo"],
        &["--search-zip", "-c", "foo"],
        &["--search-zip", "-l", "foo"],
        &["--docs", "-n", "foo"],
        &["--docs", "-C1", "page"],
    ]);
}

#[test]
fn a_utf8_locale_in_the_request_is_the_shards() {
    let f = fixture();
    f.tree.file("r1/unicode.txt", "ÉCOLE\nécole\n");
    let args = ["-i", "école"];
    let want = f
        .tree
        .trawl()
        .env("LC_ALL", "C.UTF-8")
        .args(["--sort", "path"])
        .args(args)
        .args(ROOTS)
        .run();
    let mut streams = Vec::new();
    for i in 0..3 {
        let mine: Vec<RootSpec<'_>> = ROOTS
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 3 == i)
            .map(|(k, r)| (k as u64, *r, false))
            .collect();
        let req = f.request_with(i, "grep", &args, &mine, |r| {
            r["locale"] = json!("C.UTF-8");
            r["operands"] = json!(6);
        });
        streams.push(f.shard(&req, i));
    }
    let got = f.merge(&f.path("request-0.json"), &streams);
    assert_same(&args, &want, &got);
    assert!(want.stdout_str().contains("ÉCOLE"), "{}", want.stdout_str());
}

#[test]
fn parts_of_a_shared_operand_print_what_one_trawl_over_it_prints() {
    let f = fixture();
    f.tree.file("r0/d-x/w.txt", "foo w\n");
    f.tree.file("r0/d.txt", "foo dot\n");
    // r0's entries dealt to two shards, out of order.
    let parts = [
        vec![(0, "r0/x.txt", true), (0, "r0/d", true), (0, "r0/empty.txt", true)],
        vec![(0, "r0/d.txt", true), (0, "r0/d-x", true)],
    ];
    for args in [
        &["-n", "foo"][..],
        &["-C1", "foo"],
        &["-c", "foo"],
        &["--max-depth", "1", "foo"],
        &["--exclude-dir", "d", "foo"],
        &["--include", "*.c", "foo"],
        &["--json", "foo"],
    ] {
        let want = f.tree.trawl().args(["--sort", "path"]).args(args).args(["r0"]).run();
        let streams: Vec<PathBuf> = parts
            .iter()
            .enumerate()
            .map(|(i, roots)| f.shard(&f.request(i, "grep", args, roots), i))
            .collect();
        let got = f.merge(&f.path("request-0.json"), &streams);
        assert_same(args, &want, &got);
    }
}

/// One trawl find --sort over the roots, and the same split into shards.
fn compare_find(f: &Fixture, expr: &[&str]) {
    let want = f.tree.trawl().args(["find", "--sort"]).args(ROOTS).args(expr).run();
    let got = f.sharded("find", expr, &ROOTS);
    assert_same(expr, &want, &got);
}

#[test]
fn sharded_finds_print_what_one_trawl_find_prints() {
    let f = fixture();
    for expr in [
        &[][..],
        &["-name", "*.txt"],
        &["-type", "d"],
        &["-type", "f", "-size", "-1k"],
        &["-size", "+1k"],
        &["-newer", "r0/x.txt"],
        &["-not", "-newer", "r0/x.txt", "-type", "f"],
        &["-print0"],
        &["-name", "*.gz", "-print0", "-o", "-type", "d", "-print"],
        &["-printf", "%p %s %d %P %f %y\n"],
        &["-printf", "[%H] %h\n"],
        &["-maxdepth", "1"],
        &["-mindepth", "1", "-name", "[a-d]*"],
        &["-empty"],
        &["-path", "*d*"],
        &["-depth"],
        &["-name", "d", "-prune", "-o", "-print"],
        &["-contains", "foo"],
    ] {
        compare_find(&f, expr);
    }
}

#[test]
fn a_find_that_acts_is_not_run_in_a_shard() {
    let f = fixture();
    let req = f.request(0, "find", &["-exec", "true", ";"], &[(0, "r0", false)]);
    let stream = f.shard(&req, 0);
    let got = f.merge(&req, &[stream]);
    got.assert_code(1);
    assert!(got.stderr_str().contains("only tests and -print"), "{}", got.stderr_str());
}

/// The shards' streams of `-n foo` over ROOTS, and the first request.
fn streams(f: &Fixture, args: &[&str]) -> (PathBuf, Vec<PathBuf>) {
    let mut streams = Vec::new();
    for i in 0..3 {
        let mine: Vec<RootSpec<'_>> = ROOTS
            .iter()
            .enumerate()
            .filter(|(k, _)| k % 3 == i)
            .map(|(k, r)| (k as u64, *r, false))
            .collect();
        let req = f.request_with(i, "grep", args, &mine, |r| r["operands"] = json!(6));
        streams.push(f.shard(&req, i));
    }
    (f.path("request-0.json"), streams)
}

#[test]
fn a_truncated_shard_is_named_and_the_status_is_2() {
    let f = fixture();
    let (req, streams) = streams(&f, &["-n", "foo"]);
    let whole = f.merge(&req, &streams);
    whole.assert_code(0);
    // Shard 1 killed before its end record, and mid-record.
    let b = fs::read(&streams[1]).unwrap();
    let body = &b[..b[..b.len() - 1].iter().rposition(|&c| c == b'\n').unwrap() + 1];
    for cut in [body.to_vec(), [body, &br#"{"type":"chu"#[..]].concat()] {
        fs::write(&streams[1], &cut).unwrap();
        let got = f.merge(&req, &streams);
        got.assert_code(2);
        assert_eq!(got.stderr_str(), "trawl: shard wkB:1: incomplete (no end record)\n");
        // What it wrote is not lost.
        assert_eq!(got.stdout, whole.stdout);
    }
}

#[test]
fn a_copy_of_a_shard_counts_once() {
    let f = fixture();
    let (req, streams) = streams(&f, &["-n", "--stats", "foo"]);
    let once = f.merge(&req, &streams);
    // A task that ran twice: an incomplete first attempt, then two whole
    // copies.
    let b = fs::read(&streams[0]).unwrap();
    let cut = f.path("cut-0");
    fs::write(&cut, &b[..b.len() / 2]).unwrap();
    let copy = f.path("copy-0");
    fs::copy(&streams[0], &copy).unwrap();
    let twice =
        f.merge(&req, &[cut, streams[1].clone(), copy, streams[2].clone(), streams[0].clone()]);
    twice.assert_code(0);
    assert_eq!(twice.stderr_str(), "");
    let (a, sa, pa) = split_stats(&once.stdout);
    let (b, sb, pb) = split_stats(&twice.stdout);
    assert_eq!((a, sa, pa), (b, sb, pb));
}

#[test]
fn a_request_for_another_trawl_is_refused_before_any_work() {
    let f = fixture();
    for (edit, said) in [
        (json!({"trawl_version": "9.9.9"}), "trawl 9.9.9 asked, this is trawl"),
        (json!({"protocol": 7}), "protocol 7 asked"),
        (json!({"extractors": "not these"}), "extractors not these asked"),
    ] {
        let req = f.request_with(0, "grep", &["-n", "foo"], &[(0, "r0", false)], |r| {
            for (k, v) in edit.as_object().unwrap() {
                r[k] = v.clone();
            }
        });
        let run = f.tree.trawl().args(["shard", "--request"]).arg_path(&req).run();
        run.assert_code(0);
        let records: Vec<Value> = run
            .stdout
            .split(|&c| c == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let types: Vec<&str> = records.iter().map(|r| r["type"].as_str().unwrap()).collect();
        assert_eq!(types, ["shard_begin", "refused", "shard_end"]);
        assert!(records[1]["data"]["reason"].as_str().unwrap().contains(said), "{records:?}");
        assert_eq!(records[2]["data"]["status"], 2);
        let stream = f.path("refused");
        fs::write(&stream, &run.stdout).unwrap();
        let got = f.merge(&req, &[stream]);
        got.assert_code(2);
        assert!(
            got.stderr_str().starts_with("trawl: shard wkA:0: refused: "),
            "{}",
            got.stderr_str()
        );
        assert!(got.stdout.is_empty());
    }
}

#[test]
fn the_extractors_identity_is_stable_and_accepted() {
    let f = fixture();
    let id = |_: ()| f.tree.trawl().args(["shard", "--identity"]).run();
    let (a, b) = (id(()), id(()));
    a.assert_code(0);
    assert_eq!(a.stdout, b.stdout);
    let id = a.stdout_str().trim().to_string();
    assert_eq!(id.len(), 32, "{id}");
    let req = f.request_with(0, "grep", &["foo"], &[(0, "r5.txt", false)], |r| {
        r["extractors"] = json!(id)
    });
    let stream = f.shard(&req, 0);
    // One operand, a file: no name, as one trawl prints it.
    f.merge(&req, &[stream]).assert_code(0).assert_stdout("foo single\n");
}

#[test]
fn json_names_the_host_beside_the_path() {
    let f = fixture();
    let req = f.request(1, "grep", &["--json", "foo"], &[(0, "r4", false)]);
    let stream = f.shard(&req, 1);
    let got = f.merge(&req, &[stream]);
    got.assert_code(0);
    let first: Value =
        serde_json::from_slice(got.stdout.split(|&c| c == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["type"], "begin");
    assert_eq!(first["data"]["path"]["text"], "wkB:r4/-dash.txt");
    assert_eq!(first["data"]["host"], "wkB");
}

#[test]
fn a_stream_on_standard_input_is_merged() {
    let f = fixture();
    let req = f.request(2, "grep", &["-c", "foo"], &[(0, "r5.txt", false)]);
    let stream = fs::read(f.shard(&req, 2)).unwrap();
    let got = f.tree.trawl().args(["merge", "--request"]).arg_path(&req).stdin(stream).run();
    got.assert_code(0).assert_stdout("1\n");
}
