#!/usr/bin/env bash
# Whole-corpus differential check of the extraction (see bench/docs_differential.py): every PDF,
# PostScript, DVI and single compressed file of the docs corpus, and every plain member of its
# tar and zip archives, `trawl --docs -c` against the system's tools piped into grep -c, for the
# issue's three queries.
# Usage: bench/docs-differential.sh [DOCS_DIR] [TRAWL]
exec python3 "$(dirname "$0")/docs_differential.py" "$@"
