#!/usr/bin/env bash
# Regenerates every figure from the committed CSVs (or, with --run BIN_DIR, measures first: each
# wrapper then runs its own measurement script, so bench_multi.sh and bench_tridiag.sh run more
# than once). Usage: scripts/bench/all.sh [--run BIN_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
status=0
for fig in fig3 fig4 fig5 fig6 fig9-11 fig12 fig13 fig14; do
  "$here/$fig.sh" "$@" || status=$?
done
exit "$status"
