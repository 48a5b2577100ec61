#!/usr/bin/env bash
# Fig. 13: CP vs NCP on systems of variable size (tridiagonal batches and the multi-morphology step).
# Usage: scripts/bench/fig13.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_tridiag.sh and scripts/bench_multi.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig13.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig13 tridiag,multi "$@"
