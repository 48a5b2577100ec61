#!/usr/bin/env bash
# Fig. 14: multi vs mono throughput vs batch size for 2-, 3- and 4-level binary trees.
# Usage: scripts/bench/fig14.sh [--run BIN_DIR] [CSV...]
#   --run BIN_DIR  on a GPU machine: run scripts/bench_multi.sh into a fresh CSV under scripts/results/, then plot it
#   CSV...         plot these CSVs; with neither, the committed CSV(s) of scripts/results/
# Output: scripts/results/plots/fig14.png (see scripts/bench/README.md)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
figure_main fig14 multi "$@"
