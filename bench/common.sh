# Shared by the GPU benchmarks (bench/gpu-check.sh, bench/evolve-kernels.sh, bench/strategies.sh);
# source it after setting `root` to the repository root.

# The device image lacks tinyxml2 and sqlite: unpack the carried .deb files (.carry/debs, or ../debs
# next to a worktree copy) into /tmp/deps, nothing installed system-wide. Sets `prefix_args` (the
# CMake option pointing at them, empty when nothing was carried) and LD_LIBRARY_PATH.
unpack_carried_packages() {
    prefix_args=()
    local candidate f
    for candidate in "$root/.carry/debs" "$root/../debs"; do
        [[ -d "$candidate" ]] || continue
        mkdir -p /tmp/deps
        for f in "$candidate"/*.deb; do dpkg -x "$f" /tmp/deps; done
        export LD_LIBRARY_PATH="/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
        prefix_args=(-DCMAKE_PREFIX_PATH=/tmp/deps/usr)
        echo "unpacked $(ls "$candidate"/*.deb | wc -l) packages from $candidate"
        return 0
    done
}

# kernels/<kernel>/registration.txt as gi-tool options, the way gi_optimize_cuda_kernel() passes
# them: the block size both enables the __launch_bounds__ gene (--block-size) and gives the
# evaluator the geometry (--block). Fills the array `options`.
registration_options() {  # kernel
    options=()
    local key value
    while read -r key value; do
        case "$key" in
            ""|\#*) ;;
            function) options+=(--function "$value") ;;
            param) options+=(--param "$value") ;;
            flag) options+=(--flag "$value") ;;
            block) options+=(--block-size "$value" --block "$value") ;;
            grid) options+=(--grid "$value") ;;
            tolerance) options+=(--tolerance "$value") ;;
        esac
    done <"$root/kernels/$1/registration.txt"
}

# Builds gi-optimize (Release, no tests, sm_90) into $work/build unless GI_BUILD names a build to
# reuse; the log goes to $OUT/build.log. Sets `build` and `tool`; exits when the build fails.
build_unless_given() {
    build="${GI_BUILD:-$work/build}"
    if [[ -z "${GI_BUILD:-}" ]]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=OFF \
            -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
            cmake --build "$build" -j "$jobs" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    fi
    tool="$build/gi-tool/gi-tool"
}
