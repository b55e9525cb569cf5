# The sample programs of tests/programs (issue 40, item 8): a project written the way public CUDA
# samples are (cmake_minimum_required 3.20, a list of architectures, separable compilation, helper
# headers in Common/, cooperative groups and libcu++ in device code, a benchmark loop and a PASS/FAIL
# self-check), each kernel registered with gi_optimize_cuda_kernel() as docs/cmake.md says. Without
# a GPU:
#   1. GI_OPTIMIZE=OFF: configures without a CMake warning and builds; the programs answer --help
#      and, run, either check themselves (a GPU) or say they are waived (none);
#   2. GI_OPTIMIZE=ON, GI_GPU_ARCHITECTURE=none: the same, with one line per kernel saying it is the
#      original kernel, at configure time and from the build's apply step; the programs behave as
#      the OFF build's do;
#   3. GI_OPTIMIZE=ON planning an evolution for sm_90 with the real gi-tool: recording runs the
#      sample itself, which has no GPU here and fails, and the build goes on with the original kernel
#      and one line saying why (a failed step never breaks the user's build).
# Samples the tool cannot build yet are listed in `known_failures` with the message configure stops
# with; each must still stop so (when one builds, this scenario fails until it joins the matrix).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

set(samples convolutionSeparable matrixMul reduction BlackScholes)
# The kernel each sample registers (the lines the build prints name it), and the architectures of a
# sample that lists its own (the others: CMAKE_CUDA_ARCHITECTURES, 80 and 90). reduction's kernel
# template is defined in reduction_kernel.cuh, which reduction_kernel.cu includes (the CUDA samples'
# shape): KERNEL is the header.
set(kernel_of_convolutionSeparable convolutionRowsKernel)
set(kernel_of_matrixMul MatrixMulCUDA)
set(kernel_of_reduction reduce6)
set(kernel_of_BlackScholes BlackScholesGPU)
set(architectures_of_reduction "sm_86, sm_90")
# Each known failure with the (regex of the) configure error it stops with.
set(known_failures "")

set(root "${GI_TEST_WORK}/sample_programs")
file(REMOVE_RECURSE "${root}")
set(cache "${root}/gi-cache")
file(MAKE_DIRECTORY "${cache}")

# configure_samples(<out-var> <expect> <build-dir> <samples> [-D...]...)
function(configure_samples out_var expect build_dir sample_list)
    string(REPLACE ";" "\\;" sample_list "${sample_list}")
    gi_test_run(out ${expect} "${CMAKE_COMMAND}" -S "${GI_TEST_SOURCE}/tests/programs" -B "${build_dir}" ${GI_TEST_GENERATOR_ARGS}
        "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" -DCMAKE_BUILD_TYPE=Release
        "-DGI_OPTIMIZE_SOURCE_DIR=${GI_TEST_SOURCE}" "-DSAMPLES_GI_CACHE_DIR=${cache}" "-DSAMPLES=${sample_list}"
        ${ARGN})
    gi_test_expect_not("${out}" "CMake (Warning|Deprecation Warning)" "configure ${build_dir}: no CMake warning")
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# expect_lines(<output> <regex> <what>): exactly one line per sample's kernel matches
# "<kernel> <architectures>: <regex>" (the kernel's name and the architectures come first).
function(expect_lines output regex what)
    foreach(sample IN LISTS samples)
        set(kernel "${kernel_of_${sample}}")
        set(architectures "sm_80, sm_90")
        if(DEFINED architectures_of_${sample})
            set(architectures "${architectures_of_${sample}}")
        endif()
        string(REGEX MATCHALL "${kernel} ${architectures}: ${regex}" found "${output}")
        list(LENGTH found count)
        if(NOT count EQUAL 1)
            gi_test_fail("${what}: expected one line '${kernel} ${architectures}: ${regex}', got ${count}:\n${output}")
        endif()
    endforeach()
endfunction()

# run_samples(<out-var> <build-dir>): runs each sample with --help and with small arguments; gives
# what a comparison of two builds needs (exit statuses and the lines that decide the outcome).
function(run_samples out_var build_dir)
    set(behaviour "")
    set(small_convolutionSeparable --width 256 --height 64 --iterations 2)
    set(small_matrixMul --wA 64 --hA 64 --wB 64 --hB 64 --iterations 2)
    set(small_reduction --n 100000 --iterations 2)
    set(small_BlackScholes --optn 100000 --iterations 2)
    foreach(sample IN LISTS samples)
        set(program "${build_dir}/${sample}/${sample}")
        if(NOT EXISTS "${program}")
            gi_test_fail("${build_dir}: the build made no ${sample}/${sample}")
        endif()
        gi_test_run(help PASS "${program}" --help)
        gi_test_expect("${help}" "--iterations" "${sample} --help")
        execute_process(COMMAND "${program}" ${small_${sample}} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
        if(rc EQUAL 0)
            gi_test_expect("${out}" "\nPASS\n" "${sample} exits 0, so it passed its self-check")
            gi_test_expect("${out}" "time per iteration: [0-9.]+ ms" "${sample} prints its benchmark loop's time")
            set(outcome PASS)
        elseif(rc EQUAL 2 AND out MATCHES "No CUDA device found")
            set(outcome waived)
        else()
            gi_test_fail("${sample} failed (${rc}):\n${out}")
        endif()
        string(APPEND behaviour "${sample}: ${outcome}\n${help}\n")
    endforeach()
    set(${out_var} "${behaviour}" PARENT_SCOPE)
endfunction()

# Known failures: still failing, and for the known reason (GI_OPTIMIZE is OFF: the call's checks).
foreach(sample IN LISTS known_failures)
    set(message "${known_failure_${sample}}")
    execute_process(COMMAND "${CMAKE_COMMAND}" -S "${GI_TEST_SOURCE}/tests/programs" -B "${root}/known-${sample}" ${GI_TEST_GENERATOR_ARGS}
        "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}"
        "-DGI_OPTIMIZE_SOURCE_DIR=${GI_TEST_SOURCE}" "-DSAMPLES=${sample}"
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(rc EQUAL 0)
        gi_test_fail("the sample '${sample}' configures now: add it to `samples` (and its kernel to kernel_of_<sample>) and remove it "
                     "from `known_failures`")
    endif()
    gi_test_expect("${out}" "${message}" "'${sample}' still stops for the known reason")
    message("known failure: ${sample}: ${message}")
endforeach()

# 1. GI_OPTIMIZE=OFF.
set(off "${root}/off")
configure_samples(out PASS "${off}" "${samples}" -DGI_OPTIMIZE=OFF)
gi_test_expect_not("${out}" "gi-optimize:" "OFF: gi-optimize says nothing")
gi_test_build_dir(out PASS "${off}")
run_samples(off_behaviour "${off}")

# 2. GI_OPTIMIZE=ON without a GPU: the original kernels, said once per kernel at configure and at
#    build time; the build's apply step is the real gi-tool's `cache apply`.
set(on "${root}/on")
configure_samples(out PASS "${on}" "${samples}" -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none
                  "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
expect_lines("${out}" "original kernel \\(no cache entries in [^\n]*gi-cache, no GPU on this machine" "ON, configure")
gi_test_build_dir(out PASS "${on}")
expect_lines("${out}" "original kernel: no cache entries in [^\n]*gi-cache" "ON, build")
# reduction's kernel header: reduction_kernel.cu is compiled from its copy that includes the wrapper.
file(GLOB includer_copy "${on}/reduction/gi-optimize/reduction/includers/*/reduction_kernel.cu")
if(NOT includer_copy)
    gi_test_fail("ON: reduction_kernel.cu, which includes the kernel header, was not compiled from a copy")
endif()
file(READ "${includer_copy}" text)
gi_test_expect("${text}" "\n#include \"../../reduce6.gi.cu\"\n" "ON: the copy includes reduce6's wrapper in the header's place")
run_samples(on_behaviour "${on}")
if(NOT on_behaviour STREQUAL off_behaviour)
    gi_test_fail("the ON build's programs behave otherwise than the OFF build's:\nOFF:\n${off_behaviour}\nON:\n${on_behaviour}")
endif()

# 3. An evolution planned for sm_90 on this machine without a GPU, with the real gi-tool: the
#    recorder (the sample itself, built for sm_90 with separable compilation) cannot run here, so
#    recording fails; the build still succeeds, with the original kernels and one line per kernel.
configure_samples(out PASS "${on}" "${samples}" -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=90
                  "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
foreach(sample IN LISTS samples)
    set(kernel "${kernel_of_${sample}}")
    gi_test_expect("${out}" "${kernel} sm_90: [^\n]*evolv" "ON, GPU sm_90: configure plans ${kernel}'s evolution")
endforeach()
gi_test_build_dir(out PASS "${on}")
foreach(sample IN LISTS samples)
    set(kernel "${kernel_of_${sample}}")
    # (The line holds a ';', so matches are counted, not listed.)
    string(REGEX MATCHALL ": ${kernel} sm_90: keeping the original kernel" found "${out}")
    list(LENGTH found count)
    if(NOT count EQUAL 1)
        gi_test_fail("ON, GPU sm_90: expected one 'keeping the original kernel' line for ${kernel}, got ${count}:\n${out}")
    endif()
    gi_test_expect("${out}" ": ${kernel} sm_90: keeping the original kernel: recording the ARGS run of ${sample}(_gi_recorder)? failed[^\n]*; log: [^\n]*evolve.log"
                   "ON, GPU sm_90: the line says the recording failed and names the log")
endforeach()
run_samples(planned_behaviour "${on}")
if(NOT planned_behaviour STREQUAL off_behaviour)
    gi_test_fail("after the failed evolutions the programs behave otherwise than the OFF build's:\n${planned_behaviour}")
endif()
file(GLOB entries "${cache}/*")
if(entries)
    gi_test_fail("failed evolutions wrote cache entries: ${entries}")
endif()
