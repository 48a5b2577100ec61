#!/usr/bin/env bash
# The layers run bottom up, morph/ -> codelets/ -> runtime/ -> src/: no file may include a header
# of a higher layer, and nothing below src/ may name a command-line option. Fails with the
# offending file, line and header.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
layers=(morph codelets runtime src)
rank_of_header() { # the rank of the layer whose folder holds header $1, or -1 if none does
  for r in "${!layers[@]}"; do
    [ -f "$root/${layers[$r]}/$1" ] && { echo "$r"; return; }
  done
  echo -1
}
failures=0
checked=0
for r in "${!layers[@]}"; do
  folder=${layers[$r]}
  while IFS= read -r file; do
    while IFS=: read -r line header; do
      checked=$((checked + 1))
      target=$(rank_of_header "$header")
      if [ "$target" -gt "$r" ]; then
        echo "FAIL: $folder/${file##*/}:$line includes \"$header\" from ${layers[$target]}/, a higher layer"
        failures=$((failures + 1))
      fi
    done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
             sed -E 's/^([0-9]+):.*"([^"]+)".*/\1:\2/')
  done < <(find "$root/$folder" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \))
done
# Option names belong to src/: a lower layer's message or comment naming "--option" would tie it
# to one program's command line.
while IFS= read -r hit; do
  echo "FAIL: ${hit#"$root"/} names a command-line option below src/"
  failures=$((failures + 1))
done < <(grep -nE '"[^"]*--[a-z][a-z-]+' "$root"/morph/*.[ch] "$root"/codelets/*.[ch] \
           "$root"/codelets/*.cu "$root"/runtime/*.[ch] 2>/dev/null)
[ "$checked" -gt 20 ] || { echo "FAIL: only $checked includes found under $root: wrong folder?"; exit 1; }
echo "$checked includes checked, $failures upward or option-naming"
[ "$failures" -eq 0 ]
