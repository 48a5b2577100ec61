#!/usr/bin/env bash
# Fig. 9-11: batched tridiagonal solve time vs batch size, ours against cuSPARSE (fig9 fp64 and fig10 fp32 small systems, fig11 large systems).
# Usage: scripts/bench/fig9-11.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_tridiag.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig9.png fig10.png fig11.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig9-11 tridiag "$@"
