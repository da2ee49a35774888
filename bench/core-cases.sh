#!/usr/bin/env bash
# The 7 warm Linux-tree cases of the core issue: trawl against rg -uuu, each
# with -n, output through a pipe, after checking that both print the same
# number of lines. Peak RSS of each tool from GNU time.
#   usage: bench/core-cases.sh [TRAWL] [RUNS]   (corpus and peers from ../shared/bench)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
trawl=${1:-$here/../target/release/trawl}
runs=${2:-10}
dir=${TRAWL_BENCH_DIR:-$HOME/.cache/trawl-bench}
export PATH=$dir/peers/bin:$PATH
cd "$dir"
cases=(
  "PM_RESUME"
  "-i pm_resume"
  "-w [A-Z]+_SUSPEND"
  "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT"
  "foobardoesnotexist"
  "linus"
  "\\w+_RESUME"
)
printf '| case | lines | trawl (s) | rg -uuu (s) | trawl/rg | RSS trawl (MB) | RSS rg (MB) |\n|---|---|---|---|---|---|---|\n'
for c in "${cases[@]}"; do
  # Split "-i pm_resume" into flag + pattern; the pattern is the last word.
  pat=${c##* }; flags=${c% *}; [ "$flags" = "$c" ] && flags=""
  t_lines=$( ("$trawl" -n $flags -e "$pat" linux || true) | wc -l)
  r_lines=$( (rg -uuu -n $flags -e "$pat" linux || true) | wc -l)
  [ "$t_lines" = "$r_lines" ] || { echo "LINE COUNT DIFFERS for [$c]: trawl $t_lines rg $r_lines" >&2; exit 1; }
  json=$(mktemp)
  hyperfine -w 2 -r "$runs" --export-json "$json" \
    "$trawl -n $flags -e '$pat' linux | cat" "rg -uuu -n $flags -e '$pat' linux | cat" >/dev/null 2>&1
  read -r tm rm < <(python3 -c "import json,sys; r=json.load(open('$json'))['results']; print(r[0]['median'], r[1]['median'])")
  rss() { { /usr/bin/time -f %M "$@" 2>&1 >/dev/null || true; } | tail -n1; }
  t_rss=$(rss "$trawl" -n $flags -e "$pat" linux); r_rss=$(rss rg -uuu -n $flags -e "$pat" linux)
  python3 -c "print('| \`$c\` | $t_lines | %.3f | %.3f | %.2f | %.1f | %.1f |' % ($tm, $rm, $tm/$rm, $t_rss/1024, $r_rss/1024))"
  rm -f "$json"
done
