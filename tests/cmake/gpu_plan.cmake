# With a GPU of the target's architecture and no entry, the build plans: build the recorder (a twin
# of the target with the original kernel, since RECORDER is the target itself), record with
# `gi-tool record`, evolve, write a candidate entry in the build folder, build the program with the
# candidate compiled in (a second twin) and accept it with `gi-tool accept` before the entry enters
# the cache, then apply it. Nothing is built here: this checks the plan (ninja -n), and the commands
# the evolution step runs (with a stand-in gi-tool that notes them); the GPU scenario itself runs on
# the device (bench/gpu-check.sh).
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
gi_test_expect("${plan}" "-DGI_EVOLVE_SETTINGS=[^\n]*-P [^\n]*GIOptimizeEvolve.cmake" "the evolution step runs")
# Its log, which it always writes, is declared (BYPRODUCTS): ninja's clean and restat know it.
file(READ "${build}/build.ninja" ninja)
gi_test_expect("${ninja}" "\nbuild [^\n]*evolve\\.sm_90/evolved\\.stamp [^\n]*evolve\\.sm_90/evolve\\.log[ |:]"
               "the evolution step's log is one of its outputs")
# What the step runs on a GPU machine, played here by a stand-in gi-tool that notes its calls.
gi_test_evolve_calls(calls "${build}/gi-optimize/app/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)record [^\n]*scale.cu --function scaleKernel --arch sm_90 --out [^\n]*evolve.sm_90/cases -- [^\n]*app_gi_recorder --record\n"
               "the recorder runs through gi-tool record with ARGS")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*scale.cu --function scaleKernel [^\n]*--evaluator cuda [^\n]*--time-limit [0-9]+ " "evolve runs")
gi_test_expect("${calls}" "(^|\n)report --out [^\n]*evolve.sm_90/run [^\n]*scale.cu --function scaleKernel"
               "the run's report is written next to it, with the kernel for its source view")
gi_test_expect("${calls}" "(^|\n)cache write [^\n]*--arch 90 [^\n]*--cache-dir [^\n]*evolve.sm_90/candidate --from-run"
               "the run's entry is a candidate in the build folder")
gi_test_expect_not("${calls}" "cache write [^\n]*--allow-unvalidated" "no opt-in without ALLOW_UNVALIDATED")
# The target compiles sm_80 and sm_90 in one binary, whose host pass sees one variant's #defines:
# evolve keeps those host code reads at the file's value (issue 40).
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--target-architectures 2 " "a two-architecture target's evolve keeps host-read #defines")
# Every GPU of the machine by default (GI_GPUS, issue 45).
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--gpus all " "evolve spreads over every GPU by default")
gi_test_expect_not("${calls}" "--worker-launcher" "workers on this machine by default")
gi_test_expect_not("${calls}" "--compile-launcher" "compiles on this machine by default")
# The acceptance program compiles the candidate, built by the acceptance step itself when it has a
# variant to run (none after a failed evolution or for an empty genome: build_failures.cmake).
file(READ "${build}/build.ninja" ninja)
gi_test_expect("${ninja}" "build CMakeFiles/app_gi_accept_sm90.dir/[^\n]*candidate-source/scaleKernel.gi.cu" "the acceptance program compiles the candidate")
gi_test_expect_not("${plan}" "app_gi_accept_sm90.dir" "the build itself does not compile the acceptance program")
gi_test_expect("${plan}" "-DGI_ACCEPT_SETTINGS=[^\n]*-P [^\n]*GIOptimizeAccept.cmake" "the candidate is accepted before it is cached")
string(FIND "${plan}" "GIOptimizeEvolve.cmake" evolve_at)
string(FIND "${plan}" "GIOptimizeAccept.cmake" accept_at)
string(FIND "${plan}" "--cache-dir ${src}/gi-cache" apply_at)
if(evolve_at GREATER accept_at OR accept_at GREATER apply_at OR apply_at EQUAL -1)
    gi_test_fail("evolve, accept and then generate the target's variant from the cache, in that order:\n${plan}")
endif()
file(READ "${build}/gi-optimize/app/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_PROGRAM \\[==\\[[^\n]*app_gi_accept_sm90\\]==\\]\\)" "the acceptance runs the twin")
gi_test_expect("${settings}" "set\\(GI_BUILD_COMMAND [^\n]*\\[==\\[--build\\]==\\] \\[==\\[${build}\\]==\\] \\[==\\[--target\\]==\\] \\[==\\[app_gi_accept_sm90\\]==\\]\\)"
               "which the acceptance step builds")
gi_test_expect("${settings}" "set\\(GI_PROGRAM_ARGS \\[==\\[--record\\]==\\]\\)" "with ARGS (no HELD_OUT)")
gi_test_expect("${settings}" "set\\(GI_REFERENCE [^\n]*evolve.sm_90/cases\\]==\\]\\)" "compared with the ARGS recording")
file(READ "${build}/build.ninja" ninja)
gi_test_expect("${ninja}" "build CMakeFiles/app_gi_recorder.dir/scale.cu.o: [^\n]*src/scale.cu" "the twin compiles the original kernel")
gi_test_expect_not("${ninja}" "build CMakeFiles/app_gi_recorder.dir/[^\n]*scaleKernel.gi.cu" "not the wrapper")

# NONDETERMINISTIC and ALLOW_UNVALIDATED reach evolve and cache write; HELD_OUT drives the acceptance.
# The target's include folders, definitions and CUDA standard reach every gi-tool step that compiles.
gi_test_call([[target_include_directories(app PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_compile_definitions(app PRIVATE APP_MODE=2)
set_target_properties(app PROPERTIES CUDA_STANDARD 17)
target_compile_options(app PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math> $<$<COMPILE_LANGUAGE:CXX>:-Wall>
    "SHELL:-Xptxas -dlcm=ca" $<$<CONFIG:Debug>:-G> $<$<CONFIG:Release>:-lineinfo> -arch sm_90 --generate-code=arch=compute_90,code=sm_90)
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record
    HELD_OUT --record --seed 9 SANITIZE_ARGS --record --n 4096 PARAMS SCALE 2 3 4 BLOCK 64 128 256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK"
    TOLERANCE exact NONDETERMINISTIC ALLOW_UNVALIDATED)]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90" -DGI_GPUS=0,2)
gi_test_evolve_calls(calls "${build}/gi-optimize/app/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--gpus 0,2 " "GI_GPUS chooses the GPUs")
gi_test_expect("${calls}" "(^|\n)record [^\n]*--out [^\n]*evolve.sm_90/held-out -- [^\n]*app_gi_recorder --record --seed 9\n"
               "HELD_OUT is recorded")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--nondeterministic [^\n]*--held-out " "NONDETERMINISTIC reaches evolve")
gi_test_expect("${calls}" "(^|\n)record [^\n]*--out [^\n]*evolve.sm_90/sanitize-cases -- [^\n]*app_gi_recorder --record --n 4096\n"
               "SANITIZE_ARGS is recorded")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--sanitize-cases [^\n]*evolve.sm_90/sanitize-cases" "the gate's cases reach evolve")
gi_test_expect("${calls}" "(^|\n)cache write [^\n]*--allow-unvalidated" "ALLOW_UNVALIDATED reaches cache write")
gi_test_expect_not("${calls}" "--target-architectures" "a one-architecture target tunes every #define, as before")
foreach(step record evolve)
    gi_test_expect("${calls}" "(^|\n)${step} [^\n]*-I${src}/include -DAPP_MODE=2 --compile-option -std=c\\+\\+17"
                   "the target's compile settings reach '${step}'")
endforeach()
# Compile options as the CUDA compile sees them: language conditions decided, a configuration's
# options only in that configuration, no architecture (gi-tool sets it per entry).
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--compile-option --use_fast_math --compile-option -Xptxas --compile-option -dlcm=ca"
               "CUDA's options reach evolve, SHELL: words one by one")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--compile-option=-lineinfo" "a Release build's option in the Release build")
gi_test_expect_not("${calls}" "(^|\n)evolve [^\n]*(-Wall|--compile-option=-G|--compile-option sm_90|compute_90)"
                   "no other language's, configuration's or architecture's option")
file(STRINGS "${build}/gi-optimize/app/scaleKernel.registration" registration)
gi_test_expect("${registration}" "--compile-option;--use_fast_math;--compile-option;-Xptxas;--compile-option;-dlcm=ca;--compile-option=-lineinfo"
               "the registration file holds the same options")
file(READ "${build}/gi-optimize/app/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_PROGRAM_ARGS \\[==\\[--record\\]==\\] \\[==\\[--seed\\]==\\] \\[==\\[9\\]==\\]\\)"
               "the acceptance runs with HELD_OUT")
gi_test_expect("${settings}" "set\\(GI_REFERENCE [^\n]*evolve.sm_90/held-out\\]==\\]\\)" "compared with the HELD_OUT recording")
gi_test_expect("${settings}" "set\\(GI_COMPILE_ARGUMENTS \\[==\\[-I${src}/include\\]==\\] \\[==\\[-DAPP_MODE=2\\]==\\]"
               "and gi-tool accept with the target's compile settings")

# The same plan when gi-optimize comes by add_subdirectory: the acceptance script is found there too.
# (build.ninja, not `ninja -n`: gi-tool's globbed sources make a dry run stop at regenerating.)
gi_test_configure(out PASS MODE subdir -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90")
file(READ "${build}/build.ninja" ninja)
gi_test_expect("${ninja}" "-P ${GI_TEST_SOURCE}/cmake/GIOptimizeAccept.cmake" "the acceptance script of the source tree")
gi_test_expect("${ninja}" "-P ${GI_TEST_SOURCE}/cmake/GIOptimizeEvolve.cmake" "and the evolution's")

# A template whose argument is a parameter (FUNCTION "tscale<FACTOR>", PARAMS FACTOR): its launches
# are recorded, and accepted, under the template's name, since each variant runs another
# instantiation.
file(REMOVE_RECURSE "${build}")
file(WRITE "${src}/tscale.cu" "#include <cstdio>\n#define FACTOR 2\n"
     "template <int F> __global__ void tscale(float* out, int n) { int i = threadIdx.x; if (i < n) out[i] *= F; }\n"
     "int main() { float* d = nullptr; cudaMalloc(&d, 4); tscale<FACTOR><<<1, 1>>>(d, 1); return cudaDeviceSynchronize(); }\n")
gi_test_call("add_executable(tapp tscale.cu)\nset_target_properties(tapp PROPERTIES CUDA_ARCHITECTURES 90)\n\
gi_optimize_cuda_kernel(tapp KERNEL tscale.cu FUNCTION \"tscale<FACTOR>\" RECORDER tapp PARAMS FACTOR 2 3)\n")
# (With workers started by srun: GI_WORKER_LAUNCHER reaches evolve, and GI_GPUS, this machine's GPUs, does not;
# GI_COMPILE_LAUNCHER too.)
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_WORKER_LAUNCHER=srun --gres=gpu:1 -N1"
                  "-DGI_COMPILE_LAUNCHER=srun -N1 --cpus-per-task=2")
gi_test_evolve_calls(calls "${build}/gi-optimize/tapp/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--worker-launcher srun --gres=gpu:1 -N1 " "GI_WORKER_LAUNCHER reaches evolve")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--compile-launcher srun -N1 --cpus-per-task=2 " "GI_COMPILE_LAUNCHER reaches evolve")
gi_test_expect_not("${calls}" "--gpus" "and GI_GPUS does not: evolve refuses the two together")
gi_test_expect("${calls}" "(^|\n)record [^\n]*tscale.cu --function tscale<FACTOR> [^\n]*--recorded-name tscale --out"
               "the template's launches are recorded under its name")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--function tscale<FACTOR> --param FACTOR=2,3" "evolve follows FACTOR")
file(READ "${build}/gi-optimize/tapp/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_RECORDED_NAME \\[==\\[tscale\\]==\\]\\)" "the acceptance records under the same name")
