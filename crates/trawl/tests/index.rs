//! `trawl index`: builds a tree's index under `$XDG_CACHE_HOME/trawl`
//! (never in the tree), lists and drops it. (Searches do not use it yet.)

use crate::util::Tree;

fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        out.push(e.file_name().to_string_lossy().into_owned());
        if e.file_type().unwrap().is_dir() {
            out.extend(
                listing(&e.path())
                    .into_iter()
                    .map(|n| format!("{}/{n}", e.file_name().to_string_lossy())),
            );
        }
    }
    out.sort();
    out
}

#[test]
fn an_index_is_built_listed_and_dropped_outside_the_tree() {
    let t = Tree::new();
    t.file("tree/a.c", "int main(void) { return PM_RESUME; }\n");
    t.file("tree/sub/b.txt", "nothing here\n");
    t.file_bytes(b"tree/sub/bin", b"\x00\x01binary PM_RESUME\n");
    let cache = t.path().join("cache").display().to_string();
    let before = listing(&t.path().join("tree"));
    let built = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "tree"]).run();
    // Quiet through a pipe.
    built.assert_code(0).assert_no_stderr().assert_stdout("");
    assert_eq!(listing(&t.path().join("tree")), before, "nothing written in the tree");
    let root = std::fs::canonicalize(t.path().join("tree")).unwrap();
    let status = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status"]).run();
    status.assert_code(0);
    let line = status.stdout_str();
    assert!(line.starts_with(&format!("{}\t", root.display())), "{line}");
    assert!(line.contains(&format!(" MiB\t{cache}/trawl/index/")), "{line}");
    assert_eq!(line.lines().count(), 1, "{line}");
    // With a path: checked against the tree.
    let fresh = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status", "tree"]).run();
    fresh.assert_code(0);
    assert!(
        fresh.stdout_str().starts_with("tree: up to date (2 directories, 4 entries checked in "),
        "{}",
        fresh.stdout_str()
    );
    t.file("tree/sub/b.txt", "changed text\n");
    t.file("tree/new.txt", "new\n");
    let stale = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status", "tree"]).run();
    assert!(
        stale.stdout_str().starts_with("tree: 1 directory and 1 file changed ("),
        "{}",
        stale.stdout_str()
    );
    // Built again: a new generation replaces the old.
    t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "tree"]).run().assert_code(0);
    let stores = listing(&t.path().join("cache/trawl/index"));
    assert_eq!(stores.iter().filter(|n| n.ends_with("/gen-2")).count(), 1, "{stores:?}");
    assert!(!stores.iter().any(|n| n.ends_with("/gen-1")), "{stores:?}");
    let dropped = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--drop", "tree"]).run();
    dropped.assert_code(0).assert_no_stderr();
    let again = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--drop", "tree"]).run();
    again.assert_code(2);
    assert_eq!(again.stderr_str(), "trawl: tree: no index\n");
    let none = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "--status"]).run();
    none.assert_code(0).assert_stdout(format!("no index under {cache}/trawl/index\n"));
    let missing = t.trawl().env("XDG_CACHE_HOME", &cache).args(["index", "nowhere"]).run();
    missing.assert_code(2);
    assert_eq!(missing.stderr_str(), "trawl: nowhere: No such file or directory\n");
}
