#!/usr/bin/env bash
# Session 18's device calls for issue 44's table (run tool, carry [".carry"]: the debs, and
# b.tar.gz = `git archive HEAD`). A kernel's three 110 s runs outlast one 10-minute call, so the
# first call starts bench/gate-corpus.sh, kernel after kernel, in a process session of its own
# (setsid: it outlives the call while the machine stays warm), and every call, the first too, waits
# up to WAIT_S seconds and brings back what has ended so far. Each call is made as soon as the last
# returns (the machine goes back after 30 s idle); what came back before that stays whole.
#
#   ACTION=start KERNELS="aniso_diffusion dp_sweep wavefront" COMMIT=<sha> bash bench/calls/2026-11-29-s18-gate-corpus.sh
#   bash bench/calls/2026-11-29-s18-gate-corpus.sh          # the next calls (ACTION=wait)
#   python3 bench/gate-corpus-median.py <unpacked gc.tar.gz>  # the table, here
set -u
gc=/tmp/s18-gc
src=/tmp/s18-src
if [[ "${ACTION:-wait}" == start ]]; then
    rm -rf "$src" "$gc"; mkdir -p "$src" "$gc"
    tar -xzf .carry/b.tar.gz -C "$src" && cp -r .carry "$src/.carry"
    # Without a hand-made gate case (the target), 110 s time limits: 90-92 s of evolve wall
    # time, the final checks inside the limit.
    setsid nohup env KERNELS="$KERNELS" GI_COMMIT="$COMMIT" bash -c '
        cd '"$src"'
        for k in $KERNELS; do
            CORPUS_KERNELS=$k CORPUS_RUNS="1 2 3" CORPUS_MODES=0 THROUGHPUT_SECONDS=110 \
                CORPUS_DEADLINE_S=100000 OUT='"$gc"'/$k bash bench/gate-corpus.sh >'"$gc"'/$k.log 2>&1
        done
        touch '"$gc"'/done' </dev/null >/dev/null 2>&1 &
    echo "started: $KERNELS at $(date -u +%H:%M:%S)"
fi
end=$(( $(date +%s) + ${WAIT_S:-560} ))
while (( $(date +%s) < end )) && [[ ! -f "$gc/done" ]]; do sleep 5; done
date -u +%H:%M:%S; [[ -f "$gc/done" ]] && echo "all runs ended"
tail -n 4 "$gc"/*.log 2>/dev/null
cat "$gc"/*/summary.md 2>/dev/null
tar -czf "$OUT/gc.tar.gz" -C "$gc" --exclude='*report.html' --exclude='deps.log' . 2>/dev/null
ls -la "$OUT"
