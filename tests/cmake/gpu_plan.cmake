# With a GPU of the target's architecture and no entry, the build plans: build the recorder (a twin
# of the target with the original kernel, since RECORDER is the target itself), record, evolve,
# write the entry, then apply it. Nothing is run here: this checks the plan (ninja -n) only; the
# GPU scenario itself runs on the device (bench/gpu-check.sh).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(gpu_plan)
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=80,90")
gi_test_expect("${out}" "scaleKernel sm_90: no cache entry [^\n]*sm_90 GPU, so the build records test cases and evolves it \\(budget 10 min\\)"
               "sm_90 is evolved")
gi_test_expect("${out}" "scaleKernel sm_80: original kernel \\(no cache entry [^\n]*the GPU here is sm_90" "sm_80 is not")
gi_test_build(plan PASS -n -v)
gi_test_expect("${plan}" "app_gi_recorder" "the recorder twin is built")
gi_test_expect("${plan}" "GI_RECORD_DIR=[^\n]*evolve.sm_90/cases[^\n]*app_gi_recorder --record" "the recorder runs with GI_RECORD_DIR and ARGS")
gi_test_expect("${plan}" "gi-tool[^\n]* evolve [^\n]*scale.cu --function scaleKernel [^\n]*--evaluator cuda" "evolve runs")
gi_test_expect("${plan}" "gi-tool[^\n]* cache write [^\n]*--arch 90 [^\n]*--from-run" "the entry is written")
string(FIND "${plan}" " evolve " evolve_at)
string(FIND "${plan}" " cache apply " apply_at)
if(evolve_at GREATER apply_at)
    gi_test_fail("the variant must be generated after evolution:\n${plan}")
endif()
file(READ "${build}/build.ninja" ninja)
gi_test_expect("${ninja}" "build CMakeFiles/app_gi_recorder.dir/scale.cu.o: [^\n]*src/scale.cu" "the twin compiles the original kernel")
gi_test_expect_not("${ninja}" "build CMakeFiles/app_gi_recorder.dir/[^\n]*scaleKernel.gi.cu" "not the wrapper")
