# consumer-example/ built the way scripts/example.sh and scripts/ci-consumer.sh build it, with a
# scratch cache holding a hand-picked sm_90 genome (the committed entry comes from the H100): the
# build uses the entry (GI_REQUIRE_CACHE=ON), the program reports the variant and, without a GPU,
# writes the CPU reference's map as a PGM.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

set(root "${GI_TEST_WORK}/consumer_example")
file(REMOVE_RECURSE "${root}")
set(build "${root}/build")
set(cache "${root}/cache")
set(configure_args "${CMAKE_COMMAND}" -S "${GI_TEST_SOURCE}/consumer-example" -B "${build}" -G Ninja
    "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}" "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" -DCMAKE_BUILD_TYPE=Release
    -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}" "-DSTEREO_CACHE_DIR=${cache}")

gi_test_run(out PASS ${configure_args})
gi_test_expect("${out}" "stereo_kernel sm_90: original kernel \\(no cache entry" "no entry yet")
file(STRINGS "${build}/gi-optimize/stereo/stereo_kernel.registration" registration)
list(POP_FRONT registration kernel)
gi_test_expect("${kernel}" "kernels/stereo/stereo.cu$" "the registration file names the kernel first")
# Usable as it is by an evolution by hand with any evaluator: --grid and --tolerance describe the
# registration and are not refused by evaluators that do not launch the kernel.
gi_test_run(out PASS "${GI_TEST_TOOL}" evolve "${kernel}" ${registration} --evaluator fake --generations 1
            --population 4 --out "${root}/by-hand")
gi_test_expect("${out}" "best speedup:" "gi-tool evolve runs on the registration file's arguments")
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${kernel}" ${registration} --arch 90 --cache-dir "${cache}"
            --genome "BLOCK_W=32 ROWS_PER_THREAD=8" --allow-unvalidated --note "hand-picked by tests/cmake/consumer_example.cmake")

gi_test_run(out PASS ${configure_args} -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "stereo_kernel sm_90: cached variant from [^\n]*cache/stereo_kernel.sm_90.xml" "the entry is used")
gi_test_build(out PASS stereo)
gi_test_expect("${out}" "variant from [^\n]*: BLOCK_W=32 ROWS_PER_THREAD=8" "the variant is generated")

gi_test_run(out PASS "${build}/stereo" --variants)
gi_test_expect("${out}" "sm_90: gi-optimize variant BLOCK_W=32 ROWS_PER_THREAD=8 \\(BLOCK_W=32 ROWS_PER_THREAD=8\\)" "--variants")
gi_test_run(out PASS "${build}/stereo" --width 64 --height 48 --out "${root}/map.pgm" --write-pair "${root}/pair")
gi_test_expect("${out}" "no CUDA device here|kernel: gi-optimize variant for sm_90: BLOCK_W=32" "the program runs and says which kernel")
file(READ "${root}/map.pgm" header LIMIT 12)
gi_test_expect("${header}" "^P5\n64 48\n255\n" "the disparity map is a 64x48 PGM")
gi_test_run(out FAIL "${build}/stereo" --left "${root}/map.pgm")
gi_test_expect("${out}" "--left and --right go together" "bad arguments are refused")
