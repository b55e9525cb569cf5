#!/usr/bin/env bash
# The device calls for issue 46's table (bench/edit-kinds.sh). Run tool, carry [".carry"]:
#   .carry/debs                   the packages bench/common.sh unpacks
#   .carry/b.tar.gz               `git archive HEAD` of the commit to run (without it, this call's copy
#                                 of the working tree is used, less build/ and bench/data/)
#   .carry/edit-kinds-done/*.tar.gz  optional: the ek-*.tar.gz files earlier sessions brought back;
#                                 unpacked first, so their finished kernel/arm folders are skipped
# A 600 s search (plus its measurement, about 13.5 minutes a job) outlasts a 10-minute call, so the
# first call starts bench/edit-kinds.sh in a process session of its own (setsid: it outlives the
# call while the machine stays warm), and every call, the first too, waits up to WAIT_S seconds and
# brings back the kernel/arm folders finished since the last call, as $OUT/ek-HHMMSS.tar.gz. Make
# each call as soon as the last returns: the machine goes back after 30 s idle, and with it the
# searches still running. What came back before stays whole.
#
#   ACTION=start COMMIT=<sha> EDIT_GPUS=8 EDIT_KERNELS="stereo bspline hydro" bash bench/calls/edit-kinds-call.sh
#   bash bench/calls/edit-kinds-call.sh                # the next calls (ACTION=wait)
#   BRING_ALL=1 bash bench/calls/edit-kinds-call.sh    # bring back every finished folder again
# Here, each call's archive unpacked into a folder of its own, then the table over all of them:
#   mkdir -p bench/data/edit-kinds/s19-c2 && tar -xzf FILES_AT/ek-*.tar.gz -C bench/data/edit-kinds/s19-c2
#   python3 bench/edit-kinds-table.py bench/data/edit-kinds/*/
# For the next session: copy the archives into .carry/edit-kinds-done/ before its first call.
#
# Every EDIT_* knob of bench/edit-kinds.sh passes through (it is in the environment). Here
# EDIT_DEADLINE_S defaults to 1500: a machine is held at most 30 minutes, so no search starts that
# could not end (with its measurement) 25 minutes after the first call began; lower it when the
# session has less device time left (status: budget_left_s).
set -u
ek=/tmp/ek-out
src=/tmp/ek-src
if [[ "${ACTION:-wait}" == start ]]; then
    if [[ -f "$ek/pid" ]] && kill -0 "$(cat "$ek/pid")" 2>/dev/null && [[ "${FORCE:-0}" != 1 ]]; then
        echo "a run started at $(stat -c %y "$ek/pid" | cut -c12-19) is still going (pid $(cat "$ek/pid")): call without ACTION=start" \
             "to wait for it, or FORCE=1 to start over (its searches are lost)"
        exit 1
    fi
    rm -rf "$src" "$ek"
    mkdir -p "$src" "$ek"
    if [[ -f .carry/b.tar.gz ]]; then
        tar -xzf .carry/b.tar.gz -C "$src"
    else
        echo "no .carry/b.tar.gz: running this call's copy of the working tree"
        tar -cf - --exclude=./build --exclude=./bench/data --exclude=./.git --exclude=./.carry . | tar -xf - -C "$src"
    fi
    [[ -d .carry/debs ]] && mkdir -p "$src/.carry" && cp -r .carry/debs "$src/.carry/"
    for done_tar in .carry/edit-kinds-done/*.tar.gz; do
        [[ -f "$done_tar" ]] && tar -xzf "$done_tar" -C "$ek" && echo "unpacked $done_tar"
    done
    # What was unpacked came back before: not brought back again.
    find "$ek" -name result.txt -exec sh -c 'touch "$(dirname "$1")/.brought"' _ {} \;
    # shellcheck disable=SC2016 # $1 and $2 are the inner shell's arguments
    setsid nohup env OUT="$ek" GI_COMMIT="${COMMIT:-${GI_COMMIT:-unknown}}" EDIT_DEADLINE_S="${EDIT_DEADLINE_S:-1500}" \
        bash -c 'bash "$1/bench/edit-kinds.sh" >"$2/run.log" 2>&1; touch "$2/done"' _ "$src" "$ek" </dev/null >/dev/null 2>&1 &
    echo $! >"$ek/pid"
    echo "started at $(date -u +%H:%M:%S): EDIT_KERNELS=${EDIT_KERNELS:-(default)} EDIT_ARMS=${EDIT_ARMS:-(default)}" \
         "EDIT_GPUS=${EDIT_GPUS:-1} EDIT_SECONDS=${EDIT_SECONDS:-600} EDIT_DEADLINE_S=${EDIT_DEADLINE_S:-1500}"
fi
[[ -d "$ek" ]] || { echo "nothing started on this machine ($ek is missing): the first call needs ACTION=start"; exit 1; }

end=$(( $(date +%s) + ${WAIT_S:-540} ))
while (( $(date +%s) < end )) && [[ ! -f "$ek/done" ]]; do sleep 5; done
echo "---- $(date -u +%H:%M:%S)$([[ -f "$ek/done" ]] && echo ": bench/edit-kinds.sh has ended")"
grep -E '^\[|^built in|^GPU:|^edit kinds:|^estimate:' "$ek/run.log" 2>/dev/null | tail -n 30
[[ -s "$ek/skipped.txt" ]] && cat "$ek/skipped.txt"
# The searches still running: their last lines.
for log in "$ek"/*/*/evolve.log; do
    [[ -f "$log" ]] || continue
    job_dir="$(dirname "$log")"
    [[ -f "$job_dir/result.txt" ]] && continue
    echo "running: ${job_dir#"$ek"/}: $(grep -E '^generation [0-9]' "$log" | tail -n 1 | cut -c1-150)"
done

# The folders finished since the last bring-back (all of them with BRING_ALL=1).
new=()
for result in "$ek"/*/*/result.txt; do
    [[ -f "$result" ]] || continue
    job_dir="$(dirname "$result")"
    [[ -f "$job_dir/.brought" && "${BRING_ALL:-0}" != 1 ]] && continue
    new+=("${job_dir#"$ek"/}")
done
extra=()
for f in run.log skipped.txt table.md build.log; do [[ -f "$ek/$f" ]] && extra+=("$f"); done
for job in "${new[@]}"; do [[ -f "$ek/${job/\//-}.log" ]] && extra+=("${job/\//-}.log"); done
if (( ${#new[@]} )); then
    archive="$OUT/ek-$(date -u +%H%M%S).tar.gz"
    excludes=(--exclude='history.sqlite*' --exclude='checkpoint.*' --exclude=.gi-lock --exclude=.brought)
    tar -czf "$archive" -C "$ek" "${excludes[@]}" "${extra[@]}" "${new[@]}"
    # A returned file may be 16 MiB at most: without the run records, if it comes to that.
    if (( $(stat -c %s "$archive") > 15 * 1024 * 1024 )); then
        echo "the archive is over 15 MiB: the run records (run.xml) are left out of it"
        tar -czf "$archive" -C "$ek" "${excludes[@]}" --exclude=run.xml "${extra[@]}" "${new[@]}"
    fi
    for job in "${new[@]}"; do touch "$ek/$job/.brought"; done
    echo "brought back: ${new[*]} ($(stat -c %s "$archive") bytes)"
else
    echo "no search finished since the last call"
    tar -czf "$OUT/ek-logs-$(date -u +%H%M%S).tar.gz" -C "$ek" "${extra[@]}" 2>/dev/null
fi
[[ -f "$ek/done" && -f "$ek/table.md" ]] && cat "$ek/table.md"
ls -la "$OUT"
