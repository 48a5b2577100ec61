#!/usr/bin/env bash
# Fig. 6: mono vs multi-morphology throughput (same shape, 16 shapes), 10 % and 50 % branches.
# Usage: scripts/bench/fig6.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_multi.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig6.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig6 multi "$@"
