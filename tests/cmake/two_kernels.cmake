# Two kernels of one file registered by two calls (tests/cmake/two_kernels): each has its own cache
# entry, the build puts both variants into one generated file and the target compiles that in the
# kernel file's place, each header describing its own kernel's variant. A function or a PARAMS
# macro registered twice is refused at configure time. With a GPU, the plan evolves each kernel in
# its own folder, and the second one's candidate is built and accepted together with the first's
# accepted entry.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

set(root "${GI_TEST_WORK}/two_kernels")
file(REMOVE_RECURSE "${root}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/two_kernels/" DESTINATION "${root}/src")
set(src "${root}/src")
set(build "${root}/build")

# Hand-picked entries, registered exactly as CMakeLists.txt does.
set(partial_registration --function partial_sums --param BLOCK=64,128,256,512,1024 --block-size BLOCK --tolerance rel=1e-4)
set(final_registration --function final_sum --param FINAL_THREADS=32,64,128,256,512 --block-size FINAL_THREADS
    --tolerance rel=1e-4)
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${src}/sum.cu" ${partial_registration} --arch 90
    --cache-dir "${src}/gi-cache" --genome "BLOCK=512 restrict=1" --allow-unvalidated --note "hand-picked")
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${src}/sum.cu" ${final_registration} --arch 90
    --cache-dir "${src}/gi-cache" --genome "FINAL_THREADS=64 const_blocks=1" --allow-unvalidated --note "hand-picked")

gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "sum: partial_sums sm_90: cached variant from [^\n]*gi-cache/partial_sums.sm_90.xml"
               "configure names the first kernel's entry")
gi_test_expect("${out}" "sum: final_sum sm_90: cached variant from [^\n]*gi-cache/final_sum.sm_90.xml"
               "configure names the second kernel's entry")
gi_test_build(out PASS)
gi_test_expect("${out}" "partial_sums sm_90: variant from [^\n]*: BLOCK=512 restrict=1" "the first genome is applied")
gi_test_expect("${out}" "final_sum sm_90: variant from [^\n]*: FINAL_THREADS=64 const_blocks=1" "the second genome is applied")
set(generated "${build}/gi-optimize/sum")
file(READ "${generated}/partial_sums+final_sum.sm_90.cu" variant)
gi_test_expect("${variant}" "^// gi-optimize variant: partial_sums: BLOCK=512 restrict=1; final_sum: FINAL_THREADS=64 const_blocks=1\n"
               "one file holds both variants")
gi_test_expect("${variant}" "#define BLOCK 512\n#define FINAL_THREADS 64\n" "with both parameters")
gi_test_expect("${variant}" "partial_sums\\(float\\* __restrict__ partial" "and the first kernel's edit")
gi_test_expect("${variant}" "final_sum\\(float\\* total, const float\\* partial, const int blocks\\)" "and the second's")
file(READ "${generated}/partial_sums+final_sum.gi.cu" wrapper)
gi_test_expect("${wrapper}" "#elif __CUDA_ARCH__ == 900\n#include \"partial_sums\\+final_sum.sm_90.cu\"" "the wrapper includes it")
file(READ "${build}/compile_commands.json" commands)
gi_test_expect("${commands}" "partial_sums\\+final_sum.gi.cu" "the target compiles the wrapper")
gi_test_expect_not("${commands}" "\"file\": \"[^\"]*src/sum.cu\"" "and not sum.cu itself")
gi_test_run(out PASS "${build}/sum" --variant 90)
gi_test_expect("${out}" "partial_sums: BLOCK=512 restrict=1 BLOCK=512\nfinal_sum: FINAL_THREADS=64 const_blocks=1 FINAL_THREADS=64"
               "each header describes its own kernel's variant")

# Each kernel once, each macro in one registration.
file(READ "${src}/CMakeLists.txt" lists)
string(REPLACE "FUNCTION final_sum" "FUNCTION final_sum partial_sums" twice "${lists}")
file(WRITE "${src}/CMakeLists.txt" "${twice}")
file(REMOVE_RECURSE "${build}")
gi_test_configure(out FAIL)
gi_test_expect("${out}" "FUNCTION: 'partial_sums' of sum.cu is already registered for target 'sum'" "a kernel registered twice")
string(REPLACE "PARAMS FINAL_THREADS" "PARAMS BLOCK 64 FINAL_THREADS" shared "${lists}")
file(WRITE "${src}/CMakeLists.txt" "${shared}")
gi_test_configure(out FAIL)
gi_test_expect("${out}" "PARAMS: BLOCK is also tuned by the registration of partial_sums in sum.cu" "a macro tuned twice")
file(WRITE "${src}/CMakeLists.txt" "${lists}")

# With a GPU and no entries: each kernel evolves in its own folder, and final_sum's candidate is
# built with partial_sums' accepted entry (its acceptance step comes first).
file(REMOVE_RECURSE "${src}/gi-cache" "${build}")
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90)
gi_test_build(plan PASS -n -v)
gi_test_evolve_calls(calls "${build}/gi-optimize/sum/evolve.partial_sums.sm_90")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--function partial_sums [^\n]*--out [^\n]*evolve.partial_sums.sm_90/run"
               "partial_sums evolves in its own folder")
gi_test_evolve_calls(calls "${build}/gi-optimize/sum/evolve.final_sum.sm_90")
gi_test_expect("${calls}" "(^|\n)evolve [^\n]*--function final_sum [^\n]*--out [^\n]*evolve.final_sum.sm_90/run"
               "final_sum evolves in its own folder")
gi_test_expect("${plan}" "cache apply [^\n]*--function partial_sums [^\n]*--cache-dir [^\n]*/gi-cache [^\n]*--and --function final_sum [^\n]*--cache-dir [^\n]*evolve.final_sum.sm_90/candidate"
               "final_sum's candidate is put together with partial_sums' cached entry")
string(FIND "${plan}" "evolve.partial_sums.sm_90/accept-settings.cmake" first_accept)
string(REGEX MATCH "cache apply [^\n]*evolve.final_sum.sm_90/candidate " second_apply_line "${plan}")
string(FIND "${plan}" "${second_apply_line}" second_apply)
if(first_accept EQUAL -1 OR second_apply EQUAL -1 OR first_accept GREATER second_apply)
    gi_test_fail("partial_sums' acceptance must come before final_sum's candidate is built:\n${plan}")
endif()
file(READ "${build}/gi-optimize/sum/evolve.final_sum.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_PROGRAM_TARGET \\[==\\[sum_gi_accept_final_sum_sm90\\]==\\]\\)"
               "each registration has its own acceptance program")
