#!/usr/bin/env bash
# Every header of gi-tool compiles on its own, with only the includes it names. The tests' build
# compiles sources in unity batches, where a header that forgot an include still compiles beside
# its batch-mates; a project that includes gi-optimize compiles each file apart, and there it fails
# (it did: variant_builder.hpp lost the header of the Variant it names, and only the device's CMake
# run found it). About a minute on 2 cores. Run by .ci/run after the tests.
#
#   bash scripts/check-headers.sh          # CXX picks the compiler (default g++)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/env.sh
source scripts/env.sh

cxx="${CXX:-g++}"
cuda_include=""
if command -v nvcc >/dev/null 2>&1; then
    cuda_include="$(dirname "$(dirname "$(command -v nvcc)")")/include"
fi
flags=(-std=c++20 -fsyntax-only -x c++ -I gi-tool/src -I gi-tool/gi-worker -I gi-tool/recorder/include
       -DFMT_HEADER_ONLY=1)
if [[ -n "$cuda_include" && -d "$cuda_include" ]]; then
    flags+=(-isystem "$cuda_include" -DGI_HAVE_NVRTC=1)
fi

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
mapfile -t headers < <(ls gi-tool/src/*/*.hpp gi-tool/gi-worker/*.hpp gi-tool/recorder/include/gi/*.hpp)
export cxx logs
check_one() {
    local header="$1"
    local log="$logs/$(echo "$header" | tr '/' '_').log"
    # shellcheck disable=SC2086
    "$cxx" $flags_text "$header" >"$log" 2>&1 || echo "$header" >>"$logs/failed"
}
export -f check_one
flags_text="${flags[*]}"
export flags_text
printf '%s\n' "${headers[@]}" | xargs -P "$(nproc)" -I{} bash -c 'check_one "$@"' _ {}

if [[ -s "$logs/failed" ]]; then
    echo "check-headers: these headers do not compile on their own (each must include what it uses):"
    sort "$logs/failed" | while read -r header; do
        echo "  $header:"
        grep -m3 "error" "$logs/$(echo "$header" | tr '/' '_').log" | sed 's/^/      /'
    done
    echo "check-headers: reproduce with: $cxx ${flags[*]} HEADER"
    exit 1
fi
echo "check-headers: all ${#headers[@]} headers compile on their own ($cxx)"
