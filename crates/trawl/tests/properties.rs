//! Property tests over random trees: sorted output is the unsorted output in
//! path order, and random find expressions agree with GNU find.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use proptest::prelude::*;

fn trawl() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_trawl"));
    c.env("LC_ALL", "C");
    c
}

/// A random tree: (relative path components, is_dir, content lines).
#[derive(Clone, Debug)]
struct Node {
    path: Vec<Vec<u8>>,
    dir: bool,
    lines: Vec<&'static str>,
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(b"abB_.-x1".to_vec()), 1..4)
        .prop_filter("not . or ..", |n| n != b"." && n != b"..")
}

fn tree() -> impl Strategy<Value = Vec<Node>> {
    let node = (
        prop::collection::vec(name(), 1..4),
        any::<bool>(),
        prop::collection::vec(
            prop::sample::select(vec!["foo bar", "baz", "", "foo", "qux foo"]),
            0..5,
        ),
    )
        .prop_map(|(path, dir, lines)| Node { path, dir, lines });
    prop::collection::vec(node, 1..25)
}

/// Creates the nodes under `root`, skipping those that clash with a file.
fn build(root: &Path, nodes: &[Node]) {
    for n in nodes {
        let mut p = root.to_path_buf();
        let mut ok = true;
        for (i, c) in n.path.iter().enumerate() {
            p.push(std::ffi::OsStr::from_bytes(c));
            let last = i + 1 == n.path.len();
            if (!last || n.dir) && (p.is_file() || fs::create_dir_all(&p).is_err()) {
                ok = false;
                break;
            }
        }
        if ok && !n.dir && !p.exists() {
            let text: String = n.lines.iter().map(|l| format!("{l}\n")).collect();
            fs::write(&p, text).unwrap();
        }
    }
}

/// Component-wise byte order of `a/b` paths: depth-first, names sorted.
fn path_key(p: &[u8]) -> Vec<&[u8]> {
    p.split(|&b| b == b'/').collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// `--sort path` prints the same lines as the parallel run, with files in
    /// depth-first name order and each file's lines in order.
    #[test]
    fn sorted_output_is_the_unsorted_output_in_path_order(nodes in tree()) {
        let tmp = tempfile::tempdir().unwrap();
        build(tmp.path(), &nodes);
        let run = |sorted: bool| {
            let mut c = trawl();
            c.current_dir(tmp.path()).args(["-n", "foo", "."]);
            if sorted {
                c.args(["--sort", "path"]);
            } else {
                c.args(["-j", "4"]);
            }
            c.output().unwrap()
        };
        let (sorted_run, unsorted_run) = (run(true), run(false));
        prop_assert_eq!(sorted_run.status.code(), unsorted_run.status.code());
        prop_assert_eq!(
            String::from_utf8_lossy(&sorted_run.stderr),
            String::from_utf8_lossy(&unsorted_run.stderr)
        );
        let sorted = sorted_run.stdout;
        let mut a: Vec<&[u8]> = sorted.split(|&b| b == b'\n').collect();
        let unsorted = unsorted_run.stdout;
        let mut b: Vec<&[u8]> = unsorted.split(|&b| b == b'\n').collect();
        // In order: by path, then by line number.
        let keyed: Vec<(Vec<&[u8]>, u64)> = a
            .iter()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let mut parts = l.splitn(3, |&b| b == b':');
                let path = parts.next().unwrap();
                let n = std::str::from_utf8(parts.next().unwrap()).unwrap().parse().unwrap();
                (path_key(path), n)
            })
            .collect();
        prop_assert!(keyed.windows(2).all(|w| w[0] <= w[1]), "not in path order: {:?}", String::from_utf8_lossy(&sorted));
        a.sort();
        b.sort();
        prop_assert_eq!(a, b);
    }
}

/// A random find expression over the tree's names. No `,`: GNU find's
/// level-1 optimizer (also in force at -O0) moves name tests before the
/// others across a comma, so `-type d , -name a` takes the value of
/// `-type d`; trawl keeps the documented meaning (the second operand's
/// value), and find.rs tests the comma where both agree.
fn expr() -> impl Strategy<Value = Vec<String>> {
    let primary = prop::sample::select(vec![
        "-name '*a*'",
        "-name '[ab]*'",
        "-name '?'",
        "-iname 'B*'",
        "-type f",
        "-type d",
        "-empty",
        "-size -1",
        "-size +0c",
        "-size 4c",
        "-path '*a/*'",
        "-perm -u+r",
        "-true",
        "-false",
        "-regex '.*/[a-x]+'",
        "-links 1",
        "-newer .",
    ])
    .prop_map(|s| vec![s.to_string()]);
    primary.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| [a, vec!["-a".into()], b].concat()),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| [a, vec!["-o".into()], b].concat()),
            inner.clone().prop_map(|a| [vec!["!".into()], a].concat()),
            inner.prop_map(|a| [vec!["(".into()], a, vec![")".into()]].concat()),
        ]
    })
}

/// Splits the expression's words (single quotes group a word, as above).
fn words(e: &[String]) -> Vec<String> {
    e.iter()
        .flat_map(|w| {
            if let Some((op, arg)) = w.split_once(' ') {
                vec![op.to_string(), arg.trim_matches('\'').to_string()]
            } else {
                vec![w.clone()]
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random expressions select the same entries as GNU find.
    #[test]
    fn find_agrees_with_gnu_find(nodes in tree(), e in expr(), depth in prop::option::of(0usize..3)) {
        let tmp = tempfile::tempdir().unwrap();
        build(tmp.path(), &nodes);
        let mut args: Vec<String> = vec![".".into()];
        if let Some(d) = depth {
            args.extend(["-maxdepth".into(), d.to_string()]);
        }
        args.extend(words(&e));
        let gnu = Command::new("find").env("LC_ALL", "C").current_dir(tmp.path()).args(&args).output().unwrap();
        let ours = trawl().current_dir(tmp.path()).arg("find").args(&args).output().unwrap();
        let mut g: Vec<&[u8]> = gnu.stdout.split(|&b| b == b'\n').collect();
        let mut t: Vec<&[u8]> = ours.stdout.split(|&b| b == b'\n').collect();
        g.sort();
        t.sort();
        prop_assert_eq!(ours.status.code(), gnu.status.code(), "{:?}", args);
        prop_assert_eq!(t, g, "{:?}", args);
        // The same messages, each tool's name aside, in any order.
        let messages = |err: &[u8], tool: &str| {
            let mut v: Vec<String> = String::from_utf8_lossy(err)
                .lines()
                .map(|l| l.strip_prefix(tool).unwrap_or(l).to_string())
                .collect();
            v.sort();
            v
        };
        prop_assert_eq!(messages(&ours.stderr, "trawl: "), messages(&gnu.stderr, "find: "), "{:?}", args);
    }
}
