#!/usr/bin/env bash
# Builds libcoll4j_mpi.so (coll4j_mpi.c against the installed mpi.h) into the directory given as $1.
# Called by Maven (exec-maven-plugin, process-classes). Without mpicc the build still succeeds: the
# jar then has no shim, and asking for MPI at run time fails with an error naming what is missing.
set -euo pipefail
out=${1:?usage: build-mpi.sh OUTPUT_DIR}
src=$(cd "$(dirname "$0")" && pwd)
cc=${MPICC:-mpicc}
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "[coll4j] WARNING: $cc not found: libcoll4j_mpi.so not built; --mpi / Team.Builder.mpi() will fail" \
       "(install openmpi-bin libopenmpi-dev, or another MPI with mpicc)" >&2
  exit 0
fi
mkdir -p "$out"
lib="$out/libcoll4j_mpi.so"
if [ -f "$lib" ] && [ -z "$(find "$src" -name '*.c' -newer "$lib" -print -quit)" ]; then
  exit 0
fi
"$cc" -O2 -std=gnu11 -fPIC -shared -Wall -Wextra -Werror -o "$lib.tmp" "$src/coll4j_mpi.c" -ldl
mv -f "$lib.tmp" "$lib"
echo "[coll4j] built $lib"
