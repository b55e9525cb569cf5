#!/usr/bin/env bash
# The README's main command: builds gi-optimize and the consumer example (consumer-example/, a
# stereo-disparity program) with GI_OPTIMIZE=ON and runs it on a generated stereo pair, showing
# which kernel variant it uses.
#   - no GPU: the build uses the shipped cache (consumer-example/gi-cache) for each architecture
#     with a valid entry and the original kernel otherwise, and says which; the program then lists
#     the variants it was built with and writes the CPU reference's map (it cannot run the kernel);
#   - a GPU without a valid entry for its architecture: the build records test cases and evolves the
#     kernel first (BUDGET minutes), then the program runs the new variant and checks every pixel.
# Environment: GI_EXAMPLE_BUILD_DIR (default build/example), GI_GPU_ARCHITECTURE (none: never evolve).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/env.sh"
bash "$root/scripts/install-deps.sh"

build="${GI_EXAMPLE_BUILD_DIR:-$root/build/example}"
cmake -S "$root/consumer-example" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE=ON \
      "-DGI_GPU_ARCHITECTURE=${GI_GPU_ARCHITECTURE:-}" | grep -v "^-- \(Detecting\|Check for\|Looking\|Performing\|Found\)"
cmake --build "$build" -j "$GI_JOBS" --target stereo

echo
echo "== consumer-example/stereo on a generated 320x240 pair"
"$build/stereo" --width 320 --height 240 --seed 7 --frames 50 --check \
    --write-pair "$build/pair" --out "$build/disparity.pgm"
echo "(input pair: $build/pair-left.pgm, $build/pair-right.pgm)"
