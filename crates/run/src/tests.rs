//! A grep run over a real tree, without the binary: the configuration made
//! by hand, the output captured.

use std::fs;

use trawl_matcher::MatcherBuilder;
use trawl_printer::{Capture, OutputMode, PrinterConfig};
use trawl_search::{Cancel, MmapChoice, SearcherConfig};
use trawl_select::rules::RulesBuilder;

use crate::{run, Config, Context, Devices, Directories, Filter, FilterOptions, NameRule, Target};

/// A sorted, one-thread search of `root` for `pattern`, printing `mode`.
fn config(root: &std::path::Path, pattern: &str, mode: OutputMode, rules: &[NameRule]) -> Config {
    let names = FilterOptions { name_rules: rules, exclude_dir: &[], max_filesize: None };
    let root = root.as_os_str().as_encoded_bytes().to_vec();
    Config {
        matcher: MatcherBuilder::new().build(&[pattern.as_bytes().to_vec()]).unwrap(),
        searcher: SearcherConfig {
            mmap: MmapChoice::never(),
            cancel: Cancel::default(),
            ..Default::default()
        },
        printer: PrinterConfig { mode, with_filename: true, ..Default::default() },
        targets: vec![Target::Path { path: root.clone(), display: root }],
        filter: Filter::new(names, &[], RulesBuilder::default()).unwrap(),
        threads: 1,
        follow_links: false,
        max_depth: None,
        one_file_system: false,
        sorted: true,
        order: None,
        gitignore: false,
        no_messages: false,
        stats: false,
        selects_nothing: false,
        stdin_label: b"(standard input)".to_vec(),
        output_file: None,
        extract: None,
        devices: Devices::Operands,
        directories: Directories::Recurse,
        index: None,
    }
}

/// What a run printed, and whether it selected a line and met an error.
fn searched(cfg: &Config) -> (String, bool, bool) {
    let out = Capture::default();
    let ctx = Context::new(cfg, &out);
    run(&ctx);
    let mut text = Vec::new();
    out.take_into(|bytes, _| text = std::mem::take(bytes));
    let flag = |b: &std::sync::atomic::AtomicBool| b.load(std::sync::atomic::Ordering::Relaxed);
    (String::from_utf8(text).unwrap(), flag(&ctx.matched), flag(&ctx.error))
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("a")).unwrap();
    fs::write(dir.path().join("a/x.txt"), "hay\nneedle one\n").unwrap();
    fs::write(dir.path().join("a/y.c"), "needle two\n").unwrap();
    fs::write(dir.path().join("z.txt"), "hay\n").unwrap();
    dir
}

#[test]
fn a_run_prints_every_selected_line_below_a_root_in_walk_order() {
    let dir = tree();
    let root = dir.path().display().to_string();
    let (out, matched, error) = searched(&config(dir.path(), "needle", OutputMode::Lines, &[]));
    assert_eq!(out, format!("{root}/a/x.txt:needle one\n{root}/a/y.c:needle two\n"));
    assert!(matched && !error);
}

#[test]
fn a_run_lists_files_without_a_match_and_selects_none_when_nothing_matches() {
    let dir = tree();
    let root = dir.path().display().to_string();
    let cfg = config(dir.path(), "needle", OutputMode::FilesWithoutMatch, &[]);
    assert_eq!(searched(&cfg).0, format!("{root}/z.txt\n"));
    let (out, matched, error) = searched(&config(dir.path(), "absent", OutputMode::Lines, &[]));
    assert_eq!((out.as_str(), matched, error), ("", false, false));
}

#[test]
fn an_excluded_name_is_not_searched() {
    let dir = tree();
    let root = dir.path().display().to_string();
    let rules = [NameRule::Exclude("*.c".into())];
    let (out, _, _) = searched(&config(dir.path(), "needle", OutputMode::Lines, &rules));
    assert_eq!(out, format!("{root}/a/x.txt:needle one\n"));
}

#[test]
fn a_missing_operand_is_an_error_and_the_run_goes_on() {
    let dir = tree();
    let mut cfg = config(dir.path(), "needle", OutputMode::Count, &[]);
    let gone = dir.path().join("gone").as_os_str().as_encoded_bytes().to_vec();
    cfg.targets.insert(0, Target::Path { path: gone.clone(), display: gone });
    let root = dir.path().display().to_string();
    let (out, matched, error) = searched(&cfg);
    assert_eq!(out, format!("{root}/a/x.txt:1\n{root}/a/y.c:1\n{root}/z.txt:0\n"));
    assert!(matched && error);
}
