//! Files and trees: binary files, big files and buffer boundaries, odd
//! names, deep paths, symlinks, FIFOs, hidden files.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::time::Duration;

use crate::fixtures::{
    basic, big, binary, binary_late, deep, fifos, links, odd_names, symlink_loop,
};
use crate::util::{lines, sorted_records, Tree};

/// The limit for runs in trees with FIFOs: opening one would block forever.
const FIFO_TIMEOUT: Duration = Duration::from_secs(10);

// Binary files (a NUL byte): grep's stderr message is trawl's stdout line.
parity!(binary_file_matches_message, binary, ["foo", "."]);
parity!(binary_file_with_line_numbers, binary, ["-n", "foo", "."]);
parity!(binary_file_count_uses_nul_as_line_end, binary, ["-c", "foo", "."]);
parity!(binary_file_count_inverted, binary, ["-c", "-v", "foo", "."]);
parity!(binary_file_count_whole_lines, binary, ["-c", "-x", "foo", "."]);
parity!(binary_file_files_with_matches, binary, ["-l", "foo", "."]);
parity!(binary_file_files_without_match, binary, ["-L", "foo", "."]);
parity!(binary_file_quiet, binary, ["-q", "qux", "."]);
parity!(binary_file_only_matching, binary, ["-o", "foo", "."]);
parity!(binary_file_inverted, binary, ["-v", "zzz", "."]);
parity!(binary_file_as_text, binary, ["-a", "-n", "foo", "."]);
parity!(binary_file_as_text_only_matching_offsets, binary, ["-a", "-o", "-b", "foo|qux", "."]);
parity!(binary_files_text, binary, ["--binary-files=text", "-n", "foo", "."]);
parity!(binary_files_binary, binary, ["--binary-files=binary", "foo", "."]);
parity!(binary_files_without_match, binary, ["--binary-files=without-match", "foo", "."]);
parity!(binary_files_skipped_with_capital_i, binary, ["-I", "-n", "foo", "."]);
parity!(binary_files_skipped_with_capital_i_and_l, binary, ["-I", "-l", "foo", "."]);
parity!(binary_file_without_match_prints_nothing, binary, ["nothing", "nul_nomatch.bin"]);
// A file is searched before its NUL check only when a NUL cannot make a
// match: a line anchor can match after a NUL ("baz\0qux"), -v selects pieces.
parity!(binary_file_anchor_after_a_nul, binary, ["-c", "^qux", "."]);
parity!(binary_file_inverted_without_a_match, binary, ["-c", "-v", "zzz", "."]);
parity!(binary_file_word_boundary_at_a_nul, binary, ["-n", "-w", "qux|more", "."]);

engines!(binary_single_file_message_goes_to_stdout, |e| {
    let c = binary().parity(e).args(["foo", "nul_early.bin"]).exact().check();
    c.trawl
        .assert_stdout("trawl: nul_early.bin: binary file matches\n")
        .assert_no_stderr()
        .assert_code(0);
});
engines!(binary_stdin, |e| {
    Tree::new().parity(e).args(["foo"]).stdin(b"a\0b\nfoo\n").exact().check();
    Tree::new().parity(e).args(["-c", "-v", "foo"]).stdin(b"a\0b\0foo\n").exact().check();
});

// A NUL after 300 KB: lines printed before the NUL is seen depend on the
// buffer size, so those cases check that trawl prints a prefix of the
// earlier matches and then the message; the others compare with grep.
engines!(late_nul_count, |e| {
    binary_late().parity(e).args(["-c", "foo", "nul_late.bin"]).exact().check();
    binary_late().parity(e).args(["-c", "-v", "foo", "nul_late.bin"]).exact().check();
    binary_late().parity(e).args(["-l", "foo", "nul_late.bin"]).exact().check();
});
engines!(late_nul_as_text, |e| {
    binary_late().parity(e).args(["-a", "-n", "foo", "nul_late.bin"]).exact().check();
    binary_late().parity(e).args(["-a", "-o", "-b", "fo+", "nul_late.bin"]).exact().check();
});
engines!(late_nul_match_only_after_the_nul_prints_only_the_message, |e| {
    binary_late().parity(e).args(["after nul", "nul_late.bin"]).exact().check();
});
engines!(late_nul_prints_a_prefix_of_earlier_matches_then_the_message, |e| {
    let t = binary_late();
    let text = t.grep().args(["-P", "-a", "foo", "nul_late.bin"]).run();
    let before: Vec<&[u8]> =
        lines(&text.stdout).into_iter().filter(|l| l.starts_with(b"line ")).collect();
    assert!(before.len() > 10);
    let r = t.trawl().args(crate::util::engine_flags(e)).args(["foo", "nul_late.bin"]).run();
    r.assert_code(0).assert_no_stderr();
    let got = lines(&r.stdout);
    let (msg, printed) = got.split_last().expect("some output");
    assert_eq!(*msg, b"trawl: nul_late.bin: binary file matches", "{}", r.stdout_str());
    assert!(printed.len() <= before.len(), "{} lines printed", printed.len());
    assert_eq!(
        printed,
        &before[..printed.len()],
        "lines before the message must be the first matches"
    );
});

// Big files and buffer boundaries.
engines!(matches_across_buffer_boundaries, |e| {
    let t = big();
    t.parity(e).args(["-n", "needle", "boundaries.txt"]).exact().check();
    t.parity(e).args(["-b", "-o", "needle", "boundaries.txt"]).exact().check();
    t.parity(e).args(["-b", "-n", "needle", "boundaries.txt"]).exact().check();
});
engines!(anchors_at_buffer_boundaries, |e| {
    let t = big();
    t.parity(e).args(["-n", "^needle|needle$", "boundaries.txt"]).exact().check();
    t.parity(e)
        .args(["-x", "-b", "needle at 128k line start|ends needle", "boundaries.txt"])
        .exact()
        .check();
    t.parity(e).args(["-n", "-A", "1", "^$", "boundaries.txt"]).exact().check();
});
engines!(counts_across_buffer_boundaries, |e| {
    let t = big();
    t.parity(e).args(["-c", "filler", "boundaries.txt"]).exact().check();
    t.parity(e).args(["-c", "-v", "needle", "boundaries.txt"]).exact().check();
    t.parity(e).args(["-c", "", "boundaries.txt"]).exact().check();
});
engines!(context_across_buffer_boundaries, |e| {
    let t = big();
    t.parity(e).args(["-C", "2", "-n", "needle", "boundaries.txt"]).exact().check();
    t.parity(e).args(["-m", "3", "-A", "2", "-b", "needle", "boundaries.txt"]).exact().check();
});
engines!(inverted_output_across_buffer_boundaries, |e| {
    let t = big();
    t.parity(e).args(["-v", "-n", "filler", "boundaries.txt"]).exact().check();
});
engines!(pcre: lookbehind_across_buffer_boundaries, |e| {
    big().parity(e).args(["-o", "-b", r"(?<=pre: |pre )needle", "boundaries.txt"]).exact().check();
});
engines!(two_megabyte_single_line, |e| {
    let t = big();
    t.parity(e).args(["-c", "needle", "long_line.txt"]).exact().check();
    t.parity(e).args(["-o", "-b", r"needle \w+", "long_line.txt"]).exact().check();
    t.parity(e).args(["needle end$", "long_line.txt"]).exact().check();
    t.parity(e).args(["-o", r"w12345\d ", "long_line.txt"]).exact().check();
    // Printed lines over a mebibyte are written from the search's buffer,
    // between the pieces of output held for the file: names, numbers and
    // context stay where grep puts them (files compared one by one: with
    // several threads, files' outputs come in the order they end).
    t.file("short.txt", "needle\nother\n");
    for args in [
        &["-n", "-H", "needle", "short.txt", "long_line.txt"][..],
        &["-b", "-C", "1", "needle", "short.txt", "long_line.txt"],
        &["-v", "-n", "nothing at all", "long_line.txt", "short.txt"],
        &["--color=always", "-n", "needle", "long_line.txt", "short.txt"],
    ] {
        t.parity(e).args(args).check();
    }
    t.parity(e).args(["-n", "needle", "long_line.txt"]).exact().check();
});
parity!(big_tree_list_and_count, big, ["-c", "needle", "."]);

// Names.
parity!(names_with_spaces_newlines_and_bytes, odd_names, ["needle", "."]);
parity!(names_listed, odd_names, ["-l", "needle", "."]);
parity!(names_counted, odd_names, ["-c", "needle", "."]);
parity!(names_listed_without_match, odd_names, ["-L", "needle", "."]);
engines!(names_listed_with_null, |e| {
    odd_names().parity(e).args(["-Z", "-l", "needle", "."]).records(0).check();
});
engines!(non_utf8_name_on_the_command_line, |e| {
    let bad = OsStr::from_bytes(b"bad\xffname\xfe.txt");
    let c = odd_names()
        .parity(e)
        .args([OsStr::new("-H"), OsStr::new("needle"), bad, OsStr::new("new\nline.txt")])
        .check();
    let want: &[u8] = b"bad\xffname\xfe.txt:needle bytes\n";
    assert!(c.trawl.stdout.windows(want.len()).any(|w| w == want), "{}", c.trawl.stdout_str());
});
engines!(dash_name_after_double_dash, |e| {
    odd_names().parity(e).args(["-e", "needle", "--", "-dash.txt", "plain.txt"]).check();
});

// Deep paths.
engines!(path_longer_than_path_max, |e| {
    let (t, rel) = deep();
    let c = t.parity(e).args(["needle", "."]).check();
    let mut want = b"./".to_vec();
    want.extend_from_slice(rel.as_os_str().as_bytes());
    want.extend_from_slice(b":needle bottom");
    assert!(lines(&c.trawl.stdout).contains(&&want[..]), "the deepest file's match is missing");
    t.parity(e).args(["-l", "-c", "needle", "."]).check();
});

// Hidden files are searched by default.
engines!(hidden_files_and_directories_are_searched, |e| {
    let c = basic().parity(e).args(["-l", "foo", "."]).check();
    let got = sorted_records(&c.trawl.stdout, b'\n');
    assert!(got.contains(&b"./.hidden/h.txt".to_vec()), "{}", c.trawl.stdout_str());
    assert!(got.contains(&b"./.dotfile".to_vec()), "{}", c.trawl.stdout_str());
});

// Symbolic links.
parity!(symlinks_not_followed_during_recursion, links, ["needle", "."]);
parity!(symlinks_followed_with_dereference_recursive, links, ["-R", "needle", "."]);
parity!(symlinks_followed_with_dereference_recursive_count, links, ["-R", "-c", "needle", "."]);
parity!(
    symlinks_on_the_command_line_are_followed,
    links,
    ["-r", "needle", "link_to_dir", "link_to_file"]
);
engines!(dangling_symlink_ignored_with_r_error_with_capital_r, |e| {
    let t = links();
    t.symlink("nowhere", "dangling");
    t.parity(e).args(["needle", "."]).check();
    let c = t.parity(e).args(["-R", "needle", "."]).errors_expected().check();
    c.trawl.assert_code(2);
    assert!(c.trawl.stderr_str().contains("dangling"), "{}", c.trawl.stderr_str());
});
parity!(symlink_loop_not_followed_with_r, symlink_loop, ["needle", "."]);
// As GNU grep 3.8: the loop is a warning; the exit status follows the matches.
engines!(symlink_loop_with_capital_r_warns_and_exits_like_grep, |e| {
    let t = symlink_loop();
    let grep = t.grep().args(["-R", "-P", "needle", "."]).run();
    let r = t.trawl().args(crate::util::engine_flags(e)).args(["-R", "needle", "."]).run();
    assert_eq!(
        r.sorted_lines(),
        grep.sorted_lines(),
        "trawl: {}\ngrep: {}",
        r.stdout_str(),
        grep.stdout_str()
    );
    r.assert_code(grep.code);
    r.assert_code(0);
    let err = r.stderr_str();
    assert!(
        err.starts_with("trawl: ") && err.contains("cycle"),
        "a warning naming the loop: {err:?}"
    );
});

// FIFOs inside the tree are never opened.
engines!(fifo_in_tree_is_not_opened, |e| {
    let t = fifos();
    t.parity(e).args(["needle", "."]).timeout(FIFO_TIMEOUT).check();
    t.parity(e).args(["-L", "needle", "."]).timeout(FIFO_TIMEOUT).check();
    t.parity(e).args(["-c", "-v", "zzz", "."]).timeout(FIFO_TIMEOUT).check();
});
engines!(fifo_in_tree_is_not_opened_with_capital_r, |e| {
    // grep -R opens FIFOs (and hangs), so compare with grep -r.
    let t = fifos();
    let grep = t.grep().args(["-r", "-P", "needle", "."]).timeout(FIFO_TIMEOUT).run();
    let r = t
        .trawl()
        .args(crate::util::engine_flags(e))
        .args(["-R", "needle", "."])
        .timeout(FIFO_TIMEOUT)
        .run();
    r.assert_code(0).assert_no_stderr();
    assert_eq!(r.sorted_lines(), grep.sorted_lines());
});

// Exact buffer-size files and many files.
fn sized() -> Tree {
    let t = Tree::new();
    for (name, size, newline_end) in [
        ("exact_256k.txt", 256 * 1024, true),
        ("over_256k.txt", 256 * 1024 + 1, false),
        ("exact_64k.txt", 64 * 1024, true),
        ("under_128k.txt", 128 * 1024 - 1, false),
    ] {
        let mut s = Vec::new();
        let mut i = 0;
        while s.len() + 40 < size {
            s.extend_from_slice(
                format!("row {i:07} {}\n", if i % 500 == 0 { "needle" } else { "hay" }).as_bytes(),
            );
            i += 1;
        }
        let rest = size - s.len() - usize::from(newline_end);
        let tail = b"needle at the very end";
        s.resize(s.len() + rest - tail.len(), b'.');
        s.extend_from_slice(tail);
        if newline_end {
            s.push(b'\n');
        }
        assert_eq!(s.len(), size);
        t.file(name, s);
    }
    t
}

parity!(files_of_exact_buffer_sizes, sized, ["-n", "-b", "needle", "."]);
parity!(files_of_exact_buffer_sizes_count, sized, ["-c", "-v", "needle", "."]);
parity!(files_of_exact_buffer_sizes_last_line, sized, ["-n", "end$", "."]);

fn many_files() -> Tree {
    let t = Tree::new();
    for d in 0..30 {
        for f in 0..50 {
            let body = if (d * 50 + f) % 7 == 0 { "x\nneedle here\n" } else { "x\nnothing\n" };
            t.file(format!("d{d:02}/s{}/f{f:02}.txt", f % 3), body);
        }
    }
    t
}

parity!(many_files_listed, many_files, ["-l", "needle", "."]);
parity!(many_files_not_listed, many_files, ["-L", "needle", "."]);
parity!(many_files_counted, many_files, ["-c", "needle", "."]);
parity!(many_files_with_context, many_files, ["-B", "1", "-n", "needle", "."]);

/// Sets a path's access time to 2001-09-09 (long before its modification
/// time, so a relatime mount would update it on the next read).
fn age_access_time(path: &std::path::Path) -> std::time::SystemTime {
    let old = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let f = std::fs::File::open(path).unwrap();
    f.set_times(std::fs::FileTimes::new().set_accessed(old)).unwrap();
    std::fs::metadata(path).unwrap().accessed().unwrap()
}

// A search is not a use: the files and directories it reads keep their
// access times (O_NOATIME), as a mail spool's "new mail" flag or a cleaner
// going by access time need.
#[test]
fn a_search_leaves_access_times_as_they_were() {
    let t = Tree::new();
    t.file("top.txt", "needle\n")
        .file("sub/deep.txt", "hay\nneedle\n")
        .file("sub/other.txt", "hay\n");
    let paths = ["top.txt", "sub/deep.txt", "sub/other.txt", "sub", "."].map(|p| t.path().join(p));
    let before: Vec<_> = paths.iter().map(|p| age_access_time(p)).collect();
    t.trawl().args(["-r", "-c", "needle", "."]).run().assert_code(0);
    t.trawl().args(["-c", "needle", "top.txt", "sub/deep.txt"]).run().assert_code(0);
    let after: Vec<_> =
        paths.iter().map(|p| std::fs::metadata(p).unwrap().accessed().unwrap()).collect();
    assert_eq!(after, before, "access times of {paths:?}");
}
