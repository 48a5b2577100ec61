#!/usr/bin/env bash
# Fig. 12: accuracy (max relative error) and device memory of the batched tridiagonal solvers.
# Usage: scripts/bench/fig12.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_tridiag.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig12.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig12 tridiag "$@"
