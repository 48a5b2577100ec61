#!/usr/bin/env bash
# Runs a test program twice with one seed under two schedulers and requires identical result
# digests: the level solver gathers contributions in a fixed order, so the scheduler must not
# change a single bit. Usage: same_digest.sh PROGRAM SCHED_A SCHED_B
set -euo pipefail
program=$1
seed=${HINES_TEST_SEED:-$RANDOM$RANDOM}
a=$(HINES_TEST_SEED=$seed STARPU_SCHED=$2 "$program" | grep 'result digest')
b=$(HINES_TEST_SEED=$seed STARPU_SCHED=$3 "$program" | grep 'result digest')
echo "$2: $a"
echo "$3: $b"
[ -n "$a" ] && [ "$a" = "$b" ]
