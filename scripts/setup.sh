#!/usr/bin/env bash
# One-shot set-up for hinestask on a Debian machine:
#   1. Debian packages (build tools, hwloc, FxT, cmocka, Open MPI, pajeng, matplotlib),
#   2. StarPU 1.3.10 built from Debian's *source* package with FxT, MPI, 256 CPU workers
#      and CUDA when nvcc is found (Debian's binary libstarpu-dev has none of these), and
#      blocking drivers: idle CPU workers sleep instead of polling, so that they leave their
#      cores to the GPUs' driver threads (scripts/starpu-patches/03: CUDA workers still poll),
#      BENCHMARKS.md "CPU workers that sleep while idle",
#   3. a CMake build of hinestask in ./build.
# Re-running it is cheap: the StarPU prefix carries a stamp of its configuration and
# is reused when the stamp matches.
#
# Environment:
#   HINESTASK_DEPS   where StarPU is installed (default: $HOME/.local/hinestask-deps)
#   HINESTASK_CUDA   auto (default) | on | off: build StarPU and the codelets with CUDA
#   BUILD_DIR        CMake build directory (default: build)
#   JOBS             parallel make jobs (default: nproc)
#   STARPU_CONFIGURE_EXTRA  more flags for StarPU's configure (e.g. --enable-debug); part of
#                    the stamp, so a prefix of its own
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps_root=${HINESTASK_DEPS:-$HOME/.local/hinestask-deps}
build_dir=${BUILD_DIR:-$repo_root/build}
jobs=${JOBS:-$(nproc)}
starpu_version=1.3.10
starpu_debian_version=1.3.10+dfsg-2

log() { printf '[setup] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# ---------------------------------------------------------------- CUDA choice
nvcc_path=$(command -v nvcc || true)
if [ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  nvcc_path=/usr/local/cuda/bin/nvcc
fi
case "${HINESTASK_CUDA:-auto}" in
  on) [ -n "$nvcc_path" ] || { log "HINESTASK_CUDA=on but nvcc was not found"; exit 1; }; use_cuda=1 ;;
  off) use_cuda=0 ;;
  auto) if [ -n "$nvcc_path" ]; then use_cuda=1; else use_cuda=0; fi ;;
  *) log "HINESTASK_CUDA must be auto, on or off"; exit 2 ;;
esac

# ---------------------------------------------------------------- packages
# libhwloc-plugins: present on many machines anyway; installed everywhere so the sanitizer job
# sees the same hwloc start-up on every machine (tests/lsan.supp covers its plugin's leak).
# pajeng: pj_dump, the Paje reader the trace test checks paje.trace with.
# python3-matplotlib/numpy: the figure scripts (scripts/bench/plot.py, trace_report.py --png,
# plot_probes.py); gnuplot is no longer needed. Open MPI: StarPU-MPI and the mpirun tests.
packages=(build-essential cmake pkg-config dpkg-dev libhwloc-dev libhwloc-plugins libfxt-dev
  libcmocka-dev libnuma-dev libltdl-dev python3 python3-matplotlib python3-numpy pajeng
  libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# ---------------------------------------------------------------- StarPU
cuda_flags=""
if [ "$use_cuda" -eq 1 ]; then
  cuda_home=$(cd "$(dirname "$nvcc_path")/.." && pwd)
  cuda_flags="--enable-cuda --with-cuda-dir=$cuda_home"
fi
configure_flags="--with-fxt --enable-maxcpus=256 --enable-maxcudadev=8 --disable-opencl \
--disable-build-examples --disable-build-tests --disable-build-doc --enable-mpi \
--disable-fortran --disable-socl --disable-starpufft --disable-starpupy --disable-mlr \
--disable-hdf5 --disable-leveldb --without-blas --disable-opengl-render --enable-blocking-drivers \
$cuda_flags"
configure_flags=$(echo "$configure_flags" | tr -s ' ')
configure_flags="$configure_flags${STARPU_CONFIGURE_EXTRA:+ $STARPU_CONFIGURE_EXTRA}"
stamp_text="starpu=$starpu_debian_version
patches=$(cat "$repo_root"/scripts/starpu-patches/*.patch | sha256sum | cut -c1-16)
flags=$configure_flags
cc=$(gcc -dumpfullversion)"
tag=$(printf '%s' "$stamp_text" | sha256sum | cut -c1-12)
prefix=$deps_root/starpu-$starpu_version-$tag

if [ -f "$prefix/.hinestask-stamp" ] && [ "$(cat "$prefix/.hinestask-stamp")" = "$stamp_text" ]; then
  log "reusing StarPU in $prefix"
else
  log "building StarPU $starpu_debian_version into $prefix (cuda=$use_cuda); this takes a while"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # A private deb-src list derived from the machine's own configured Debian sources, so no
  # mirror host is ever written into this repository, and the system's package lists stay untouched.
  mkdir -p "$work/apt/sources" "$work/apt/lists/partial"
  found_source=0
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    grep -qi 'debian' "$f" || continue
    sed -e 's/^Types:.*/Types: deb-src/' "$f" >"$work/apt/sources/$(basename "$f")"
    found_source=1
  done
  if [ -f /etc/apt/sources.list ]; then
    grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >"$work/apt/sources/from-sources.list" || true
    [ -s "$work/apt/sources/from-sources.list" ] && found_source=1
  fi
  [ "$found_source" -eq 1 ] || { log "no Debian apt source is configured on this machine"; exit 1; }
  apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work/apt/sources"
    -o "Dir::State::Lists=$work/apt/lists")
  as_root apt-get "${apt_opts[@]}" update -qq
  (cd "$work" && apt-get "${apt_opts[@]}" source --download-only -qq "starpu=$starpu_debian_version")
  (cd "$work" && dpkg-source --no-check -x starpu_*.dsc src >/dev/null)
  for patch in "$repo_root"/scripts/starpu-patches/*.patch; do
    log "applying $(basename "$patch")"
    patch -s -p1 -d "$work/src" <"$patch"
  done
  rm -rf "$prefix"
  mkdir -p "$work/build"
  (cd "$work/build" && ../src/configure --prefix="$prefix" $configure_flags >configure.log 2>&1) || {
    tail -40 "$work/build/configure.log" >&2; exit 1; }
  (cd "$work/build" && make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) || {
    tail -60 "$work/build/make.log" >&2; exit 1; }
  printf '%s' "$stamp_text" >"$prefix/.hinestask-stamp"
  ln -sfn "$prefix" "$deps_root/starpu-current"
  log "StarPU installed in $prefix"
fi
ln -sfn "$prefix" "$deps_root/starpu-current"

# ---------------------------------------------------------------- hinestask
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cmake_cuda=OFF
[ "$use_cuda" -eq 1 ] && cmake_cuda=ON
cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release -DSTARPU_PREFIX="$prefix" \
  -DHINESTASK_CUDA="$cmake_cuda" \
  ${nvcc_path:+-DCMAKE_CUDA_COMPILER=$nvcc_path} >"$deps_root/cmake.log" 2>&1 || {
  cat "$deps_root/cmake.log" >&2; exit 1; }
cmake --build "$build_dir" -j"$jobs" >"$deps_root/build.log" 2>&1 || {
  grep -E -A5 'error' "$deps_root/build.log" | head -80 >&2; log "build failed"; exit 1; }
grep -E 'warning' "$deps_root/build.log" >&2 || true
log "built $build_dir/hinestask"
