#!/bin/sh
# writer.sh COUNT [mkcase.py key=value...]: writes COUNT hand-made cases of kernel k into
# $GI_RECORD_DIR (k-0000, k-0001, ...), each with the overrides given.
here=$(cd "$(dirname "$0")" && pwd)
tools="$here"; [ -f "$tools/mkcase.py" ] || tools="$here/tools"
count=$1; shift
i=0
while [ $i -lt "$count" ]; do
    python3 "$tools/mkcase.py" "$GI_RECORD_DIR/$(printf 'k-%04d' $i)" "$@" || exit 3
    i=$((i + 1))
done
