# No cache entry and no GPU: the original kernel, one notice for the kernel naming every such
# architecture (at configure and at build), the build works; with GI_REQUIRE_CACHE=ON configuring
# fails and names the architecture and the missing file.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(missing_entry)
gi_test_configure(out PASS -DGI_TEST_ARCHS=80,90)
string(REGEX MATCHALL "gi-optimize: [^\n]*scaleKernel" lines "${out}")
list(LENGTH lines count)
if(NOT count EQUAL 1)
    gi_test_fail("expected one line for the kernel at configure, got ${count}:\n${out}")
endif()
gi_test_expect("${out}" "gi-optimize: app: scaleKernel sm_80, sm_90: original kernel \\(no cache entries in [^\n]*gi-cache, no GPU on this machine"
               "both architectures in one notice")
gi_test_build(out PASS)
string(REGEX MATCHALL "gi-optimize: [^\n]*: original kernel" lines "${out}")
list(LENGTH lines count)
if(NOT count EQUAL 1)
    gi_test_fail("expected one line for the kernel at build time, got ${count}:\n${out}")
endif()
gi_test_expect("${out}" "scaleKernel sm_80, sm_90: original kernel: no cache entries in " "the build's line")
gi_test_configure(out PASS -DGI_TEST_ARCHS=90)
gi_test_expect("${out}" "gi-optimize: app: scaleKernel sm_90: original kernel \\(no cache entry [^\n]*gi-cache/scaleKernel.sm_90.xml, no GPU on this machine"
               "one architecture: its file named")
gi_test_build(out PASS)
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: original kernel SCALE=2 BLOCK=128" "the header says original")

gi_test_configure(out FAIL -DGI_REQUIRE_CACHE=ON -DGI_TEST_ARCHS=80,90)
gi_test_expect("${out}" "scaleKernel sm_80: no cache entry [^\n]*gi-cache/scaleKernel.sm_80.xml. GI_REQUIRE_CACHE is ON"
               "GI_REQUIRE_CACHE names the architecture and the file")
