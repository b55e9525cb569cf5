# Two targets of one project built from one kernel file, each registering its function with other
# PARAMS (issue 39, class 8): each registration has its own cache entry. The first call keeps the
# usual name in CACHE_DIR (a committed cache stays valid); the second target's entries live in
# CACHE_DIR/<target>/, and configure says so. A third target with the first one's registration shares
# its entry. With GI_REQUIRE_CACHE both must be current, and each target compiles its own variant.
# (They used to share one file, so one of them was always stale.)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(shared_kernel)
gi_test_call([[
add_executable(app2 main.cu scale.cu)
add_executable(app3 main.cu scale.cu)
set_target_properties(app2 app3 PROPERTIES CUDA_ARCHITECTURES 90)
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
gi_optimize_cuda_kernel(app2 KERNEL scale.cu FUNCTION scaleKernel RECORDER app2 ARGS --record
    PARAMS SCALE 2 3 BLOCK=64,128 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
gi_optimize_cuda_kernel(app3 KERNEL scale.cu FUNCTION scaleKernel RECORDER app3 ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
]])
# app's entry where it always was; app2's in gi-cache/app2, written with app2's registration.
gi_test_write_entry("SCALE=3" 90)
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${src}/scale.cu" --function scaleKernel --param SCALE=2,3
    --param BLOCK=64,128 --block-size BLOCK --grid "(n + BLOCK - 1) / BLOCK" --tolerance exact --arch 90
    --cache-dir "${src}/gi-cache/app2" --genome "BLOCK=64" --allow-unvalidated --note "hand-picked for app2")

gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "gi-optimize: app2: scaleKernel: its cache entries are in ${src}/gi-cache/app2/, since target 'app' registers scaleKernel in ${src}/gi-cache with another registration"
               "configure says where the second registration's entries are")
gi_test_expect("${out}" "app: scaleKernel sm_90: cached variant from ${src}/gi-cache/scaleKernel.sm_90.xml" "app keeps the usual entry")
gi_test_expect("${out}" "app2: scaleKernel sm_90: cached variant from ${src}/gi-cache/app2/scaleKernel.sm_90.xml" "app2 has its own")
gi_test_expect("${out}" "app3: scaleKernel sm_90: cached variant from ${src}/gi-cache/scaleKernel.sm_90.xml" "app3 shares app's")
gi_test_expect_not("${out}" "app3: scaleKernel: its cache entries are in" "the same registration needs no entry of its own")
gi_test_build(out PASS)
foreach(pair "app:SCALE=3 SCALE=3 BLOCK=128" "app2:BLOCK=64 SCALE=2 BLOCK=64" "app3:SCALE=3 SCALE=3 BLOCK=128")
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 program)
    list(GET pair 1 expected)
    gi_test_run(out PASS "${build}/${program}" --variant 90)
    gi_test_expect("${out}" "variant: ${expected}" "${program} compiles its own registration's variant")
endforeach()

# On a GPU machine each registration evolves into its own entry (they no longer overwrite one file).
file(REMOVE_RECURSE "${src}/gi-cache")
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=OFF -DGI_GPU_ARCHITECTURE=90)
gi_test_expect("${out}" "app: scaleKernel sm_90: [^\n]*an accepted variant is written to ${src}/gi-cache/scaleKernel.sm_90.xml"
               "app evolves into the usual entry")
gi_test_expect("${out}" "app2: scaleKernel sm_90: [^\n]*an accepted variant is written to ${src}/gi-cache/app2/scaleKernel.sm_90.xml"
               "app2 evolves into its own")
file(READ "${build}/gi-optimize/app2/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_CACHE_ENTRY \\[==\\[${src}/gi-cache/app2/scaleKernel.sm_90.xml\\]==\\]\\)"
               "app2's acceptance writes its own entry")
