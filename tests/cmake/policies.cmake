# The module sets its own policies and passes no empty values (issue 40, item 5): a project whose
# cmake_minimum_required is 3.20, as public sample programs write it, with a registration without
# BLOCK_SIZE and GRID, configures without a single CMake warning, whichever way gi-optimize is
# included (with CMake 3.31 and later this registration used to print CMP0174's "The BLOCK_SIZE
# keyword was followed by an empty string" once per architecture). Its registration file holds no
# empty argument, and `gi-tool cache verify DIR "${reg[@]}" --compile` reads it, as docs/cmake.md
# says. Every positional name gi-tool declares is one CLI11 2.4 and later accept (they refuse names
# with spaces: `cache verify` stopped with "Invalid positional Name: DIR [KERNEL.cu]").
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(policies)
file(READ "${src}/CMakeLists.txt" lists)
string(REPLACE "cmake_minimum_required(VERSION 3.25)" "cmake_minimum_required(VERSION 3.20)" lists "${lists}")
file(WRITE "${src}/CMakeLists.txt" "${lists}")
gi_test_call([[
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256)
]])
foreach(mode package subdir)
    file(REMOVE_RECURSE "${build}")
    foreach(gpu none 90)  # the plan of an evolution too
        gi_test_configure(out PASS MODE ${mode} -DGI_GPU_ARCHITECTURE=${gpu} "-DGI_TEST_ARCHS=80,90"
                          "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
        gi_test_expect_not("${out}" "CMake (Warning|Deprecation Warning)" "${mode}, GI_GPU_ARCHITECTURE=${gpu}: no warning")
    endforeach()
endforeach()

set(registration_file "${build}/gi-optimize/app/scaleKernel.registration")
file(READ "${registration_file}" text)
gi_test_expect_not("${text}" "(^|\n)\n" "the registration file holds no empty argument")
file(STRINGS "${registration_file}" registration)
list(POP_FRONT registration kernel)
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${kernel}" ${registration} --arch 90 --cache-dir "${src}/gi-cache"
            --genome "SCALE=3" --allow-unvalidated --note "hand-picked by tests/cmake/policies.cmake")
gi_test_run(out PASS "${GI_TEST_TOOL}" cache verify "${src}/gi-cache" "${kernel}" ${registration} --compile
            "--nvcc=${GI_TEST_NVCC}")
gi_test_expect("${out}" "scaleKernel.sm_90.xml: valid" "cache verify reads the registration file")
gi_test_expect("${out}" "compiled for sm_90" "and compiles the variant")

# CLI11 2.4 and later refuse a positional whose name has a space, '=', ':' or '{' (when the command
# line is built, so every use of the command fails); the CLI11 here (2.1) does not, so the names are
# checked in the source.
file(GLOB sources "${GI_TEST_SOURCE}/gi-tool/src/cli/*.cpp" "${GI_TEST_SOURCE}/gi-tool/apply/*.cpp")
foreach(source IN LISTS sources)
    file(STRINGS "${source}" lines REGEX "add_(positionals|option)\\(\"[^-\"]")
    foreach(line IN LISTS lines)
        string(REGEX MATCH "add_(positionals|option)\\(\"([^\"]*)\"" ignored "${line}")
        set(name "${CMAKE_MATCH_2}")
        if(name MATCHES "[ \t=:{]")
            gi_test_fail("${source}: positional '${name}' has a character CLI11 2.4 refuses in a name")
        endif()
    endforeach()
endforeach()
