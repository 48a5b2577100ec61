#!/usr/bin/env bash
# On a GPU machine, from the repository root with a bundle in .bundle (scripts/gpu_bundle.sh;
# hinestask, test_mono_layouts and test_multi_levels gzipped in bin/, the StarPU to check in lib/):
# the multi share (six cells x 16,000, HH, the cores' share asked for and calibrated twice) against
# the GPU alone, probe files compared bit for bit, then test_mono_layouts on the GPU alone and
# test_multi_levels with CPU and GPU workers; results in $OUT/rc.txt. Seventy-seventh session:
# StarPU with CPU workers that sleep while idle (scripts/starpu-patches/03).
cd .bundle/bin && gunzip -f *.gz && chmod +x * && cd ../..
export LD_LIBRARY_PATH=$PWD/.bundle/lib:$(dirname $(find /usr/local/cuda*/ -name libcublas.so.13 | head -1)) STARPU_SILENT=1 STARPU_FXT_TRACE=0 HINES_SOURCE_DIR=$PWD HINESTASK=$PWD/.bundle/bin/hinestask STARPU_HOME=$OUT/h CMOCKA_MESSAGE_OUTPUT=TAP
nvidia-smi -L > $OUT/gpu.txt
H=.bundle/bin/hinestask; M=(--mode multi); for f in morph/data/*.swc; do M+=(--morph $f); done
M+=(--neurons 16000 --hh all --steps 300 --probe 0:0 --probe 15990:50 --probe-every 0.2)
for p in 1 2; do timeout 60 $H --quiet --force "${M[@]}" --cpu-share on --calibrate --probes $OUT/cal.csv > $OUT/c$p.log 2>&1; done
timeout 60 $H --quiet --force "${M[@]}" --cpu-share on --probes $OUT/both.csv --json $OUT/both.json > $OUT/both.log 2>&1; echo "share rc=$?" >> $OUT/rc.txt
STARPU_NCPU=0 timeout 60 $H --quiet --force "${M[@]}" --probes $OUT/gpu.csv --json $OUT/gpu.json > $OUT/gpu.log 2>&1; echo "gpu rc=$?" >> $OUT/rc.txt
cmp $OUT/both.csv $OUT/gpu.csv && echo "PASS share probes identical" >> $OUT/rc.txt || echo "FAIL share probes" >> $OUT/rc.txt
grep -o '"cpu_share_neurons": [0-9]*\|"tasks_on_cpus": [0-9]*\|"seconds_per_step": [0-9.e-]*' $OUT/both.json $OUT/gpu.json >> $OUT/rc.txt
HINES_TEST_CUDA_ONLY=1 timeout 50 .bundle/bin/test_mono_layouts > $OUT/mono_cuda.txt 2>&1; echo "test_mono_layouts cuda rc=$?" >> $OUT/rc.txt
timeout 70 .bundle/bin/test_multi_levels > $OUT/multi.txt 2>&1; echo "test_multi_levels cpu+gpu rc=$?" >> $OUT/rc.txt
rm -rf $OUT/h $OUT/*.csv
