#!/usr/bin/env bash
# Fig. 4: Block-Interleaved (BS 32-512) and Block-Shared speedup over the sequential solver vs batch size.
# Usage: scripts/bench/fig4.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_mono.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig4.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig4 mono "$@"
