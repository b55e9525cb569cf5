# gi-optimize included by add_subdirectory, FetchContent (local path) or find_package after
# `cmake --install`: each configures, builds with the cached variant and says so. -DMODE=...
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(include_${MODE})
gi_test_write_entry("SCALE=3" 90)
# The tool from the main build, so the scenario does not compile gi-tool again (the package mode
# uses the installed, imported GIOptimize::gi-tool instead).
set(tool "")
if(NOT MODE STREQUAL "package")
    set(tool "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
endif()
gi_test_configure(out PASS MODE ${MODE} ${tool} -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "scaleKernel sm_90: cached variant" "configure (${MODE})")
gi_test_build(out PASS)
gi_test_expect("${out}" "variant from [^\n]*: SCALE=3" "build (${MODE})")
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=3" "header (${MODE})")
if(MODE STREQUAL "package")
    gi_test_expect("${out}" "" "")
    file(READ "${build}/build.ninja" ninja)
    gi_test_expect("${ninja}" "${GI_TEST_PREFIX}/bin/gi-apply [^\n]*scale.cu" "the installed gi-apply runs the step")
endif()
