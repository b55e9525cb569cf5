#!/usr/bin/env bash
# Re-runs the command of every row that the hostile-input probe of 2026-11-28 (issue 39,
# ../shared/probes/2026-11-28-hostile-inputs.md) marked BAD, and prints one line per row:
#   <row> GOOD|BAD|SKIP <what was seen>
# then a count. Needs no GPU: the fake and compile-only evaluators, hand-made test cases
# (tools/mkcase.py), forged cache entries (tools/forge.py, tools/reseal.py), and for the CMake rows
# a copy of tests/cmake/project configured with GI_OPTIMIZE_TOOL=<the gi-tool under test>.
# Full and read-only disks are tmpfs mounts, so those rows need root (else they are SKIP).
#
# usage: bench/probe-39/reprobe.sh [-t GI_TOOL] [-p SOURCE] [-s SCRATCH] [ROW...]
#   -t  the gi-tool to probe (default build/reprobe/gi-tool/gi-tool, then build/tests/...)
#   -p  the gi-optimize source tree whose kernels, cache entry, CMake module and test project are
#       used (default the checkout holding this script; give a clean `git archive` export to
#       probe one commit while others edit the working tree)
#   -s  the scratch folder, emptied first (default /tmp/gi-reprobe-39); logs in SCRATCH/logs/ROW.log
#   ROW A1, B12, G17...: only these rows (default: all 55, about 4.5 minutes on 2 cores)
# Results of a run: bench/results/2026-11-28-issue-39-reprobe.md.

set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
PROJECT="$(cd "$HERE/../.." && pwd)"
TOOL=""
S=/tmp/gi-reprobe-39
while getopts "t:p:s:h" opt; do
    case $opt in
        t) TOOL="$OPTARG" ;;
        p) PROJECT="$(cd "$OPTARG" && pwd)" ;;
        s) S="$OPTARG" ;;
        *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [[ -z "$TOOL" ]]; then
    for candidate in "$PROJECT/build/reprobe/gi-tool/gi-tool" "$PROJECT/build/tests/gi-tool/gi-tool"; do
        [[ -x "$candidate" ]] && { TOOL="$candidate"; break; }
    done
fi
[[ -x "$TOOL" ]] || { echo "reprobe.sh: no gi-tool (build one, or give -t)" >&2; exit 2; }
TOOL="$(cd "$(dirname "$TOOL")" && pwd)/$(basename "$TOOL")"
[[ -d /usr/local/cuda/bin ]] && PATH="/usr/local/cuda/bin:$PATH"
ALL_ROWS="A1 A2 A3 A4 A5 A6 A7 A8 A25 B1 B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B16 B17 B18 B22 B24 B25 B29 B30
          C3 C4 C5 C9 C10 C17 D12 D14 D17 E6 E7 E11 E12 E14 E17 E20 F1 F5 G5 G6 G7 G8 G9 G11 G15 G17"
ROWS="${*:-$ALL_ROWS}"

# ---------------------------------------------------------------------------------------------
# Scratch folder, as the probe set it up.
MOUNTS=()
unmount_all() {
    local m
    for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null; done
}
trap unmount_all EXIT
for m in "$S/small" "$S/ro" "$S/cm/g11/src/rocache"; do mountpoint -q "$m" 2>/dev/null && umount "$m"; done
rm -rf "$S"
mkdir -p "$S/logs" "$S/tools"
cp "$HERE"/tools/* "$S/tools/"
cp "$HERE/tools/fakeprog.sh" "$HERE/tools/writer.sh" "$S/"
cd "$S" || exit 2
ln -s "$TOOL" gi-tool
cp -r "$PROJECT/kernels/stereo" stereo
cp -r "$PROJECT/consumer-example/gi-cache" cache0
cp -r cache0 cache
printf '__global__ void k(const float* in, float* out, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = in[i] * 2.0f + 1.0f;\n}\n' > scale.cu
mkdir -p rec && cp scale.cu rec/scale.cu
cp "$PROJECT/tests/cmake/project/scale.cu" simple.cu
python3 tools/mkcase.py ok/k-0000
mkdir -p .pristine && cp -r stereo cache0 .pristine/
# Every row starts from the probe's inputs, whatever an earlier row (or an older gi-tool) did to them.
reset_inputs() {
    rm -rf stereo cache cache0 run
    cp -r .pristine/stereo stereo; cp -r .pristine/cache0 cache0; cp -r .pristine/cache0 cache
}
./gi-tool evolve stereo/stereo.cu --function stereo_kernel --param BLOCK_W=16,32,64,128,256 \
    --param ROWS_PER_THREAD=1..18 --evaluator fake --generations 5 --population 20 --seed 3 --out run1 > logs/setup.log 2>&1 ||
    { echo "reprobe.sh: the setup's evolve failed (logs/setup.log)" >&2; exit 2; }

# The stereo registration as gi-tool arguments ($REG in the probe report).
REG=(stereo/stereo.cu --function stereo_kernel --param BLOCK_W=16,32,64,128,256
     --param ROWS_PER_THREAD=1..18,20,24,30,40,48,60 --param XHALO=0,1 --param DPER=1..4
     --param STORE_DISPARITY_PIXEL=0,1,2 --param STORE_MIN_SSD=0,1,2 --param OUT_TYPE=float,int,short
     --param USE_MUL24=0,1 --flag "dlcm:-Xptxas -dlcm={ca|cg}" --block-size BLOCK_W,DPER
     --grid "ceil(width/(BLOCK_W-10*XHALO)),ceil(height/ROWS_PER_THREAD)"
     --tolerance disparity:exact --tolerance min_ssd:exact)
GENOME="ROWS_PER_THREAD=3 <_stereo.cu_215>"
# The CMake test project's registration (tests/cmake/common.cmake's GI_TEST_REGISTRATION).
REGC=(--function scaleKernel --param SCALE=2,3,4 --param BLOCK=64,128,256 --block-size BLOCK
      --grid "(n + BLOCK - 1) / BLOCK" --tolerance exact)
CTOR='__attribute__((constructor)) static void gi_injected() { __builtin_puts("INJECTED: code from a cache entry ran"); }'
# A = the probe's reference run of section E.
A=(stereo/stereo.cu --function stereo_kernel --param ROWS_PER_THREAD=1..18 --param BLOCK_W=16,32,64,128,256
   --evaluator fake --fake delay-ms=30 --generations 12 --population 20 --seed 11)

# ---------------------------------------------------------------------------------------------
# Row helpers. run: a command with its output in $OUT and the row's log, its status in $RC.
ROW=""; PROBLEMS=(); GOOD=0; BAD=0; SKIP=0; SEEN=""; SKIPPED=0
LOG=/dev/null
begin() { ROW=$1; PROBLEMS=(); SEEN=""; SKIPPED=0; LOG="$S/logs/$1.log"; : > "$LOG"; reset_inputs; }
run() {
    printf '$ %s\n' "$*" >> "$LOG"
    OUT=$("$@" 2>&1); RC=$?
    printf '%s\n[exit %s]\n' "$OUT" "$RC" >> "$LOG"
}
# want <description of what must hold> <test command...>: a failed test makes the row BAD.
want() {
    local what=$1; shift
    if ! "$@"; then PROBLEMS+=("$what"); echo "NOT: $what" >> "$LOG"; fi
}
seen() { SEEN="${SEEN:+$SEEN; }$*"; }
# tell TRUE-TEXT FALSE-TEXT TEST...: the text that says what the test found.
tell() { if "${@:3}"; then echo "$1"; else echo "$2"; fi; }
finish() {
    SEEN=${SEEN//$'\n'/ | }
    if [[ ${#PROBLEMS[@]} -eq 0 ]]; then
        GOOD=$((GOOD + 1)); printf '%-4s GOOD %s\n' "$ROW" "$SEEN"
    else
        BAD=$((BAD + 1))
        local joined; joined=$(printf '%s; ' "${PROBLEMS[@]}")
        printf '%-4s BAD  not met: %s [seen: %s]\n' "$ROW" "${joined%; }" "$SEEN"
    fi
}
skip() { SKIPPED=1; SKIP=$((SKIP + 1)); printf '%-4s SKIP %s\n' "$ROW" "$*"; }
ok() { [[ $RC -eq 0 ]]; }
failed() { [[ $RC -ne 0 && $RC -ne 124 && $RC -lt 128 ]]; }     # refused, not killed, not hung
says() { grep -qF -- "$1" <<< "$OUT"; }
says_re() { grep -qE -- "$1" <<< "$OUT"; }
says_flat() { tr -s ' \n' '  ' <<< "$OUT" | grep -qF -- "$1"; }   # CMake wraps its messages
no_esc() { ! LC_ALL=C grep -q $'\x1b' <<< "$OUT"; }
same_md5() { [[ "$(md5sum < "$1")" == "$2" ]]; }
md5() { md5sum < "$1"; }
absent() { [[ ! -e "$1" && ! -L "$1" ]]; }
none_like() { [[ -z "$(find "$1" -name "$2" 2>/dev/null)" ]]; }
can_mount() {
    [[ $(id -u) -eq 0 ]] || return 1
    local t="$S/.mount-test"; mkdir -p "$t"
    mount -t tmpfs -o size=64k tmpfs "$t" 2>/dev/null || { rmdir "$t"; return 1; }
    umount "$t"; rmdir "$t"
}
MOUNT_OK=0; can_mount && MOUNT_OK=1
mount_tmpfs() {  # mount_tmpfs DIR SIZE
    mkdir -p "$1" && mount -t tmpfs -o "size=$2" tmpfs "$1" && MOUNTS+=("$1")
}
fill() { dd if=/dev/zero of="$1/fill.$RANDOM" bs=4k 2>/dev/null; true; }

# An entry written for REG in folder $1 with the usual provenance (then forged by the rows).
base_entry() {
    ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir "$1" --genome "$GENOME" --cases 4 --elements 100 \
        --gpu "NVIDIA H100 80GB HBM3" --driver 580.159.04 --note "hand-picked" >> "$LOG" 2>&1
}
apply_to() {  # apply_to CACHE_DIR GEN_DIR
    run ./gi-tool cache apply "${REG[@]}" --cache-dir "$1" --arch 90 --wrapper "$2/k.gi.cu" --header "$2/k.gi.h" \
        --options-file "$2/k.options"
}

# CMake: a copy of tests/cmake/project per scenario, configured as the probe did.
cm_project() {  # cm_project NAME CALL-TEXT
    CM="$S/cm/$1"; rm -rf "$CM"; mkdir -p "$CM"
    cp -r "$PROJECT/tests/cmake/project" "$CM/src"
    printf '%s\n' "$2" > "$CM/src/call.cmake"
}
cm_configure() {
    run cmake -S "$CM/src" -B "$CM/build" -G Ninja "-DGI_TEST_SOURCE=$PROJECT" -DGI_OPTIMIZE=ON \
        "-DGI_OPTIMIZE_TOOL=$TOOL" -DGI_GPU_ARCHITECTURE=none "$@"
}
DEFAULT_CALL='gi_optimize_cuda_kernel(app
    KERNEL scale.cu FUNCTION scaleKernel
    RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256
    BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK"
    TOLERANCE exact)'

# ---------------------------------------------------------------------------------------------
# A. Cache entries, generated code, review output

row_A1() {
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir inj --genome "$GENOME" --cases 4 --elements 100 \
        --gpu $'NVIDIA H100\n'"$CTOR"$'\n//'
    want "cache write --gpu with a newline refused" failed
    want "no entry written" absent inj/stereo_kernel.sm_90.xml
    seen "cache write: exit $RC, '$(head -1 <<< "$OUT" | cut -c1-60)...'"
    local f refused=0
    for f in origin driver; do
        run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir "inj_$f" --genome "$GENOME" --"$f" $'x\n'"$CTOR"$'\n//'
        want "--$f with a newline refused" failed
    done
    # The same text forged into each provenance field of an otherwise valid entry (checksum resealed).
    for f in origin gpu driver nvcc date; do
        base_entry "forged_$f"
        python3 tools/forge.py "forged_$f/stereo_kernel.sm_90.xml" "$f" "NVIDIA H100&#10;$CTOR&#10;//" >> "$LOG" 2>&1
        apply_to "forged_$f" "gen_$f"
        want "forged <$f>: cache apply keeps the original kernel" says "original kernel"
        want "forged <$f>: no injected code in the generated files" none_like_text "gen_$f" gi_injected
        says "original kernel" && refused=$((refused + 1))
    done
    seen "forged origin/gpu/driver/nvcc/date with &#10;: $refused of 5 refused by cache apply (original kernel)"
    if command -v nvcc > /dev/null; then
        run nvcc -arch=sm_90 -std=c++17 -I stereo -c gen_gpu/k.gi.cu -o gen_gpu/k.o
        want "the generated wrapper compiles" ok
        echo 'int main() { return 0; }' > gen_gpu/main.cpp
        run g++ gen_gpu/main.cpp gen_gpu/k.o -L/usr/local/cuda/lib64 -lcudart -o gen_gpu/prog
        want "and links" ok
        run ./gen_gpu/prog
        want "the program built from the forged entry's wrapper prints nothing injected" eval '! says INJECTED'
        local prog; prog=$(tell "prints INJECTED" "no INJECTED" says INJECTED)
        # The harness sees an injection when there is one: the constructor compiled the same way.
        printf '%s\n#include "%s/gen_gpu/k.gi.cu"\n' "$CTOR" "$S" > gen_gpu/control.cu
        run nvcc -arch=sm_90 -std=c++17 -I stereo -c gen_gpu/control.cu -o gen_gpu/control.o
        run g++ gen_gpu/main.cpp gen_gpu/control.o -L/usr/local/cuda/lib64 -lcudart -o gen_gpu/control
        run ./gen_gpu/control
        want "control: a constructor compiled in does print INJECTED" says INJECTED
        seen "gen_gpu/k.gi.cu compiled with nvcc, linked and run: $prog (control with the constructor: $(tell INJECTED "no output" says INJECTED))"
    fi
}
none_like_text() { ! grep -rqF -- "$2" "$1" 2>/dev/null; }

row_A2() {
    cm_project a2 "$DEFAULT_CALL"
    run ./gi-tool cache write "$CM/src/scale.cu" "${REGC[@]}" --arch 90 --cache-dir "$CM/src/gi-cache" --genome SCALE=3 \
        --cases 4 --elements 4096 --gpu $'NVIDIA H100 80GB HBM3\n'"$CTOR"$'\n//'
    want "cache write --gpu with a newline refused" failed
    seen "cache write: exit $RC"
    # The entry the write would have made, forged and resealed: through the build with GI_REQUIRE_CACHE.
    run ./gi-tool cache write "$CM/src/scale.cu" "${REGC[@]}" --arch 90 --cache-dir "$CM/src/gi-cache" --genome SCALE=3 \
        --cases 4 --elements 4096 --gpu "NVIDIA H100 80GB HBM3"
    python3 tools/forge.py "$CM/src/gi-cache/scaleKernel.sm_90.xml" gpu "NVIDIA H100 80GB HBM3&#10;$CTOR&#10;//" >> "$LOG" 2>&1
    cm_configure -DGI_REQUIRE_CACHE=ON
    run ninja -C "$CM/build" -j1 app
    want "GI_REQUIRE_CACHE=ON: the build refuses the forged entry" failed
    want "and says why (a control character)" says "control character"
    seen "GI_REQUIRE_CACHE=ON: ninja exit $RC$(tell " ('<gpu> holds a control character')" "" says "control character")"
    cm_configure -DGI_REQUIRE_CACHE=OFF
    run ninja -C "$CM/build" -j1 app
    want "GI_REQUIRE_CACHE=OFF: the app builds" ok
    run "$CM/build/app" --variant 90
    want "the app runs the original kernel" says "variant: original kernel"
    want "and prints nothing injected" eval '! says INJECTED'
    seen "GI_REQUIRE_CACHE=OFF: builds, app says '$(head -1 <<< "$OUT")'"
}

row_A3() {
    local text="NVIDIA H100 80GB HBM3&#10;$CTOR&#10;//&#27;[2A&#27;[0J&#27;[G  provenance   hand-picked on NVIDIA H100 80GB HBM3 (driver 580.159.04, nvcc 13.0.88)"
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir combo_w --genome "$GENOME" --gpu \
        $'NVIDIA H100 80GB HBM3\n'"$CTOR"$'\n//\e[2A\e[0J\e[G  provenance   hand-picked'
    want "cache write with the combined text refused" failed
    base_entry combo
    python3 tools/forge.py combo/stereo_kernel.sm_90.xml gpu "$text" >> "$LOG" 2>&1
    run ./gi-tool cache show combo
    want "cache show prints no escape sequence" no_esc
    want "cache show says the entry is unreadable (control character)" says "control character"
    seen "cache show: '$(grep -m1 unreadable <<< "$OUT" | cut -c1-90)...', $(tell "no ESC byte" "raw ESC bytes" no_esc)"
    apply_to combo gen_combo
    want "cache apply keeps the original kernel" says "original kernel"
    want "no injected code generated" none_like_text gen_combo gi_injected
    seen "cache apply: $(tell "original kernel" "the variant" says "original kernel"), $(tell "no injected code" "injected code in gen_combo/" none_like_text gen_combo gi_injected)"
}

row_A4() {
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir a4w --genome "$GENOME" --gpu $'NVIDIA H100\rint injected_cr = 1; /*'
    want "cache write --gpu with a CR refused" failed
    local write_rc=$RC
    base_entry a4
    python3 tools/forge.py a4/stereo_kernel.sm_90.xml gpu "NVIDIA H100&#13;int injected_cr = 1; /*" >> "$LOG" 2>&1
    apply_to a4 gen_a4
    want "cache apply refuses the forged entry (original kernel)" says "original kernel"
    want "no CR text in the header" none_like_text gen_a4 injected_cr
    seen "cache write --gpu with CR: exit $write_rc; forged &#13; entry, cache apply: '$(grep -o 'corrupt cache entry: <gpu> holds a control character ([^)]*)' <<< "$OUT")', $(tell "original kernel" "the variant" says "original kernel"), $(tell "header clean" "CR text in the header" none_like_text gen_a4 injected_cr)"
}

row_A5() {
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir cache_esc --genome "$GENOME" --allow-unvalidated \
        --note $'\e[2A\e[0J\e[G  note         reviewed'
    want "cache write --note with ESC refused" failed
    want "its message prints no raw ESC" no_esc
    seen "cache write exit $RC ('$(grep -o 'holds a control character ([^)]*)' <<< "$OUT")')"
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir cache_esc2 --genome "$GENOME" --allow-unvalidated --note "x"
    python3 tools/forge.py cache_esc2/stereo_kernel.sm_90.xml note "&#27;[2A&#27;[0J&#27;[G  note         reviewed" >> "$LOG" 2>&1
    run ./gi-tool cache show cache_esc2
    want "cache show of a forged note prints no ESC" no_esc
    want "and calls the entry unreadable" says "unreadable"
    seen "forged note: cache show $(tell "'unreadable'" "reads it" says unreadable), $(tell "no ESC" "raw ESC" no_esc)"
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir cache_esc3 --genome "$GENOME" --allow-unvalidated --note "x"
    run ./gi-tool cache show cache_esc3
    want "an unvalidated entry's UNCHECKED line is shown" says "UNCHECKED"
    seen "a plain unvalidated entry: $(tell "UNCHECKED line shown" "no UNCHECKED line" says UNCHECKED)"
}

row_A6() {
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir wv --genome "$GENOME" --allow-unvalidated --note x
    python3 tools/forge.py wv/stereo_kernel.sm_90.xml waiver "--allow-unvalidated: a hand-picked genome, not validated by gi-tool&#27;[2K&#27;[1Ggi-optimize: stereo_kernel sm_90: variant from wv/stereo_kernel.sm_90.xml: ROWS_PER_THREAD=3 &lt;_stereo.cu_215&gt;" >> "$LOG" 2>&1
    apply_to wv gen_wv
    want "cache apply prints no ESC" no_esc
    want "the forged entry is refused (original kernel)" says "original kernel"
    seen "cache apply: '$(head -1 <<< "$OUT" | cut -c1-60)...$(grep -o '<waiver> holds a control character' <<< "$OUT")', $(tell "no ESC" "raw ESC" no_esc)"
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir wv2 --genome "$GENOME" --allow-unvalidated --note x
    apply_to wv2 gen_wv2
    want "a valid unvalidated entry's NOT VALIDATED warning is shown" says "NOT VALIDATED"
    seen "a valid unvalidated entry: $(tell "NOT VALIDATED shown" "no NOT VALIDATED" says "NOT VALIDATED")"
}

row_A7() {
    python3 tools/mkcase.py "c26/k__2J__31mRED-0000" 'kernel_raw=k&#27;[2J&#27;[31mRED'
    run ./gi-tool cases c26
    want "cases prints no ESC" no_esc
    want "the name is shown escaped" says 'k\x1b[2J\x1b[31mRED'
    seen "'$(head -1 <<< "$OUT" | cut -c1-60)...'"
    python3 tools/mkcase.py "c26b/k-0000" 'kernel_raw=k&#27;[2J&#27;[31mRED'
    run ./gi-tool cases c26b
    want "a folder-name mismatch message prints no ESC either" no_esc
    seen "$(tell "no ESC" "raw ESC" no_esc) in the folder-name mismatch message"
}

row_A8() {
    local note n=0
    for note in $'a\rb' $'a\r\nb'; do
        n=$((n + 1)); rm -rf "cw$n"
        run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir "cw$n" --genome "" --note "$note"
        if ok; then
            run ./gi-tool cache show "cw$n"
            want "a written entry reads back (checksum ok)" says "checksum     ok"
            seen "note $(printf %q "$note"): written; cache show: $(tell "checksum ok" "$(grep -o 'checksum MISMATCH' <<< "$OUT")" says "checksum     ok")"
        else
            want "a refused note writes no entry" absent "cw$n/stereo_kernel.sm_90.xml"
            want "and says why" says "control character"
            seen "note $(printf %q "$note"): refused, exit $RC"
        fi
    done
}

row_A25() {
    local round i p fails=0 pids
    # A fresh folder each round: cache apply does not rewrite a file whose content is the same, so
    # only writers that all create the files race (269c876 fails about 5 runs in 160 this way).
    for round in $(seq 20); do
        rm -rf capp
        pids=()
        for i in 1 2 3 4 5 6 7 8; do
            ./gi-tool cache apply "${REG[@]}" --cache-dir cache0 --arch 90 --wrapper capp/k.gi.cu --header capp/k.gi.h \
                --options-file capp/k.options >> "$LOG" 2>&1 &
            pids+=($!)
        done
        for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
    done
    want "all 160 concurrent runs succeed" test "$fails" -eq 0
    want "no temporary left" test -z "$(ls -A capp | grep -v -E '^(k\.gi\.cu|k\.gi\.h|k\.options|stereo_kernel\.sm_90\.cu)$')"
    seen "20 rounds x 8 concurrent cache apply into a fresh capp/: $fails of 160 failed; capp holds $(ls -A capp | tr '\n' ' ')"
}

# ---------------------------------------------------------------------------------------------
# B. Output paths, links, full and read-only disks

kept_after() {  # kept_after FILE COMMAND...: runs it, wants a refusal and FILE unchanged
    local file=$1 before; shift
    before=$(md5 "$file")
    run "$@"
    want "refused" failed
    want "$file unchanged" same_md5 "$file" "$before"
    seen "exit $RC: '$(head -1 <<< "$OUT" | cut -c1-110)'"
}
row_B1() { kept_after stereo/stereo.cu ./gi-tool grammar stereo/stereo.cu --function stereo_kernel -o stereo/stereo.cu; }
row_B2() { kept_after cache/stereo_kernel.sm_90.xml ./gi-tool cache show cache --html cache/stereo_kernel.sm_90.xml; }
row_B3() { kept_after stereo/stereo.cu ./gi-tool cache show cache --html stereo/stereo.cu --kernel stereo/stereo.cu; }
row_B4() { rm -rf run; cp -r run1 run; kept_after run/checkpoint.xml ./gi-tool report --out run -o run/checkpoint.xml; }
row_B5() {
    rm -rf run; cp -r run1 run
    kept_after run/history.sqlite ./gi-tool report --out run -o run/history.sqlite
    run ./gi-tool history --out run --best 1
    want "history still reads" ok
}
row_B6() {
    rm -rf run; cp -r run1 run
    local keep; keep=$(mktemp); cp stereo/stereo.cu "$keep"
    kept_after stereo/stereo.cu ./gi-tool report --out run -o stereo/stereo.cu
    cp "$keep" stereo/stereo.cu; rm -f "$keep"
    # What the fix covers: the kernel named on report's command line.
    local before; before=$(md5 stereo/stereo.cu)
    run ./gi-tool report --out run -o stereo/stereo.cu stereo/stereo.cu --function stereo_kernel \
        --param BLOCK_W=16,32,64,128,256 --param ROWS_PER_THREAD=1..18
    same_md5 stereo/stereo.cu "$before" && failed && seen "with the kernel also given as report's KERNEL.cu argument: refused" ||
        seen "with the kernel given as KERNEL.cu: exit $RC"
    cp -f "$PROJECT/kernels/stereo/stereo.cu" stereo/stereo.cu
}
row_B7() {
    kept_after stereo/stereo.cu ./gi-tool cache apply "${REG[@]}" --cache-dir cache --arch 90 --wrapper stereo/stereo.cu \
        --header gen/h.gi.h --options-file gen/o.options
}
row_B8() {
    rm -rf kb; mkdir kb; cp stereo/stereo.cu kb/best.cu; cp stereo/stereo.cuh kb/
    kept_after kb/best.cu ./gi-tool evolve kb/best.cu --function stereo_kernel --evaluator fake --generations 2 --population 4 --out kb
}
row_B9() {
    rm -rf lk; mkdir lk; echo precious > precious.txt; ln -s ../precious.txt lk/.gi-lock
    run ./gi-tool evolve stereo/stereo.cu --function stereo_kernel --evaluator fake --generations 1 --population 4 --out lk
    want "precious.txt untouched" test "$(cat precious.txt)" = precious
    want "the link refused with a reason" says "symbolic link"
    seen "exit $RC: '$(grep -m1 error <<< "$OUT" | cut -c1-100)'"
}
row_B10() {
    rm -rf shared_dir; mkdir shared_dir; echo p2 > precious2.txt; ln -s "$S/precious2.txt" shared_dir/review.html.tmp
    run ./gi-tool cache show cache0 --html shared_dir/review.html
    want "precious2.txt untouched" test "$(cat precious2.txt)" = p2
    want "review.html a regular file (not the link)" eval '[[ -f shared_dir/review.html && ! -L shared_dir/review.html ]]'
    seen "exit $RC, precious2.txt $(tell untouched OVERWRITTEN test "$(cat precious2.txt)" = p2), review.html $(tell "a plain file" "not a plain file (the link?)" test -f shared_dir/review.html -a ! -L shared_dir/review.html)"
    # The same writer makes cache apply's generated files.
    rm -rf capp_l; mkdir capp_l; echo p3 > precious3.txt
    for f in k.gi.cu k.gi.h k.options stereo_kernel.sm_90.cu; do ln -s "$S/precious3.txt" "capp_l/$f.tmp"; done
    run ./gi-tool cache apply "${REG[@]}" --cache-dir cache0 --arch 90 --wrapper capp_l/k.gi.cu --header capp_l/k.gi.h \
        --options-file capp_l/k.options
    want "cache apply: precious3.txt untouched" test "$(cat precious3.txt)" = p3
    seen "cache apply with FILE.tmp links planted: exit $RC, precious3.txt $(tell untouched OVERWRITTEN test "$(cat precious3.txt)" = p3)"
}
row_B11() {
    rm -rf shared_run; cp -r run1 shared_run; echo p4 > precious4.txt
    run sh -c 'ln -s "$1/precious4.txt" shared_run/report.html.tmp$$; exec ./gi-tool report --out shared_run' sh "$S"
    want "precious4.txt untouched" test "$(cat precious4.txt)" = p4
    want "report.html a regular file" eval '[[ -f shared_run/report.html && ! -L shared_run/report.html ]]'
    seen "report: exit $RC, precious4.txt $(tell untouched OVERWRITTEN test "$(cat precious4.txt)" = p4)"
    # evolve's atomic writes (run.xml, checkpoint.xml, best.cu, best.genome, pareto.xml) and apply -o.
    rm -rf ev_l; mkdir ev_l; echo p5 > precious5.txt
    run sh -c 'for f in run.xml checkpoint.xml best.cu best.genome pareto.xml; do ln -s "$1/precious5.txt" ev_l/$f.tmp$$; done
               exec ./gi-tool evolve stereo/stereo.cu --function stereo_kernel --evaluator fake --generations 2 --population 4 --out ev_l' sh "$S"
    want "evolve: precious5.txt untouched" test "$(cat precious5.txt)" = p5
    seen "evolve with FILE.tmp<pid> links for run.xml, checkpoint.xml, best.cu, best.genome, pareto.xml: exit $RC, precious5.txt $(tell untouched OVERWRITTEN test "$(cat precious5.txt)" = p5)"
    echo p5 > precious5.txt
    run sh -c 'ln -s "$1/precious5.txt" v_l.cu.tmp$$; exec ./gi-tool apply stereo/stereo.cu --function stereo_kernel --genome "" -o v_l.cu' sh "$S"
    want "apply -o: precious5.txt untouched" test "$(cat precious5.txt)" = p5
    seen "apply -o: exit $RC, precious5.txt $(tell untouched OVERWRITTEN test "$(cat precious5.txt)" = p5)"
}

ensure_small() {  # the 600 KiB tmpfs "small", holding cache/ (B12, B16-B18)
    mountpoint -q small 2>/dev/null || { mount_tmpfs small 600k && mkdir -p small/cache; }
}
row_B12() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    ensure_small; rm -f small/fill.* small/cache/*
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir small/cache --genome "$GENOME" --cases 4 --elements 100
    local before; before=$(md5 small/cache/stereo_kernel.sm_90.xml)
    fill small
    local i
    for i in 1 2; do
        run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir small/cache --genome "ROWS_PER_THREAD=4 <_stereo.cu_215>" \
            --cases 4 --elements 100
        want "full disk: cache write fails" failed
        want "full disk: the reason is given" says "No space left on device"
    done
    want "nothing but the entry in the cache folder" test "$(ls -A small/cache)" = stereo_kernel.sm_90.xml
    want "old entry kept" same_md5 small/cache/stereo_kernel.sm_90.xml "$before"
    seen "full: exit $RC '$(cut -c1-100 <<< "$OUT")', cache folder holds: $(ls -A small/cache | tr '\n' ' '), old entry $(tell kept CHANGED same_md5 small/cache/stereo_kernel.sm_90.xml "$before")"
    run ./gi-tool cache write "${REG[@]}" --arch 90 --cache-dir ro/cache --genome "$GENOME" --cases 4 --elements 100
    want "read-only: cache write fails" failed
    want "read-only: the reason is given" says "Read-only file system"
    seen "read-only: '$(grep -o '(Read-only file system)' <<< "$OUT")'"
}
setup_ro() {
    [[ $MOUNT_OK -eq 1 ]] || return 0
    mount_tmpfs ro 64m && cp -r run1 ro/run && cp -r cache0 ro/cache && mount -o remount,ro ro
}
full_again() { rm -f small/fill.*; fill small; }
row_B16() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    ensure_small
    rm -f small/fill.*; mkdir -p small/gen; fill small
    run ./gi-tool cache apply "${REG[@]}" --cache-dir cache0 --arch 90 --wrapper small/gen/k.gi.cu --header small/gen/k.gi.h \
        --options-file small/gen/k.options
    want "fails" failed
    want "with the reason" says "No space left on device"
    want "no temporary left" test -z "$(ls -A small/gen)"
    seen "exit $RC '$(grep 'error:' <<< "$OUT" | cut -c1-110)', small/gen holds: $(ls -A small/gen | tr '\n' ' ')"
}
row_B17() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    ensure_small
    rm -f small/fill.*; echo old > small/g.bnf; full_again
    run ./gi-tool grammar stereo/stereo.cu --function stereo_kernel -o small/g.bnf
    want "fails" failed
    want "with the reason" says "No space left on device"
    want "the previous file intact" test "$(cat small/g.bnf)" = old
    want "no temporary left" test -z "$(ls -A small | grep -v -E '^(cache|gen|g\.bnf|fill\..*)$')"
    seen "exit $RC '$(cut -c1-90 <<< "$OUT")', g.bnf $(tell "still 'old'" "changed ($(wc -c < small/g.bnf) bytes)" test "$(cat small/g.bnf)" = old)"
}
row_B18() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    ensure_small
    full_again
    run ./gi-tool cache show cache0 --html small/c.html
    want "fails" failed
    want "with the reason" says "No space left on device"
    want "no c.html or temporary left" test -z "$(ls -A small | grep '^c\.html')"
    seen "exit $RC, '$(grep 'error:' <<< "$OUT" | cut -c1-80)', left: $(ls -A small | grep '^c\.html' | tr '\n' ' ')"
}
row_B22() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    run ./gi-tool history --out ro/run --best 2
    want "the history is printed from read-only media" ok
    want "no 'move it away'" eval '! says "move it away"'
    seen "read-only: exit $RC, $(grep -c ' gp ' <<< "$OUT") rows"
    rm -rf h0; mkdir h0; cp run1/run.xml h0/; : > h0/history.sqlite
    run ./gi-tool history --out h0
    want "an empty database (a run starting) is not called foreign" eval '! says "not a gi-optimize history database"'
    seen "empty database: '$(cut -c1-80 <<< "$OUT")...'"
}
# from_run_refused SECONDS: cache write --from-run rr, whose best.genome the row replaced.
from_run_refused() {
    run timeout "$1" ./gi-tool cache write stereo/stereo.cu --function stereo_kernel --param BLOCK_W=16,32,64,128,256 \
        --param ROWS_PER_THREAD=1..18 --arch 90 --cache-dir cwr --from-run rr
    want "refused at once (no endless read, no hang)" failed
    want "as not a regular file" says "not a regular file"
    seen "exit $RC$(tell "" " (timeout $1 s)" test "$RC" -ne 124): '$(cut -c1-110 <<< "$OUT")'"
}
row_B24() { rm -rf rr; cp -r run1 rr; rm rr/best.genome; ln -s /dev/urandom rr/best.genome; from_run_refused 20; }
row_B25() { rm -rf rr; cp -r run1 rr; rm rr/best.genome; mkfifo rr/best.genome; from_run_refused 10; }
row_B29() {
    rm -rf hugerun; mkdir hugerun; truncate -s 8G hugerun/run.xml
    run bash -c 'ulimit -v 4000000; exec timeout 60 ./gi-tool report --out hugerun'
    want "refused" failed
    want "by a size limit (no bad_alloc)" says "more than"
    seen "exit $RC: '$(cut -c1-110 <<< "$OUT")'"
    rm -rf hugerun
}
row_B30() {
    rm -rf hugecase; python3 tools/mkcase.py hugecase/k-0000; truncate -s 8G hugecase/k-0000/manifest.xml
    run bash -c 'ulimit -v 4000000; exec timeout 60 ./gi-tool cases hugecase'
    want "refused" failed
    want "by a size limit (no bad_alloc)" says "more than"
    seen "exit $RC: '$(cut -c1-110 <<< "$OUT")'"
    rm -rf hugecase
}

# ---------------------------------------------------------------------------------------------
# C. Recorded test-case folders

row_C3() {
    rm -rf c3; python3 tools/mkcase.py c3/k-0000; ln -sf /dev/zero c3/k-0000/buffer0.before.bin
    run timeout 10 ./gi-tool cases c3
    want "refused" failed
    want "saying why (not 'missing')" eval '! says "missing test-case data"'
    seen "link to /dev/zero: '$(grep -o 'is a symbolic link[^;]*' <<< "$OUT")'"
    rm -rf c3b; python3 tools/mkcase.py c3b/k-0000; rm c3b/k-0000/buffer0.before.bin
    if mknod c3b/k-0000/buffer0.before.bin c 1 5 2>/dev/null; then
        run timeout 10 ./gi-tool cases c3b
        want "a device node refused as not a regular file" says "not a regular file"
        seen "device node: '$(grep -o 'is not a regular file[^;]*' <<< "$OUT")'"
    fi
}
row_C4() {
    rm -rf c4; python3 tools/mkcase.py c4/k-0000; rm c4/k-0000/buffer0.before.bin; mkfifo c4/k-0000/buffer0.before.bin
    run timeout 10 ./gi-tool cases c4
    want "refused without hanging" failed
    want "saying why (not 'missing')" says "not a regular file"
    seen "exit $RC: '$(grep -o 'is not a regular file[^;]*' <<< "$OUT")'"
}
row_C5() {
    rm -rf c5; python3 tools/mkcase.py c5/k-0000; mv c5/k-0000/buffer0.before.bin outside.bin
    ln -s "$S/outside.bin" c5/k-0000/buffer0.before.bin
    run ./gi-tool cases c5
    want "data outside the case folder refused" failed
    seen "exit $RC: '$(grep -o 'is a symbolic link[^;]*' <<< "$OUT")'"
}
row_C9() {
    rm -rf c11; python3 tools/mkcase.py c11/k-0000 size0=17179869184
    run bash -c 'ulimit -v 4000000; exec /usr/bin/time -f "rss-kb %M wall-s %e" timeout 600 ./gi-tool cases c11'
    want "no bad_alloc" eval '! says bad_alloc'
    want "finishes (checked in pieces; the dummy sha256 is then reported)" says_re "corrupt test-case data|verified"
    local rss; rss=$(grep -o 'rss-kb [0-9]*' <<< "$OUT" | cut -d' ' -f2)
    want "memory bounded (under 1 GB)" test "${rss:-9999999}" -lt 1000000
    seen "16 GiB sparse blob under ulimit -v 4000000: exit $RC, $(grep -o 'rss-kb.*' <<< "$OUT"), '$(grep -o 'corrupt test-case data' <<< "$OUT")'"
    rm -rf c11
}
row_C10() {
    rm -rf c10; python3 tools/mkcase.py c10/k-0000 size0=0 off0=999999999999
    run ./gi-tool cases c10
    want "the offset into an empty buffer refused" failed
    seen "exit $RC: '$(grep -o 'pointer offset.*only)' <<< "$OUT")'"
}
row_C17() {
    rm -rf c25 c25b; python3 tools/mkcase.py c25/k-0000 kernel=other
    run ./gi-tool cases c25 --recorded-name k
    want "folder k-0000 holding kernel 'other' refused" failed
    want "saying the names disagree" says "named for kernel 'k'"
    seen "exit $RC: '$(grep -o "the folder is named.*'other'" <<< "$OUT")'"
    python3 tools/mkcase.py c25b/other-0000 kernel=other
    run ./gi-tool cases c25b --recorded-name k
    want "no fallback to another kernel's cases" failed
    seen "no case of k: '$(cut -c1-70 <<< "$OUT")'"
}

# ---------------------------------------------------------------------------------------------
# D. Genomes, parameters, kernel files, expressions

row_D12() {
    mkdir -p d; printf '\xef\xbb\xbf#define SCALE 2\n__global__ void k(float* v) { v[0] = v[0] * SCALE; }\n' > d/bom.cu
    run ./gi-tool apply d/bom.cu --function k --param SCALE=2,3 --genome SCALE=3 -o d/bomv.cu
    want "works" ok
    local apply_rc=$RC
    run g++ -x c++ -E -D__global__= d/bomv.cu
    want "the variant compiles SCALE=3" says "v[0] * 3"
    seen "apply exit $apply_rc, variant keeps the BOM as its first bytes: $([[ $(head -c3 d/bomv.cu 2>/dev/null | od -An -tx1 | tr -d ' ') == efbbbf ]] && echo yes || echo no), g++ -E: $(tell "'v[0] * 3'" "no 'v[0] * 3'" says "v[0] * 3")"
}
row_D14() {
    mkdir -p d; printf '#define SCALE 2\n#define SCALE 2\n__global__ void k(float* v) { v[0] = v[0] * SCALE; }\n' > d/two.cu
    rm -f d/twov.cu
    run ./gi-tool apply d/two.cu --function k --param SCALE=2,3 --genome SCALE=3 -o d/twov.cu
    want "refused" failed
    want "no variant written" absent d/twov.cu
    seen "exit $RC: '$(grep -o 'parameter SCALE is #defined twice[^:]*' <<< "$OUT")'"
}
row_D17() {
    local depth
    for depth in 20000 60000; do
        run ./gi-tool cases ok --kernel rec/scale.cu --function k --block 4 \
            --grid "$(python3 -c "print('('*$depth+'n'+')'*$depth)")"
        want "$depth nested parentheses refused, no crash" failed
        seen "$depth: exit $RC"
    done
    run ./gi-tool cases ok --kernel rec/scale.cu --function k --block 4 --grid "$(python3 -c "print('n'+'-0'*50000)")"
    want "a 50,000-operator chain refused, no crash" failed
    local chain=$RC deep
    deep=$(grep -o "more than 1024 operators deep" <<< "$OUT")
    run ./gi-tool cases ok --kernel rec/scale.cu --function k --block 4 --grid "$(python3 -c "print('-'*50000+'n')")"
    want "50,000 unary minus signs refused, no crash" failed
    seen "'$(grep -o "nested more than 256 levels deep" <<< "$OUT")'; a chain of 50,000 operators: exit $chain '$deep'; 50,000 signs: exit $RC"
}

# ---------------------------------------------------------------------------------------------
# E. evolve, resume, history, report

genomes_of() { [[ -f "$1/run.xml" ]] && grep -o 'genome="[^"]*"' "$1/run.xml" | md5sum | cut -c1-8 || echo "no-run.xml"; }
md5_8() { [[ -f "$1" ]] && md5sum < "$1" | cut -c1-8 || echo "no-$(basename "$1")"; }
row_E6() {
    local i sums=() lists=()
    for i in 1 2 3; do
        rm -rf "an$i"
        run ./gi-tool evolve "${A[@]}" --strategy anneal --out "an$i"
        want "run $i finishes" ok
        sums+=("$(md5_8 "an$i/best.genome")"); lists+=("$(genomes_of "an$i")")
    done
    want "three runs, one best genome" test "${sums[0]}" = "${sums[1]}" -a "${sums[1]}" = "${sums[2]}"
    want "and the same individuals in run.xml" test "${lists[0]}" = "${lists[1]}" -a "${lists[1]}" = "${lists[2]}"
    seen "default workers ($(nproc) cores), 3 runs: best.genome md5 ${sums[*]}, run.xml genomes ${lists[*]}"
}
kill_resume() {  # kill_resume OUT SECONDS [evolve options]: SIGKILL after SECONDS, then --resume
    local out=$1 t=$2; shift 2
    rm -rf "$out"
    set -m   # (a job of its own, as from a terminal; off again so that bash reports nothing)
    ./gi-tool evolve "${A[@]}" "$@" --out "$out" >> "$LOG" 2>&1 &
    local p=$!
    set +m
    sleep "$t"; kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null
    run ./gi-tool evolve "${A[@]}" "$@" --out "$out" --resume
    want "the resumed run ($out) finishes" ok
}
row_E7() {
    rm -rf e7ref; run ./gi-tool evolve "${A[@]}" --strategy anneal --workers 1 --out e7ref
    want "the uninterrupted run finishes" ok
    local ref; ref="$(md5_8 e7ref/best.genome)/$(genomes_of e7ref)"
    local t got all=""
    for t in 0.5 1.7 3.0 4.5; do
        kill_resume "e7_$t" "$t" --strategy anneal --workers 1
        got="$(md5_8 "e7_$t/best.genome")/$(genomes_of "e7_$t")"
        want "killed at $t s and resumed: the uninterrupted run" test "$got" = "$ref"
        all="$all $t:$got"
    done
    seen "--workers 1: uninterrupted $ref; killed+resumed$all"
    # Default workers (the help: a resumed run keeps the number it started with).
    rm -rf e7dref; run ./gi-tool evolve "${A[@]}" --strategy anneal --out e7dref
    want "the uninterrupted default-workers run finishes" ok
    kill_resume e7_d 1.7 --strategy anneal
    want "default workers: killed at 1.7 s and resumed: the uninterrupted run" \
        test "$(genomes_of e7_d)" = "$(genomes_of e7dref)"
    seen "default workers, killed at 1.7 s: $( [[ "$(genomes_of e7_d)" == "$(genomes_of e7dref)" ]] && echo same || echo different)"
}
row_E11() {
    rm -rf h2; cp -r run1 h2
    sqlite3 h2/history.sqlite "WITH RECURSIVE s(i) AS (SELECT 1000 UNION ALL SELECT i+1 FROM s WHERE i < 200999)
        INSERT INTO individuals (id, genome, variant_key, case_index, status, detail, error, median_ms, spread_ms, repetitions,
            original_median_ms, original_spread_ms, original_repetitions, score_mean, score_deviation, accepted, birth,
            strategy, generation, slot, wall_s)
        SELECT i, genome, variant_key, case_index, status, detail, error, median_ms, spread_ms, repetitions,
            original_median_ms, original_spread_ms, original_repetitions, score_mean, score_deviation, accepted, 'mutation',
            strategy, 100 + i, 0, wall_s FROM s, individuals WHERE individuals.id = 11;
        INSERT INTO parents (child, position, parent)
        SELECT id, 0, CASE WHEN id = 1000 THEN 11 ELSE id - 1 END FROM individuals WHERE id >= 1000;" >> "$LOG" 2>&1
    /usr/bin/time -f "rss-kb %M wall-s %e" -o e11.time timeout 120 ./gi-tool history --out h2 --lineage 61000 > e11.out 2> e11.err
    RC=$?; cat e11.err e11.time >> "$LOG"
    want "printed, no crash" ok
    local lines bytes; lines=$(wc -l < e11.out); bytes=$(wc -c < e11.out)
    want "output linear in depth (< 100 MB)" test "$bytes" -lt 100000000
    seen "--lineage 61000 (60,001 ancestors): exit $RC, $(cat e11.time), $lines lines, $bytes bytes"
    /usr/bin/time -f "rss-kb %M wall-s %e" -o e11b.time timeout 120 ./gi-tool history --out h2 --lineage 200999 > /dev/null 2>> "$LOG"
    RC=$?
    want "--lineage 200999: no crash" ok
    seen "--lineage 200999: exit $RC, $(cat e11b.time)"
    rm -f e11.out
}
row_E12() {
    local n user per=() line=""
    for n in 250 500 1000 2000; do
        rm -rf "lg_$n"
        /usr/bin/time -f "%U %e" -o "lg_$n.time" ./gi-tool evolve stereo/stereo.cu --function stereo_kernel --evaluator fake \
            --population 2 --no-pre-tune --no-post-tune --no-minimise --generations "$n" --out "lg_$n" >> "$LOG" 2>&1
        RC=$?
        want "N=$n: the run finishes" ok
        read -r user wall < <(tail -1 "lg_$n.time")
        per+=("$(python3 -c "print($user / $n * 1000)")")
        line="$line N=$n user ${user}s wall ${wall}s;"
        rm -rf "lg_$n"
    done
    local ratio; ratio=$(python3 -c "print(round(${per[3]} / max(${per[0]}, 1e-9), 2))")
    want "user CPU per generation at 2000 no more than twice that at 250" python3 -c "import sys; sys.exit(0 if $ratio <= 2 else 1)"
    seen "${line} per-generation ratio 2000:250 = $ratio"
}
row_E14() {
    rm -rf cp0
    set -m
    ./gi-tool evolve "${A[@]}" --out cp0 >> "$LOG" 2>&1 &
    local p=$!
    set +m
    sleep 0.7; kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null
    want "a checkpoint to damage" test -f cp0/checkpoint.xml
    local mode res="" first=""
    for mode in empty one many foreign; do
        rm -rf "cp_$mode"; cp -r cp0 "cp_$mode"
        python3 tools/damage_population.py "cp_$mode/checkpoint.xml" "$mode"
        run ./gi-tool evolve "${A[@]}" --out "cp_$mode" --resume
        want "population $mode: refused" failed
        want "population $mode: as damaged" says "the file is damaged or was edited"
        res="$res $mode: exit $RC '$(grep -m1 -oE "the population has [0-9]+ members?[^(]*|has no rule <_nope.cu_1>" <<< "$OUT")';"
    done
    seen "${res% }"
}
row_E17() {
    rm -rf run_ulp; python3 tools/ulp_run.py run1 run_ulp
    run bash -c 'ulimit -v 3000000; exec timeout 60 ./gi-tool report --out run_ulp'
    want "a page, at once" ok
    seen "best-speedup 1 / 1.0000000000000002: exit $RC '$OUT'"
    rm -rf run_big; cp -r run1 run_big
    python3 - run_big/run.xml <<'EOF'
import re, sys
p = sys.argv[1]; t = open(p).read(); i = [0]
def gen(m):
    s = re.sub(r'best-speedup="[^"]*"', 'best-speedup="%s"' % ["1e17", "100000000000000016"][i[0] % 2], m.group(0)); i[0] += 1
    return s
open(p, "w").write(re.sub(r'<generation [^>]*>', gen, t).replace('accepted="1" speedup=', 'accepted="0" speedup='))
EOF
    run bash -c 'ulimit -v 3000000; exec timeout 60 ./gi-tool report --out run_big'
    want "values around 1e17 one ulp apart: a page" ok
    seen "around 1e17: exit $RC"
}
row_E20() {
    local how sig dest left res=""
    for how in TERM INT INT-group; do
        sig=${how%-group}
        rm -rf "co_$how" "tmp_$how"; mkdir "tmp_$how"
        set -m
        TMPDIR="$S/tmp_$how" ./gi-tool evolve simple.cu --function scaleKernel --param SCALE=2,3,4 --param BLOCK=64,128,256 \
            --evaluator compile-only --generations 40 --population 10 --out "co_$how" >> "$LOG" 2>&1 &
        local p=$!
        set +m
        sleep 5
        if [[ $how == *group ]]; then dest="-$p"; else dest="$p"; fi
        kill -"$sig" -- "$dest"; wait "$p"; RC=$?
        # A compiler child still finishing removes its own files: give it up to 20 s.
        local i; for i in $(seq 20); do [[ -z "$(ls -A "tmp_$how")" ]] && break; sleep 1; done
        left=$(ls -A "tmp_$how" | tr '\n' ' ')
        echo "left in tmp_$how: $left" >> "$LOG"
        want "SIG$how: no gi-compile-* folder left" test -z "$(ls -A "tmp_$how" | grep '^gi-compile-')"
        res="$res SIG$how: exit $RC, left: ${left:-nothing};"
    done
    seen "${res% }"
}

# ---------------------------------------------------------------------------------------------
# F. record and accept

row_F1() {
    rm -rf shared; mkdir shared; python3 tools/mkcase.py shared/k-0000
    ( ./gi-tool record scale.cu --function k --out shared -- ./fakeprog.sh 4 1 > f1a.log 2>&1; echo "$?" > f1a.rc ) &
    local pa=$!
    sleep 1.5
    run ./gi-tool record scale.cu --function k --out shared -- ./fakeprog.sh 0 0
    local rcb=$RC
    wait "$pa"; cat f1a.log >> "$LOG"
    want "B succeeds" test "$rcb" -eq 0
    want "A fails" test "$(cat f1a.rc)" -eq 1
    local cases; cases=$(ls shared | tr '\n' ' ')
    want "shared keeps k-0000 and B's case" test "$(ls shared | wc -l)" -eq 2
    seen "B exit $rcb, A exit $(cat f1a.rc) ('$(grep -o 'the [0-9]* case(s) it recorded are removed' f1a.log)'); shared: $cases"
}
row_F5() {
    mkdir -p 'dir=1'
    printf '#!/bin/sh\nexec "$(dirname "$0")/../fakeprog.sh" "$@"\n' > 'dir=1/prog.sh'
    printf '#!/bin/sh\nexec "$(dirname "$0")/../writer.sh" "$@"\n' > 'dir=1/writer.sh'
    chmod +x 'dir=1/prog.sh' 'dir=1/writer.sh'
    rm -rf eqout; run ./gi-tool record scale.cu --function k --out eqout -- "./dir=1/prog.sh" 0 0
    want "record runs the program" ok
    seen "record: '$OUT'"
    rm -rf eqref acc_eq; run ./gi-tool record scale.cu --function k --out eqref -- ./writer.sh 1
    run ./gi-tool accept scale.cu --function k --reference eqref --out acc_eq -- "./dir=1/writer.sh" 1
    want "accept runs the program" ok
    seen "accept: exit $RC"
}

# ---------------------------------------------------------------------------------------------
# G. The CMake module (a copy of tests/cmake/project, GI_OPTIMIZE_TOOL = the gi-tool probed)

refused_at_configure() {  # refused_at_configure NAME CALL REGEX [cmake -D...]
    local name=$1 call=$2 regex=$3; shift 3
    cm_project "$name" "$call"
    [[ -n "${PREPARE:-}" ]] && eval "$PREPARE"
    cm_configure "$@"
    local flat; flat=$(tr -s ' \n' '  ' <<< "$OUT")
    want "configure refuses" failed
    want "naming the problem" grep -qE -- "$regex" <<< "$flat"
    want "not 'does not exist' nor CMake's math error" eval '! grep -qE "does not exist|cannot evaluate the expression" <<< "$flat"'
    seen "configure exit $RC: '$(grep -oE -- "$regex" <<< "$flat" | head -1 | cut -c1-140)'"
}
row_G5() {
    PREPARE='"$S/gi-tool" cache write "$CM/src/scale.cu" "${REGC[@]}" --arch 90 --cache-dir "$CM/src/\$<CONFIG>/cache" --genome SCALE=3 --allow-unvalidated >> "$LOG" 2>&1' \
    refused_at_configure g5 "${DEFAULT_CALL%)} CACHE_DIR \"\$<CONFIG>/cache\")" \
        "CACHE_DIR: '\\\$<CONFIG>/cache' holds a generator expression" -DCMAKE_BUILD_TYPE=Release -DGI_REQUIRE_CACHE=ON
}
row_G6() {
    PREPARE='mkdir -p "$CM/src/we'"'"'ird \"dir\"" && cp "$CM/src/scale.cu" "$CM/src/we'"'"'ird \"dir\"/scale2.cu"' \
    refused_at_configure g6 "add_executable(app2 main.cu \"we'ird \\\"dir\\\"/scale2.cu\")
set_target_properties(app2 PROPERTIES CUDA_ARCHITECTURES 90)
gi_optimize_cuda_kernel(app2 KERNEL \"we'ird \\\"dir\\\"/scale2.cu\" FUNCTION scaleKernel RECORDER app2 PARAMS SCALE 2 3)" \
        "contains '\"', which cannot be written in the #include"
}
row_G7() {
    PREPARE='mkdir -p "$CM/src/back\\slash" && cp "$CM/src/scale.cu" "$CM/src/back\\slash/scale3.cu"' \
    refused_at_configure g7 'gi_optimize_cuda_kernel(app KERNEL "back\\slash/scale3.cu" FUNCTION scaleKernel RECORDER app PARAMS SCALE 2 3)' \
        "contains a backslash"
}
row_G8() {
    PREPARE='mkdir -p "$CM/src/semi;colon" && cp "$CM/src/scale.cu" "$CM/src/semi;colon/scale4.cu"' \
    refused_at_configure g8 'gi_optimize_cuda_kernel(app KERNEL "semi\;colon/scale4.cu" FUNCTION scaleKernel RECORDER app PARAMS SCALE 2 3)' \
        "contains ';', which CMake reads as a list separator"
}
row_G9() {
    cm_project g9 'add_executable(app2 main.cu scale.cu)
set_target_properties(app2 PROPERTIES CUDA_ARCHITECTURES 90)
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
gi_optimize_cuda_kernel(app2 KERNEL scale.cu FUNCTION scaleKernel RECORDER app2 ARGS --record
    PARAMS SCALE 2 3 BLOCK=64,128 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)'
    cm_configure -DGI_REQUIRE_CACHE=OFF
    local where; where=$(tr -s ' \n' '  ' <<< "$OUT" | grep -o "app2: scaleKernel: its cache entries are in [^ ]*")
    want "configure says where app2's entries live" test -n "$where"
    seen "configure: '${where/$S/<scratch>}'"
    # The probe's sequence, with each entry where configure says: app's, then app2's.
    run ./gi-tool cache write "$CM/src/scale.cu" "${REGC[@]}" --arch 90 --cache-dir "$CM/src/gi-cache" --genome SCALE=3 \
        --allow-unvalidated
    run ./gi-tool cache write "$CM/src/scale.cu" --function scaleKernel --param SCALE=2,3 --param BLOCK=64,128 --block-size BLOCK \
        --grid "(n + BLOCK - 1) / BLOCK" --tolerance exact --arch 90 --cache-dir "$CM/src/gi-cache/app2" --genome BLOCK=64 \
        --allow-unvalidated
    cm_configure -DGI_REQUIRE_CACHE=ON
    want "GI_REQUIRE_CACHE=ON passes with both entries" ok
    want "neither is stale" eval '! says stale'
    local require="GI_REQUIRE_CACHE=ON: configure exit $RC$(tell ", an entry stale" "" says stale)"
    run ninja -C "$CM/build" -j1 app app2
    want "both targets build" ok
    run "$CM/build/app" --variant 90; local v1=$OUT
    run "$CM/build/app2" --variant 90; local v2=$OUT
    want "app compiles its variant" grep -qF "SCALE=3 SCALE=3" <<< "$v1"
    want "app2 compiles its own" grep -qF "BLOCK=64 SCALE=2 BLOCK=64" <<< "$v2"
    seen "$require; app '$v1', app2 '$v2'"
    # On a GPU machine each would evolve into its own file (planned at configure; not run here).
    rm -rf "$CM/src/gi-cache"
    cm_configure -DGI_REQUIRE_CACHE=OFF -DGI_GPU_ARCHITECTURE=90
    local flat; flat=$(tr -s ' \n' '  ' <<< "$OUT")
    want "on a GPU, app2 would evolve into gi-cache/app2" grep -qF "written to $CM/src/gi-cache/app2/scaleKernel.sm_90.xml" <<< "$flat"
    seen "GPU plan: app2's evolution $(tell "writes gi-cache/app2/scaleKernel.sm_90.xml" "does not write gi-cache/app2/" grep -qF "written to $CM/src/gi-cache/app2/scaleKernel.sm_90.xml" <<< "$flat")"
}
row_G11() {
    [[ $MOUNT_OK -eq 1 ]] || { skip "cannot mount a tmpfs here"; return 1; }
    cm_project g11 "${DEFAULT_CALL%)} CACHE_DIR rocache)"
    mount_tmpfs "$CM/src/rocache" 64k && mount -o remount,ro "$CM/src/rocache"
    cm_configure -DGI_GPU_ARCHITECTURE=90
    local flat; flat=$(tr -s ' \n' '  ' <<< "$OUT")
    want "configure says the folder cannot be written and evolves nothing" grep -qF "cannot be written here" <<< "$flat"
    want "no evolution planned" eval '! grep -q GIOptimizeEvolve.cmake "$CM/build/build.ninja"'
    seen "configure: '$(grep -oE "CACHE_DIR [^ ]* cannot be written here[^)]*" <<< "$flat" | sed "s|$S|<scratch>|")'"
    cm_configure -DGI_GPU_ARCHITECTURE=90 -DGI_STRICT=ON
    want "GI_STRICT=ON: an error" failed
}
row_G15() {
    refused_at_configure g15a "${DEFAULT_CALL%)} BUDGET 99999999999999999999)" \
        "BUDGET: 99999999999999999999 minutes is more than gi-tool evolve's --time-limit accepts"
    local first=$SEEN; SEEN=""
    refused_at_configure g15b "${DEFAULT_CALL%)} BUDGET 20000000)" \
        "BUDGET: 20000000 minutes is more than gi-tool evolve's --time-limit accepts"
    SEEN="$first; $SEEN"
}
row_G17() {
    cm_project g17 "$DEFAULT_CALL"
    run cmake -S "$CM/src" -B "$CM/build" -G Ninja "-DGI_TEST_SOURCE=$PROJECT" -DGI_OPTIMIZE=ON \
        -DGI_OPTIMIZE_TOOL=/bin/true -DGI_GPU_ARCHITECTURE=none
    want "configure refuses /bin/true" failed
    want "as not a gi-tool" says "is not a gi-tool"
    seen "/bin/true: configure exit $RC: '$(tr -s ' \n' '  ' <<< "$OUT" | grep -o "GI_OPTIMIZE_TOOL='/bin/true' is not a gi-tool[^)]*)")'"
    # A stand-in that answers 'version' as gi-tool does but writes nothing: the probe's build sequence.
    rm -rf "$CM/build"
    cm_configure
    run ninja -C "$CM/build" -j1 app
    want "a first build with the real gi-tool" ok
    printf '#!/bin/sh\nif [ "$1" = version ]; then exec "%s" version; fi\nexit 0\n' "$TOOL" > "$CM/fake-gi-tool"
    chmod +x "$CM/fake-gi-tool"
    run cmake "$CM/build" "-DGI_OPTIMIZE_TOOL=$CM/fake-gi-tool"
    touch "$CM/src/scale.cu"
    run ninja -C "$CM/build" -j1 app
    want "a tool that writes nothing fails the build" failed
    want "saying so" says_flat "wrote none of them"
    seen "stand-in writing nothing, touch, ninja app: exit $RC$(tell " ('the step that generates the kernel's files wrote none of them')" "" says_flat "wrote none of them")"
}

# ---------------------------------------------------------------------------------------------
setup_ro
for r in $ROWS; do
    if ! declare -F "row_$r" > /dev/null; then echo "reprobe.sh: no row $r" >&2; continue; fi
    begin "$r"
    "row_$r"
    [[ $SKIPPED -eq 0 ]] && finish
done
echo "GOOD $GOOD BAD $BAD SKIP $SKIP"
