"""A stand-in for the trawl binary in tests of the driver's own machinery (spools, chunks, FIFOs,
attempts, lost workers), where what matters is the stream, not the search: it searches nothing.

- `--version`, `--help` (a few of grep's options, as trawl's help lays them out);
- `shard --request FILE`: a begin record, then `--fake-lines=N` chunk records `DISPLAY:I\\n` per
  root (with `--fake-sleep-after=K,SECS[,MARKER]`, it sleeps SECS after the K-th line, only
  when the file MARKER is not there yet (it makes it then); `--fake-fail=N` exits N at once; with
  `--fake-pid-dir=DIR` it writes its pid to DIR/<pid> first), then an end record; exit 0;
- `merge --request FILE STREAM...`: reads the streams one after the other, prints their chunk
  bytes, names a stream without an end record (`trawl: shard NAME: incomplete (no end record)`)
  and exits 2 then, else 0 (1 when there were no lines).
"""

import base64
import json
import os
import sys
import time


def arg_value(args, name, default=None):
    for a in args:
        if a.startswith(name + "="):
            return a[len(name) + 1 :]
    return default


def text(obj):
    if isinstance(obj, str):
        return obj.encode("utf-8", "surrogateescape")
    if "bytes" in obj:
        return base64.b64decode(obj["bytes"])
    return obj["text"].encode("utf-8", "surrogateescape")


def shard(path):
    with open(path) as f:
        req = json.load(f)
    args = req["args"]
    pid_dir = arg_value(args, "--fake-pid-dir")
    if pid_dir:
        with open(os.path.join(pid_dir, str(os.getpid())), "w"):
            pass
    lines = int(arg_value(args, "--fake-lines", "3"))
    sleep_after, _, sleep_secs = arg_value(args, "--fake-sleep-after", "").partition(",")
    sleep_secs, _, marker = sleep_secs.partition(",")
    sleep_secs = float(sleep_secs or 0)
    if marker and os.path.exists(marker):
        sleep_after = ""
    if arg_value(args, "--fake-fail"):
        sys.stderr.write("fake trawl: failing as asked\n")
        sys.exit(int(arg_value(args, "--fake-fail")))
    out = sys.stdout
    out.write(
        json.dumps(
            {
                "type": "shard_begin",
                "data": {
                    "protocol": 1,
                    "shard": req["shard"],
                    "host": os.uname().nodename,
                    "trawl_version": "0.1.0",
                },
            }
        )
        + "\n"
    )
    out.flush()
    n = 0
    for root in req["roots"]:
        display = text(root["display"]).decode("utf-8", "surrogateescape")
        out.write(
            json.dumps(
                {"type": "root", "data": {"operand": root["operand"], "display": {"text": display}}}
            )
            + "\n"
        )
        for i in range(lines):
            line = "%s:%d\n" % (display, i)
            out.write(
                '{"type":"chunk","data":{"kind":"other","bytes":{"text":%s}}}\n' % json.dumps(line)
            )
            n += 1
            if sleep_after and n == int(sleep_after):
                out.flush()
                if marker:
                    open(marker, "w").close()
                time.sleep(sleep_secs)
    out.write(
        json.dumps({"type": "shard_end", "data": {"status": 0 if n else 1, "stats": {}}}) + "\n"
    )
    out.flush()


def merge(streams):
    status = 1
    out = sys.stdout.buffer
    for s in streams:
        name, ended = s, False
        with open(s, "rb") as f:
            for line in f:
                if not line.endswith(b"\n"):
                    break
                rec = json.loads(line)
                if rec["type"] == "shard_begin":
                    name = rec["data"]["shard"]
                elif rec["type"] == "chunk":
                    out.write(text(rec["data"]["bytes"]))
                elif rec["type"] == "shard_end":
                    ended = True
                    if rec["data"]["status"] == 0 and status == 1:
                        status = 0
        if not ended:
            out.flush()
            sys.stderr.write("trawl: shard %s: incomplete (no end record)\n" % name)
            status = 2
    out.flush()
    return status


def main():
    argv = sys.argv[1:]
    if argv == ["--version"]:
        print("trawl 0.1.0")
    elif argv == ["--help"]:
        print("Patterns:\n  -e, --regexp <PATTERN>  Use PATTERN\n  -n, --line-number  Numbers")
    elif argv[:2] == ["shard", "--request"]:
        shard(argv[2])
    elif argv[:2] == ["merge", "--request"]:
        sys.exit(merge(argv[3:]))
    else:
        sys.stderr.write("fake trawl: %r\n" % argv)
        sys.exit(2)


if __name__ == "__main__":
    main()
