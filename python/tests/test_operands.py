"""Splitting trawl's command line into its arguments and WORKER:PATH operands (no cluster)."""

import subprocess

import pytest
from conftest import _find_trawl

from trawl_dask.operands import UsageError, ValueOptions, split

HELP = """\
Patterns:
  -e, --regexp <PATTERN>  Use PATTERN (may be repeated)
  -f, --file <FILE>       Read patterns from FILE, one per line
  -i, --ignore-case       Ignore case
      --engine <engine>   Regex engine
Output:
  -n, --line-number                Print line numbers
  -q, --quiet                      Print nothing [alias: --silent]
      --color[=<WHEN>]             Color output
      --files                      List the files that would be searched
Context:
  -A, --after-context <NUM>    Print NUM lines of trailing context
  -C, --context <NUM>          Print NUM lines of context
      --max-depth <N>          Descend at most N directories
  -I                         Skip binary files
"""

OPTS = ValueOptions.from_help(HELP)


def parts(argv, bare=False):
    c = split(argv, OPTS, bare)
    return c.command, c.args, [(o.position, o.worker, o.path) for o in c.operands]


def test_the_help_tells_which_options_take_a_value():
    assert OPTS.shorts == {"e", "f", "A", "C"}
    assert {"--regexp", "--file", "--engine", "--after-context", "--max-depth"} <= OPTS.longs
    assert "--color" not in OPTS.longs and "--line-number" not in OPTS.longs
    assert "--silent" in OPTS.all_longs


def test_the_first_positional_argument_is_the_pattern_and_the_rest_are_operands():
    assert parts(["-n", "http://x", "fs1:/a", "fs2:/b c"]) == (
        "grep",
        ["-n", "http://x"],
        [(0, "fs1", "/a"), (1, "fs2", "/b c")],
    )


def test_an_option_value_is_not_the_pattern():
    assert parts(["-A", "3", "needle", "fs1:/a"])[1] == ["-A", "3", "needle"]
    assert parts(["--after-context", "3", "needle", "fs1:/a"])[1] == [
        "--after-context",
        "3",
        "needle",
    ]
    assert parts(["--after", "3", "needle", "fs1:/a"])[1] == ["--after", "3", "needle"]
    assert parts(["-nA", "3", "needle", "fs1:/a"])[1] == ["-nA", "3", "needle"]
    assert parts(["-nA3", "needle", "fs1:/a"])[1] == ["-nA3", "needle"]
    assert parts(["--max-depth=2", "-5", "needle", "fs1:/a"])[1] == [
        "--max-depth=2",
        "-5",
        "needle",
    ]
    assert parts(["--color", "needle", "fs1:/a"])[1] == ["--color", "needle"]


def test_with_e_or_f_every_positional_argument_is_an_operand():
    assert parts(["-e", "fs1:x", "fs1:/a"]) == ("grep", ["-e", "fs1:x"], [(0, "fs1", "/a")])
    assert parts(["fs1:/a", "-ie", "x", "fs2:/b"])[2] == [(0, "fs1", "/a"), (1, "fs2", "/b")]
    assert parts(["--regexp=x", "fs1:/a"])[2] == [(0, "fs1", "/a")]
    assert parts(["-f", "pats", "fs1:/a"])[1] == ["-f", "pats"]
    assert parts(["--files", "fs1:/a"])[2] == [(0, "fs1", "/a")]


def test_double_dash_ends_the_options():
    assert parts(["-n", "--", "-x", "fs1:/a"]) == ("grep", ["-n", "--", "-x"], [(0, "fs1", "/a")])
    assert parts(["-e", "x", "--", "fs1:-a"]) == ("grep", ["-e", "x"], [(0, "fs1", "-a")])


def test_an_operand_must_name_its_worker_unless_the_cluster_is_local():
    with pytest.raises(UsageError, match="not WORKER:PATH"):
        parts(["x", "/srv/a"])
    with pytest.raises(UsageError, match="not WORKER:PATH"):
        parts(["x", "-"])
    assert parts(["x", "/srv/a:b"], bare=True)[2] == [(0, None, "/srv/a:b")]
    with pytest.raises(UsageError, match="no WORKER:PATH"):
        parts(["x"])
    with pytest.raises(UsageError, match="no pattern"):
        parts(["-n"])


def test_bytes_that_are_not_utf8_stay_in_operands_and_patterns():
    name = b"fs1:/a/\xff".decode("utf-8", "surrogateescape")
    pat = b"\xfe".decode("utf-8", "surrogateescape")
    assert parts([pat, name]) == ("grep", [pat], [(0, "fs1", name[4:])])


def test_find_operands_come_after_its_leading_options_and_before_the_expression():
    assert parts(
        ["find", "-L", "-j", "2", "--sort", "fs1:/a", "fs2:/b", "-name", "*.c", "-print0"]
    ) == (
        "find",
        ["-L", "-j", "2", "--sort", "-name", "*.c", "-print0"],
        [(0, "fs1", "/a"), (1, "fs2", "/b")],
    )
    assert parts(["find", "fs1:/a", "(", "-type", "f", ")"])[1] == ["(", "-type", "f", ")"]
    assert parts(["find", "--max-archive-depth=3", "fs1:/a"])[1] == ["--max-archive-depth=3"]
    with pytest.raises(UsageError):
        parts(["find", "-name", "x"])


def test_index_operands_are_its_arguments_that_are_not_options():
    assert parts(["index", "--full", "fs1:/a", "shared:/p"]) == (
        "index",
        ["--full"],
        [(0, "fs1", "/a"), (1, "shared", "/p")],
    )
    with pytest.raises(UsageError, match="never ends"):
        parts(["index", "--watch", "fs1:/a"])


def test_the_real_help_is_read_alike():
    t = _find_trawl()
    if t is None:
        pytest.skip("no trawl binary")
    text = subprocess.run([t, "--help"], capture_output=True, timeout=30).stdout.decode()
    o = ValueOptions.from_help(text)
    assert {"e", "f", "m", "A", "B", "C", "j", "g", "t", "d", "D", "M"} <= o.shorts
    assert not {"n", "c", "l", "L", "o", "q", "i", "v", "H", "h"} & o.shorts
    assert {"--regexp", "--max-depth", "--include", "--exclude-dir", "--sort"} <= o.longs
    assert "--color" not in o.longs and "--json" not in o.longs


def test_on_a_terminal_shards_print_line_numbers_and_colors_as_one_trawl_would():
    from trawl_dask.request import as_on_a_terminal

    assert as_on_a_terminal(["-c", "x"], False) == ["-c", "x"]
    assert as_on_a_terminal(["x"], True, {}) == ["--color=always", "-n", "x"]
    assert as_on_a_terminal(["-N", "x"], True, {"NO_COLOR": "1"}) == ["-n", "-N", "x"]
    assert as_on_a_terminal(["--color", "x"], True, {}) == ["-n", "--color=always", "x"]
    assert as_on_a_terminal(["--colour=never", "x"], True, {}) == ["-n", "--colour=never", "x"]
