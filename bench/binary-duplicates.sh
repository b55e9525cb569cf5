#!/usr/bin/env bash
# How many individuals of a recorded search compiled to the same program as another one, without a
# GPU: every individual of a run record (gi-tool evolve's run.xml, plain or .gz) is applied and
# compiled with nvcc -cubin for sm_90 (without -lineinfo, as the evaluator builds them), and the
# cubins are compared. It answers what cuda/binary_identity.hpp saves (one GPU run per
# duplicate within a generation, and sanitizer checks of programs checked before) and checks its
# premise on measured data: twins got the same verdict, and their timings differ only by noise.
#
#   bash bench/binary-duplicates.sh stereo bench/results/data/2026-11-23-h100-evolve-6-stereo/stereo-run.xml.gz
#
# Arguments: KERNEL (a folder of kernels/), RUN_XML. Environment: GI_LIMIT (individuals to compile,
# in record order; default all), GI_TOOL (gi-tool; default build/tests/gi-tool/gi-tool), GI_JOBS.
# Results: $OUT/results.md (default bench/data/binary-duplicates/<kernel>/).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kernel="${1:?usage: binary-duplicates.sh KERNEL RUN_XML}"
run_xml="${2:?usage: binary-duplicates.sh KERNEL RUN_XML}"
[[ -f "$root/kernels/$kernel/registration.txt" ]] || { echo "no kernels/$kernel/registration.txt"; exit 2; }
[[ -f "$run_xml" ]] || { echo "no run record $run_xml"; exit 2; }
OUT="${OUT:-$root/bench/data/binary-duplicates/$kernel}"
mkdir -p "$OUT"
tool="${GI_TOOL:-$root/build/tests/gi-tool/gi-tool}"
[[ -x "$tool" ]] || { echo "no gi-tool at $tool: build it (bash scripts/test.sh) or set GI_TOOL"; exit 2; }
jobs="${GI_JOBS:-$(nproc)}"
export PATH="/usr/local/cuda/bin:$PATH"
# shellcheck source=bench/common.sh
source "$root/bench/common.sh"
registration_options "$kernel"
split_options
work="$(mktemp -d /tmp/gi-binary-duplicates.XXXXXX)"
trap 'rm -rf "$work"' EXIT
# A copy, so a rebuild of gi-tool while this runs cannot fail the applies.
cp "$tool" "$work/gi-tool" && tool="$work/gi-tool"

# One line per individual: generation, status, median ms, accepted, genome.
python3 - "$run_xml" >"$work/individuals.tsv" <<'PY'
import gzip, sys, xml.etree.ElementTree as ET
path = sys.argv[1]
root = ET.parse(gzip.open(path) if path.endswith(".gz") else open(path)).getroot()
for generation in root.find("generations"):
    for ind in generation.findall("individual"):
        print(generation.get("index"), ind.get("status"), ind.get("median-ms"), ind.get("accepted"), ind.get("genome"),
              sep="\t")
PY
limit="${GI_LIMIT:-$(wc -l <"$work/individuals.tsv")}"
head -n "$limit" "$work/individuals.tsv" >"$work/chosen.tsv"

# Prints "<index> <sha256 of the cubin>", or "<index> apply-failed|compile-failed" (then the first
# error line goes to $work/failures.txt). A failed compile is tried once more: under a parallel
# build's load nvcc here has failed where it passes alone.
compile_one() {
    local index="$1" genome="$2" dir="$work/$1" out flags=()
    mkdir -p "$dir"
    printf '%s\n' "$genome" >"$dir/genome"
    if ! out="$("$tool" apply "$root/kernels/$kernel/$kernel.cu" "${grammar_options[@]}" --genome-file "$dir/genome" -o "$dir/v.cu" 2>"$dir/log")"; then
        echo "$index apply-failed"
        echo "$index apply: $(head -1 "$dir/log")" >>"$work/failures.txt"
    else
        read -r -a flags <<<"$(grep -m1 '^compile options:' <<<"$out" | sed 's/^compile options: *//')"
        [[ "${flags[*]}" == "(none)" ]] && flags=()
        local attempt
        for attempt in 1 2; do
            if nvcc -std=c++17 -arch=sm_90 -cubin "${flags[@]}" -I"$root/kernels/$kernel" -o "$dir/v.cubin" "$dir/v.cu" >"$dir/log" 2>&1; then
                echo "$index $(sha256sum <"$dir/v.cubin" | cut -d' ' -f1)"
                break
            elif (( attempt == 2 )); then
                echo "$index compile-failed"
                echo "$index $(grep -m1 -i error "$dir/log")" >>"$work/failures.txt"
            fi
        done
    fi
    rm -rf "$dir"
}
index=0
while IFS=$'\t' read -r _ _ _ _ genome; do
    while (( $(jobs -rp | wc -l) >= jobs )); do wait -n; done
    compile_one "$index" "$genome" >>"$work/hashes.txt" &
    index=$((index + 1))
done <"$work/chosen.tsv"
wait

touch "$work/failures.txt"
python3 - "$work/chosen.tsv" "$work/hashes.txt" "$kernel" "$run_xml" "$limit" "$work/failures.txt" <<'PY' | tee "$OUT/results.md"
import statistics, sys
chosen, hashes, kernel, run_xml, limit, failures = sys.argv[1:]
rows = [line.rstrip("\n").split("\t") for line in open(chosen)]
binary = dict(line.split() for line in open(hashes))
print(f"# Binary duplicates in a recorded search: {kernel}\n")
print(f"- record: `{run_xml}` (first {limit} individuals); compiled with nvcc -cubin -arch=sm_90 on the CPU")
print(f"- command: `GI_LIMIT={limit} bash bench/binary-duplicates.sh {kernel} {run_xml}`\n")
print("| generation | individuals | compiled | binary duplicates within the generation (runs saved) | equal to an earlier generation's only |")
print("|---|---|---|---|---|")
generations, seen_before = {}, set()
for index, (generation, status, ms, accepted, genome) in enumerate(rows):
    generations.setdefault(generation, []).append((binary.get(str(index), "missing"), status, ms, accepted, genome))
total = dict(individuals=0, compiled=0, within=0, earlier=0)
groups = {}
for generation in sorted(generations, key=int):
    seen, within, earlier, compiled = set(), 0, 0, 0
    for key, status, ms, _, _ in generations[generation]:
        if len(key) != 64:
            continue
        compiled += 1
        groups.setdefault((generation, key), []).append((status, ms))
        if key in seen:
            within += 1
        elif key in seen_before:
            earlier += 1
        seen.add(key)
    seen_before |= seen
    n = len(generations[generation])
    print(f"| {generation} | {n} | {compiled} | {within} ({100 * within / max(compiled, 1):.0f}%) | {earlier} |")
    for k, v in (("individuals", n), ("compiled", compiled), ("within", within), ("earlier", earlier)):
        total[k] += v
print(f"| all | {total['individuals']} | {total['compiled']} | {total['within']} ({100 * total['within'] / max(total['compiled'], 1):.0f}%) | {total['earlier']} |\n")
twins = [members for members in groups.values() if len(members) > 1]
mixed = sum(1 for members in twins if len({status for status, _ in members}) > 1)
deviations = []
for members in twins:
    times = [float(ms) for status, ms in members if status == "ok"]
    if len(times) > 1:
        middle = statistics.median(times)
        deviations += [100 * abs(t - middle) / middle for t in times]
print(f"- groups of two or more individuals with one cubin in a generation: {len(twins)}; with differing verdicts on the GPU: {mixed}")
failed = [line.rstrip("\n") for line in open(failures)]
if failed:
    print(f"- {len(failed)} individuals did not compile here (each compile tried twice); first: `{failed[0]}`")
if deviations:
    print(f"- their GPU timings (each measured separately in the search): deviation from the group's median "
          f"{statistics.median(deviations):.2f}% (median), {max(deviations):.2f}% (largest)")
# The sanitizer gate, simulated: each generation it checks accepted individuals, fastest first,
# until half the population has passed (run/gate.cpp; none fails here), and a program checked
# in an earlier generation is not checked again. Keyed by text (as before binary identities) or by
# program (binary_identity: the same cubin).
checked_text, checked_binary, by_text, by_binary = set(), set(), 0, 0
for generation in sorted(generations, key=int):
    accepted = sorted((float(ms), genome, key) for key, status, ms, acc, genome in generations[generation]
                      if acc == "1" and len(key) == 64)
    for _, genome, key in accepted[:50]:  # every individual counts towards the parents, repeats too
        if genome not in checked_text:
            checked_text.add(genome)
            by_text += 1
        if key not in checked_binary:
            checked_binary.add(key)
            by_binary += 1
print(f"- sanitizer gate, simulated (the 50 fastest accepted per generation, each program checked once per run): "
      f"{by_text} checks keyed by text, {by_binary} keyed by program ({100 * (by_text - by_binary) / max(by_text, 1):.0f}% fewer)")
PY
