//! grep's options against `LC_ALL=C grep -P -r`, under both engines.

use crate::fixtures::{basic, ctx_text, literal};
use crate::util::Tree;

/// One file for exact (unsorted) comparisons of context output.
fn ctx_only() -> Tree {
    let t = Tree::new();
    t.file("ctx.txt", ctx_text());
    t
}

// Counting and listing.
parity!(count_per_file, basic, ["-c", "foo", "."]);
parity!(count_inverted, basic, ["-c", "-v", "foo", "."]);
parity!(count_with_max_count, basic, ["-c", "-m", "1", "foo", "."]);
parity!(count_lines_including_a_last_line_without_newline, basic, ["-c", "^", "."]);
parity!(files_with_matches, basic, ["-l", "foo", "."]);
parity!(files_without_match, basic, ["-L", "foo", "."]);
parity!(files_with_matches_inverted, basic, ["-l", "-v", "foo", "."]);
parity!(files_without_match_when_every_file_matches, basic, ["-L", "", "."]);
// The later of -a, -I and --binary-files decides, as in grep.
engines!(the_last_binary_files_option_wins, |e| {
    let t = Tree::new();
    t.file("bin", "foo\0\nfoo\n").file("txt", "foo\n");
    for opts in [
        &["-c", "-a", "-I"][..],
        &["-c", "-I", "-a"],
        &["-n", "-I", "--binary-files=binary"],
        &["-n", "--binary-files=text", "-I", "--binary-files=binary"],
        &["-c", "-a", "--binary-files=without-match"],
        &["-n", "--binary-files=without-match", "--binary-files=text"],
    ] {
        t.parity(e).args(opts).args(["foo", "bin", "txt"]).check();
    }
});

// --exclude-from's lines lose their trailing white space (a CR, blanks),
// and blank lines hold no pattern, as gnulib reads them for grep.
engines!(exclude_from_trims_trailing_white_space, |e| {
    let t = Tree::new();
    t.file("a.c", "x\n").file("b.h", "x\n").file("c.txt", "x\n");
    t.file("exf", "*.h \r\n\n \t\n\u{b}\n");
    t.parity(e).args(["-r", "--exclude-from=exf", "--exclude=exf", "-c", "x", "."]).check();
});

// One operand: file names only when -d says recurse (grep's out_file).
engines!(one_directory_operand_read_or_skipped_prints_no_name, |e| {
    let t = basic();
    t.parity(e).args(["-r", "-d", "read", "-c", "foo", "sub"]).errors_expected().exact().check();
    t.parity(e).args(["-d", "skip", "-H", "-c", "foo", "sub", "a.txt"]).exact().check();
});

// getopt_long's abbreviations: a prefix of one long option names it; one
// that starts several of trawl's options but one of grep's names grep's.
parity!(
    abbreviated_long_options,
    basic,
    ["--line-n", "--ignore-c", "--inc=*.c", "--col=never", "FOO", "."]
);
parity!(
    abbreviated_long_options_with_values,
    basic,
    ["--max=1", "--files-with-m", "--exclude-d=deep", "foo", "."]
);

// Issue 42: an ambiguous long option lists what it may abbreviate, as
// getopt does (its `=VALUE` kept in the name); GNU grep's candidates are
// among trawl's, which has more options.
#[test]
fn an_ambiguous_long_option_lists_its_possibilities() {
    let t = basic();
    for given in ["--co", "--co=always", "--fi", "--no-", "--in"] {
        let r = t.trawl().args([given, "foo", "."]).run();
        r.assert_code(2).assert_stdout("");
        let g = t.grep().args([given, "foo", "."]).run();
        g.assert_code(2);
        let (err, grep_err) = (r.stderr_str(), g.stderr_str());
        let (first, rest) = err.split_once('\n').expect("a usage after the message");
        let (grep_first, grep_rest) = grep_err.split_once('\n').expect("grep's usage");
        assert_eq!(rest, grep_rest.replace("grep", "trawl"), "{given}");
        let head = format!("option '{given}' is ambiguous; possibilities: ");
        let listed = first.strip_prefix(&format!("trawl: {head}")).expect(first);
        let grep_listed = grep_first.strip_prefix(&format!("grep: {head}")).expect(grep_first);
        let names: Vec<&str> = listed.split(' ').collect();
        // grep's --fixed-regexp is an obsolete spelling trawl does not take.
        for name in grep_listed.split(' ').filter(|n| *n != "'--fixed-regexp'") {
            assert!(names.contains(&name), "{given}: {name} missing from {listed}");
        }
        let bare = given.split('=').next().unwrap_or(given);
        assert!(names.iter().all(|n| n.starts_with(&format!("'{bare}"))), "{listed}");
    }
}

// Issue 42: -q stops at the first match and, as grep, opens no operand
// after the one that holds it: a missing one is not reported, a FIFO
// nobody writes to is not opened (which would hang). An operand before it
// is reported as grep does. Operands are searched in parallel otherwise,
// so each case runs several times.
engines!(quiet_opens_no_operand_after_the_first_match, |e| {
    let t = basic();
    t.fifo("fifo");
    for _ in 0..10 {
        t.parity(e).args(["-q", "foo", "a.txt", "missing", "sub", "fifo"]).exact().check();
        t.parity(e)
            .args(["-q", "foo", "missing", "sub/b.c", "fifo"])
            .errors_expected()
            .exact()
            .check()
            .trawl
            .assert_code(0);
    }
});

// Of -i and --no-ignore-case the later decides, as grep's getopt loop (the
// typed flag layer of issue 43: --no-ignore-case won wherever it was).
parity!(
    ignore_case_after_no_ignore_case_ignores_case,
    basic,
    ["--no-ignore-case", "-i", "foo", "."]
);
parity!(no_ignore_case_after_ignore_case_keeps_case, basic, ["-i", "--no-ignore-case", "foo", "."]);

// The later of -l and -L decides, as in grep.
parity!(files_without_match_after_files_with_matches_wins, basic, ["-l", "-L", "foo", "."]);
parity!(files_with_matches_after_files_without_match_wins, basic, ["-L", "-c", "-l", "foo", "."]);
parity!(quiet_exits_zero_on_a_match, basic, ["-q", "foo", "."]);
parity!(quiet_exits_one_without_a_match, basic, ["-q", "zzz_not_there", "."]);
parity!(no_match_exits_one_and_prints_nothing, basic, ["zzz_not_there", "."]);

// Output decorations.
parity!(only_matching_with_byte_offsets, basic, ["-o", "-b", "foo", "."]);
parity!(byte_offsets_of_lines, basic, ["-b", "foo", "."]);
parity!(byte_offsets_and_line_numbers_with_crlf, basic, ["-n", "-b", "foo", "crlf.txt", "a.txt"]);
parity!(only_matching_several_per_line_with_numbers, basic, ["-o", "-n", "-b", "o+", "."]);
parity!(only_matching_inverted_prints_nothing, basic, ["-o", "-v", "foo", "."]);
parity!(no_filename, basic, ["-h", "-n", "foo", "."]);
parity!(with_filename_on_a_single_file, basic, ["-H", "foo", "a.txt"]);
parity!(single_file_has_no_filename_prefix, basic, ["-n", "foo", "a.txt"]);
parity!(several_paths, basic, ["-n", "foo", "a.txt", "sub", "other/e.rs", "crlf.txt"]);
parity!(same_file_twice, basic, ["foo", "a.txt", "a.txt"]);
parity!(dot_slash_prefix_is_kept, basic, ["foo", "./sub", "sub/"]);
parity!(null_after_names_with_line_output, basic, ["-Z", "-n", "foo", "."]);
parity!(null_after_names_with_count, basic, ["-Z", "-c", "foo", "."]);
parity!(explicit_recursive_flag, basic, ["-r", "-n", "foo", "."]);
parity!(text_flag_on_text_files_changes_nothing, basic, ["-a", "-n", "foo", "."]);
parity!(line_buffered_output_is_the_same, basic, ["--line-buffered", "-n", "foo", "."]);
engines!(one_thread, |e| {
    basic().parity(e).trawl_args(["-j", "1"]).args(["-n", "foo", "."]).check();
});
engines!(three_threads, |e| {
    basic().parity(e).trawl_args(["--threads", "3"]).args(["-n", "-C", "1", "foo", "."]).check();
});
parity!(color_never, basic, ["--color=never", "foo", "."]);
parity!(color_auto_through_a_pipe_is_plain, basic, ["--color=auto", "foo", "."]);

engines!(null_after_names_with_files_with_matches, |e| {
    basic().parity(e).args(["-Z", "-l", "foo", "."]).records(0).check();
});
engines!(null_after_names_with_files_without_match, |e| {
    basic().parity(e).args(["-Z", "-L", "foo", "."]).records(0).check();
});
engines!(single_file_output_is_byte_exact, |e| {
    basic().parity(e).args(["-n", "-b", "foo", "a.txt"]).exact().check();
});
engines!(last_line_gains_a_newline, |e| {
    basic().parity(e).args(["last", "no_newline.txt"]).exact().check();
    basic().parity(e).args(["-o", "-b", "foo", "no_newline.txt"]).exact().check();
    basic().parity(e).args(["-v", "middle", "no_newline.txt"]).exact().check();
    basic().parity(e).args(["-x", "last foo", "no_newline.txt"]).exact().check();
});
engines!(crlf_lines_keep_their_carriage_return, |e| {
    basic().parity(e).args(["-n", "foo", "crlf.txt"]).exact().check();
    basic().parity(e).args(["-x", "-c", "foo", "crlf.txt"]).exact().check();
});
engines!(empty_file_has_no_lines, |e| {
    basic().parity(e).args(["-c", "", "empty.txt"]).exact().check();
    basic().parity(e).args(["-L", "x", "empty.txt", "empty_dir"]).exact().check();
});

// -m
parity!(max_count_per_file, basic, ["-m", "2", "-n", "foo", "."]);
parity!(max_count_zero_selects_nothing, basic, ["-m", "0", "foo", "."]);
parity!(max_count_inverted, basic, ["-m", "2", "-v", "-n", "foo", "."]);
parity!(max_count_with_files_with_matches, basic, ["-m", "1", "-l", "foo", "."]);
parity!(max_count_with_only_matching, basic, ["-m", "1", "-o", "o", "."]);
engines!(max_count_with_context_prints_trailing_context, |e| {
    ctx_only().parity(e).args(["-m", "2", "-C", "2", "-n", "match", "ctx.txt"]).exact().check();
    ctx_only().parity(e).args(["-m", "3", "-A", "3", "match", "ctx.txt"]).exact().check();
});

// Context.
engines!(after_context, |e| {
    ctx_only().parity(e).args(["-A", "1", "-n", "match", "ctx.txt"]).exact().check();
});
engines!(before_context_overlapping, |e| {
    ctx_only().parity(e).args(["-B", "3", "-n", "match", "ctx.txt"]).exact().check();
});
engines!(context_both_sides_merges_groups, |e| {
    ctx_only().parity(e).args(["-C", "2", "-n", "match", "ctx.txt"]).exact().check();
});
engines!(context_numeric_shorthand, |e| {
    ctx_only().parity(e).args(["-3", "match", "ctx.txt"]).exact().check();
});
engines!(context_asymmetric_with_byte_offsets, |e| {
    ctx_only().parity(e).args(["-A", "1", "-B", "4", "-b", "match", "ctx.txt"]).exact().check();
});
engines!(context_inverted, |e| {
    ctx_only()
        .parity(e)
        .args(["-v", "-C", "1", "-n", "line [0-9]$|line 1[0-9]|line 2[0-8]", "ctx.txt"])
        .exact()
        .check();
});
engines!(context_with_only_matching_prints_separators_only, |e| {
    ctx_only().parity(e).args(["-o", "-C", "1", "-n", r"\d+ match", "ctx.txt"]).exact().check();
});
// -o prints the matches of selected lines (of context lines under -v):
// not those of the context lines after -m's last selected line.
engines!(only_matching_prints_no_match_of_trailing_context_after_max_count, |e| {
    ctx_only()
        .parity(e)
        .args(["-o", "-m", "2", "-A", "3", "-n", "match", "ctx.txt"])
        .exact()
        .check();
    ctx_only()
        .parity(e)
        .args(["-o", "-m", "1", "-C", "2", "-v", "line", "ctx.txt"])
        .exact()
        .check();
});
engines!(context_at_file_start_and_end, |e| {
    ctx_only().parity(e).args(["-C", "5", "-n", "line (1|30)$", "ctx.txt"]).exact().check();
});
engines!(context_is_ignored_with_count_and_list, |e| {
    ctx_only().parity(e).args(["-C", "2", "-c", "match", "ctx.txt"]).exact().check();
    basic().parity(e).args(["-C", "2", "-l", "foo", "."]).check();
});
parity!(context_across_several_files_has_separators, basic, ["-C", "1", "-n", "foo", "."]);
parity!(
    context_with_filenames_uses_dash_separator,
    basic,
    ["-A", "2", "-H", "match", "ctx.txt", "a.txt"]
);

// --include / --exclude / --exclude-dir
parity!(include_glob, basic, ["--include", "*.c", "-n", "foo", "."]);
parity!(include_glob_with_equals, basic, ["--include=*.h", "--include=*.rs", "foo", "."]);
parity!(exclude_glob, basic, ["--exclude", "*.txt", "foo", "."]);
parity!(exclude_wins_over_include, basic, ["--include", "*.c", "--exclude", "d.*", "foo", "."]);
parity!(exclude_dir, basic, ["--exclude-dir", "sub", "foo", "."]);
parity!(exclude_dir_glob_for_hidden, basic, ["--exclude-dir=.h*", "foo", "."]);
parity!(exclude_dir_matching_dot_skips_the_dot_root, basic, ["--exclude-dir=.*", "foo", "."]);
parity!(
    exclude_dir_applies_to_command_line_directories,
    basic,
    ["--exclude-dir", "sub", "foo", "sub", "a.txt"]
);
parity!(exclude_dir_nested_name, basic, ["--exclude-dir", "deep", "-i", "foo", "."]);
parity!(include_applies_to_command_line_files, basic, ["--include", "*.c", "foo", "a.txt", "sub"]);
parity!(
    exclude_applies_to_command_line_files,
    basic,
    ["--exclude", "a.*", "foo", "a.txt", "sub/b.c"]
);

// Errors.
engines!(missing_path_among_good_ones_exits_two, |e| {
    let c = basic()
        .parity(e)
        .args(["-n", "foo", "a.txt", "missing.txt", "sub"])
        .errors_expected()
        .check();
    c.trawl.assert_code(2);
    let err = c.trawl.stderr_str();
    assert!(
        err.contains("trawl: missing.txt: No such file or directory"),
        "stderr should name the missing path: {err:?}"
    );
});
parity!(
    missing_path_with_quiet_and_a_match_exits_zero,
    basic,
    ["-q", "foo", "missing.txt", "a.txt"]
);
engines!(missing_path_with_quiet_and_no_match_exits_two, |e| {
    basic().parity(e).args(["-q", "zzz", "missing.txt", "a.txt"]).errors_expected().check();
});
engines!(no_messages_hides_errors_but_keeps_exit_two, |e| {
    basic().parity(e).args(["-s", "foo", "missing.txt", "a.txt"]).errors_expected().check();
});
engines!(missing_path_with_files_with_matches, |e| {
    basic().parity(e).args(["-l", "foo", "missing", "."]).errors_expected().check();
});
engines!(unreadable_file_is_an_error, |e| {
    // Mode 000: an error as grep reports it (as root both simply read the file).
    let t = basic();
    t.file("locked.txt", "foo locked\n");
    let p = t.path().join("locked.txt");
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    t.parity(e).args(["foo", "."]).check();
});
engines!(invalid_regex_exits_two_with_position, |e| {
    let t = basic();
    for pat in ["a(", "(?<name", "x{2,1}", "[z-a]"] {
        let c = t
            .parity(e)
            .args([pat, "."])
            .errors_expected()
            .worded_differently("the engines' own syntax messages (issue 13, items 7-8)")
            .check();
        c.trawl.assert_code(2).assert_stdout("");
        let err = c.trawl.stderr_str();
        assert!(err.starts_with("trawl: "), "error should start with `trawl: `: {err:?}");
        assert_eq!(err.lines().count(), 1, "through a pipe, one line: {err:?}");
        // On a terminal: "at offset 2" (PCRE2) or a caret under the
        // pattern (Rust regex).
        let mut args = crate::util::engine_flags(e);
        args.extend([pat, "."]);
        let run = t.trawl().args(args).errors_to(crate::util::ErrorsTo::Terminal).run();
        run.assert_code(2);
        let err = run.stderr_str();
        let caret = err.lines().any(|l| l.trim_start().starts_with('^'));
        assert!(
            err.bytes().any(|b| b.is_ascii_digit()) || caret,
            "the error for {pat:?} should give a position or offset: {err:?}"
        );
    }
});
engines!(invalid_basic_regex_exits_two, |e| {
    let c = literal()
        .parity(e)
        .syntax("-G")
        .args([r"a\(", "."])
        .errors_expected()
        .worded_differently("POSIX's messages are not yet trawl's (issue 13, item 16)")
        .check();
    c.trawl.assert_code(2).assert_stdout("");
});
engines!(unknown_option_exits_two, |e| {
    let t = basic();
    let r =
        t.trawl().args(crate::util::engine_flags(e)).args(["--no-such-option", "foo", "."]).run();
    r.assert_code(2).assert_stdout("");
    assert!(!r.stderr.is_empty());
});

// Standard input.
engines!(reads_stdin_without_a_path, |e| {
    let t = Tree::new();
    t.parity(e).args(["foo"]).stdin("foo\nbar\nfoo bar\n").exact().check();
    t.parity(e).args(["-n", "-c", "o"]).stdin("foo\nbar\nfoo bar\n").exact().check();
});
engines!(stdin_with_filename_is_standard_input, |e| {
    let t = Tree::new();
    t.parity(e).args(["-H", "-n", "foo"]).stdin("x\nfoo\n").exact().check();
});
engines!(dash_is_stdin_among_paths, |e| {
    let t = basic();
    t.parity(e).args(["-n", "foo", "-", "a.txt"]).stdin("foo from stdin\n").check();
});
engines!(stdin_without_trailing_newline_and_no_match, |e| {
    let t = Tree::new();
    t.parity(e).args(["-v", "zz"]).stdin("a\nb").exact().check();
    t.parity(e).args(["zz"]).stdin("a\nb").exact().check();
    t.parity(e).args(["zz"]).stdin("").exact().check();
});

// --color=always, byte for byte against grep.
engines!(color_always_single_file, |e| {
    let t = basic();
    t.parity(e).args(["--color=always", "foo", "a.txt"]).exact().check();
    t.parity(e).args(["--color=always", "-i", "o", "utf8.txt"]).exact().check();
});
engines!(color_always_with_custom_match_color, |e| {
    let t = basic();
    t.parity(e)
        .args(["--color=always", "foo", "a.txt"])
        .env("GREP_COLORS", "mt=01;32")
        .exact()
        .check();
});
engines!(color_always_with_numbers_offsets_and_context, |e| {
    ctx_only()
        .parity(e)
        .args(["--color=always", "-n", "-b", "-C", "1", "match", "ctx.txt"])
        .exact()
        .check();
    ctx_only()
        .parity(e)
        .args(["--color=always", "-n", "-C", "1", "match", "ctx.txt"])
        .env("GREP_COLORS", "ms=04;35:ln=33:se=34:cx=2")
        .exact()
        .check();
});
engines!(color_always_with_filenames, |e| {
    basic().parity(e).args(["--color=always", "-H", "-n", "foo", "a.txt"]).exact().check();
    basic().parity(e).args(["--color=always", "-n", "foo", "."]).check();
    basic().parity(e).args(["--color=always", "-l", "foo", "."]).check();
    basic().parity(e).args(["--color=always", "-c", "foo", "."]).check();
});
engines!(color_always_only_matching_and_invert, |e| {
    basic().parity(e).args(["--color=always", "-o", "-b", "fo+", "a.txt"]).exact().check();
    basic().parity(e).args(["--color=always", "-v", "foo", "a.txt"]).exact().check();
});
engines!(color_always_empty_matches_are_not_colored, |e| {
    basic().parity(e).args(["--color=always", "x*", "a.txt"]).exact().check();
});

// More combinations.
parity!(context_zero_prints_separators, basic, ["-C", "0", "match", "ctx.txt"]);
parity!(null_after_names_with_context, basic, ["-Z", "-C", "1", "-n", "foo", "ctx.txt", "a.txt"]);
parity!(byte_offsets_with_context_and_invert, basic, ["-b", "-v", "-C", "1", "foo", "a.txt"]);
parity!(count_without_filenames, basic, ["-h", "-c", "foo", "."]);
parity!(count_of_a_single_file_with_filename, basic, ["-H", "-c", "foo", "a.txt"]);
parity!(quiet_inverted, basic, ["-q", "-v", "foo", "."]);
parity!(files_without_match_with_max_count, basic, ["-L", "-m", "1", "o", "."]);
parity!(exclude_glob_with_a_slash, basic, ["--exclude=sub/b.c", "foo", "."]);
parity!(exclude_dir_glob_with_a_slash, basic, ["--exclude-dir=sub/deep", "-i", "foo", "."]);
parity!(
    include_and_exclude_dir_together,
    basic,
    ["--include=*.c", "--exclude-dir=deep", "-c", "foo", "."]
);
engines!(file_operand_with_trailing_slash_is_an_error, |e| {
    basic().parity(e).args(["foo", "a.txt/", "sub"]).errors_expected().check();
});
engines!(stdin_dash_with_count_and_list, |e| {
    let t = basic();
    t.parity(e).args(["-c", "foo", "-", "a.txt"]).stdin("foo\nfoo\n").check();
    t.parity(e).args(["-L", "foo", "-", "a.txt"]).stdin("bar\n").check();
});
engines!(color_always_without_erase_line, |e| {
    basic()
        .parity(e)
        .args(["--color=always", "-n", "foo", "a.txt"])
        .env("GREP_COLORS", "ne")
        .exact()
        .check();
});
engines!(color_always_selected_and_context_line_colors, |e| {
    ctx_only()
        .parity(e)
        .args(["--color=always", "-A", "1", "match", "ctx.txt"])
        .env("GREP_COLORS", "sl=1:cx=2:mc=01;33")
        .exact()
        .check();
    ctx_only()
        .parity(e)
        .args(["--color=always", "-v", "-A", "1", "match", "ctx.txt"])
        .env("GREP_COLORS", "sl=1:cx=2:mc=01;33")
        .exact()
        .check();
});
// As GNU grep: -o's matches take no line color; an empty match color
// writes no escape at all; the line color stops before a carriage return
// that ends the line.
engines!(color_always_line_colors_as_grep_writes_them, |e| {
    let t = Tree::new();
    t.file("crlf", "abc\r\nxyz\r\nab b\r\n");
    for (colors, opts) in [
        ("sl=1:cx=2", &["-A", "1", "b"][..]),
        ("sl=1:cx=2:ms=04", &["-o", "b"]),
        ("rv:sl=7", &["-o", "-n", "b"]),
        ("mt=:fn=", &["-v", "-o", "-A", "1", "[^b]"]),
        ("mt=:sl=1", &["b"]),
    ] {
        t.parity(e)
            .args(["--color=always"])
            .args(opts)
            .args(["crlf"])
            .env("GREP_COLORS", colors)
            .exact()
            .check();
    }
});
engines!(color_always_with_several_patterns_and_word, |e| {
    basic()
        .parity(e)
        .args(["--color=always", "-w", "-e", "foo", "-e", "word", "a.txt"])
        .grep_syntax("-E")
        .exact()
        .check();
});

// ---------------------------------------------------------------------
// GNU grep behaviours users rely on (issue 13), each against GNU grep.

// Of -h and -H, the last one given wins (trawl let -h win whatever the
// order).
engines!(no_filename_and_with_filename_the_last_wins, |e| {
    let t = basic();
    for args in [["-h", "-H", "x"], ["-H", "-h", "x"]] {
        t.parity(e).stdin("x\n").args(args).check();
    }
    t.parity(e).args(["-h", "-H", "foo", "."]).check();
    t.parity(e).args(["-H", "-h", "foo", "."]).check();
});

// Two different matcher options are an error (trawl let -F win, and -G
// win over -E, whatever the order); one repeated is not.
engines!(conflicting_matchers_are_an_error, |e| {
    let t = basic();
    for pair in [["-E", "-F"], ["-F", "-E"], ["-G", "-E"], ["-E", "-G"], ["-F", "-G"]] {
        let c = t.parity(e).stdin("x\n").args(pair).args(["x"]).errors_expected().check();
        c.trawl.assert_code(2);
    }
    t.parity(e).syntax("-F").stdin("x\n").args(["-F", "x"]).check();
});

// When no line can be selected (-m 0; no pattern at all; -v with the empty
// pattern), grep exits 1 without opening a file: trawl reported the
// missing file and exited 2. -L still lists every file; -v with no
// pattern selects every line.
engines!(nothing_selectable_opens_no_file, |e| {
    let t = basic();
    for args in [
        &["-m0", "y", "no/such"][..],
        &["-c", "-m0", "foo", "."],
        &["-f", "/dev/null", "no/such"],
        &["-c", "-f", "/dev/null", "."],
        &["-v", "", "no/such"],
        &["-c", "-v", "", "."],
    ] {
        t.parity(e).args(args).check().trawl.assert_code(1).assert_stdout("");
    }
    t.parity(e).args(["-L", "-f", "/dev/null", "."]).check();
    t.parity(e).args(["-c", "-v", "-f", "/dev/null", "."]).check();
    // -x and -w keep the empty pattern meaningful: the file is opened.
    t.parity(e).args(["-v", "-x", "", "no/such"]).errors_expected().check();
});

// -r with no path searches "." even when standard input is not a terminal
// (cron jobs, `ssh host cmd </dev/null`, editors): trawl read standard
// input instead.
engines!(recursive_without_a_path_searches_the_current_directory, |e| {
    let t = basic();
    for flag in ["-r", "-R"] {
        t.parity(e).stdin("foo from stdin\n").args([flag, "-n", "foo"]).check();
    }
    // Without -r, standard input as before.
    t.parity(e).stdin("foo from stdin\n").args(["foo"]).check();
});

// The deprecated GREP_COLOR colors matches (trawl ignored it), unless
// GREP_COLORS sets the match color; while it has an effect, a warning.
engines!(grep_color_colors_matches_with_a_warning, |e| {
    let t = basic();
    for (legacy, colors) in
        [("36", None), ("01;32", Some("sl=1")), ("36", Some("mt=35")), ("x", None)]
    {
        let mut p = t.parity(e).stdin("x foo\n").args(["--color=always", "foo"]).exact();
        p = p.env("GREP_COLOR", legacy);
        if let Some(c) = colors {
            p = p.env("GREP_COLORS", c);
        }
        p.check();
    }
});

// Issue 13 #19: with -o, every printed line shows its matches, context lines
// too: under -v the context lines are the matching ones (`2-yes`).
engines!(only_matching_prints_the_matches_of_context_lines, |e| {
    let t = basic();
    let input = "a\nyes\nb\nc\nd\nyes\ne\n";
    for args in [
        &["-n", "-v", "-o", "-C1", "yes"][..],
        &["-v", "-o", "-A1", "e"],
        &["-n", "-o", "-C1", "yes"],
        &["-v", "-o", "-B2", "-n", "e"],
        &["-b", "-v", "-o", "-C1", "y"],
        &["-v", "-o", "y"],
    ] {
        t.parity(e).stdin(input).args(args).exact().check();
    }
});

// Issue 13 #17: --include and --exclude as GNU grep orders them: the last
// option that matches a file decides; when none matches, the file is kept
// unless the first such option is --include. --exclude-dir=dir/ names dir.
engines!(include_and_exclude_last_matching_option_wins, |e| {
    let t = Tree::new();
    t.file("x/a", "hit\n").file("x/b", "hit\n").file("x/dir/d", "hit\n").file("x/ab", "hit\n");
    for opts in [
        &["--exclude=zzz", "--include=a*", "--exclude=a*"][..],
        &["--exclude=a*", "--include=a*"],
        &["--exclude=zzz", "--include=a*"],
        &["--include=a*"],
        &["--include=zzz", "--exclude=b"],
        &["--include=a*", "--exclude=ab", "--include=*b"],
        &["--exclude-dir=dir/"],
        &["--exclude-dir=dir", "--include=d"],
    ] {
        t.parity(e).args(opts).args(["-r", "hit", "x"]).check();
    }
});

// What GNU grep matches --include, --exclude and --exclude-dir against: a
// name found by recursion by its base name; a name given on the command
// line by itself and by every part after a `/` (a pattern without
// wildcards also by the parts that start with one); the `.` searched when
// no path is given never; a link -R cannot follow only if its name is kept.
engines!(name_globs_match_what_grep_matches, |e| {
    let t = basic();
    t.symlink("nowhere", "sub/dang.txt");
    for opts in [
        &["--exclude=s*", "foo", "sub"][..],
        &["--exclude-dir=*/deep", "foo", "sub"],
        &["--exclude-dir=s*", "foo", "sub/deep/.."],
        &["--exclude-dir=..", "foo", "sub/deep/../"],
        &["--exclude=/b.c", "foo", "sub//b.c", "sub/d.c"],
        &["--exclude=/b.[c]", "foo", "sub//b.c", "sub/d.c"],
        &["--include=sub/b*", "foo", "./sub/b.c", "sub/d.c"],
        &["-R", "--include=*.c", "foo", "sub"],
        &["-R", "--exclude=dang*", "foo", "sub"],
    ] {
        t.parity(e).args(["-c"]).args(opts).check();
    }
    t.parity(e).args(["-c", "-R", "foo", "sub"]).errors_expected().check();
    for dir in [".", "*", ".*"] {
        let exclude = format!("--exclude-dir={dir}");
        t.parity(e).trawl_args(["-r"]).args(["-c", &exclude, "foo"]).check();
    }
});

// Issue 13 #4: with -m, a seekable standard input is left just after the
// last selected line, for the next reader (`{ grep -m1 a; cat; } < file`).
#[test]
fn max_count_leaves_standard_input_after_the_last_selected_line() {
    let t = Tree::new();
    t.file("m", "a\nb\na\nc\n");
    let both = |prog: &str, opts: &str| {
        let script = format!("{{ '{prog}' {opts}; cat; }} < m");
        let out = std::process::Command::new("sh")
            .args(["-c", &script])
            .current_dir(t.path())
            .env("LC_ALL", "C")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let trawl = crate::util::trawl_bin();
    for opts in [
        "-m1 a",
        "-m1 -A1 a",
        "-m2 a",
        "-m1 -c a",
        "-m1 zz",
        "-m1 -v a",
        "-m1 -q a",
        "-m1 -l a",
        "-m1 -n -b a",
    ] {
        assert_eq!(both(trawl, opts), both("grep", opts), "{opts}");
    }
    assert_eq!(both(trawl, "-m1 a"), "a\nb\na\nc\n");
}

// Issue 13 #21 (part): --group-separator, --no-group-separator (the last
// one given wins), --label, -U/--binary and --exclude-from, against GNU grep.
engines!(group_separator_label_binary_and_exclude_from, |e| {
    let t = Tree::new();
    t.file("gs.txt", "a\nx\nb\nc\nd\nx\ne\n").file("gs2.txt", "x1\n").file("exf", "gs2*\n");
    for opts in [
        &["--group-separator=XX", "-A0", "x", "gs.txt"][..],
        &["--group-separator=", "-A0", "x", "gs.txt"],
        &["--no-group-separator", "-A0", "x", "gs.txt"],
        &["--group-separator=XX", "--no-group-separator", "-A0", "x", "gs.txt"],
        &["--no-group-separator", "--group-separator=YY", "-A0", "x", "gs.txt"],
        &["--group-separator=XX", "-A0", "x", "gs.txt", "gs2.txt"],
        &["-U", "x", "gs.txt"],
        &["--binary", "-c", "x", "gs.txt"],
        &["--exclude-from=exf", "x", "gs.txt", "gs2.txt"],
        &["--exclude-from=exf", "--include=gs2*", "x", "gs.txt", "gs2.txt"],
    ] {
        // Several files: trawl in grep's order (the operands'), to compare
        // byte for byte, separators included.
        t.parity(e).trawl_args(["--sort", "path"]).args(opts).exact().check();
    }
    for opts in
        [&["--label=foo", "-H", "x"][..], &["--label=foo", "-c", "x"], &["--label=foo", "-l", "x"]]
    {
        t.parity(e).stdin("a\nx\n").args(opts).exact().check();
    }
});

// Issue 13 #21: -z/--null-data. Lines end at NUL in input and output, a
// newline is an ordinary byte inside a line (which is the pattern's
// subject: `^` and `$` at its ends), no file is binary; -c, -l and -L
// still end their records with a newline. Every output mode against grep.
engines!(null_data_ends_lines_at_nul_in_every_output_mode, |e| {
    let t = Tree::new();
    t.file("z1", "a\nb\0c\0d\0a\n\0c")
        .file("z2", "x\0a\0b a\0")
        .file("z3", "plain\ntext a\n")
        .file("z4", "");
    let files = ["z1", "z2", "z3", "z4"];
    for opts in [
        &[][..],
        &["-n"],
        &["-b"],
        &["-o"],
        &["-o", "-b"],
        &["-v"],
        &["-c"],
        &["-l"],
        &["-L"],
        &["-q"],
        &["-A1"],
        &["-B1", "-n"],
        &["-C1", "--group-separator=XX"],
        &["-m1"],
        &["-m1", "-c"],
        &["-h"],
        &["-x"],
        &["-w"],
        &["--color=always"],
        &["-Z", "-l"],
        &["-c", "-v"],
    ] {
        // `\Z` (the end or before a final newline) is PCRE2's alone.
        let pcre = if e == crate::util::Engine::Rust { "b$" } else { r"b\Z" };
        for p in ["a", r"a\s", "^c", "a$", pcre, "[^x]+", "a.b"] {
            let args = [&["-z"][..], opts, &["-e", p], &files].concat();
            let sep = if opts.iter().any(|o| ["-c", "-l", "-L"].contains(o)) { b'\n' } else { 0 };
            let sep = if opts.contains(&"-Z") { 0 } else { sep };
            t.parity(e).trawl_args(["--sort", "path"]).args(&args).records(sep).exact().check();
        }
    }
    // -G: GNU's `.` and bracket expressions match a newline under -z.
    let backref = if e == crate::util::Engine::Rust { "a.*a" } else { r"\(a\).*\1" };
    for p in ["a.b", r"a[^x]b", "^b", "a$", backref] {
        t.parity(e)
            .syntax("-G")
            .trawl_args(["--sort", "path"])
            .args(["-z", "-e", p])
            .args(files)
            .records(0)
            .exact()
            .check();
    }
    // Standard input, and -F.
    t.parity(e).stdin("a\nb\0c\0").args(["-z", "-n", "c"]).records(0).exact().check();
    t.parity(e).syntax("-F").stdin("a\nb\0b\0").args(["-z", "-x", "b"]).records(0).exact().check();
});

/// Standard error without the program's name at the start of each line.
fn unprefixed(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr).replace("trawl", "PROG").replace("grep", "PROG")
}

// Issue 13 #21: -T puts a tab between a line's prefix and its text (not
// when there is no prefix, not on -c's counts), in every prefix shape.
engines!(initial_tab_follows_the_prefix, |e| {
    let t = Tree::new();
    t.file("t1", "a\nb\na b\n").file("t2", "b\n");
    for opts in [
        &["-T", "a", "t1"][..],
        &["-T", "-n", "a", "t1"],
        &["-T", "-H", "-n", "-b", "a", "t1", "t2"],
        &["-T", "-c", "b", "t1", "t2"],
        &["-T", "-o", "-b", "b", "t1"],
        &["-T", "-n", "-C1", "b", "t1", "t2"],
        &["-T", "-Z", "-H", "a", "t1"],
        &["--initial-tab", "-h", "-n", "b", "t1", "t2"],
    ] {
        t.parity(e).trawl_args(["--sort", "path"]).args(opts).exact().check();
    }
});

// -T right-aligns line numbers and byte offsets to the widest the stream
// allows (GNU grep): the digits of a regular file's size (one more under
// -n), 19 for a pipe.
engines!(initial_tab_aligns_numbers_to_the_size_of_the_stream, |e| {
    let t = Tree::new();
    let long = format!("a\n{}\na\n", "b".repeat(95));
    t.file("s9", "a\nb\na b\n").file("s99", &long[..long.len() - 1]).file("s100", &long);
    for opts in [
        &["-T", "-n", "a", "s9", "s99", "s100"][..],
        &["-T", "-b", "a", "s9", "s99", "s100"],
        &["-T", "-n", "-b", "-C1", "a", "s99"],
        &["-T", "-o", "-b", "-h", "a", "s100"],
    ] {
        t.parity(e).trawl_args(["--sort", "path"]).args(opts).exact().check();
    }
    t.parity(e).args(["-T", "-n", "-b", "a"]).stdin(long.as_bytes()).exact().check();
});

// GNU grep writes -T's tab only before text: an empty line, selected or
// context, ends at its prefix.
engines!(initial_tab_is_not_written_before_an_empty_line, |e| {
    let t = Tree::new();
    t.file("t1", "a\n\nb\n\n").file("t2", "\n");
    for opts in [
        &["-T", "-H", "-n", "-C1", "^a", "t1"][..],
        &["-T", "-n", "^", "t1", "t2"],
        &["-T", "-b", "-v", "b", "t1"],
        &["-T", "-Z", "-H", "-A1", "a", "t1"],
    ] {
        t.parity(e).trawl_args(["--sort", "path"]).args(opts).exact().check();
    }
});

// Issue 13 #21: -d/--directories for directory operands (grep without -r
// reads them, which fails: "Is a directory"), the last of -d and -r wins;
// -D/--devices skips FIFOs and devices named as operands, while standard
// input is still read.
#[test]
fn directories_and_devices_actions() {
    let t = Tree::new();
    t.file("f", "a\n").file("d/x", "a\n").fifo("p");
    for opts in [
        &["-d", "skip", "a", "f", "d"][..],
        &["-d", "read", "a", "f", "d"],
        &["-d", "read", "-c", "a", "f", "d"],
        &["--directories=skip", "-c", "a", "d"],
        &["-d", "skip", "-r", "a", "f", "d"],
        &["-r", "-d", "skip", "a", "f", "d"],
        &["-d", "recurse", "a", "f", "d"],
        &["-D", "skip", "a", "f", "p", "/dev/null"],
        &["--devices=skip", "-c", "a", "/dev/null"],
    ] {
        let grep = t.grep().args(opts).env("LC_ALL", "C").run();
        let trawl = t.trawl().args(["--sort", "path"]).args(opts).run();
        assert_eq!(trawl.stdout_str(), grep.stdout_str(), "{opts:?}");
        assert_eq!(unprefixed(&trawl.stderr), unprefixed(&grep.stderr), "{opts:?}");
        assert_eq!(trawl.code, grep.code, "{opts:?}");
    }
    let run = t.trawl().args(["-D", "skip", "a"]).stdin("a\n").run();
    run.assert_code(0).assert_stdout("a\n");
    // -D read: a socket met in recursion is opened (and fails, as for grep).
    let sock = t.path().join("d/s");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for (opts, code) in [(&["-D", "read"][..], 2), (&[][..], 0)] {
        let args = [&["-r"][..], opts, &["a", "d"]].concat();
        let grep = t.grep().args(&args).env("LC_ALL", "C").run();
        let trawl = t.trawl().args(["--sort", "path"]).args(&args).run();
        assert_eq!(trawl.stdout_str(), grep.stdout_str(), "{args:?}");
        assert_eq!(unprefixed(&trawl.stderr), unprefixed(&grep.stderr), "{args:?}");
        assert_eq!((trawl.code, grep.code), (code, code), "{args:?}");
    }
}

// Issue 13 #21: a command line grep refuses is refused in grep's words:
// one line naming the option, the usage line, where to find help; exit 2.
#[test]
fn command_line_mistakes_are_reported_as_grep_does() {
    let t = Tree::new();
    t.file("f", "a\n");
    for args in [
        &["-K", "a", "f"][..],
        &["-nK", "a", "f"],
        &["--foo", "a", "f"],
        &["--foo=bar", "a", "f"],
        &["a", "f", "-e"],
        &["a", "f", "--regexp"],
        &["--no-filename=3", "a", "f"],
        &["-m", "x", "a", "f"],
        &["-A", "x", "a", "f"],
        &["--context=-1", "a", "f"],
        &["--binary-files=foo", "a", "f"],
        &["-D", "foo", "a", "f"],
    ] {
        let grep = t.grep().args(args).env("LC_ALL", "C").run();
        let trawl = t.trawl().args(args).run();
        assert_eq!(unprefixed(&trawl.stderr), unprefixed(&grep.stderr), "{args:?}");
        trawl.assert_code(2).assert_stdout("");
        assert_eq!(grep.code, 2, "{args:?}");
    }
    // -d with a wrong action: grep's words, though grep itself exits 1 there.
    let grep = t.grep().args(["-d", "foo", "a", "f"]).env("LC_ALL", "C").run();
    let trawl = t.trawl().args(["-d", "foo", "a", "f"]).run();
    assert_eq!(unprefixed(&trawl.stderr), unprefixed(&grep.stderr));
    trawl.assert_code(2);
}

// A binary file's notice (on standard output here, standard error in GNU
// grep) is no group of context: no `--` before it or on its account, whether
// files are written as they end or in order. GNU grep counts the file as
// output, so that a `--` starts its standard output when such a file comes
// first (operands b a): that line alone is not expected of trawl, whose
// lines must not depend on the order files end in.
#[test]
fn binary_notice_takes_no_group_separator() {
    let t = Tree::new();
    t.file("a", "x\nmatch\ny\n").file("b", "match\0\n").file("c", "match\n");
    t.file("d", "z\0match\n");
    let is_notice = |l: &&[u8]| l.starts_with(b"trawl: ") && l.ends_with(b": binary file matches");
    for ops in [&["a", "b", "c"][..], &["b", "a"], &["a", "b"], &["b", "d", "c"], &["a", "b", "d"]]
    {
        // One thread writes each file as it ends, in operand order.
        for order in [&["-j", "1"][..], &["--sort", "path"]] {
            let args = [&["-C", "1", "-H", "match"][..], ops].concat();
            let grep = t.grep().env("LC_ALL", "C").args(&args).run();
            let trawl = t.trawl().env("LC_ALL", "C").args(order).args(&args).run();
            let got = crate::util::lines(&trawl.stdout);
            let (notices, lines): (Vec<&[u8]>, Vec<&[u8]>) = got.into_iter().partition(is_notice);
            let want_err = String::from_utf8_lossy(&grep.stderr).replace("grep: ", "trawl: ");
            let mut want_notices: Vec<&str> = want_err.lines().collect();
            want_notices.sort_unstable();
            let mut notices: Vec<String> =
                notices.iter().map(|l| String::from_utf8_lossy(l).into_owned()).collect();
            notices.sort_unstable();
            let ctx = format!("{ops:?} {order:?}\n{}\n{}", trawl.stdout_str(), grep.stdout_str());
            let mut want = crate::util::lines(&grep.stdout);
            if ops[0] == "b" {
                assert_eq!(want.first(), Some(&&b"--"[..]), "grep's leading --\n{ctx}");
                want.remove(0);
            }
            assert_eq!(lines, want, "{ctx}");
            assert_eq!(notices, want_notices, "{ctx}");
            assert_eq!(trawl.code, grep.code, "{ctx}");
        }
    }
}

// A file whose lines print as nothing (-o, no match in them) is a group of
// context all the same: `--` goes between it and its neighbours, as in GNU
// grep, once per file, even with each line written as it comes.
engines!(lines_printed_as_nothing_are_a_group_of_context, |e| {
    let t = Tree::new();
    t.file("a", "1\n2\n").file("b", "3\n").file("c", "4\nx5\n");
    for opts in [
        &["-o", "-C", "1", "x*"][..],
        &["-o", "-A", "0", "x*", "--line-buffered"],
        &["-o", "-v", "-m", "1", "-A", "1", "[0-9]"],
    ] {
        for order in [&["-j", "1"][..], &["--sort", "path"]] {
            t.parity(e).trawl_args(order).args(opts).args(["a", "b", "c"]).exact().check();
        }
    }
});

// A short option's value is the rest of its cluster, `=` included, as
// getopt reads it: `-e=foo` looks for "=foo", `-m=1` is no count.
engines!(a_short_option_value_keeps_its_equals_sign, |e| {
    let t = Tree::new();
    t.parity(e).args(["-e=foo"]).stdin("foo\n=foo\n").exact().check();
    t.parity(e).args(["-ie=FOO"]).stdin("foo\n=foo\n").exact().check();
    t.parity(e).args(["-m=1", "foo"]).stdin("foo\n").errors_expected().exact().check();
    t.parity(e).args(["-A=1", "foo"]).stdin("foo\n").errors_expected().exact().check();
});
