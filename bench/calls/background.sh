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
# Search databases and checkpoints stay there (edit-kinds folders hold them); a returned file may
# be 16 MiB at most, so the run records (run.xml) are left out where it comes to that.
excludes=(--exclude='*report.html' --exclude='deps.log' --exclude='history.sqlite*' --exclude='checkpoint.*' --exclude=.gi-lock)
tar -czf "$OUT/bg.tar.gz" -C "$bg/out" "${excludes[@]}" . 2>/dev/null
if (( $(stat -c %s "$OUT/bg.tar.gz") > 15 * 1024 * 1024 )); then
    echo "the archive is over 15 MiB: the run records (run.xml) are left out of it"
    tar -czf "$OUT/bg.tar.gz" -C "$bg/out" "${excludes[@]}" --exclude=run.xml . 2>/dev/null
fi
ls -la "$OUT"
