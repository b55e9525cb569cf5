#!/usr/bin/env bash
# Issue 44's table: the gate corpus's seven kernels (kernels/aniso_diffusion, dp_sweep, wavefront,
# thermal, lu_update, elimination, matmul: third-party-style programs recording 180-685 MiB of
# cases, and a small matrix multiply) through bench/throughput.sh, each evolved without and then
# with its hand-made gate case, three runs each, and the median of each figure
# (bench/gate-corpus-median.py).
#
# A device call lasts at most 10 minutes, and one kernel's run (both searches) takes about
# 2 x (THROUGHPUT_SECONDS + 1-2 minutes of tuning, final checks and reports), plus recording its
# cases the first time on a machine. So the work comes in parts: each call runs the kernels and
# runs it is given, on one GPU or several side by side, and starts no run that would end after
# CORPUS_DEADLINE_S; every run keeps its own folder, $OUT/runR/KERNEL, and the medians are taken
# over every folder given to bench/gate-corpus-median.py, from as many calls as it took.
#
#   OUT=/tmp/gc bash bench/gate-corpus.sh                                 # all seven, runs 1 2 3
#   CORPUS_KERNELS="aniso_diffusion dp_sweep" CORPUS_RUNS="2 3" OUT=... bash bench/gate-corpus.sh
#   CORPUS_GPUS=2 OUT=... bash bench/gate-corpus.sh     # two GPUs: the kernels alternate between
#                                                       # them (CUDA_VISIBLE_DEVICES 0 and 1)
#   CORPUS_FIRST_GPU=1 OUT=... bash bench/gate-corpus.sh  # on GPU 1 (and up), beside other work on 0
#   python3 bench/gate-corpus-median.py call1/ call2/ ...  # the table, on any machine
#   CORPUS_RUNS=none OUT=... bash bench/gate-corpus.sh  # the build alone
#   CORPUS_PACK=1 ...                                   # the run folders as one runs.tar.gz
#
# Knobs: THROUGHPUT_SECONDS (search seconds, default 60; the issue's searches ran 90-100 s),
# CORPUS_MODES (THROUGHPUT_SANITIZE_CASES: both (default), 0 for no gate case only, 1 for the
# hand-made one only), CORPUS_DEADLINE_S (default 570: a run is started only when the last run of
# that kernel, or 2 x THROUGHPUT_SECONDS + 180 s for its first, still fits), GI_BUILD (a build to
# reuse; otherwise one is made in /tmp/gi-throughput-build, Release, tests configured, sm_90).
# Cases are recorded once per GPU and kept for the next runs (THROUGHPUT_REUSE_CASES=1, work
# folders /tmp/gi-gate-corpus-gpuN). Two GPUs share the host's cores: their NVRTC compiles compete,
# so rates from side-by-side runs can read lower than from one GPU alone; say which in the results.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
start_time=$(date +%s)
corpus=(aniso_diffusion dp_sweep wavefront thermal lu_update elimination matmul)
read -r -a kernels <<<"${CORPUS_KERNELS:-${corpus[*]}}"
read -r -a runs <<<"${CORPUS_RUNS:-1 2 3}"
gpus="${CORPUS_GPUS:-1}"
first_gpu="${CORPUS_FIRST_GPU:-0}"
modes="${CORPUS_MODES:-both}"
seconds="${THROUGHPUT_SECONDS:-60}"
deadline="${CORPUS_DEADLINE_S:-570}"
for kernel in "${kernels[@]}"; do
    [[ " ${corpus[*]} " == *" $kernel "* ]] || { echo "unknown kernel '$kernel' (the corpus: ${corpus[*]})"; exit 2; }
done
OUT="${OUT:-$root/bench/data/gate-corpus}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
unpack_carried_packages >"$OUT/deps.log" 2>&1
detect_gpu
found="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)"
((found >= first_gpu + gpus)) || { echo "CORPUS_FIRST_GPU=$first_gpu and CORPUS_GPUS=$gpus but $found GPU(s) found"; exit 1; }

# One build for every run (throughput.sh reuses it through GI_BUILD).
build="${GI_BUILD:-/tmp/gi-throughput-build}"
if [[ -z "${GI_BUILD:-}" ]]; then
    t0=$(date +%s)
    if ! { { [[ -f "$build/CMakeCache.txt" ]] ||
             cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGI_BUILD_TESTS=ON \
                 -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix_args[@]}" >"$OUT/build.log" 2>&1; } &&
           cmake --build "$build" -j "$(nproc)" --target gi-tool gi-worker "${corpus[@]/%/_driver}" \
               >>"$OUT/build.log" 2>&1; }; then
        tail -30 "$OUT/build.log"; exit 1
    fi
    echo "built in $(( $(date +%s) - t0 )) s"
fi
# CORPUS_RUNS=none: the build alone (a first call that checks the drivers before any search).
if [[ "${runs[*]}" == "none" ]]; then
    echo "CORPUS_RUNS=none: built, no run started"
    exit 0
fi

# Runs the kernels given to one GPU, run by run; writes $OUT/runR/KERNEL and its log, and one line
# per run skipped for the deadline to $OUT/skipped-gpuN.txt.
worker() {  # gpu kernels...
    local gpu="$1" run kernel took estimate began
    shift
    local -A last=()
    : >"$OUT/skipped-gpu$gpu.txt"
    for run in "${runs[@]}"; do
        for kernel in "$@"; do
            estimate="${last[$kernel]:-$((2 * seconds + 180))}"
            if (( $(date +%s) - start_time + estimate > deadline )); then
                echo "run$run/$kernel (GPU $gpu): not started, would end after ${deadline} s (estimate ${estimate} s)" \
                    >>"$OUT/skipped-gpu$gpu.txt"
                continue
            fi
            mkdir -p "$OUT/run$run"
            began=$(date +%s)
            env CUDA_VISIBLE_DEVICES="$gpu" GI_BUILD="$build" THROUGHPUT_KERNELS="$kernel" THROUGHPUT_SECONDS="$seconds" \
                THROUGHPUT_SANITIZE_CASES="$modes" THROUGHPUT_REUSE_CASES=1 THROUGHPUT_WORK="/tmp/gi-gate-corpus-gpu$gpu" \
                THROUGHPUT_LABEL="gate corpus run $run, GPU $gpu of $gpus" OUT="$OUT/run$run/$kernel" \
                bash "$root/bench/throughput.sh" >"$OUT/run$run/$kernel.log" 2>&1
            took=$(( $(date +%s) - began ))
            # The next run of this kernel is estimated at this one's time (which included recording
            # its cases, the first time on this GPU: an overestimate then).
            last[$kernel]=$took
            echo "run$run/$kernel on GPU $gpu: $took s"
        done
    done
}

for ((g = 0; g < gpus; ++g)); do
    mine=()
    for ((i = g; i < ${#kernels[@]}; i += gpus)); do mine+=("${kernels[i]}"); done
    ((${#mine[@]})) && worker "$((first_gpu + g))" "${mine[@]}" &
done
wait

{
    echo "gate corpus: ${kernels[*]}; runs ${runs[*]}; $gpus GPU(s): ${gpu:-none}; $seconds s searches;" \
        "gate cases: $modes; $(date -u +%Y-%m-%dT%H:%MZ); commit ${GI_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null)}"
    cat "$OUT"/skipped-gpu*.txt 2>/dev/null
    echo
    python3 "$root/bench/gate-corpus-median.py" "$OUT"
} | tee "$OUT/summary.md"
# CORPUS_PACK=1: the run folders packed into $OUT/runs.tar.gz (and removed), for a device whose
# return of $OUT leaves out deep folders and caps the number of files; the median script reads the
# unpacked folders as it reads these.
if [[ "${CORPUS_PACK:-0}" == 1 ]]; then
    (cd "$OUT" && tar -czf runs.tar.gz --exclude=runs.tar.gz run* && rm -rf run*/) && echo "packed the runs into $OUT/runs.tar.gz"
fi
