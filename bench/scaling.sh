#!/usr/bin/env bash
# Issue 45 item 3: how the search scales with the GPUs of one host (`gi-tool evolve --gpus N`).
# For each N of SCALING_GPUS, bench/throughput.sh evolves each kernel of SCALING_KERNELS (stereo and
# two kernels of the gate corpus by default) for the same fixed search time and seed with every
# gate on, and, with SCALING_CUDA_BENCH variants (default 300), `gi-tool cuda-bench --gpus N` judges
# the same random variants, so the verdicts can be compared across N (they must not depend on which
# GPU ran a variant). Then one table: evaluations a minute and their ratio to one GPU's, the best
# speedup the time bought, the gate's share, generations, and whether cuda-bench's verdicts
# (status and error of every variant) equal one GPU's.
#
#   OUT=/tmp/scaling bash bench/scaling.sh                        # 1, 2 and 4 GPUs (those present)
#   SCALING_GPUS="1 2" SCALING_KERNELS=stereo OUT=... bash bench/scaling.sh   # a part: a device call
#                                                                 # lasts at most 10 minutes
#   bash bench/scaling.sh summary OUT1 OUT2 ...                  # the table over several calls' OUTs
#
# Knobs: THROUGHPUT_SECONDS (search seconds a run, default 60), SCALING_CUDA_BENCH (0: no verdict
# comparison), SCALING_OPTIONS (more evolve/cuda-bench options, e.g. "--sanitize-jobs 16"),
# GI_BUILD (a build to reuse; else bench/throughput.sh builds into /tmp/gi-throughput-build).
# Each N's own files: $OUT/gpusN/ (throughput.sh's summary.txt, throughput.tsv, evolve.log, the
# runs' run.xml and reports, KERNEL-variants.tsv). The cases are recorded once (/tmp/gi-scaling)
# and shared by every N, so each N searches on the same cases.
# One time per evolve run: THROUGHPUT_SECONDS of search plus recording (once), tuning and the final
# checks; about 2-3 minutes a kernel and N for stereo at 60 s.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The table over the gpusN folders of the given OUTs: one row per kernel and N.
summary() {
    python3 - "$@" <<'PY'
import csv, glob, os, sys
rows = {}
verdicts = {}
for out in sys.argv[1:]:
    for folder in sorted(glob.glob(os.path.join(out, "gpus*"))):
        n = int(os.path.basename(folder)[4:])
        tsv = os.path.join(folder, "throughput.tsv")
        if os.path.exists(tsv):
            for r in csv.DictReader(open(tsv), delimiter="\t"):
                rows[(r["kernel"], n)] = r
        for log in glob.glob(os.path.join(folder, "*-variants.tsv")):
            kernel = os.path.basename(log)[: -len("-variants.tsv")]
            verdicts[(kernel, n)] = [line.split("\t")[:4] for line in open(log) if line.strip()]
if not rows and not verdicts:
    sys.exit("no gpusN/throughput.tsv or KERNEL-variants.tsv under " + " ".join(sys.argv[1:]))
kernels = sorted({k for k, _ in list(rows) + list(verdicts)})
print(f"{'kernel':<16} {'GPUs':>4} {'eval/min':>9} {'x 1 GPU':>8} {'best':>7} {'gate%':>6} {'gens':>5}  verdicts (cuda-bench, vs 1 GPU)")
for kernel in kernels:
    base = rows.get((kernel, 1))
    for n in sorted({n for k, n in list(rows) + list(verdicts) if k == kernel}):
        r = rows.get((kernel, n), {})
        rate = r.get("eval_per_min", "-")
        try:
            ratio = f"{float(rate) / float(base['eval_per_min']):.2f}"
        except (TypeError, ValueError, KeyError, ZeroDivisionError):
            ratio = "-"
        mine, one = verdicts.get((kernel, n)), verdicts.get((kernel, 1))
        if mine is None:
            same = "-"
        elif one is None:
            same = f"{len(mine)} variants, no 1-GPU run to compare"
        else:
            differ = [a for a, b in zip(mine, one) if a != b]
            same = ("same" if not differ and len(mine) == len(one) else f"{len(differ)} differ") + f" ({len(mine)} variants)"
        print(f"{kernel:<16} {n:>4} {rate:>9} {ratio:>8} {r.get('best', '-'):>7} {r.get('gate_share', '-'):>6} "
              f"{r.get('generations', '-'):>5}  {same}")
print("eval/min: evolve's evaluations a minute over the whole run (search, tuning, minimisation, checks), every gate on;")
print("x 1 GPU: against --gpus 1 on the same kernel; best: the best speedup the fixed search time bought; issue 45")
print("wants >= 1.8 with 2 GPUs and >= 3.4 with 4 on stereo, with the same verdicts.")
PY
}

if [[ "${1:-}" == summary ]]; then
    shift
    summary "$@"
    exit $?
fi

OUT="${OUT:-$root/bench/data/scaling}"
mkdir -p "$OUT"
read -r -a counts <<<"${SCALING_GPUS:-1 2 4}"
kernels="${SCALING_KERNELS:-stereo aniso_diffusion matmul}"
found="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)"
echo "GPUs here: $found ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs))" |
    tee "$OUT/gpus.txt"
for n in "${counts[@]}"; do
    if ((n > found)); then
        echo "skipping --gpus $n: $found GPU(s) here" | tee -a "$OUT/gpus.txt"
        continue
    fi
    echo "==== --gpus $n: $kernels"
    bench_variants="${SCALING_CUDA_BENCH:-300}"
    [[ "$bench_variants" == 0 ]] && bench_variants=""
    OUT="$OUT/gpus$n" THROUGHPUT_KERNELS="$kernels" THROUGHPUT_OPTIONS="--gpus $n ${SCALING_OPTIONS:-}" \
        THROUGHPUT_LABEL="--gpus $n" THROUGHPUT_REUSE_CASES=1 THROUGHPUT_WORK=/tmp/gi-scaling \
        THROUGHPUT_CUDA_BENCH="$bench_variants" bash "$root/bench/throughput.sh"
done
summary "$OUT" | tee "$OUT/scaling.txt"
