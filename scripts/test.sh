#!/usr/bin/env bash
# The test command: installs what is missing, builds gi-optimize with its tests and runs them with
# ctest. GPU tests skip (and say so) where no GPU is present.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/env.sh"
bash "$root/scripts/install-deps.sh"

build="${GI_BUILD_DIR:-$root/build/tests}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGI_BUILD_TESTS=ON
cmake --build "$build" -j "$GI_JOBS"
ctest --test-dir "$build" --output-on-failure -j "$GI_JOBS"
