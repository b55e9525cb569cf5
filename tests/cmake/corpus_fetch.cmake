# A program written the way other people write them (tests/corpus/row_filter.cu: kernel, host code
# and main() in one file, <gi/launch.hpp> from GIOptimize::recorder, __constant__ weights, a tile
# width its host code also uses) added to a downstream project by FetchContent exactly as
# docs/cmake.md says: without an entry it builds the original; with a (hand-picked) entry it builds
# the variant, its host code sees the variant's ROW_TILE_W, and gi-tool gets the target's include
# folders when it would evolve.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

set(root "${GI_TEST_WORK}/corpus_fetch")
file(REMOVE_RECURSE "${root}")
set(src "${root}/src")
set(build "${root}/build")
file(COPY "${GI_TEST_SOURCE}/tests/corpus/row_filter.cu" DESTINATION "${src}")
file(WRITE "${src}/CMakeLists.txt" "
cmake_minimum_required(VERSION 3.25)
project(row_filter_app LANGUAGES CXX CUDA)
include(FetchContent)
if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.28)
    FetchContent_Declare(gi_optimize SOURCE_DIR [==[${GI_TEST_SOURCE}]==] EXCLUDE_FROM_ALL)
    FetchContent_MakeAvailable(gi_optimize)
else()
    FetchContent_Declare(gi_optimize SOURCE_DIR [==[${GI_TEST_SOURCE}]==])
    FetchContent_GetProperties(gi_optimize)
    if(NOT gi_optimize_POPULATED)
        FetchContent_Populate(gi_optimize)
        add_subdirectory(\${gi_optimize_SOURCE_DIR} \${gi_optimize_BINARY_DIR} EXCLUDE_FROM_ALL)
    endif()
endif()
add_executable(row_filter row_filter.cu)
set_target_properties(row_filter PROPERTIES CUDA_ARCHITECTURES 90 CUDA_STANDARD 17)
target_link_libraries(row_filter PRIVATE GIOptimize::recorder)
gi_optimize_cuda_kernel(row_filter
    KERNEL row_filter.cu FUNCTION rowFilter
    RECORDER row_filter ARGS --frames 4 --width 512 --height 256
    PARAMS ROW_TILE_W 64 128 256)
")
set(configure "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}"
    "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" -DCMAKE_BUILD_TYPE=Release -DGI_OPTIMIZE=ON "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")

gi_test_run(out PASS ${configure} -DGI_GPU_ARCHITECTURE=none)
gi_test_expect("${out}" "rowFilter sm_90: original kernel \\(no cache entry" "no entry yet")
gi_test_build(out PASS row_filter)

# What a GPU machine would run: record with the target's include folders (the recorder's, for
# <gi/launch.hpp>) and its CUDA standard.
gi_test_run(out PASS ${configure} -DGI_GPU_ARCHITECTURE=90)
gi_test_evolve_calls(calls "${build}/gi-optimize/row_filter/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)record [^\n]*row_filter.cu --function rowFilter --arch sm_90 [^\n]*-I[^ ]*gi-tool/recorder/include[^\n]*--compile-option -std=c\\+\\+17"
               "gi-tool record compiles the kernel file as the target does")

file(STRINGS "${build}/gi-optimize/row_filter/rowFilter.registration" registration)
list(POP_FRONT registration kernel)
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${kernel}" ${registration} --arch 90 --cache-dir "${src}/gi-cache"
            --genome "ROW_TILE_W=64" --allow-unvalidated --note "hand-picked by tests/cmake/corpus_fetch.cmake")
gi_test_run(out PASS ${configure} -DGI_GPU_ARCHITECTURE=none)
gi_test_expect("${out}" "rowFilter sm_90: cached variant from" "the entry is used")
gi_test_build(out PASS row_filter)
gi_test_expect("${out}" "NOT VALIDATED, used because its writer opted in" "the opt-in is said at each build")
file(READ "${build}/gi-optimize/row_filter/rowFilter.sm_90.cu" variant)
gi_test_expect("${variant}" "#define ROW_TILE_W 64" "the variant's tile width, which its own host code sizes the launch with")

# The .registration file is what a person runs gi-tool with by hand: it carries the target's
# include folders (row_filter.cu includes <gi/launch.hpp>), so a compile-only evolution straight
# from it compiles variants (docs/cmake.md, "Evolving by hand").
gi_test_expect("${registration}" "-I[^;]*gi-tool/recorder/include" "the registration file holds the target's -I")
gi_test_expect("${registration}" "--compile-option;-std=c\\+\\+17" "and its CUDA standard")
gi_test_run(out PASS "${GI_TEST_TOOL}" evolve "${kernel}" ${registration} --evaluator compile-only --nvcc "${GI_TEST_NVCC}"
            --generations 1 --population 2 --no-pre-tune --no-post-tune --no-minimise --out "${root}/by-hand")
gi_test_expect("${out}" "compiled: +[1-9][0-9.]*% of individuals" "variants compile with the registration's arguments")
