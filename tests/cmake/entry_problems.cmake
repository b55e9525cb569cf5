# A stale, a hand-edited and a corrupt cache entry are each detected, named with the reason and
# never used: the build compiles the original kernel and says why; with GI_REQUIRE_CACHE=ON it is
# an error (at configure time where the key shows it, at build time for what only gi-tool sees).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

function(expect_original what)
    file(READ "${build}/gi-optimize/app/scaleKernel.sm_90.cu" file)
    gi_test_expect("${file}" "compiles the original kernel" "${what}: sm_90 compiles the original")
    gi_test_run(out PASS "${build}/app" --variant 90)
    gi_test_expect("${out}" "variant: original kernel SCALE=2" "${what}: the header says original")
endfunction()

# Stale: the kernel changed after the entry was made.
gi_test_project(entry_stale)
gi_test_write_entry("SCALE=3" 90)
file(APPEND "${src}/scale.cu" "// an edit after the entry was made\n")
gi_test_configure(out PASS)
gi_test_expect("${out}" "scaleKernel sm_90: original kernel \\([^\n]*scaleKernel.sm_90.xml is stale" "configure: stale")
gi_test_build(out PASS)
gi_test_expect("${out}" "sm_90: original kernel: [^\n]*stale: the kernel source scale.cu changed" "build: why stale")
expect_original(stale)
gi_test_configure(out FAIL -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "scaleKernel sm_90: [^\n]*stale[^\n]*GI_REQUIRE_CACHE is ON" "GI_REQUIRE_CACHE: stale is an error")

# Stale: the registration changed (another parameter range).
gi_test_project(entry_stale_registration)
gi_test_write_entry("SCALE=3" 90)
gi_test_call([=[
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 5 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
]=])
gi_test_configure(out PASS)
gi_test_build(out PASS)
gi_test_expect("${out}" "registration changed: param 1: 'SCALE=2,3,4' in the entry, 'SCALE=2,3,4,5' now" "build: what changed")
expect_original(stale_registration)

# Hand-edited: the genome changed, key intact; only the checksum shows it.
gi_test_project(entry_tampered)
gi_test_write_entry("SCALE=3" 90)
file(READ "${src}/gi-cache/scaleKernel.sm_90.xml" xml)
string(REPLACE "<![CDATA[SCALE=3]]>" "<![CDATA[SCALE=4]]>" xml "${xml}")
file(WRITE "${src}/gi-cache/scaleKernel.sm_90.xml" "${xml}")
gi_test_configure(out PASS)
gi_test_build(out PASS)
gi_test_expect("${out}" "sm_90: original kernel: [^\n]*scaleKernel.sm_90.xml: invalid: checksum mismatch" "build: tampered")
expect_original(tampered)
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_build(out FAIL)
gi_test_expect("${out}" "error: [^\n]*checksum mismatch" "GI_REQUIRE_CACHE: a tampered entry fails the build")

# Corrupt: a truncated file.
gi_test_project(entry_corrupt)
gi_test_write_entry("SCALE=3" 90)
file(READ "${src}/gi-cache/scaleKernel.sm_90.xml" xml)
string(SUBSTRING "${xml}" 0 300 xml)
file(WRITE "${src}/gi-cache/scaleKernel.sm_90.xml" "${xml}")
gi_test_configure(out PASS)
gi_test_expect("${out}" "sm_90: original kernel \\([^\n]*no readable <key>" "configure: corrupt")
gi_test_build(out PASS)
gi_test_expect("${out}" "scaleKernel.sm_90.xml: invalid: [^\n]*corrupt cache entry: not well-formed XML" "build: corrupt")
expect_original(corrupt)
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache verify "${src}/gi-cache")
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache show "${src}/gi-cache")

# A link committed in place of an entry (git keeps links), leading to an endless device: refused
# unread by configure, by the build and by gi-tool, within seconds (it used to read without end).
gi_test_project(entry_link)
file(MAKE_DIRECTORY "${src}/gi-cache")
file(CREATE_LINK /dev/urandom "${src}/gi-cache/scaleKernel.sm_90.xml" SYMBOLIC)
string(TIMESTAMP before "%s")
gi_test_configure(out PASS)
gi_test_expect("${out}" "sm_90: original kernel \\([^\n]*scaleKernel.sm_90.xml is a symbolic link or a folder" "configure: a link")
gi_test_build(out PASS)
gi_test_expect("${out}" "scaleKernel.sm_90.xml: invalid: [^\n]*is a symbolic link" "build: a link")
expect_original(link)
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache verify "${src}/gi-cache")
gi_test_expect("${out}" "is a symbolic link" "cache verify names the link")
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache show "${src}/gi-cache")
string(TIMESTAMP after "%s")
math(EXPR seconds "${after} - ${before}")
if(seconds GREATER 60)
    gi_test_fail("the link took ${seconds} s to refuse")
endif()

# A file far larger than any entry: refused unread.
file(REMOVE "${src}/gi-cache/scaleKernel.sm_90.xml")
string(REPEAT "x" 1100000 big)
file(WRITE "${src}/gi-cache/scaleKernel.sm_90.xml" "${big}")
gi_test_configure(out PASS)
gi_test_expect("${out}" "sm_90: original kernel \\([^\n]*larger than any cache entry" "configure: a huge file")
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache verify "${src}/gi-cache")
gi_test_expect("${out}" "more than any entry holds" "cache verify: a huge file")
