# The CMake scenarios (tests/cmake/*.cmake): each configures and builds a small downstream project
# in a temporary folder with the real gi-tool and nvcc. Included from tests/CMakeLists.txt.
# A fixture installs this build first, for the scenarios that use find_package(GIOptimize).
set(_gi_test_work "${CMAKE_BINARY_DIR}/cmake-scenarios")
set(_gi_test_prefix "${_gi_test_work}/prefix")
set(_gi_test_nvcc "${CMAKE_CUDA_COMPILER}")
set(_gi_test_args
    "-DGI_TEST_SOURCE=${PROJECT_SOURCE_DIR}" "-DGI_TEST_TOOL=$<TARGET_FILE:gi-tool>"
    "-DGI_TEST_NVCC=${_gi_test_nvcc}" "-DGI_TEST_NINJA=${CMAKE_MAKE_PROGRAM}"
    "-DGI_TEST_WORK=${_gi_test_work}" "-DGI_TEST_PREFIX=${_gi_test_prefix}")

add_test(NAME cmake.install
         COMMAND "${CMAKE_COMMAND}" --install "${CMAKE_BINARY_DIR}" --prefix "${_gi_test_prefix}")
set_tests_properties(cmake.install PROPERTIES FIXTURES_SETUP gi_installed TIMEOUT 120)

function(_gi_add_scenario name script)
    add_test(NAME cmake.${name}
             COMMAND "${CMAKE_COMMAND}" ${_gi_test_args} ${ARGN} -P "${PROJECT_SOURCE_DIR}/tests/cmake/${script}.cmake")
    set_tests_properties(cmake.${name} PROPERTIES
        FIXTURES_REQUIRED gi_installed TIMEOUT 600 SKIP_REGULAR_EXPRESSION "GI_TEST_SKIPPED" LABELS cmake)
endfunction()

_gi_add_scenario(off_unchanged off_unchanged)
_gi_add_scenario(cached_variant cached_variant)
_gi_add_scenario(ptx_edits ptx_edits)
_gi_add_scenario(entry_problems entry_problems)
_gi_add_scenario(missing_entry missing_entry)
_gi_add_scenario(bad_arguments bad_arguments)
_gi_add_scenario(incremental incremental)
_gi_add_scenario(multi_arch multi_arch)
_gi_add_scenario(gpu_plan gpu_plan)
_gi_add_scenario(consumer_example consumer_example)
_gi_add_scenario(accept_script accept_script)
_gi_add_scenario(corpus_fetch corpus_fetch)
_gi_add_scenario(light_consumer light_consumer)
_gi_add_scenario(light_on light_on)
_gi_add_scenario(two_kernels two_kernels)
_gi_add_scenario(build_failures build_failures)
_gi_add_scenario(refusals refusals)
_gi_add_scenario(shared_kernel shared_kernel)
_gi_add_scenario(policies policies)
_gi_add_scenario(sample_programs sample_programs)
_gi_add_scenario(header_kernel header_kernel)
_gi_add_scenario(recording_plan recording_plan)
# The same scenarios with Unix Makefiles, CMake's default generator on Linux and what a sample-style
# project's `cmake .. && make` uses: those whose checks do not read ninja's own output or files.
# (Their GI_TEST_WORK, given after _gi_test_args', is the one cmake -P keeps.)
foreach(name ptx_edits cached_variant incremental multi_arch header_kernel shared_kernel missing_entry sample_programs)
    _gi_add_scenario(makefiles.${name} ${name} "-DGI_TEST_GENERATOR=Unix Makefiles" "-DGI_TEST_WORK=${_gi_test_work}/makefiles")
endforeach()
set_property(TEST cmake.makefiles.sample_programs APPEND PROPERTY LABELS slow)
# Scenarios that take 20 s or more on a 2-core machine are `slow` too (ctest -LE slow leaves them out).
set_property(TEST cmake.entry_problems cmake.corpus_fetch cmake.light_on cmake.build_failures cmake.sample_programs
             APPEND PROPERTY LABELS slow)
# The stage order's build step against a tree that breaks it (cmake -P only): always runs.
add_test(NAME cmake.stage_includes
         COMMAND "${CMAKE_COMMAND}" ${_gi_test_args} "-DGI_TEST_RULES=${CMAKE_BINARY_DIR}/gi-tool/stage_rules.txt"
                 -P "${PROJECT_SOURCE_DIR}/tests/cmake/stage_includes.cmake")
set_tests_properties(cmake.stage_includes PROPERTIES TIMEOUT 120 LABELS "cmake;unit")
# The rule that keeps raw benchmark data out of bench/results/ (issue 43; git and bash only): always runs.
add_test(NAME cmake.bench_raw_data COMMAND "${CMAKE_COMMAND}" ${_gi_test_args}
         -P "${PROJECT_SOURCE_DIR}/tests/cmake/bench_raw_data.cmake")
set_tests_properties(cmake.bench_raw_data PROPERTIES TIMEOUT 120 LABELS "cmake;unit" SKIP_REGULAR_EXPRESSION "GI_TEST_SKIPPED")
# Needs gi-tool only (no nvcc, no install): always runs.
add_test(NAME cmake.cache_key COMMAND "${CMAKE_COMMAND}" ${_gi_test_args} -P "${PROJECT_SOURCE_DIR}/tests/cmake/cache_key.cmake")
set_tests_properties(cmake.cache_key PROPERTIES TIMEOUT 120 LABELS cmake)
foreach(mode subdir fetch package)
    _gi_add_scenario(include_${mode} include_modes -DMODE=${mode})
endforeach()
