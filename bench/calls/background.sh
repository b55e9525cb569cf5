#!/usr/bin/env bash
# A device job longer than one 10-minute call (run tool, carry [".carry"]: the debs, and
# b.tar.gz = `git archive HEAD`). The first call unpacks the tree into /tmp/bg-src and starts JOB
# there in a process session of its own (setsid: it outlives the call while the machine stays warm,
# 30 s after each call), with OUT=/tmp/bg/out; every call, the first too, waits up to WAIT_S seconds
# (or until the job ends) and brings back what is under /tmp/bg/out so far as $OUT/bg.tar.gz, and
# the job's log. Make each next call as soon as the last returns: what came back stays whole.
#
#   ACTION=start JOB="bash bench/calls/issue-44-rest.sh" COMMIT=<sha> bash bench/calls/background.sh
#   WAIT_S=560 bash bench/calls/background.sh        # the next calls
set -u
bg=/tmp/bg
src=/tmp/bg-src
if [[ "${ACTION:-wait}" == start ]]; then
    rm -rf "$src" "$bg"; mkdir -p "$src" "$bg/out"
    tar -xzf .carry/b.tar.gz -C "$src" && cp -r .carry "$src/.carry"
    (cd "$src" && setsid nohup env OUT="$bg/out" GI_COMMIT="${COMMIT:-unknown}" bash -c "$JOB; echo \"job exit \$?\"; touch $bg/done" \
        </dev/null >"$bg/job.log" 2>&1 &)
    echo "started: $JOB at $(date -u +%H:%M:%S)"
fi
end=$(( $(date +%s) + ${WAIT_S:-560} ))
while (( $(date +%s) < end )) && [[ ! -f "$bg/done" ]]; do sleep 5; done
date -u +%H:%M:%S; [[ -f "$bg/done" ]] && echo "the job has ended"
tail -n 40 "$bg/job.log"
cp "$bg/job.log" "$OUT/job.log"
tar -czf "$OUT/bg.tar.gz" -C "$bg/out" --exclude='*report.html' --exclude='deps.log' . 2>/dev/null
ls -la "$OUT"
