#!/usr/bin/env bash
# Every command example of README.md and traces/README.md that runs build/hinestask or a script
# of scripts/ must run from the repository as it is (no ../shared or other file beside it):
# each is run, scaled down (--neurons 8 and --steps 3 at most, so the suite stays fast), from a
# scratch folder that sees the repository's morph/, scripts/ and build/hinestask under the
# same names, with /tmp/ paths moved into that folder. Placeholder lines (DIR, [options...])
# and the records of GPU runs (plain `hinestask`, no build/) are left out.
# Usage: tests/test_readme_examples.sh HINESTASK   (TAP output)
set -u
hinestask=${1:-${HINESTASK:-}}
if [ -z "$hinestask" ] || [ ! -x "$hinestask" ]; then
  echo "Bail out! usage: $0 path/to/hinestask"
  exit 2
fi
hinestask=$(cd "$(dirname "$hinestask")" && pwd)/$(basename "$hinestask")
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
export STARPU_SILENT=1 STARPU_NCUDA=${STARPU_NCUDA:-0}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_readme_examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/run/build" "$tmp/models"
ln -s "$source_dir/morph" "$tmp/run/morph"
ln -s "$source_dir/scripts" "$tmp/run/scripts"
ln -s "$hinestask" "$tmp/run/build/hinestask"

# The examples: lines of ```sh blocks starting with build/hinestask, scripts/ or VAR=...
# followed by one of them, continuation lines joined.
examples() {
  python3 - "$@" <<'PY'
import re, sys
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    for block in re.findall(r"^\s*```sh\n(.*?)^\s*```", text, re.S | re.M):
        for command in re.sub(r"\\\n\s*", " ", block).splitlines():
            command = re.sub(r"\s+#.*$", "", command).strip()
            words = command.split()
            while words and re.match(r"^[A-Z_]+=\S*$", words[0]):
                words = words[1:]
            if not words or not re.match(r"^(build/hinestask|scripts/)", words[0]):
                continue
            if "DIR" in command or "[" in command or "setup.sh" in command:
                continue  # placeholders; setup.sh is the fresh-clone check's business
            print(f"{path.split('/')[-2] if '/traces/' in path else 'README'}\t{command}")
PY
}

n=0
failed=0
while IFS=$'\t' read -r origin command; do
  scaled=$(printf '%s\n' "$command" | sed -E \
    -e 's#/tmp/#'"$tmp"'/#g' \
    -e 's/--neurons [0-9]+/--neurons 8/' -e 's/--steps [0-9]+/--steps 3/' \
    -e 's/--task-neurons [0-9]+/--task-neurons 4/')
  if [[ $scaled == *build/hinestask* ]]; then
    [[ $scaled == *--steps* ]] || scaled="$scaled --steps 3"
    [[ $scaled == *--neurons* ]] || scaled="$scaled --neurons 8"
  fi
  n=$((n + 1))
  if (cd "$tmp/run" && STARPU_HOME="$tmp/models" bash -c "$scaled") </dev/null >"$tmp/$n.log" 2>&1; then
    echo "ok $n - $origin: $command"
  elif grep -q "matplotlib not found" "$tmp/$n.log"; then # an optional tool (the GPU machine's image)
    echo "ok $n - $origin: $command # SKIP matplotlib not installed"
  else
    failed=$((failed + 1))
    echo "not ok $n - $origin: $command"
    echo "# ran: $scaled"
    sed 's/^/# /' "$tmp/$n.log" | tail -n 15
  fi
done < <(examples "$source_dir/README.md" "$source_dir/traces/README.md")
[ $n -gt 5 ] || { echo "not ok - only $n examples found"; exit 1; }
echo "1..$n"
[ $failed = 0 ]
