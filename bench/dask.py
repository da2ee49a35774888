#!/usr/bin/env python3
"""trawl-dask's measurements (issue 44): a split search against one trawl, the fixed start, the
per-shard overhead on a running cluster, and the client's peak memory for a 6-million-line
result. Everything listens on 127.0.0.1 and is stopped at the end; every loop is bounded.

  bench/dask.py [--venv DIR] [--trawl PATH] [--corpus DIR] [--runs N] [--out JSON]

--venv: a virtual environment with the package (default target/trawl-dask-venv, made with
`pip install ./python` when missing); --trawl: default target/release/trawl; --corpus: the
Linux tree of ../shared/bench/setup-corpus.sh (default $TRAWL_BENCH_DIR/linux). Prints a
Markdown table (for docs/DISTRIBUTED.md) and writes the figures as JSON (default
bench/results/dask-DATE.json).
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def timed(cmd, env=None, runs=3, warmup=1):
    """Median wall time of `cmd` (output to /dev/null through a pipe, as bench/run's `| cat`)."""
    times = []
    for i in range(warmup + runs):
        t = time.perf_counter()
        p = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, timeout=600
        )
        dt = time.perf_counter() - t
        if p.returncode not in (0, 1):
            sys.exit(
                "failed (%d): %s\n%s"
                % (p.returncode, " ".join(cmd), p.stderr.decode(errors="replace"))
            )
        if i >= warmup:
            times.append(dt)
    return statistics.median(times), p.stdout


class Cluster:
    """A scheduler and named single-thread workers, processes on 127.0.0.1."""

    def __init__(self, venv, names, tmp):
        self.file = os.path.join(tmp, "scheduler.json")
        self.log = open(os.path.join(tmp, "dask.log"), "wb")
        dask = os.path.join(venv, "bin", "dask")
        self.procs = [
            subprocess.Popen(
                [
                    dask,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    self.file,
                    "--idle-timeout",
                    "900",
                ],
                stdout=self.log,
                stderr=self.log,
            )
        ]
        deadline = time.monotonic() + 60
        while not os.path.exists(self.file):
            if time.monotonic() > deadline:
                sys.exit("the scheduler did not start")
            time.sleep(0.1)
        for n in names:
            self.procs.append(
                subprocess.Popen(
                    [
                        dask,
                        "worker",
                        "--scheduler-file",
                        self.file,
                        "--name",
                        n,
                        "--nthreads",
                        "1",
                        "--host",
                        "127.0.0.1",
                        "--no-dashboard",
                        "--no-nanny",
                        "--local-directory",
                        os.path.join(tmp, n),
                        "--death-timeout",
                        "60",
                    ],
                    stdout=self.log,
                    stderr=self.log,
                )
            )
        py = os.path.join(venv, "bin", "python")
        wait = (
            "from distributed import Client\nimport sys\n"
            "c = Client(scheduler_file=sys.argv[1], timeout=30)\n"
            "c.wait_for_workers(int(sys.argv[2]), timeout=60)\n"
        )
        subprocess.run([py, "-c", wait, self.file, str(len(names))], check=True, timeout=120)

    def stop(self):
        # Workers first: stopped together with their scheduler, they wait for it.
        for group in (self.procs[1:], self.procs[:1]):
            for p in group:
                p.terminate()
            for p in group:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.log.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--venv", default=os.path.join(REPO, "target", "trawl-dask-venv"))
    ap.add_argument("--trawl", default=os.path.join(REPO, "target", "release", "trawl"))
    ap.add_argument(
        "--corpus",
        default=os.path.join(
            os.environ.get("TRAWL_BENCH_DIR", os.path.expanduser("~/.cache/trawl-bench")), "linux"
        ),
    )
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--pattern", default="PM_RESUME")
    ap.add_argument("--out")
    a = ap.parse_args()
    if not os.path.exists(os.path.join(a.venv, "bin", "trawl-dask")):
        subprocess.run([sys.executable, "-m", "venv", a.venv], check=True)
        subprocess.run(
            [os.path.join(a.venv, "bin", "pip"), "install", "-q", os.path.join(REPO, "python")],
            check=True,
        )
    td = os.path.join(a.venv, "bin", "trawl-dask")
    env = dict(os.environ, LC_ALL="C")
    r = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "corpus": a.corpus,
        "pattern": a.pattern,
    }

    # 1. One trawl over the tree, against trawl-dask --local 2 splitting it in 2 shards.
    one, out1 = timed([a.trawl, "--sort", "path", "-n", a.pattern, a.corpus], env, a.runs)
    one_unsorted, _ = timed([a.trawl, "-n", a.pattern, a.corpus], env, a.runs)
    with tempfile.TemporaryDirectory() as tmp:
        tj = os.path.join(tmp, "t.json")
        dist, out2 = timed(
            [td, "--local", "2", "--trawl", a.trawl, "--timings", tj, "-n", a.pattern, a.corpus],
            env,
            a.runs,
        )
        shards = json.load(open(tj))["shards"]
        tiny = os.path.join(tmp, "tiny")
        os.makedirs(tiny)
        with open(os.path.join(tiny, "x"), "w") as f:
            f.write("x %s\n" % a.pattern)
        start, _ = timed(
            [td, "--local", "2", "--trawl", a.trawl, "-n", a.pattern, tiny], env, a.runs
        )
    r.update(
        one_trawl_sorted_s=one,
        one_trawl_s=one_unsorted,
        local2_s=dist,
        local2_shards=len(shards),
        local2_fixed_start_s=start,
        same_output=out1 == out2,
        ratio=dist / one,
        target=1.5 * one + 1.0,
    )

    # 2. A running cluster (scheduler + fs1, fs2): per-shard overhead, and 6 million lines.
    with tempfile.TemporaryDirectory() as tmp:
        c = Cluster(a.venv, ["fs1", "fs2"], tmp)
        try:
            small = os.path.join(tmp, "small")
            os.makedirs(small)
            with open(os.path.join(small, "x"), "w") as f:
                f.write("x %s\n" % a.pattern)
            over = []
            walls = []
            for i in range(max(5, a.runs * 3)):
                tj = os.path.join(tmp, "o%d.json" % i)
                t = time.perf_counter()
                subprocess.run(
                    [
                        td,
                        "--scheduler-file",
                        c.file,
                        "--trawl",
                        a.trawl,
                        "--timings",
                        tj,
                        "-n",
                        a.pattern,
                        "fs1:" + small,
                        "fs2:" + small,
                    ],
                    stdout=subprocess.DEVNULL,
                    env=env,
                    check=True,
                    timeout=120,
                )
                walls.append(time.perf_counter() - t)
                for s in json.load(open(tj))["shards"]:
                    over.append(s["first_byte"] - s["task_start"])
            r.update(
                shard_overhead_ms_median=1000 * statistics.median(over),
                shard_overhead_ms_max=1000 * max(over),
                cluster_small_search_s=statistics.median(walls),
            )

            big = os.path.join(tmp, "six")
            os.makedirs(big)
            for n in range(2):
                with open(os.path.join(big, "f%d" % n), "w") as f:
                    for j in range(0, 3_000_000, 1000):
                        f.write("".join("line %d of a file\n" % k for k in range(j, j + 1000)))
            tj = os.path.join(tmp, "six.json")
            t = time.perf_counter()
            p = subprocess.run(
                [
                    "/usr/bin/time",
                    "-f",
                    "%M",
                    td,
                    "--scheduler-file",
                    c.file,
                    "--trawl",
                    a.trawl,
                    "--timings",
                    tj,
                    "-n",
                    "line",
                    "fs1:" + big + "/f0",
                    "fs2:" + big + "/f1",
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
                timeout=900,
            )
            wall = time.perf_counter() - t
            printed = p.stdout.count(b"\n")
            tjd = json.load(open(tj))
            one6, _ = timed([a.trawl, "-n", "line", big + "/f0", big + "/f1"], env, 1, 0)
            r.update(
                six_lines=printed,
                six_s=wall,
                six_one_trawl_s=one6,
                six_client_peak_rss_mb=tjd["client_peak_rss_kb"] / 1024,
                six_merge_peak_rss_mb=tjd["children_peak_rss_kb"] / 1024,
                six_tree_peak_rss_mb=int(p.stderr.decode().strip().splitlines()[-1]) / 1024,
            )
        finally:
            c.stop()

    out = a.out or os.path.join(HERE, "results", "dask-%s.json" % r["date"][:10])
    with open(out, "w") as f:
        json.dump(r, f, indent=1)
    print("| measure | value |\n|---|---|")
    rows = [
        ("one trawl --sort path -n %s linux" % a.pattern, "%.2f s" % one),
        ("one trawl -n %s linux (unsorted)" % a.pattern, "%.2f s" % one_unsorted),
        (
            "trawl-dask --local 2 (%d shards), same output: %s" % (len(shards), r["same_output"]),
            "%.2f s (%.2fx; target 1.5x + 1 s = %.2f s)" % (dist, dist / one, r["target"]),
        ),
        ("trawl-dask --local 2 over one tiny file (fixed start)", "%.2f s" % start),
        (
            "per-shard overhead, task start to first byte (running cluster)",
            "median %.1f ms, max %.1f ms"
            % (r["shard_overhead_ms_median"], r["shard_overhead_ms_max"]),
        ),
        (
            "trawl-dask over 2 shards of one small file (running cluster)",
            "%.2f s" % r["cluster_small_search_s"],
        ),
        (
            "%d lines printed through 2 shards (one trawl: %.2f s)" % (printed, one6),
            "%.1f s; client peak RSS %.0f MB, merge %.0f MB"
            % (wall, r["six_client_peak_rss_mb"], r["six_merge_peak_rss_mb"]),
        ),
    ]
    for k, v in rows:
        print("| %s | %s |" % (k, v))


if __name__ == "__main__":
    main()
