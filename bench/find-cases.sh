#!/usr/bin/env bash
# trawl find against fd, bfs and GNU find (issue 3's cases): warm -name on the
# Linux tree and the 400k-file tree, cold -name (caches dropped before each
# run, needs root), and -exec printf {} + over the .c files. Line counts are
# checked equal before timing; medians from hyperfine, output through a pipe.
#   usage: bench/find-cases.sh [TRAWL] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
trawl=${1:-$here/../target/release/trawl}
runs=${2:-10}
dir=${TRAWL_BENCH_DIR:-$HOME/.cache/trawl-bench}
export PATH=$dir/peers/bin:$PATH
cd "$dir"
median() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results']; print(' '.join('%.4f' % x['median'] for x in r))" "$1"; }
same_lines() {
  local want; want=$(eval "$1" | wc -l)
  shift
  for c in "$@"; do
    local got; got=$(eval "$c" | wc -l)
    [ "$got" = "$want" ] || { echo "LINE COUNT DIFFERS: [$c] $got vs $want" >&2; exit 1; }
  done
  echo "$want"
}
row() { # name, lines, json, baseline index
  read -r -a m < <(median "$3")
  python3 - "$1" "$2" "${m[@]}" <<'PY'
import sys
name, lines, *t = sys.argv[1:]
t = [float(x) for x in t]
print(f"| {name} | {lines} | " + " | ".join(f"{x:.3f}" for x in t) + f" | {t[0]/t[1]:.2f} |")
PY
}
j=$(mktemp)
echo "| case | lines | trawl (s) | peer (s) | other (s) | trawl/peer |"
echo "|---|---|---|---|---|---|"
for tree in linux many; do
  for name in grep.c main.c f042.txt; do
    n=$(same_lines "$trawl find $tree -name $name" "fd -u -g $name $tree" "find $tree -name $name")
    hyperfine -w 3 -r "$runs" --export-json "$j" \
      "$trawl find $tree -name $name | cat" "fd -u -g $name $tree | cat" "bfs $tree -name $name | cat" >/dev/null 2>&1
    row "warm \`-name $name\` $tree (peer fd -u, other bfs)" "$n" "$j"
  done
done
if [ "$(id -u)" = 0 ]; then
  hyperfine -r 5 --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' --export-json "$j" \
    "$trawl find linux -name grep.c | cat" "fd -u -j8 -g grep.c linux | cat" "bfs linux -name grep.c | cat" >/dev/null 2>&1
  row "cold \`-name grep.c\` linux (peer fd -u -j8, other bfs)" "-" "$j"
fi
n=$(same_lines "$trawl find linux -name '*.c' -exec printf '%s\n' {} +" "find linux -name '*.c' -exec printf '%s\n' {} +")
hyperfine -w 2 -r "$runs" --export-json "$j" \
  "$trawl find linux -name '*.c' -exec printf '%s\n' {} + | cat" \
  "find linux -name '*.c' -exec printf '%s\n' {} + | cat" \
  "bfs linux -name '*.c' -exec printf '%s\n' {} + | cat" >/dev/null 2>&1
row "\`-name '*.c' -exec printf {} +\` linux (peer GNU find, other bfs)" "$n" "$j"
rm -f "$j"
