#!/usr/bin/env bash
# Builds libcoll4j.so from every *.c beside this script into the directory given as $1.
# Called by Maven (exec-maven-plugin, process-classes). The ISA paths (AVX-512, AVX2, scalar)
# are chosen at run time by __builtin_cpu_supports inside the library, so one -O3 build without
# -march serves every x86-64 machine; functions carry their own target("...") attributes.
set -euo pipefail
out=${1:?usage: build-native.sh OUTPUT_DIR}
src=$(cd "$(dirname "$0")" && pwd)
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "[coll4j] WARNING: $cc not found: libcoll4j.so not built; NT copy falls back to MemorySegment.copy" >&2
  exit 0
fi
case "$(uname -m)" in
  x86_64) ;;
  *) echo "[coll4j] WARNING: native library is x86-64 only (this is $(uname -m)); using the Java fallback" >&2; exit 0 ;;
esac
shopt -s nullglob
sources=("$src"/*.c)
[ ${#sources[@]} -gt 0 ] || exit 0
mkdir -p "$out"
lib="$out/libcoll4j.so"
# rebuild only when a source is newer than the library
if [ -f "$lib" ] && [ -z "$(find "$src" -name '*.[ch]' -newer "$lib" -print -quit)" ]; then
  exit 0
fi
"$cc" -O3 -std=gnu11 -fPIC -shared -Wall -Wextra -Werror -fno-strict-aliasing \
  -o "$lib.tmp" "${sources[@]}"
mv -f "$lib.tmp" "$lib"
echo "[coll4j] built $lib"
