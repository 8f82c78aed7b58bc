# Sourced by ./build and ./collbench: finds a JDK >= 25 and exports JAVA_HOME.
# Order: $JAVA_HOME if it is >= 25, then the newest /usr/lib/jvm/* that is >= 25.
# Prints one line naming what is missing and returns 1 when none is there.

coll4j_jdk_major() {  # $1 = JDK home; prints the feature version (25, 26, ...) or nothing
  local home=$1 v=""
  [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 0
  if [ -f "$home/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")
  fi
  if [ -z "$v" ]; then
    v=$("$home/bin/java" -version 2>&1 | sed -n '1s/.*version "\([0-9]*\).*/\1/p')
  fi
  echo "$v"
}

coll4j_find_jdk() {
  local need=25 best="" best_v=0 d v
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(coll4j_jdk_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge "$need" ]; then export JAVA_HOME; return 0; fi
  fi
  for d in /usr/lib/jvm/*; do
    [ -d "$d" ] || continue
    v=$(coll4j_jdk_major "$d")
    if [ -n "$v" ] && [ "$v" -ge "$need" ] && [ "$v" -gt "$best_v" ]; then best=$d; best_v=$v; fi
  done
  if [ -z "$best" ]; then
    echo "coll4j: no JDK >= $need found (JAVA_HOME=${JAVA_HOME:-unset}, nothing suitable in /usr/lib/jvm); install one, e.g. Temurin 25, or set JAVA_HOME" >&2
    return 1
  fi
  export JAVA_HOME=$best
}

# JVM flags every coll4j program needs: the incubating Vector API and FFM downcalls.
COLL4J_JVM_FLAGS=(--add-modules jdk.incubator.vector --enable-native-access=ALL-UNNAMED)
