#!/usr/bin/env bash
# The stage dependency graph of gi-tool, from CMake's own link graph (cmake --graphviz), so the
# picture in docs/architecture.md is the build's truth: writes docs/stages.dot and, where Graphviz's
# `dot` is installed (Debian: graphviz), docs/stages.svg. Run it after changing a gi_stage() line.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Only the stage libraries: no executables, external or interface libraries (gi_core, gi_apply_core
# are bundles of the stages), no recorder (the consumer's library and gi-tool's launch intercept,
# built from a few sources).
cat >"$work/CMakeGraphVizOptions.cmake" <<'OPTIONS'
set(GRAPHVIZ_GRAPH_NAME "gi_tool_stages")
set(GRAPHVIZ_EXECUTABLES FALSE)
set(GRAPHVIZ_EXTERNAL_LIBS FALSE)
set(GRAPHVIZ_INTERFACE_LIBS FALSE)
set(GRAPHVIZ_CUSTOM_TARGETS FALSE)
set(GRAPHVIZ_GENERATE_PER_TARGET FALSE)
set(GRAPHVIZ_GENERATE_DEPENDERS FALSE)
set(GRAPHVIZ_IGNORE_TARGETS "gi_recorder;gi_launch_intercept")
OPTIONS
cmake -S "$root" -B "$work" -DGI_BUILD_TESTS=OFF --graphviz="$work/graph.dot" >"$work/configure.log" 2>&1 ||
    { cat "$work/configure.log"; exit 1; }
# CMake names nodes node0, node1, ... with the target as label: keep the gi_ libraries and the edges
# between them, drop "gi_" and CMake's legend, and draw each stage above the ones it links (util at the bottom).
awk '
    /label = "gi_[a-z_]*"/ { match($0, /"node[0-9]+"/); id = substr($0, RSTART, RLENGTH)
                             match($0, /label = "gi_[a-z_]*"/); name = substr($0, RSTART + 12, RLENGTH - 13)
                             keep[id] = name; next }
    / -> / && $1 ~ /^"node/ { if (($1 in keep) && ($3 in keep)) edges[++n] = "  \"" keep[$1] "\" -> \"" keep[$3] "\";" }
    END { print "// gi-tool stage libraries and what each links (scripts/stage-graph.sh, from cmake --graphviz)"
          print "digraph stages {"; print "  node [shape = box, fontname = \"sans-serif\"];"
          for (i = 1; i <= n; ++i) print edges[i]; print "}" }' "$work/graph.dot" >"$root/docs/stages.dot"
echo "wrote docs/stages.dot"
if command -v dot >/dev/null; then
    dot -Tsvg "$root/docs/stages.dot" -o "$root/docs/stages.svg"
    echo "wrote docs/stages.svg"
else
    echo "no Graphviz dot here (apt-get install graphviz): docs/stages.svg not redrawn"
fi
