//! `trawl shard` and `trawl merge` (issue 44, docs/DISTRIBUTED.md) on
//! what the three-shard parity tests (shard.rs) do not reach: a file whose
//! output is megabytes goes out in bounded `chunk` records as it is
//! printed and merges to one trawl's output.

use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::util::{clip, Run, Tree};

/// The most bytes of output a `chunk` record carries (trawl-shard's
/// RECORD_BYTES).
const RECORD_BYTES: usize = 1 << 20;

/// A request of shard `worker` for a search with `args` over `roots`
/// (operand, path), out of `operands`; written into `dir`.
fn request(
    dir: &Path,
    worker: &str,
    args: &[&str],
    roots: &[(u64, &str)],
    operands: u64,
) -> PathBuf {
    let roots: Vec<Value> = roots
        .iter()
        .map(|&(operand, path)| {
            json!({"operand": operand, "path": path, "display": format!("{worker}:{path}")})
        })
        .collect();
    let r = json!({
        "protocol": 1,
        "trawl_version": env!("CARGO_PKG_VERSION"),
        "extractors": null,
        "shard": worker,
        "command": "grep",
        "args": args,
        "roots": roots,
        "operands": operands,
    });
    let p = dir.join(format!("request-{worker}.json"));
    fs::write(&p, serde_json::to_vec(&r).unwrap()).unwrap();
    p
}

/// Runs a shard in `t`: its stream, in a file beside its request.
fn shard(t: &Tree, request: &Path) -> PathBuf {
    let run = t.trawl().args(["shard", "--request"]).args([request.as_os_str()]).run();
    run.assert_code(0).assert_no_stderr();
    let p = request.with_extension("stream");
    fs::write(&p, &run.stdout).unwrap();
    p
}

fn merge(t: &Tree, request: &Path, streams: &[PathBuf]) -> Run {
    let mut c = t.trawl().args(["merge", "--request"]).args([request.as_os_str()]);
    for s in streams {
        c = c.args([s.as_os_str()]);
    }
    c.run()
}

/// The `chunk` records of a stream: kind and bytes.
fn chunks(stream: &[u8]) -> Vec<(String, Vec<u8>)> {
    let lines = stream.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let records = lines.map(|l| serde_json::from_slice::<Value>(l).unwrap());
    records
        .filter(|r| r["type"] == "chunk")
        .map(|r| {
            let bytes = &r["data"]["bytes"];
            let bytes = match (bytes["text"].as_str(), bytes["bytes"].as_str()) {
                (Some(text), _) => text.as_bytes().to_vec(),
                (_, Some(b64)) => base64::engine::general_purpose::STANDARD.decode(b64).unwrap(),
                _ => panic!("{r}"),
            };
            (r["data"]["kind"].as_str().unwrap().to_string(), bytes)
        })
        .collect()
}

/// `text` without each `WORKER:` of `workers`.
fn strip(text: &[u8], workers: &[&str]) -> String {
    let mut s = String::from_utf8_lossy(text).into_owned();
    for w in workers {
        s = s.replace(&format!("{w}:"), "");
    }
    s
}

/// A file of `lines` numbered lines.
fn numbered(lines: usize, name: &str) -> String {
    (0..lines).map(|i| format!("line {i} of {name}\n")).collect()
}

#[test]
fn a_file_printing_megabytes_goes_out_in_bounded_records_and_merges_to_one_trawls_output() {
    let t = Tree::new();
    // About 4.5 MB each, printed with -n: past 3 MiB.
    t.file("big.txt", numbered(200_000, "big"));
    t.file("dir/a.txt", "line one\nnone\n");
    t.file("dir/huge.txt", numbered(200_000, "huge"));
    t.file("dir/z.txt", "none\nline last\n");
    let work = tempfile::tempdir().unwrap();
    for args in
        [&["-n", "line"][..], &["-C1", "-e", "line [0-9]*[0-6] of", "-e", "one", "-e", "last"]]
    {
        let one = request(work.path(), "fs1", args, &[(0, "big.txt")], 2);
        let two = request(work.path(), "fs2", args, &[(1, "dir")], 2);
        let streams = [shard(&t, &one), shard(&t, &two)];
        let first = chunks(&fs::read(&streams[0]).unwrap());
        assert!(first.len() >= 4, "{args:?}: {} records", first.len());
        assert_eq!(first[0].0, "lines", "{args:?}");
        assert!(first[1..].iter().all(|(kind, _)| kind == "continued"), "{args:?}");
        for (_, bytes) in chunks(&fs::read(&streams[0]).unwrap())
            .iter()
            .chain(&chunks(&fs::read(&streams[1]).unwrap()))
        {
            assert!(bytes.len() <= RECORD_BYTES, "{args:?}: a record of {} bytes", bytes.len());
        }
        let want = t.trawl().args(["--sort", "path"]).args(args).args(["big.txt", "dir"]).run();
        let got = merge(&t, &one, &streams);
        assert_eq!(got.code, want.code, "{args:?}: {}", clip(&got.stderr));
        assert!(want.stdout.len() > 6 << 20, "{args:?}: {} bytes", want.stdout.len());
        let got_text = strip(&got.stdout, &["fs1", "fs2"]);
        assert!(got_text.as_bytes() == want.stdout, "{args:?}: {}", clip(&got.stdout));
        got.assert_no_stderr();
    }
}

/// The records of a stream but `shard_begin`, and `shard_end` with its
/// status alone (totals and timing differ with an index).
fn records_but_totals(stream: &[u8]) -> Vec<Value> {
    let lines = stream.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    let records = lines.map(|l| serde_json::from_slice::<Value>(l).unwrap());
    records
        .filter(|r| r["type"] != "shard_begin")
        .map(|r| match r["type"] == "shard_end" {
            true => json!({"status": r["data"]["status"]}),
            false => r,
        })
        .collect()
}

/// The `shard_end` record of a stream.
fn end_record(stream: &[u8]) -> Value {
    let last = stream.split(|&b| b == b'\n').rfind(|l| !l.is_empty()).unwrap();
    let end: Value = serde_json::from_slice(last).unwrap();
    assert_eq!(end["type"], "shard_end");
    end["data"].clone()
}

#[test]
fn a_shard_is_served_by_its_workers_index_with_the_same_stream_and_never_stale() {
    let t = Tree::new();
    t.file("idx/one.txt", "alpha beta\n");
    t.file("idx/two.txt", "gamma\n");
    t.file("idx/d/three.c", "alphabet\n");
    t.file("idx/d/four.c", "delta\n");
    t.file("idx/d/e/five.txt", "epsilon alpha\n");
    t.file("idx/d/e/six.txt", "zeta\n");
    t.file("idx/d/f/seven.txt", "eta\n");
    t.file("idx/z/eight", "alpha again\n");
    let cache = t.path().join("cache");
    // Older than the margin within which a file counts as changed.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "idx"]).run().assert_code(0);
    let work = tempfile::tempdir().unwrap();
    let run_shard = |args: &[&str]| {
        let req = request(work.path(), "fs1", args, &[(0, "idx")], 1);
        let run = t.trawl().env("XDG_CACHE_HOME", &cache).args(["shard", "--request"]);
        let run = run.args([req.as_os_str()]).run();
        run.assert_code(0).assert_no_stderr();
        (req, run.stdout)
    };
    for args in [&["-n", "alpha"][..], &["-C1", "-e", "alpha", "-e", "zeta"], &["-l", "alpha"]] {
        let indexed = run_shard(args).1;
        let walked = run_shard(&[&["--no-index"], args].concat()).1;
        assert_eq!(records_but_totals(&indexed), records_but_totals(&walked), "{args:?}");
        // The index passed over the files that cannot match: only the
        // candidates were read.
        let (served, unserved) = (end_record(&indexed), end_record(&walked));
        assert!(unserved.get("index").is_none(), "{args:?}: {unserved}");
        let (candidates, skipped) = (
            served["index"]["files_candidates"].as_u64().unwrap(),
            served["index"]["files_skipped"].as_u64().unwrap(),
        );
        assert!(skipped > 0, "{args:?}: {served}");
        assert_eq!(served["stats"]["files_searched"].as_u64(), Some(candidates), "{args:?}");
        assert_eq!(unserved["stats"]["files_searched"].as_u64(), Some(8), "{args:?}");
    }
    // Changed since the index was built: still found (the index checks
    // every file's stamps before it answers), in walk order.
    t.file("idx/d/four.c", "delta alpha\n");
    t.file("idx/d/f/new.txt", "alpha new\n");
    let (req, indexed) = run_shard(&["-n", "alpha"]);
    let walked = run_shard(&["--no-index", "-n", "alpha"]).1;
    assert_eq!(records_but_totals(&indexed), records_but_totals(&walked));
    assert_eq!(end_record(&indexed)["index"]["files_changed"].as_u64(), Some(2));
    let stream = work.path().join("indexed.stream");
    fs::write(&stream, &indexed).unwrap();
    let got = merge(&t, &req, &[stream]);
    let want =
        t.trawl().env("XDG_CACHE_HOME", &cache).args(["--sort", "path", "-n", "alpha", "idx"]);
    let want = want.run();
    want.assert_code(0);
    assert!(want.stdout_str().contains("idx/d/four.c:1:delta alpha\n"), "{}", want.stdout_str());
    assert_eq!(strip(&got.stdout, &["fs1"]), want.stdout_str());
}
