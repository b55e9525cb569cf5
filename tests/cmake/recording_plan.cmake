# How a registration records (issue 42): with nothing but the CMake call. RECORDER defaults to the
# target (an executable), whose launches `gi-tool record` intercepts (no gi::launch, no recorder
# link: the test project's app has neither); RECORD_WITH launch records through gi::launch instead.
# Where recording cannot work here, configure says why and what to change, keeps the original
# kernel, and with GI_STRICT stops. A plan only (a stand-in gi-tool notes the evolution step's calls);
# the recording itself runs on the device (GPU tests of the intercept, bench/sample-programs-gpu.sh).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(recording_plan)

# 1. No RECORDER: the target records itself, through its twin, by interception.
gi_test_call([[gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel ARGS --record TOLERANCE exact)]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90")
gi_test_expect("${out}" "scaleKernel sm_90: no cache entry [^\n]*so the build records test cases and evolves it"
               "without RECORDER the target evolves")
gi_test_expect_not("${out}" "CMake (Warning|Deprecation Warning)" "without a warning")
gi_test_evolve_calls(calls "${build}/gi-optimize/app/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)record [^\n]*scale.cu --function scaleKernel --arch sm_90 [^\n]*-- [^\n]*app_gi_recorder --record\n"
               "the target's twin is the recorder, run with ARGS")
gi_test_expect_not("${calls}" "--record-with" "by interception, gi-tool record's default")
file(READ "${build}/gi-optimize/app/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_RECORD_WITH \\[==\\[intercept\\]==\\]\\)" "the acceptance records alike")

# 2. RECORD_WITH launch, with the recorder linked: gi-tool record and accept are told.
gi_test_call([[target_link_libraries(app PRIVATE GIOptimize::recorder)
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel ARGS --record RECORD_WITH launch TOLERANCE exact)]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90")
gi_test_evolve_calls(calls "${build}/gi-optimize/app/evolve.sm_90")
gi_test_expect("${calls}" "(^|\n)record [^\n]*--record-with launch [^\n]*-- [^\n]*app_gi_recorder --record\n"
               "RECORD_WITH launch reaches gi-tool record")
file(READ "${build}/gi-optimize/app/evolve.sm_90/accept-settings.cmake" settings)
gi_test_expect("${settings}" "set\\(GI_RECORD_WITH \\[==\\[launch\\]==\\]\\)" "and the acceptance")

# 3. Where recording cannot work: one warning naming the fix, the original kernel, no evolution;
# an error with GI_STRICT.
foreach(case
        "launch-unlinked|gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel ARGS --record RECORD_WITH launch TOLERANCE exact)|does not link GIOptimize::recorder: add target_link_libraries\\(app PRIVATE GIOptimize::recorder\\)"
        "static|target_link_options(app PRIVATE -static)\ngi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel ARGS --record TOLERANCE exact)|RECORDER 'app' is linked fully static \\(-static in LINK_OPTIONS of app\\)[^\n]*Link it dynamically")
    string(REPLACE "|" ";" case "${case}")
    list(GET case 0 name)
    list(GET case 1 call)
    list(GET case 2 why)
    gi_test_call("${call}")
    file(REMOVE_RECURSE "${build}")
    gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90")
    gi_test_expect("${out}" "CMake Warning" "${name}: configure warns")
    gi_test_expect("${out}" "gi-optimize: app: scaleKernel sm_90: original kernel \\(no cache entry[^\n]*${why}[^\n]*nothing is evolved\\)"
                   "${name}: the warning names the fix and keeps the original kernel")
    if(EXISTS "${build}/gi-optimize/app/evolve.sm_90/evolve-settings.cmake")
        gi_test_fail("${name}: no evolution is planned when recording cannot work")
    endif()
    file(REMOVE_RECURSE "${build}")
    gi_test_configure(out FAIL -DGI_GPU_ARCHITECTURE=90 "-DGI_TEST_ARCHS=90" -DGI_STRICT=ON)
    gi_test_expect("${out}" "${why}[^\n]*GI_STRICT is ON, so this is an error" "${name}: an error with GI_STRICT")
endforeach()

# 4. Usage errors: a library target must name its program; RECORD_WITH takes two words.
gi_test_call([[add_library(scalelib STATIC scale.cu)
gi_optimize_cuda_kernel(scalelib KERNEL scale.cu FUNCTION scaleKernel)]])
file(REMOVE_RECURSE "${build}")
gi_test_configure(out FAIL)
gi_test_expect("${out}" "RECORDER is required: 'scalelib' is a STATIC_LIBRARY, so name the executable that runs its kernel"
               "a library without RECORDER")
gi_test_call([[gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORD_WITH cupti)]])
gi_test_configure(out FAIL)
gi_test_expect("${out}" "RECORD_WITH: 'cupti' is neither 'intercept'" "an unknown RECORD_WITH")

# 5. The installed package's gi-tool finds its launch intercept: a program that launches nothing is
# run with it preloaded and said to have launched no kernel (not "cannot find libgi-intercept.so").
find_program(true_program true REQUIRED)
gi_test_run(out FAIL "${GI_TEST_PREFIX}/bin/gi-tool" record "${src}/scale.cu" --function scaleKernel
            --out "${build}/installed-record" -- "${true_program}")
gi_test_expect_not("${out}" "cannot find libgi-intercept" "the installed gi-tool finds its intercept")
gi_test_expect("${out}" "recorded no launch of 'scaleKernel': the launch intercept saw no kernel launched"
               "and preloads it into the program")
