#!/usr/bin/env bash
# Issue 46's results table: which kinds of code edit pay over the best parameters alone. For each
# kernel and arm, one `gi-tool evolve` of the same wall-time budget (EDIT_SECONDS, default 600: the
# whole run, search, minimisation, post-tuning and final checks), the same seed and the same
# recorded cases, from the kernel's best-parameters genome (no pre-tuning). The arms:
#   lines        --no-transforms: line edits alone (and the grammar's genes: restrict, const, ...)
#   transforms   gi-tool's default: plus the transformation genes (unroll_, vec_, coarsen_, stage_,
#                hoist_, shfl_, unguard_)
#   ptx          --ptx-edits EDIT_PTX_RATE (default 0.5): half the code edits drawn are PTX
#                instruction edits, the rest line edits, with the transformation genes as in
#                `transforms`: the issue's "plus PTX edits" (at 1 there would be no line edits
#                left). A genome with PTX edits is built into the driver through gi-tool
#                nvcc-ptx-edits (bench/common.sh build_driver_with_genome), as the CMake build's
#                launcher builds it.
# Then the run's final genome is measured OUTSIDE the tool, by the kernel's own driver, built by
# nvcc with `gi-tool apply`'s variant in place of the kernel file: the original, the params-only
# genome and the arm's genome, timed side by side at the training size (EDIT_ROUNDS rounds,
# interleaved, each a driver median of 50 launches), checked against the CPU reference there and on
# held-out inputs (PASS/FAIL), and the arm's variant under compute-sanitizer memcheck+racecheck.
#
# Every kernel/arm is one self-contained folder, $OUT/KERNEL/ARM (result.txt written last, and
# measure.tsv, evolve.log, run/, driver.log, the variant sources). A folder whose result.txt exists
# is skipped, so a later call or session resumes: unpack what came back before into $OUT first
# (bench/calls/edit-kinds-call.sh does). bench/edit-kinds-table.py DIR... merges any number of
# bring-backs into the table.
#
#   bash bench/edit-kinds.sh                                   # every kernel, every arm, one GPU
#   EDIT_KERNELS="stereo bspline hydro" bash bench/edit-kinds.sh
#   EDIT_GPUS=8 bash bench/edit-kinds.sh                       # one search per GPU, never two
#   EDIT_DRY_RUN=1 bash bench/edit-kinds.sh                    # the commands, in order, and the skips
#   python3 bench/edit-kinds-table.py "$OUT"                   # the table
#
# Kernels (EDIT_KERNELS, in this order by default, the most important first):
#   stereo bspline hydro                  the project's three (issue 5's seed kernels)
#   fir_decimate row_norms pcm_to_float conv1d frame_corr channel_gamma
#                                         the corpus written for the transformations (issue 46)
#   dp_sweep aniso_diffusion lu_update    the third-party kernels issue 46 quotes line-edit gains for
#   wavefront thermal elimination matmul  the rest of the gate corpus (issue 44)
# Best-parameters genomes (the start of every arm; EDIT_START_GENOMES="stereo=...;hydro=..." to
# override), from exhaustive sweeps on the H100 (not yet redone on the H200):
#   stereo  ROWS_PER_THREAD=3 XHALO=1 DPER=4 STORE_DISPARITY_PIXEL=1 STORE_MIN_SSD=2
#           (bench/results/2026-11-23-h100-stereo-exhaustive.md, part 2's winner of 17,280 points;
#           fastest at the training size when timed side by side, 2026-11-23-h100-joint-sweeps.md §2)
#   bspline BLOCK_SIZE=96 constantBasis=1
#           (2026-11-23-h100-joint-sweeps.md §1: every one of 6,144 points, flags included)
#   hydro   BLOCK_X=32 MANIFEST_INTERP=1 MANIFEST_FLUX=1 use_fast_math=1
#           (2026-11-23-h100-evolve-4-code-over-params.md: all 2,880 points, flags included)
#   the corpus kernels declare no parameters: their params-only genome is the original.
#
# Device time (printed again at the start for the settings given): a job is about EDIT_SECONDS +
# the time limit's margin (10% of it, 10-60 s) + EDIT_MEASURE_ESTIMATE_S (150: driver builds,
# rounds, held-out checks, sanitizer; a guess until measured) = 810 s at the defaults, plus building
# gi-tool, gi-worker and the drivers once per machine (24-38 s in earlier H200 calls,
# bench/results/data/2026-11-26-h200-issue-21-report/throughput.txt) and recording each kernel's
# cases once.
#   default set, 16 kernels x 3 arms = 48 jobs: 648 min on one GPU; 6 waves = 81 min on 8 GPUs
#   the three seed kernels alone, 9 jobs: 122 min on one GPU; 2 waves = 27 min on 8 GPUs
# A machine is held at most 30 minutes (its start included) and a session has 30 minutes of device
# time, so one sitting finishes one wave (EDIT_GPUS jobs), two only if the machine starts quickly
# and nothing else ran: set EDIT_DEADLINE_S so that no search starts that cannot end in time.
#
# Knobs: EDIT_KERNELS, EDIT_ARMS (lines transforms ptx), EDIT_SECONDS (600), EDIT_GPUS (1: GPUs
# 0..N-1, one job each at a time, jobs taken in order; each GPU's jobs pinned to 1/N of the cores
# and given `evolve --jobs` that many, unless EDIT_EVOLVE_OPTIONS says --jobs), EDIT_ROUNDS (3), EDIT_PTX_RATE (0.5),
# EDIT_POPULATION (100), EDIT_SEED (1), EDIT_TUNE_MAX (256: post-tuning points),
# EDIT_DEADLINE_S (0: none; else start no job that would end later than this many seconds after
# the script started), EDIT_SANITIZE (1), EDIT_RETRY_FAILED (0: a folder whose search failed is
# skipped like a finished one; 1: run it again), EDIT_EVOLVE_OPTIONS (more words for every arm's
# evolve), EDIT_START_GENOMES, EDIT_MEASURE_ESTIMATE_S (150), EDIT_WORK (/tmp/gi-edit-kinds: cases,
# driver builds), GI_BUILD (a build of gi-optimize to reuse; else one is made in
# /tmp/gi-edit-kinds-build), GI_COMMIT (the commit to write into each result; else git's).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
script_start=$(date +%s)
OUT="${OUT:-$root/bench/data/edit-kinds}"
default_kernels="stereo bspline hydro fir_decimate row_norms pcm_to_float conv1d frame_corr channel_gamma dp_sweep aniso_diffusion lu_update wavefront thermal elimination matmul"
read -r -a kernels <<<"${EDIT_KERNELS:-$default_kernels}"
read -r -a arms <<<"${EDIT_ARMS:-lines transforms ptx}"
seconds="${EDIT_SECONDS:-600}"
gpus="${EDIT_GPUS:-1}"
rounds="${EDIT_ROUNDS:-3}"
ptx_rate="${EDIT_PTX_RATE:-0.5}"
population="${EDIT_POPULATION:-100}"
seed="${EDIT_SEED:-1}"
tune_max="${EDIT_TUNE_MAX:-256}"
deadline="${EDIT_DEADLINE_S:-0}"
measure_estimate="${EDIT_MEASURE_ESTIMATE_S:-150}"
dry="${EDIT_DRY_RUN:-0}"
work_root="${EDIT_WORK:-/tmp/gi-edit-kinds}"
table_script="$root/bench/edit-kinds-table.py"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"

fail() { echo "edit-kinds.sh: $*" >&2; exit 2; }
for knob in seconds gpus rounds population seed tune_max deadline measure_estimate; do
    [[ "${!knob}" =~ ^[0-9]+$ ]] || fail "$knob is '${!knob}': a whole number of seconds or a count"
done
(( gpus >= 1 && rounds >= 1 && seconds >= 1 )) || fail "EDIT_GPUS, EDIT_ROUNDS and EDIT_SECONDS must be at least 1"
for arm in "${arms[@]}"; do
    [[ " lines transforms ptx " == *" $arm "* ]] || fail "unknown arm '$arm' in EDIT_ARMS (lines, transforms, ptx)"
done
for kernel in "${kernels[@]}"; do
    [[ -f "$root/kernels/$kernel/registration.txt" ]] ||
        fail "no kernels/$kernel/registration.txt: EDIT_KERNELS names kernels of kernels/ ($default_kernels)"
done

# The words an arm adds to evolve; `arm_opts`.
arm_options() {  # arm
    case "$1" in
        lines) arm_opts=(--no-transforms) ;;
        transforms) arm_opts=() ;;
        ptx) arm_opts=(--ptx-edits "$ptx_rate") ;;
    esac
}

# The kernel's best-parameters genome (see the header); empty for a kernel without parameters.
start_genome() {  # kernel
    local entry entries=()
    IFS=';' read -r -a entries <<<"${EDIT_START_GENOMES:-}"
    for entry in "${entries[@]}"; do
        [[ "${entry%%=*}" == "$1" ]] && { echo "${entry#*=}"; return 0; }
    done
    case "$1" in
        stereo) echo "ROWS_PER_THREAD=3 XHALO=1 DPER=4 STORE_DISPARITY_PIXEL=1 STORE_MIN_SSD=2" ;;
        bspline) echo "BLOCK_SIZE=96 constantBasis=1" ;;
        hydro) echo "BLOCK_X=32 MANIFEST_INTERP=1 MANIFEST_FLUX=1 use_fast_math=1" ;;
        *)
            # A kernel with parameters and no known best point would measure code edits over the
            # source's defaults, which is not the issue's baseline.
            if grep -qE '^(param|flag)[[:space:]]' "$root/kernels/$1/registration.txt"; then
                echo "kernels/$1 declares parameters but has no best-parameters genome: run bench/params-baseline.sh" \
                     "and give it as EDIT_START_GENOMES=\"$1=GENOME\"" >&2
                return 1
            fi ;;
    esac
}

# The driver runs that time and check a build: `train_run` (timed in rounds), `check_runs` (held-out
# inputs, once each), `sanitize_args` (a small input for compute-sanitizer).
measure_runs() {  # kernel
    gate=() train=() held=()
    case "$1" in
        stereo|bspline|hydro)
            driver_runs "$1"
            train_run="${runs[0]}" check_runs=("${runs[@]:1}") ;;
        *)
            record_args "$1"
            train_run="${train[0]} --reps 50" check_runs=()
            local args
            for args in "${held[@]}"; do check_runs+=("$args --reps 20"); done
            # shellcheck disable=SC2206 # the gate's arguments are words
            sanitize_args=(${gate[0]:-} --reps 0) ;;
    esac
}

# ---- the job list, the skips and the estimate ----------------------------------------------------
margin=$(( seconds / 10 < 10 ? 10 : (seconds / 10 > 60 ? 60 : seconds / 10) ))
per_job=$(( seconds + margin + measure_estimate ))
pending=() skipped=()
for kernel in "${kernels[@]}"; do
    start_genome "$kernel" >/dev/null || exit 2
    for arm in "${arms[@]}"; do
        result="$OUT/$kernel/$arm/result.txt"
        if [[ -f "$result" ]]; then
            status="$(sed -n 's/^status=//p' "$result")"
            if [[ "$status" == ok || "${EDIT_RETRY_FAILED:-0}" != 1 ]]; then
                skipped+=("$kernel/$arm ($status, $(sed -n 's/^date=//p' "$result"))")
                continue
            fi
        fi
        pending+=("$kernel/$arm")
    done
done
waves=$(( (${#pending[@]} + gpus - 1) / gpus ))
echo "edit kinds: ${#pending[@]} job(s) to run, ${#skipped[@]} finished already; arms: ${arms[*]}; ${seconds} s searches"
echo "estimate: ${#pending[@]} x (${seconds} s + ${margin} s margin + ${measure_estimate} s measuring) = $(( ${#pending[@]} * per_job / 60 )) min on one GPU;" \
     "$waves wave(s) of $gpus GPU(s) = $(( waves * per_job / 60 )) min of device time$([[ -z "${GI_BUILD:-}" ]] && echo ", plus the build (24-38 s in earlier calls)")"
for s in "${skipped[@]}"; do echo "skip: $s: its result.txt is in $OUT"; done
(( ${#pending[@]} )) || { echo "nothing to run"; [[ "$dry" == 1 ]] || python3 "$table_script" "$OUT" | tee "$OUT/table.md"; exit 0; }

# ---- dry run: the commands in order ------------------------------------------------------------
build="${GI_BUILD:-/tmp/gi-edit-kinds-build}"
tool="$build/gi-tool/gi-tool"
drivers=()
for kernel in "${kernels[@]}"; do drivers+=("${kernel}_driver"); done
build_commands=("cmake -S $root -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=OFF -DCMAKE_CUDA_ARCHITECTURES=<the GPU's>"
                "cmake --build $build --target gi-tool gi-worker ${drivers[*]}")
if [[ "$dry" == 1 ]]; then
    detect_gpu
    echo "dry run (EDIT_DRY_RUN=1): nothing is built or run; sm_$arch ($([[ -n "$gpu" ]] && echo "$gpu" || echo "no GPU here: sm_90 assumed"))"
    if [[ -z "${GI_BUILD:-}" ]]; then printf 'build: %s\n' "${build_commands[@]}"; else echo "build: reuse $build (GI_BUILD)"; fi
    check_tmp="$(mktemp -d)"
    trap 'rm -rf "$check_tmp"' EXIT
    recorded=" "
    for job in "${pending[@]}"; do
        kernel="${job%/*}" arm="${job#*/}"
        dir="$OUT/$kernel/$arm"
        registration_options "$kernel"
        split_options
        arm_options "$arm"
        start="$(start_genome "$kernel")"
        start_opts=()
        [[ -n "$start" ]] && start_opts=(--start "$start")
        echo
        echo "== $job (GPU: the next free one of $gpus)"
        if [[ "$recorded" != *" $kernel "* ]]; then
            record_args "$kernel"
            for args in "${train[@]}"; do echo "record: $tool record kernels/$kernel/$kernel.cu --function <registered> --out $work_root/cases/$kernel/cases -- $build/kernels/${kernel}_driver $args"; done
            for args in "${held[@]}"; do echo "record: $tool record ... --out $work_root/cases/$kernel/held-out -- $build/kernels/${kernel}_driver $args"; done
            recorded+="$kernel "
        fi
        printf 'evolve:'
        # shellcheck disable=SC2086 # EDIT_EVOLVE_OPTIONS is words
        printf ' %q' timeout $(( seconds + 300 )) "$tool" evolve "kernels/$kernel/$kernel.cu" "${options[@]}" "${arm_opts[@]}" \
            --evaluator cuda --arch "sm_$arch" --cases "$work_root/cases/$kernel/cases" --held-out "$work_root/cases/$kernel/held-out" \
            --time-limit "$seconds" --tune-max "$tune_max" --population "$population" --seed "$seed" --no-pre-tune "${start_opts[@]}" \
            ${EDIT_EVOLVE_OPTIONS:-} --out "$dir/run"
        echo
        measure_runs "$kernel"
        echo "measure: drivers of kernels/$kernel built with the original, the params-only genome ('${start:-the original}')" \
             "and $dir/run/best.genome (gi-tool apply$([[ $arm == lines ]] && echo " --no-transforms"), nvcc -O3 -arch=sm_$arch)"
        echo "measure: $rounds round(s) of: <driver> $train_run   (each variant in turn, order rotated)"
        for args in "${check_runs[@]}"; do echo "measure: check once each: <driver> $args"; done
        [[ "${EDIT_SANITIZE:-1}" == 1 ]] && echo "measure: compute-sanitizer memcheck, racecheck: <arm's driver> ${sanitize_args[*]}"
        # With a build here, check that the start genome still fits the kernel (and the arm's grammar).
        if [[ -x "$tool" && -n "$start" ]]; then
            apply_options=("${grammar_options[@]}")
            [[ "$arm" == lines ]] && apply_options+=(--no-transforms)
            if "$tool" apply "$root/kernels/$kernel/$kernel.cu" "${apply_options[@]}" --genome "$start" -o "$check_tmp/start.cu" \
                   >"$check_tmp/apply.log" 2>&1; then
                echo "check: the start genome fits kernels/$kernel ($(grep -m1 '^compile options:' "$check_tmp/apply.log"))"
            else
                echo "check: FAILED: the start genome does not fit kernels/$kernel:"; cat "$check_tmp/apply.log"
            fi
        fi
    done
    echo
    echo "then: python3 bench/edit-kinds-table.py $OUT > $OUT/table.md"
    exit 0
fi

# ---- the real run ------------------------------------------------------------------------------
mkdir -p "$OUT" "$work_root"
unpack_carried_packages
detect_gpu
found="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)"
(( found >= gpus )) || fail "EDIT_GPUS=$gpus but $found GPU(s) found"
commit="${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
echo "GPU: ${gpu:-none} (sm_$arch), $found found, $gpus used; commit $commit"
if [[ -z "${GI_BUILD:-}" ]]; then
    t0=$(date +%s)
    if ! { { [[ -f "$build/CMakeCache.txt" ]] ||
             cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=OFF \
                 -DCMAKE_CUDA_ARCHITECTURES="$arch" "${prefix_args[@]}" >"$OUT/build.log" 2>&1; } &&
           cmake --build "$build" -j "$(nproc)" --target gi-tool gi-worker "${drivers[@]}" >>"$OUT/build.log" 2>&1; }; then
        tail -30 "$OUT/build.log"
        exit 1
    fi
    echo "built in $(( $(date +%s) - t0 )) s"
fi
[[ -x "$tool" ]] || fail "no gi-tool at $tool"
rm -rf "$work_root/claims" "$work_root"/cases/*.lock
mkdir -p "$work_root/claims" "$work_root/cases"
: >"$OUT/skipped.txt"

log() { echo "[$(date -u +%H:%M:%S)] $*"; }

# Records a kernel's cases once per machine (the first job of the kernel does it; the others wait on
# the lock) and sets `cases` and `held_out`. Every arm searches the same cases.
prepare_cases() {  # kernel
    local where="$work_root/cases"
    # mkdir is the lock: atomic, and needs nothing the device image may lack.
    until mkdir "$where/$1.lock" 2>/dev/null; do sleep 2; done
    if [[ ! -f "$where/$1.recorded" ]]; then
        rm -rf "${where:?}/$1"
        mkdir -p "$where/$1"
        # record_cases writes under $work/KERNEL.
        work="$where" record_cases "$1" "$where/$1" &&
            [[ -n "$(ls -A "$where/$1/cases" 2>/dev/null)" && -n "$(ls -A "$where/$1/held-out" 2>/dev/null)" ]] &&
            touch "$where/$1.recorded"
    fi
    rmdir "$where/$1.lock"
    cases="$where/$1/cases" held_out="$where/$1/held-out"
    [[ -f "$where/$1.recorded" ]]
}

# One driver run: "MS<TAB>SPREAD<TAB>CHECK" (PASS: exit 0 and the driver's own PASS or "-> OK";
# NOBUILD when the build is missing); the whole output goes to $dir/driver.log.
drive() {  # which args...
    local exe="$work/$kernel/${kernel}_$1" out rc line ms spread check
    shift
    [[ -x "$exe" ]] || { printf 'nan\tnan\tNOBUILD\n'; return; }
    # shellcheck disable=SC2068 # the run's arguments are words
    out="$(timeout 300 "$exe" $@ 2>&1)"
    rc=$?
    printf '%s\n' "$(basename "$exe") $* (exit $rc):" "$out" >>"$dir/driver.log"
    line="$(grep -m1 'median [0-9.]* ms' <<<"$out")"
    ms="$(sed -n 's/.*median \([0-9.]*\) ms (spread \([0-9.]*\).*/\1/p' <<<"$line")"
    spread="$(sed -n 's/.*median [0-9.]* ms (spread \([0-9.]*\).*/\1/p' <<<"$line")"
    if (( rc == 0 )) && grep -qE '^PASS$|-> OK$' <<<"$out"; then check=PASS
    elif (( rc == 2 )); then check=WAIVED
    else check=FAIL; fi
    printf '%s\t%s\t%s\n' "${ms:-nan}" "${spread:-nan}" "$check"
}

# Builds and times the original, the params-only genome and the arm's final genome in $dir.
measure_job() {
    local variants=(original arm) v r i n row
    build_driver_with_genome "$kernel" original "" "$dir"
    [[ -n "$start" ]] && { build_driver_with_genome "$kernel" params "$start" "$dir"; variants=(original params arm); }
    build_driver_with_genome "$kernel" arm "$final" "$dir"
    wait
    measure_runs "$kernel"
    printf 'variant\trun\tmedian_ms\tspread_ms\tcheck\n' >"$dir/measure.tsv"
    n=${#variants[@]}
    for (( r = 1; r <= rounds; ++r )); do
        # Each round starts with another variant, so no build always runs first (warm clocks) or last.
        for (( i = 0; i < n; ++i )); do
            v="${variants[(i + r - 1) % n]}"
            row="$(drive "$v" "$train_run")"
            printf '%s\ttrain-%d\t%s\n' "$v" "$r" "$row" >>"$dir/measure.tsv"
            # Without parameters the params-only build is the original: its rows are the original's.
            [[ -z "$start" && "$v" == original ]] && printf 'params\ttrain-%d\t%s\n' "$r" "$row" >>"$dir/measure.tsv"
        done
    done
    for (( i = 0; i < ${#check_runs[@]}; ++i )); do
        for v in "${variants[@]}"; do
            row="$(drive "$v" "${check_runs[i]}")"
            printf '%s\theld-%d\t%s\n' "$v" "$((i + 1))" "$row" >>"$dir/measure.tsv"
            [[ -z "$start" && "$v" == original ]] && printf 'params\theld-%d\t%s\n' "$((i + 1))" "$row" >>"$dir/measure.tsv"
        done
    done
    sanitizer="not run"
    if [[ "${EDIT_SANITIZE:-1}" == 1 && -x "$work/$kernel/${kernel}_arm" ]]; then
        sanitize_driver "$kernel" arm "$dir"
    fi
}

# result.txt, written last (its presence marks the folder finished).
write_result() {  # status
    {
        echo "status=$1"
        echo "kernel=$kernel"
        echo "arm=$arm"
        echo "order=$order"
        echo "arm_options=${arm_opts[*]}"
        echo "seconds=$seconds"
        echo "seed=$seed"
        echo "population=$population"
        echo "tune_max=$tune_max"
        echo "rounds=$rounds"
        echo "gpu=$gpu_index"
        echo "gpus=$gpus"
        echo "gpu_name=${gpu:-none}"
        echo "arch=sm_$arch"
        echo "commit=$commit"
        echo "evolve_exit=${evolve_exit:-}"
        echo "evolve_wall_s=${evolve_wall:-}"
        echo "start_genome=$start"
        echo "final_genome=${final:-}"
        echo "sanitizer=${sanitizer:-not run}"
        echo "train_run=${train_run:-}"
        echo "job_cores=${EDIT_JOB_CORES:-all}"
        echo "extra_options=${EDIT_EVOLVE_OPTIONS:-}"
        # Why a search or a recording failed, in a line.
        [[ "$1" != ok ]] && echo "failure=$(grep -h -m1 -iE 'error|failed' "$dir/evolve.log" "$dir/record.log" 2>/dev/null | head -1 | cut -c1-200)"
        [[ -f "$dir/run/run.xml" ]] && python3 "$table_script" --summarise "$dir/run/run.xml" 2>>"$dir/evolve.log"
        echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    } >"$dir/result.txt.tmp" && mv "$dir/result.txt.tmp" "$dir/result.txt"
}

run_job() {  # gpu kernel arm order
    local gpu_index="$1" kernel="$2" arm="$3" order="$4"
    local dir="$OUT/$2/$3" work="$work_root/gpu$1/$3"   # `work`: build_driver_with_genome's folder
    local start final="" evolve_exit="" evolve_wall="" sanitizer="not run" train_run="" began cmd=()
    rm -rf "$dir" "$work"
    mkdir -p "$dir" "$work"
    registration_options "$kernel"
    split_options
    arm_options "$arm"
    # A lines-arm genome is applied with the lines grammar it was evolved in.
    [[ "$arm" == lines ]] && grammar_options+=(--no-transforms)
    start="$(start_genome "$kernel")"
    if ! prepare_cases "$kernel"; then
        cp "$work_root/cases/$kernel/record.log" "$dir/" 2>/dev/null
        write_result recording-failed
        return
    fi
    cp "$work_root/cases/$kernel/record.log" "$dir/" 2>/dev/null
    local start_opts=()
    [[ -n "$start" ]] && start_opts=(--start "$start")
    # shellcheck disable=SC2206 # EDIT_EVOLVE_OPTIONS is words
    cmd=("$tool" evolve "$root/kernels/$kernel/$kernel.cu" "${options[@]}" "${arm_opts[@]}" --evaluator cuda --arch "sm_$arch"
         --cases "$cases" --held-out "$held_out" --time-limit "$seconds" --tune-max "$tune_max" --population "$population"
         --seed "$seed" --no-pre-tune "${start_opts[@]}" ${EDIT_EVOLVE_OPTIONS:-} --out "$dir/run")
    [[ -n "${EDIT_JOB_CORES:-}" && " ${EDIT_EVOLVE_OPTIONS:-} " != *" --jobs "* ]] && cmd+=(--jobs "$EDIT_JOB_CORES")
    printf '%q ' "${cmd[@]}" >"$dir/command.txt"
    echo >>"$dir/command.txt"
    began=$(date +%s)
    # The run ends within its limit plus a margin; the hard stop only guards against a stuck run.
    timeout -k 30 $(( seconds + 300 )) "${cmd[@]}" >"$dir/evolve.log" 2>&1
    evolve_exit=$?
    evolve_wall=$(( $(date +%s) - began ))
    if [[ ! -f "$dir/run/run.xml" ]]; then
        write_result evolve-failed
        return
    fi
    final="$(head -1 "$dir/run/best.genome" 2>/dev/null)"
    measure_job
    write_result ok
}

# Takes the jobs in order, one at a time, on one GPU; a job that would end after the deadline is
# not started (a machine taken back mid-search wastes the whole search).
worker() {  # gpu
    local gpu_index="$1" job began took estimate="$per_job" index share
    if [[ "$gpus" -gt 1 ]]; then
        export CUDA_VISIBLE_DEVICES="$gpu_index"
        # Each GPU's searches get their share of the cores, as on a machine of that many (evolve
        # compiles on every core it sees otherwise, and the searches would slow each other).
        share=$(( $(nproc) / gpus ))
        if (( share >= 1 )) && command -v taskset >/dev/null; then
            taskset -cp "$(( gpu_index * share ))-$(( (gpu_index + 1) * share - 1 ))" "$BASHPID" >/dev/null 2>&1 &&
                export EDIT_JOB_CORES="$share"
        fi
    fi
    for index in "${!pending[@]}"; do
        job="${pending[index]}"
        mkdir "$work_root/claims/${job/\//-}" 2>/dev/null || continue
        if (( deadline > 0 && $(date +%s) - script_start + estimate > deadline )); then
            echo "$job: not started on GPU $gpu_index, would end after EDIT_DEADLINE_S=$deadline s (estimate $estimate s)" >>"$OUT/skipped.txt"
            log "GPU $gpu_index: $job not started (deadline)"
            continue
        fi
        log "GPU $gpu_index: $job started"
        began=$(date +%s)
        run_job "$gpu_index" "${job%/*}" "${job#*/}" "$(order_of "${job%/*}")" >>"$OUT/${job/\//-}.log" 2>&1
        took=$(( $(date +%s) - began ))
        (( took > estimate )) && estimate=$took
        log "GPU $gpu_index: $job ended in $took s: $(sed -n 's/^status=//p' "$OUT/$job/result.txt" 2>/dev/null)"
    done
}
order_of() {  # kernel -> its place in EDIT_KERNELS, for the table's order
    local i
    for i in "${!kernels[@]}"; do [[ "${kernels[i]}" == "$1" ]] && { echo $((i + 1)); return; }; done
}

for (( g = 0; g < gpus; ++g )); do worker "$g" & done
wait
python3 "$table_script" "$OUT" >"$OUT/table.md"
cat "$OUT/table.md"
