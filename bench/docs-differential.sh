#!/usr/bin/env bash
# Whole-corpus differential check of the extraction: for every PDF and every
# single compressed file of the docs corpus, the count of matching lines that
# `trawl --docs -c` gives equals `pdftotext FILE - | grep -c` / `zcat`-style
# decompression piped into grep, for the issue's three queries.
# Usage: bench/docs-differential.sh [DOCS_DIR] [TRAWL]
set -euo pipefail
docs=${1:-$HOME/.cache/trawl-bench/docs}
trawl=${2:-$(dirname "$0")/../target/release/trawl}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LC_ALL=C
queries=('package' 'Dijkstra' '[A-Za-z0-9._-]+@[A-Za-z0-9.-]+\.(org|com|net|de)')
# The reference text of each file, by the system's own tools (a file they
# fail on is left out: trawl reports those files as errors).
find "$docs" -type f \( -name '*.pdf' -o -name '*.gz' -o -name '*.bz2' -o -name '*.xz' \
  -o -name '*.zst' -o -name '*.lz4' \) ! -name '*.tar.*' -print0 |
  xargs -0 -P"$(nproc)" -n16 sh -c '
    for f; do
      out="$0/$(printf %s "$f" | md5sum | cut -c1-32)"
      case "$f" in
        *.pdf) pdftotext -q "$f" "$out.txt" 2>/dev/null || continue ;;
        *.gz) gzip -dc "$f" > "$out.txt" 2>/dev/null || { rm -f "$out.txt"; continue; } ;;
        *.bz2) bzip2 -dc "$f" > "$out.txt" 2>/dev/null || { rm -f "$out.txt"; continue; } ;;
        *.xz) xz -dc "$f" > "$out.txt" 2>/dev/null || { rm -f "$out.txt"; continue; } ;;
        *.zst) zstd -dcq "$f" > "$out.txt" 2>/dev/null || { rm -f "$out.txt"; continue; } ;;
        *.lz4) lz4 -dcq "$f" > "$out.txt" 2>/dev/null || { rm -f "$out.txt"; continue; } ;;
      esac
      printf "%s\0" "$f" > "$out.name"
    done' "$work"
files=0 differ=0
for q in "${queries[@]}"; do
  for name in "$work"/*.name; do
    f=$(tr -d '\0' < "$name")
    want=$(grep -a -c -P -e "$q" "${name%.name}.txt" || true)
    got=$("$trawl" --docs -a -c -P -e "$q" "$f" 2>/dev/null || true)
    files=$((files + 1))
    if [ "$want" != "$got" ]; then
      differ=$((differ + 1))
      echo "differs: $f ($q): tools $want, trawl $got"
    fi
  done
done
echo "docs-differential: $files file×query checks, $differ differ"
[ "$differ" -eq 0 ]
