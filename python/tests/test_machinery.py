"""The driver's machinery on a real Dask cluster (a scheduler and workers fs1, fs2, fs3 on
127.0.0.1) with a stand-in trawl whose streams are known in advance: order, chunked copying,
workers that leave or come back, lost spools, a scheduler that is gone, Ctrl-C."""

import os
import signal
import time

from conftest import (
    Run,
    alive,
    children,
    free_port,
    spool_files,
    trawl_dask,
    wait_for,
)


def lines(display, n):
    return "".join("%s:%d\n" % (display, i) for i in range(n)).encode()


def base(cluster, fake_trawl, *more):
    return [
        "--scheduler-file",
        cluster.file,
        "--trawl",
        fake_trawl,
        "--grace",
        "3",
        "--connect-timeout",
        "5",
    ] + list(more)


def test_each_operand_is_a_shard_on_its_worker_and_the_output_follows_operand_order(
    healthy, fake_trawl
):
    rc, out, err = trawl_dask(
        base(healthy, fake_trawl, "--fake-lines=4", "-e", "x", "fs3:/c", "fs1:/a", "fs2:/b")
    )
    assert (rc, err.decode()) == (0, "")
    assert out == lines("fs3:/c", 4) + lines("fs1:/a", 4) + lines("fs2:/b", 4)


def test_a_stream_larger_than_many_chunks_arrives_whole_and_in_order(healthy, fake_trawl, spool):
    rc, out, err = trawl_dask(
        base(
            healthy,
            fake_trawl,
            "--chunk-size",
            "4096",
            "--spool-dir",
            spool,
            "--fake-lines=20000",
            "-e",
            "x",
            "fs1:/a",
            "fs2:/b",
        )
    )
    assert (rc, err.decode()) == (0, "")
    assert out == lines("fs1:/a", 20000) + lines("fs2:/b", 20000)
    assert spool_files(spool) == [], "the run's spools are removed at the end"


def test_a_worker_not_in_the_cluster_is_named_after_the_grace_period(healthy, fake_trawl):
    t = time.monotonic()
    rc, out, err = trawl_dask(
        base(healthy, fake_trawl, "--fake-lines=2", "-e", "x", "fs1:/a", "fs9:/z")
    )
    assert rc == 2
    assert out == lines("fs1:/a", 2)
    assert b"trawl-dask: shard fs9:/z lost: no worker named fs9 in the cluster" in err
    assert time.monotonic() - t < 60


def test_a_pinned_shard_whose_worker_is_killed_is_named_lost_and_the_run_exits_2(
    healthy, fake_trawl, pid_dir
):
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--fake-lines=5",
            "--fake-sleep-after=2,60",
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "fs1:/a",
            "fs2:/b",
            "fs3:/c",
        )
    )
    pids = wait_for(
        "three shards running", lambda: len(os.listdir(pid_dir)) == 3 and os.listdir(pid_dir), 60
    )
    time.sleep(0.5)
    healthy.kill_worker("fs2")
    t = time.monotonic()
    # The other shards sleep 60 s: the lost one must be named well before they end, and the
    # merge then waits for them; this test ends the run with SIGINT once fs2 is named.
    err = b""
    deadline = time.monotonic() + 30
    fd = run.proc.stderr.fileno()
    os.set_blocking(fd, False)
    while b"lost" not in err and time.monotonic() < deadline:
        try:
            err += os.read(fd, 4096) or b""
        except BlockingIOError:
            time.sleep(0.05)
    assert b"trawl-dask: shard fs2:/b lost: worker fs2 left" in err
    assert time.monotonic() - t < 3 + 10, "named within the grace period and a few polls"
    os.set_blocking(fd, True)
    run.proc.send_signal(signal.SIGINT)
    rc, out, rest = run.finish(30)
    assert rc == 130
    for p in pids:
        wait_for("trawl shard %s ended" % p, lambda p=p: not alive(int(p)), 10)


def test_a_pinned_shard_whose_worker_is_killed_and_never_returns_exits_2_with_the_rest(
    healthy, fake_trawl, pid_dir, tmp_path
):
    marker = str(tmp_path / "slept")
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--fake-lines=5",
            "--fake-sleep-after=2,60," + marker,
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "fs2:/b",
        )
    )
    pids = wait_for("the shard running", lambda: os.listdir(pid_dir), 60)
    wait_for("the shard asleep", lambda: os.path.exists(marker), 30)
    time.sleep(0.5)
    healthy.kill_worker("fs2")
    rc, out, err = run.finish(60)
    assert rc == 2
    assert b"trawl-dask: shard fs2:/b lost: worker fs2 left" in err
    # What the merge got before the loss is printed, and the stream is named incomplete.
    assert out == lines("fs2:/b", 2)
    assert b"incomplete" in err
    wait_for("trawl shard killed with its worker", lambda: not alive(int(pids[0])), 10)


def test_a_worker_back_within_the_grace_period_runs_the_shard_again_and_nothing_is_repeated(
    healthy, fake_trawl, pid_dir, tmp_path
):
    marker = str(tmp_path / "slept")
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--grace",
            "60",
            "--fake-lines=50",
            "--fake-sleep-after=20,60," + marker,
            "-e",
            "x",
            "fs1:/a",
            "fs2:/b",
        )
    )
    wait_for("the shard asleep", lambda: os.path.exists(marker), 60)
    time.sleep(0.5)
    healthy.kill_worker("fs1")
    time.sleep(1)
    healthy.start_worker("fs1")
    rc, out, err = run.finish(90)
    assert (rc, err.decode()) == (0, "")
    assert out == lines("fs1:/a", 50) + lines("fs2:/b", 50)


def test_a_shard_on_a_shared_path_whose_worker_is_killed_completes_on_another(
    healthy, fake_trawl, pid_dir, tmp_path
):
    marker = str(tmp_path / "slept")
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--fake-lines=50",
            "--fake-sleep-after=20,60," + marker,
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "shared:/p",
        )
    )
    wait_for("the shard asleep", lambda: os.path.exists(marker), 60)
    time.sleep(0.5)
    first = os.listdir(pid_dir)
    # The shard was dealt to the first worker in name order.
    healthy.kill_worker("fs1")
    rc, out, err = run.finish(90)
    assert (rc, err.decode()) == (0, "")
    assert out == lines("shared:/p", 50), "every line once: no gap, no repeat"
    assert not alive(int(first[0]))


def test_a_spool_lost_after_its_task_finished_is_computed_again(
    healthy, fake_trawl, spool, tmp_path
):
    marker = str(tmp_path / "slept")
    # The stand-in merge reads fs1's stream to its end before it opens fs2's, so fs2's task
    # finishes long before its spool is read (one 4 KiB chunk is taken, the rest waits).
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--chunk-size",
            "4096",
            "--spool-dir",
            spool,
            "--fake-lines=2000",
            "--fake-sleep-after=10,6," + marker,
            "-e",
            "x",
            "fs1:/a",
            "fs2:/b",
        )
    )

    def fs2_done():
        return [f for f in spool_files(spool) if f.endswith("s1-a1.done")]

    done = wait_for("fs2's shard finished", fs2_done, 60)
    os.unlink(done[0][: -len(".done")] + ".out")
    rc, out, err = run.finish(90)
    assert (rc, err.decode()) == (0, "")
    assert out == lines("fs1:/a", 2000) + lines("fs2:/b", 2000)


def test_a_failing_trawl_shard_is_tried_again_then_named(healthy, fake_trawl):
    rc, out, err = trawl_dask(
        base(healthy, fake_trawl, "--retries", "1", "--fake-fail=3", "-e", "x", "fs1:/a")
    )
    assert rc == 2
    assert (
        b"trawl-dask: shard fs1:/a failed: trawl shard exited with status 3: "
        b"fake trawl: failing as asked"
    ) in err


def test_an_unreachable_scheduler_is_a_clear_error_within_the_timeout(fake_trawl):
    t = time.monotonic()
    rc, out, err = trawl_dask(
        [
            "--scheduler",
            "tcp://127.0.0.1:%d" % free_port(),
            "--trawl",
            fake_trawl,
            "--connect-timeout",
            "2",
            "-e",
            "x",
            "fs1:/a",
        ],
        timeout=60,
    )
    assert rc == 2
    assert err.startswith(b"trawl-dask: cannot reach the scheduler at tcp://127.0.0.1:")
    assert out == b""
    assert time.monotonic() - t < 30


def test_a_scheduler_killed_mid_run_ends_the_run_with_status_2(own_cluster, fake_trawl, pid_dir):
    own_cluster.start(("fs1",))
    run = Run(
        base(
            own_cluster,
            fake_trawl,
            "--fake-lines=5",
            "--fake-sleep-after=2,60",
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "fs1:/a",
        )
    )
    wait_for("the shard running", lambda: os.listdir(pid_dir), 60)
    own_cluster.kill_scheduler()
    t = time.monotonic()
    rc, out, err = run.finish(60)
    assert rc == 2
    assert b"trawl-dask: lost the scheduler at" in err
    assert time.monotonic() - t < 30


def test_ctrl_c_cancels_every_task_and_leaves_no_process(healthy, fake_trawl, pid_dir, spool):
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--spool-dir",
            spool,
            "--fake-lines=5",
            "--fake-sleep-after=2,60",
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "fs1:/a",
            "fs2:/b",
            "fs3:/c",
        )
    )
    pids = wait_for(
        "three shards running", lambda: len(os.listdir(pid_dir)) == 3 and os.listdir(pid_dir), 60
    )
    merge = wait_for("the merge started", lambda: children(run.proc.pid), 10)
    t = time.monotonic()
    run.proc.send_signal(signal.SIGINT)
    rc, out, err = run.finish(30)
    assert rc == 130
    assert time.monotonic() - t < 15
    for p in pids + [str(m) for m in merge]:
        wait_for("process %s ended" % p, lambda p=p: not alive(int(p)), 10)
    wait_for("spools removed", lambda: spool_files(spool) == [], 10)


def test_ctrl_c_on_a_local_cluster_leaves_no_process(fake_trawl, pid_dir):
    run = Run(
        [
            "--local",
            "2",
            "--trawl",
            fake_trawl,
            "--fake-lines=5",
            "--fake-sleep-after=2,60",
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "local1:/a",
            "local2:/b",
        ]
    )
    pids = wait_for(
        "two shards running", lambda: len(os.listdir(pid_dir)) == 2 and os.listdir(pid_dir), 60
    )
    run.proc.send_signal(signal.SIGINT)
    rc, out, err = run.finish(30)
    assert rc == 130
    for p in pids:
        wait_for("process %s ended" % p, lambda p=p: not alive(int(p)), 10)
    assert children(run.proc.pid) == []


def test_a_single_thread_worker_runs_one_shard_at_a_time_and_reads_beside_it(
    healthy, fake_trawl, pid_dir
):
    run = Run(
        base(
            healthy,
            fake_trawl,
            "--fake-lines=3",
            "--fake-sleep-after=1,3",
            "--fake-pid-dir=" + pid_dir,
            "-e",
            "x",
            "fs1:/a",
            "fs1:/b",
        )
    )
    wait_for("a shard running", lambda: os.listdir(pid_dir), 60)
    time.sleep(1)
    assert len(os.listdir(pid_dir)) == 1, "the second shard waits for the worker's one slot"
    rc, out, err = run.finish(60)
    assert (rc, err.decode()) == (0, "")
    assert out == lines("fs1:/a", 3) + lines("fs1:/b", 3)
    assert len(os.listdir(pid_dir)) == 2
