# Shared by the GPU benchmarks (bench/gpu-check.sh, bench/evolve-kernels.sh, bench/strategies.sh,
# bench/time-genomes.sh, bench/params-baseline.sh);
# source it after setting `root` to the repository root.

# The device image lacks tinyxml2, sqlite, CLI11 and fmt: unpack the carried .deb files (.carry/debs, made on
# the development machine with `apt-get download libtinyxml2-9 libtinyxml2-dev libsqlite3-0 libsqlite3-dev
# libcli11-dev libfmt-dev libfmt9` there, and passed to the device tool's `carry`; or ../debs
# next to a worktree copy) into /tmp/deps, nothing installed system-wide. Sets `prefix_args` (the
# CMake option pointing at them, empty when nothing was carried) and LD_LIBRARY_PATH.
unpack_carried_packages() {
    prefix_args=()
    local candidate f
    for candidate in "$root/.carry/debs" "$root/../debs"; do
        [[ -d "$candidate" ]] || continue
        mkdir -p /tmp/deps
        # Once per set of packages: unpacking again rewrites the libraries under a program that
        # runs from them (a SIGBUS in a benchmark running beside another, bench/throughput-trees.sh).
        local stamp
        stamp="/tmp/deps/.unpacked-$(ls "$candidate"/*.deb | md5sum | cut -c1-12)"
        if [[ ! -f "$stamp" ]]; then
            for f in "$candidate"/*.deb; do dpkg -x "$f" /tmp/deps; done
            touch "$stamp"
        fi
        export LD_LIBRARY_PATH="/tmp/deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
        prefix_args=(-DCMAKE_PREFIX_PATH=/tmp/deps/usr)
        # Carried OpenSSL headers (gi-tool hashes cases with libcrypto when it finds it) keep their
        # configuration under the multiarch folder, which the compiler searches only in /usr.
        if [[ -d /tmp/deps/usr/include/x86_64-linux-gnu/openssl && ! -f /usr/include/openssl/evp.h ]]; then
            export CPATH="/tmp/deps/usr/include/x86_64-linux-gnu${CPATH:+:$CPATH}"
        fi
        echo "unpacked $(ls "$candidate"/*.deb | wc -l) packages from $candidate"
        return 0
    done
}

# The GPU's name and driver (`gpu`, empty without one) and its architecture as in sm_XX (`arch`, 90
# without a GPU).
detect_gpu() {
    gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
    arch="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)"
    arch="${arch:-90}"
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

# Builds gi-tool, gi-worker and the given targets (Release, tests configured so the corpus
# programs exist) into ${GI_BUILD:-/tmp/gi-throughput-build}, bench/throughput.sh's build, unless
# gi-tool is there already; the log goes to $OUT/build.log. Sets `build`, `tool`, `worker` and
# `sanitizer`; exits when the build fails. Needs `prefix_args` and `arch` (above).
build_tools_unless_built() {  # targets...
    build="${GI_BUILD:-/tmp/gi-throughput-build}"
    if [[ ! -x "$build/gi-tool/gi-tool" ]]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
            "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
            cmake --build "$build" -j "$(nproc)" --target gi-tool gi-worker "$@" >>"$OUT/build.log" 2>&1 ||
            { tail -30 "$OUT/build.log"; exit 1; }
    fi
    tool="$build/gi-tool/gi-tool" worker="$build/gi-tool/gi-worker"
    sanitizer="$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)"
}

# A device job's start (bench/calls/*.sh): the carried packages, the GPU, and a full build of this
# tree (Release, tests on, sm_90, every core) into $1, so gi_tests, gi-tool and every corpus driver
# are there for the job's steps and the bench scripts (GI_BUILD). Logs go to $OUT; prints the
# build's seconds; exits when it fails.
device_job_build() {  # build-dir
    local dir="$1" t0
    t0=$(date +%s)
    device_job_start=$t0
    unpack_carried_packages >"$OUT/deps.log" 2>&1
    detect_gpu
    cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        "${prefix_args[@]}" >"$OUT/build.log" 2>&1 &&
        cmake --build "$dir" -j "$(nproc)" >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
    echo "GPU: ${gpu:-none}; built in $(( $(date +%s) - t0 )) s"
}

# A device job's steps, after device_job_build; each runs on the build in $build (the folder the
# job gave device_job_build) and writes under $OUT. DEADLINE_S (default 1560 s, the session's 30 minutes less the
# machine's start) counts from device_job_build; SKIP="NAME ..." skips the steps so named.
device_job_step() { [[ " ${SKIP:-} " != *" $1 "* ]]; }  # name
device_job_seconds_left() { echo $(( ${DEADLINE_S:-1560} - ($(date +%s) - device_job_start) )); }

# gi_tests of $build with the filter, its log $OUT/gpu-tests-NAME.log; prints its counts and failures.
device_job_gpu_tests() {  # name filter
    local s
    s=$(date +%s)
    (cd "$build/tests" && ./gi_tests --gtest_filter="$2" >"$OUT/gpu-tests-$1.log" 2>&1)
    echo "GPU tests ($1): exit $? in $(( $(date +%s) - s )) s; $(grep -E '^\[  (PASSED|FAILED|SKIPPED) ' "$OUT/gpu-tests-$1.log" | tr '\n' ' ')"
    grep -E '^\[  FAILED  \]' "$OUT/gpu-tests-$1.log" | head -20
}

# Runs RUNS of issue 44's table for KERNELS (bench/gate-corpus.sh on $build, 110 s searches, gate
# cases MODES: 0, 1 or both), starting none that would end after the job's deadline; the runs in
# $OUT/gate-NAME, the table and the runs skipped printed.
device_job_corpus() {  # name modes runs kernels...
    local name="$1" modes="$2" runs="$3" s left
    shift 3
    s=$(date +%s)
    left=$(device_job_seconds_left)
    GI_BUILD="$build" CORPUS_KERNELS="$*" CORPUS_RUNS="$runs" CORPUS_MODES="$modes" THROUGHPUT_SECONDS=110 \
        CORPUS_DEADLINE_S="$left" OUT="$OUT/gate-$name" bash "$root/bench/gate-corpus.sh" >"$OUT/gate-$name.log" 2>&1
    echo "gate corpus ($name: $*; modes $modes; runs $runs, $left s left): exit $? in $(( $(date +%s) - s )) s"
    grep '^| ' "$OUT/gate-$name.log" | tail -8
    cat "$OUT/gate-$name"/skipped-gpu*.txt 2>/dev/null
}

# Configures and builds the tree at $1 into $2 (Release, tests configured, $arch) with half the
# cores, so two trees of an A/B build at once; the log goes to $3. The rest of the arguments are the
# targets. Returns non-zero when either step fails. Needs `prefix_args` and `arch` (above).
build_tree() {  # tree build-dir log targets...
    local tree="$1" dir="$2" log="$3"
    shift 3
    cmake -S "$tree" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
        "${prefix_args[@]}" >"$log" 2>&1 &&
        cmake --build "$dir" -j "$(($(nproc) / 2))" --target "$@" >>"$log" 2>&1
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

# The options a genome is applied with (the grammar: apply), and the registration a cache entry's key
# covers (cache write: the grammar plus grid and tolerance); --block is the evaluator's alone.
split_options() {
    grammar_options=() registration=()
    local i=0
    while (( i < ${#options[@]} )); do
        case "${options[i]}" in
            --block) ;;
            --grid|--tolerance) registration+=("${options[i]}" "${options[i + 1]}") ;;
            *) grammar_options+=("${options[i]}" "${options[i + 1]}")
               registration+=("${options[i]}" "${options[i + 1]}") ;;
        esac
        i=$((i + 2))
    done
}
# Training and held-out inputs per kernel, one driver run per string (and, for the gate corpus, the
# hand-made gate case): for the examples the training size is the
# seeds' (320x240 pairs, a 217^3 volume, a 1024^2 flow); held-out inputs are other sizes, seeds and
# problems. Training must show the kernel what it will meet: hydro trains on a smooth flow
# (Kelvin-Helmholtz) and on shocks (blasts), or an edit that zeroes the slopes (first order) looks correct.
record_args() {
    case "$1" in
        stereo) train=("--pairs 8 --width 320 --height 240"); held=("--pairs 2 --width 640 --height 480 --seed 1000") ;;
        bspline) train=("--cases 3 --size 217"); held=("--cases 1 --size 160 --seed 1000") ;;
        hydro) train=("--nx 1024 --ny 1024 --problem 5 --steps 2" "--nx 1024 --ny 1024 --problem 6 --seed 2 --steps 1")
               held=("--nx 512 --ny 384 --problem 6 --seed 3 --steps 1" "--nx 256 --ny 64 --problem 3 --steps 2") ;;
        # The gate corpus (issue 44): each program run at a realistic size records the 16 distinct
        # launches the recorder keeps (GI_RECORD_LIMIT), each holding every buffer the launch is
        # given, as a real program's recording would. `gate` is the hand-made gate case
        # (--sanitize-cases, CMake SANITIZE_ARGS): the smallest run that still reaches every edge
        # (partial tiles on both sides, more than one block), with few launches.
        aniso_diffusion)  # 928 x 928 image, six output images: 16 cases of 43 MiB, 683 MiB
            train=("--rows 928 --cols 928 --iterations 20"); held=("--rows 480 --cols 640 --iterations 2 --seed 7")
            gate=("--rows 40 --cols 37 --iterations 1 --seed 3") ;;
        dp_sweep)  # 300,000 columns x 21 rows, the whole 25 MB grid in every case: 16 of 27.5 MiB, 440 MiB
            train=("--cols 300000 --rows 21"); held=("--cols 100000 --rows 4 --seed 7")
            gate=("--cols 1000 --rows 3 --seed 3") ;;
        wavefront)  # 1376 x 1376 residues, the 7.6 MB score matrix before and after: 16 of 14.5 MiB, 231 MiB
            train=("--n 1376"); held=("--n 300 --m 280 --seed 7")
            gate=("--n 40 --m 37 --seed 3") ;;
        thermal)  # 1024 x 1024 cells: 16 cases of 16 MiB, 256 MiB
            train=("--rows 1024 --cols 1024 --iterations 20"); held=("--rows 600 --cols 800 --iterations 3 --seed 7")
            gate=("--rows 40 --cols 37 --iterations 2 --seed 3") ;;
        lu_update)  # n = 1616, the 10 MB matrix before and after: 16 of 19.9 MiB, 319 MiB
            train=("--n 1616"); held=("--n 400 --seed 7")
            gate=("--n 48 --seed 3") ;;
        elimination)  # n = 1000, the multipliers and the matrix before and after: 16 of 11.5 MiB, 183 MiB
            train=("--n 1000"); held=("--n 300 --seed 7")
            gate=("--n 17 --seed 3") ;;
        fir_decimate)  # 2^20 outputs a phase, 4 phases of 512 taps: 4 cases of 24 MiB
            train=("--outputs 1048576 --decimation 4 --taps 512 --phases 4"); held=("--outputs 30000 --decimation 3 --taps 127 --phases 3 --seed 7")
            gate=("--outputs 1000 --decimation 3 --taps 37 --phases 3 --seed 3") ;;
        row_norms)  # 32768 rows of 256: one case of 32 MiB
            train=("--rows 32768 --cols 256"); held=("--rows 1000 --cols 1000 --seed 7")
            gate=("--rows 37 --cols 300 --seed 3") ;;
        conv1d)  # 2^22 samples, 17 taps: one case of 48 MiB
            train=("--n 4194304"); held=("--n 1000003 --seed 7")
            gate=("--n 1000 --seed 3") ;;
        pcm_to_float)  # 2^23 samples: one case of 48 MiB
            train=("--count 8388608"); held=("--count 1000003 --seed 7")
            gate=("--count 1000 --seed 3") ;;
        frame_corr)  # 32768 frames of 256 samples: one case of 64 MiB
            train=("--frames 32768 --frame 256"); held=("--frames 1000 --frame 257 --seed 7")
            gate=("--frames 37 --frame 30 --seed 3") ;;
        channel_gamma)  # 4096 rows of 8192 columns: one case of 256 MiB
            train=("--rows 4096 --cols 8192"); held=("--rows 1000 --cols 3001 --seed 7")
            gate=("--rows 37 --cols 300 --seed 3") ;;
        matmul)  # the sample program's sizes: 2 cases of 2.7 MiB
            train=("--m 320 --k 320 --n 640" "--m 640 --k 320 --n 320 --seed 2"); held=("--m 256 --k 512 --n 128 --seed 3")
            gate=("--m 40 --k 37 --n 50 --seed 4") ;;
    esac
}

# Records KERNEL's training and held-out cases with its driver from $build into $work/KERNEL/cases
# and $work/KERNEL/held-out through `gi-tool record` (which also captures the kernel file's
# __constant__/__device__ variables; log: DIR/record.log). Sets `cases` and `held_out`.
record_cases() {  # kernel dir
    local kernel="$1" dir="$2" args driver="$build/kernels/${1}_driver" function
    record_args "$kernel"
    function="$(awk '$1 == "function" { print $2; exit }' "$root/kernels/$kernel/registration.txt")"
    cases="$work/$kernel/cases" held_out="$work/$kernel/held-out"
    mkdir -p "$work/$kernel"
    : >"$dir/record.log"
    # shellcheck disable=SC2086
    for args in "${train[@]}"; do record_with_tool "$kernel" "$function" "$cases" "$driver" $args >>"$dir/record.log" 2>&1; done
    # shellcheck disable=SC2086
    for args in "${held[@]}"; do record_with_tool "$kernel" "$function" "$held_out" "$driver" $args >>"$dir/record.log" 2>&1; done
    echo "recorded $(ls -d "$cases"/*/ | wc -l) training and $(ls -d "$held_out"/*/ | wc -l) held-out cases"
}

# `gi-tool record` of kernels/KERNEL with a driver command line into OUT.
record_with_tool() {  # kernel function out driver args...
    local kernel="$1" function="$2" out="$3"
    shift 3
    "$tool" record "$root/kernels/$kernel/$kernel.cu" --function "$function" --out "$out" -- "$@"
}

# Driver runs that time and check a build: the training size and two held-out inputs.
driver_runs() {
    case "$1" in
        stereo) runs=("--width 320 --height 240 --pairs 3 --reps 50" "--width 640 --height 480 --seed 1000 --reps 20"
                      "--width 333 --height 101 --seed 77 --reps 20") ;;
        bspline) runs=("--size 217 --cases 2 --reps 50" "--size 160 --seed 1000 --reps 20" "--size 217 --seed 5 --use-bspline 0 --reps 20") ;;
        hydro) runs=("--nx 1024 --ny 1024 --problem 5 --reps 50" "--nx 512 --ny 384 --problem 6 --seed 3 --steps 5 --reps 20"
                     "--nx 256 --ny 64 --problem 3 --steps 20 --reps 20") ;;
    esac
    sanitize_args=()
    case "$1" in
        stereo) sanitize_args=(--width 100 --height 60 --reps 0) ;;
        bspline) sanitize_args=(--size 40 --reps 0) ;;
        hydro) sanitize_args=(--nx 70 --ny 50 --steps 1 --reps 0) ;;
    esac
}
speed() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "n/a" }'; }
median_of() { grep -o 'median [0-9.]* ms' <<<"$1" | head -1 | awk '{print $2}'; }

# Applies GENOME to kernels/KERNEL and builds that kernel's driver with the variant in place of the
# original file, in the background (the caller waits): $work/KERNEL/KERNEL_WHICH, logs and the
# variant source in DIR. An empty genome builds the original. Needs `tool`, `arch` and
# `grammar_options` (split_options).
build_driver_with_genome() {  # kernel which genome dir
    local kernel="$1" which="$2" genome="$3" dir="$4"
    local source_file="$root/kernels/$kernel/$kernel.cu" variant_file apply_out
    local flags=()
    variant_file="$source_file"
    mkdir -p "$work/$kernel"
    printf '%s\n' "$genome" >"$dir/$which.genome"
    if [[ -n "$genome" ]]; then
        variant_file="$dir/$which.cu"
        apply_out="$("$tool" apply "$source_file" "${grammar_options[@]}" --genome-file "$dir/$which.genome" -o "$variant_file" 2>"$dir/$which.apply.log")" ||
            { echo "apply failed for $which"; cat "$dir/$which.apply.log"; return 1; }
        # apply prints the compile options the genome implies (Flag genes) on one line.
        read -r -a flags <<<"$(grep -m1 '^compile options:' <<<"$apply_out" | sed 's/^compile options: *//')"
        [[ "${flags[*]}" == "(none)" ]] && flags=()
        echo "$which: compile options: ${flags[*]:-(none)}" | tee -a "$dir/driver.log"
    fi
    local common=(-std=c++17 -O3 -arch="sm_$arch" -diag-suppress=177 -I"$root/kernels" -I"$root/gi-tool/src" "${flags[@]}"
                  -I"$root/kernels/$kernel")
    if [[ "$genome" == *"ptx:"* ]]; then
        # The variant file is source: a genome's PTX edits are applied to nvcc's PTX of it by
        # gi-tool nvcc-ptx-edits (as the CMake build's launcher does), which refuses, writing no
        # object, where that PTX is not the code the edits were made on; then the driver is not built.
        local function_name="" i options=()
        for ((i = 0; i < ${#grammar_options[@]}; ++i)); do
            [[ "${grammar_options[i]}" == --function ]] && function_name="${grammar_options[i + 1]%%<*}"
        done
        for i in "${flags[@]}"; do options+=(--option "$i"); done
        {
            "$tool" nvcc-ptx-edits --edits "$dir/$which.genome" --function "$function_name" --arch "$arch" \
                --source "$variant_file" "${options[@]}" --include "$root/kernels/$kernel" --include "$root/kernels" \
                -- nvcc "${common[@]}" -c "$variant_file" -o "$dir/$which.o" &&
            nvcc "${common[@]}" "$root/kernels/$kernel/${kernel}_driver.cu" "$dir/$which.o" \
                "$root/kernels/$kernel/reference.cpp" -o "$work/$kernel/${kernel}_$which"
        } >"$dir/$which.build.log" 2>&1 &
        return 0
    fi
    nvcc "${common[@]}" "$root/kernels/$kernel/${kernel}_driver.cu" "$variant_file" \
        "$root/kernels/$kernel/reference.cpp" -o "$work/$kernel/${kernel}_$which" >"$dir/$which.build.log" 2>&1 &
}

# Runs the driver build_driver_with_genome made for WHICH once per `runs` entry (driver_runs), each
# result line logged to DIR/driver.log. Sets `driver_ms` (each run's median ms) and `driver_check`
# (OK, or FAILED when a run's check against the CPU reference failed); returns 1 when the build is missing.
time_driver() {  # kernel which dir
    local exe="$work/$1/${1}_$2" args line
    driver_ms=() driver_check=OK
    [[ -x "$exe" ]] || return 1
    for args in "${runs[@]}"; do
        # shellcheck disable=SC2086
        line="$(timeout 120 "$exe" $args 2>&1 | tail -1)"
        echo "$2: $line" | tee -a "$3/driver.log"
        driver_ms+=("$(median_of "$line")")
        [[ "$line" == *"-> OK" ]] || driver_check=FAILED
    done
}

# Runs WHICH's driver under compute-sanitizer memcheck and racecheck on `sanitize_args` (logs
# DIR/WHICH.sanitizer-TOOL.log). Sets `sanitizer` to clean, or to the last tool that failed.
sanitize_driver() {  # kernel which dir
    local tool_name
    sanitizer=clean
    for tool_name in memcheck racecheck; do
        timeout 300 compute-sanitizer --tool "$tool_name" --error-exitcode 9 "$work/$1/${1}_$2" "${sanitize_args[@]}" \
            >"$3/$2.sanitizer-$tool_name.log" 2>&1 || sanitizer="$tool_name FAILED"
    done
}
