#!/bin/sh
# fakeprog.sh SECONDS STATUS: a stand-in for a recording program (no GPU needed): writes one
# hand-made case of kernel k into $GI_RECORD_DIR as k-NNNN (the first free number), sleeps
# SECONDS, exits with STATUS. (Probe rows F1, F5.)
here=$(cd "$(dirname "$0")" && pwd)
tools="$here"; [ -f "$tools/mkcase.py" ] || tools="$here/tools"; [ -f "$tools/mkcase.py" ] || tools="$here/../tools"
n=0
while [ -e "$GI_RECORD_DIR/$(printf 'k-%04d' $n)" ]; do n=$((n + 1)); done
python3 "$tools/mkcase.py" "$GI_RECORD_DIR/$(printf 'k-%04d' $n)" || exit 3
sleep "$1"
exit "$2"
