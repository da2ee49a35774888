#!/usr/bin/env bash
# Whole-corpus differential check of the index (see bench/index_differential.py): indexed
# searches of the Linux tree or the docs corpus (--docs, --search-zip and plain) against the
# same searches with --no-index, record for record.
# Usage: bench/index-differential.sh linux|docs [DIR] [TRAWL]
exec python3 "$(dirname "$0")/index_differential.py" "$@"
