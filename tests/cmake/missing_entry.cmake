# No cache entry and no GPU: the original kernel, one notice per architecture, the build works; with
# GI_REQUIRE_CACHE=ON configuring fails and names the architecture and the missing file.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(missing_entry)
gi_test_configure(out PASS -DGI_TEST_ARCHS=80,90)
string(REGEX MATCHALL "gi-optimize: app: scaleKernel sm_[0-9]+: original kernel \\(no cache entry [^\n]*, no GPU on this machine"
       notices "${out}")
list(LENGTH notices count)
if(NOT count EQUAL 2)
    gi_test_fail("expected one notice for each of sm_80 and sm_90, got ${count}:\n${out}")
endif()
gi_test_build(out PASS)
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: original kernel SCALE=2 BLOCK=128" "the header says original")

gi_test_configure(out FAIL -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "scaleKernel sm_80: no cache entry [^\n]*gi-cache/scaleKernel.sm_80.xml. GI_REQUIRE_CACHE is ON"
               "GI_REQUIRE_CACHE names the architecture and the file")
