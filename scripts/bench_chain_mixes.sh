#!/usr/bin/env bash
# The chain-bound mixes of bench_mixes.sh (the five large cells of ../shared/morphologies, all 15,
# the deep synthetic chains), each at mono 256,000 x medium-high's 81.66 M compartments, with the
# level kernels and the flow kernel alternating, two repeats, GPU only, 100 steps. Run on the GPU
# machine from the repository root over a gpu_bundle.sh bundle in .bundle (with its
# morphologies/); writes $OUT/chainmix.csv.
b=.bundle; export LD_LIBRARY_PATH=$PWD/$b/lib:$LD_LIBRARY_PATH STARPU_SILENT=1 STARPU_NCPU=0 STARPU_HOME=$OUT/sh
large=(); all=()
for f in $b/morphologies/*.swc; do all+=(--morph $f); done
for f in 041018-zA.CNG C220498B-I4.CNG pyramidal ri05.CNG test_swc; do large+=(--morph $b/morphologies/$f.swc); done
deep=(--morph synthetic:tree:4000:9:1 --morph synthetic:tree:4000:9:2 --morph synthetic:tree:2000:5:3)
echo "repeat,mix,kernel,neurons,compartments,ms_per_step,g_per_s" > $OUT/chainmix.csv
for r in 1 2; do for mix in large all15 deep; do for k in levels flow; do
  case $mix in large) a=("${large[@]}" --neurons 6640);; all15) a=("${all[@]}" --neurons 16010);; deep) a=("${deep[@]}" --neurons 24499);; esac
  timeout 60 $b/bin/hinestask --quiet --mode multi "${a[@]}" --steps 100 --level-kernel $k --force --json $OUT/c.json >/dev/null 2>&1 &&
  python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(','.join(sys.argv[2:]+[str(j['neurons']),str(j['compartments']),'%.4f'%(j['seconds_per_step']*1e3),'%.3f'%(j['compartment_solves_per_s']/1e9)]))" $OUT/c.json $r $mix $k | tee -a $OUT/chainmix.csv
done; done; done
rm -rf $OUT/c.json $OUT/sh
