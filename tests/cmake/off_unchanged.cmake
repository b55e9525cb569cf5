# GI_OPTIMIZE=OFF: the target builds exactly as if the call were not there: the same build edges
# and the same compile commands as a project without the call, and no gi-tool step.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(off_unchanged)
gi_test_write_entry("SCALE=3" 90)
gi_test_configure(with_call PASS -DGI_OPTIMIZE=OFF)
gi_test_expect_not("${with_call}" "gi-optimize: app" "OFF configure says nothing about the target")
gi_test_build(out PASS)
gi_test_expect_not("${out}" "gi-optimize|gi-tool" "OFF build runs no gi-tool step")
file(READ "${build}/compile_commands.json" commands_with)
gi_test_build(targets_with PASS -t targets all)

gi_test_call("")
file(REMOVE_RECURSE "${build}")
gi_test_configure(without_call PASS -DGI_OPTIMIZE=OFF)
gi_test_build(out PASS)
file(READ "${build}/compile_commands.json" commands_without)
gi_test_build(targets_without PASS -t targets all)

if(NOT commands_with STREQUAL commands_without)
    gi_test_fail("compile commands differ with the call and GI_OPTIMIZE=OFF:\n${commands_with}\nvs\n${commands_without}")
endif()
if(NOT targets_with STREQUAL targets_without)
    gi_test_fail("build edges differ with the call and GI_OPTIMIZE=OFF:\n${targets_with}\nvs\n${targets_without}")
endif()
