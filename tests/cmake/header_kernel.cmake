# A kernel defined in a header (tests/cmake/header_kernel: a template kernel in kernels/scale.cuh,
# included by main.cu and by other/other.cu through the target's include folder), registered as
# `KERNEL kernels/scale.cuh`:
#   - GI_OPTIMIZE=OFF changes nothing (the same compile commands and build edges as without the call);
#   - naming the .cu that includes the header, or a header nothing includes, is a configure error
#     that says what to write; a header included by a registered kernel file stays original (a warning);
#   - ON without an entry builds the original kernel: the same device code as OFF;
#   - ON with an entry compiles each including source from a copy in the build folder whose
#     #include of the header includes the generated wrapper: the variant's device code, __FILE__ and
#     __LINE__ (and diagnostics) still the source's own; an edit of a source is copied again;
#   - with a GPU (played by the stand-in gi-tool), the acceptance program is built from copies that
#     include the candidate, and the accepted variant is compiled.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

set(root "${GI_TEST_WORK}/header_kernel")
file(REMOVE_RECURSE "${root}")
file(COPY "${CMAKE_CURRENT_LIST_DIR}/header_kernel/" DESTINATION "${root}/src")
set(src "${root}/src")
set(build "${root}/build")
set(registration --function scaleKernel --param SCALE=2,3,4 --tolerance exact)
set(call [[
gi_optimize_cuda_kernel(app KERNEL kernels/scale.cuh FUNCTION scaleKernel RECORDER app ARGS --run
    PARAMS SCALE 2 3 4 TOLERANCE exact)
]])
file(WRITE "${src}/call.cmake" "${call}")

# 1. OFF: what the project builds without the call.
gi_test_configure(out PASS -DGI_OPTIMIZE=OFF)
gi_test_expect_not("${out}" "gi-optimize: app" "OFF configure says nothing about the target")
file(READ "${build}/compile_commands.json" commands_with)
set(targets_with "")  # make has no list of its targets to compare
if(GI_TEST_GENERATOR STREQUAL "Ninja")
    gi_test_build(targets_with PASS -t targets all)
endif()
gi_test_build(out PASS)
gi_test_expect_not("${out}" "gi-optimize|gi-tool" "OFF build runs no gi-tool step")
gi_test_device_code(original_sass "${build}/app" 90)
gi_test_run(where PASS "${build}/app" --where)
gi_test_expect("${where}" "^${src}/main.cu:[0-9]+\n$" "the program names its source")
file(WRITE "${src}/call.cmake" "")
file(REMOVE_RECURSE "${build}")
gi_test_configure(out PASS -DGI_OPTIMIZE=OFF)
file(READ "${build}/compile_commands.json" commands_without)
set(targets_without "")  # make has no list of its targets to compare
if(GI_TEST_GENERATOR STREQUAL "Ninja")
    gi_test_build(targets_without PASS -t targets all)
endif()
if(NOT commands_with STREQUAL commands_without OR NOT targets_with STREQUAL targets_without)
    gi_test_fail("OFF: the call changed the build:\n${commands_with}\n${targets_with}\nvs\n${commands_without}\n${targets_without}")
endif()
file(REMOVE_RECURSE "${build}")

# 2. Wrong use, OFF as ON: the .cu that includes the header, a header nothing includes.
string(REPLACE "KERNEL kernels/scale.cuh" "KERNEL main.cu" wrong "${call}")
file(WRITE "${src}/call.cmake" "${wrong}")
gi_test_configure(out FAIL -DGI_OPTIMIZE=OFF)
gi_test_expect("${out}" "FUNCTION: 'scaleKernel' is defined in kernels/scale.cuh \\(included by main.cu\\), not in main.cu: give KERNEL kernels/scale.cuh"
               "the function in a header the KERNEL includes: the message names the header to give")
file(WRITE "${src}/kernels/unused.cuh" "__global__ void unusedKernel(float* p) { p[0] = 1; }\n")
file(WRITE "${src}/call.cmake" "gi_optimize_cuda_kernel(app KERNEL kernels/unused.cuh FUNCTION unusedKernel RECORDER app)\n")
gi_test_configure(out FAIL -DGI_OPTIMIZE=OFF)
gi_test_expect("${out}" "KERNEL: '${src}/kernels/unused.cuh' is a header, and no CUDA source of target 'app' includes it"
               "a header no source includes")
# A source including the header that is itself a registered kernel file is compiled through its own
# wrapper: the header's kernel stays original, with a warning (GI_STRICT: an error).
file(READ "${src}/main.cu" main_text)
file(APPEND "${src}/main.cu" "__global__ void mainKernel(float* p) { p[0] = 1; }\n")
file(WRITE "${src}/call.cmake" "gi_optimize_cuda_kernel(app KERNEL main.cu FUNCTION mainKernel RECORDER app)\n${call}")
gi_test_configure(out PASS)
gi_test_expect("${out}" "app: scaleKernel: original kernel \\(scale.cuh is included by ${src}/main.cu, which is itself registered as the KERNEL of mainKernel"
               "a kernel header included by a registered kernel file")
gi_test_configure(out FAIL -DGI_STRICT=ON)
gi_test_expect("${out}" "registered as the KERNEL of mainKernel[^\n]*GI_STRICT is ON" "GI_STRICT makes it an error")
file(WRITE "${src}/main.cu" "${main_text}")
file(WRITE "${src}/call.cmake" "${call}")
file(REMOVE_RECURSE "${build}")

# 3. ON without an entry: the original kernel, compiled through the copies.
gi_test_configure(out PASS)
gi_test_expect("${out}" "app: scaleKernel sm_90: original kernel \\(no cache entry" "configure: no entry")
gi_test_build(out PASS)
gi_test_device_code(sass "${build}/app" 90)
if(NOT sass STREQUAL original_sass)
    gi_test_fail("ON without an entry: the sm_90 code differs from the OFF build's")
endif()

# 4. ON with an entry: the variant.
gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${src}/kernels/scale.cuh" ${registration} --arch 90
    --cache-dir "${src}/gi-cache" --genome "SCALE=3" --allow-unvalidated --note "hand-picked by the CMake scenario")
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "app: scaleKernel sm_90: cached variant from [^\n]*gi-cache/scaleKernel.sm_90.xml" "configure names the entry")
gi_test_build(out PASS)
gi_test_expect("${out}" "gi-optimize: scaleKernel sm_90: variant from [^\n]*: SCALE=3" "the build applies the genome")
set(generated "${build}/gi-optimize/app")
file(READ "${generated}/scaleKernel.sm_90.cu" variant)
gi_test_expect("${variant}" "#define SCALE 3\n" "the variant header sets the parameter inside its include guard")
file(GLOB main_copy "${generated}/includers/*/main.cu")
file(GLOB other_copy "${generated}/includers/*/other.cu")
if(NOT main_copy OR NOT other_copy)
    gi_test_fail("no copies of the sources that include the header in ${generated}/includers")
endif()
file(READ "${main_copy}" text)
gi_test_expect("${text}" "\n#line 1 \"${src}/main.cu\"\n" "the copy names the source it was made from")
gi_test_expect("${text}" "\n#include \"common.h\"\n#include \"../../scaleKernel.gi.cu\"\n" "the copy includes the wrapper in the header's place")
gi_test_expect_not("${text}" "kernels/scale.cuh\"" "and not the header")
file(READ "${other_copy}" text)
gi_test_expect("${text}" "\n#include \"../common.h\"\n#include \"../../scaleKernel.gi.cu\"\n"
               "a source including the header through the target's include folder is copied too")
file(READ "${build}/compile_commands.json" commands)
gi_test_expect("${commands}" "\"file\": \"${generated}/includers/[0-9a-f]+/main.cu\"" "the target compiles the copies")
gi_test_expect_not("${commands}" "\"file\": \"${src}/(main|other/other).cu\"" "and not the sources themselves")
gi_test_device_code(sass "${build}/app" 90)
if(sass STREQUAL original_sass)
    gi_test_fail("the sm_90 code built from the entry equals the original kernel's")
endif()
gi_test_run(out PASS "${build}/app" --where)
if(NOT out STREQUAL where)
    gi_test_fail("the copy changed __FILE__ or __LINE__: '${out}' where the source gives '${where}'")
endif()
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=3 SCALE=3" "the header describes the variant")
# Diagnostics name the source: an error in main.cu is reported at its own line.
file(READ "${src}/main.cu" main_text)
file(APPEND "${src}/main.cu" "static_assert(sizeof(int) == 0, \"gi-optimize test: here\");\n")
string(REGEX MATCHALL "\n" lines "${main_text}")
list(LENGTH lines line)
math(EXPR line "${line} + 1")
gi_test_build(out FAIL)
gi_test_expect("${out}" "${src}/main.cu\\(${line}\\): error[^\n]*gi-optimize test: here" "the compiler names the source's own line")
# Incremental: nothing to do twice; an edit of the source is copied and compiled again.
file(WRITE "${src}/main.cu" "${main_text}")
gi_test_build(out PASS)
gi_test_build(out PASS)
gi_test_expect_up_to_date("${out}" "a second build does nothing")
file(APPEND "${src}/main.cu" "// edited\n")
gi_test_build(out PASS)
gi_test_expect("${out}" "Building CUDA object [^\n]*includers/[0-9a-f]+/main.cu.o" "the edited source's copy is compiled")
gi_test_expect_not("${out}" "other.cu.o" "the other source is not")
file(READ "${main_copy}" text)
gi_test_expect("${text}" "// edited\n$" "the copy has the edit")

# 5. With a GPU (the stand-in gi-tool): the acceptance program compiles copies that include the
#    candidate; the accepted variant is then the target's.
set(fake "${root}/fake-gi-tool")
gi_test_fake_tool("${fake}")
gi_test_fake_mode("${fake}" genome=SCALE=4)
file(REMOVE_RECURSE "${src}/gi-cache")
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=OFF -DGI_GPU_ARCHITECTURE=90 "-DGI_OPTIMIZE_TOOL=${fake}")
gi_test_build(out PASS)
file(READ "${fake}.calls" calls)
gi_test_expect("${calls}" "(^|\n)record ${src}/kernels/scale.cuh --function scaleKernel [^\n]*-- [^\n]*app_gi_recorder --run\n"
               "the header is recorded with the recorder twin")
# What each object is compiled from, as both generators write it.
file(READ "${build}/compile_commands.json" commands)
gi_test_expect("${commands}" "-c ${src}/main.cu -o CMakeFiles/app_gi_recorder.dir/main.cu.o"
               "the recorder twin compiles the source itself")
gi_test_expect("${commands}" "-c [^\" ]*candidate-source/includers/[0-9a-f]+/main.cu -o CMakeFiles/app_gi_accept_sm90.dir/"
               "the acceptance program compiles the copies")
file(GLOB candidate_copy "${generated}/evolve.sm_90/candidate-source/includers/*/main.cu")
file(READ "${candidate_copy}" text)
gi_test_expect("${text}" "#include \"../../scaleKernel.gi.cu\"" "which include the candidate's wrapper")
gi_test_expect("${out}" "cached ${src}/gi-cache/scaleKernel.sm_90.xml; gi-tool accept: accepted" "the candidate is accepted")
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=4 SCALE=4" "the accepted variant is compiled")
