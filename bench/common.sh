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
