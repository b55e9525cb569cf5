# Values the build could not use are refused when configuring, with a message that names the real
# problem (issue 39, classes 18 and 19): a generator expression in CACHE_DIR (read when configuring),
# a kernel path the generated #include cannot hold ('"', '\') or that CMake splits (';'), a BUDGET
# beyond what gi-tool evolve accepts or beyond CMake's arithmetic, an empty value after a keyword (an
# unset variable), and a GI_OPTIMIZE_TOOL that is not a gi-tool. A cache folder that cannot be
# written is said when configuring, and nothing is evolved into it. And a build step that writes
# none of its files fails instead of compiling what an earlier build generated.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(refusals)
file(WRITE "${src}/we'ird \"dir\"/scale2.cu" "__global__ void scaleKernel(float* x) {}\n")
# (CMake's file() takes '\\' for a folder separator: the shell makes this one.)
execute_process(COMMAND sh -c "mkdir -p \"$1\" && echo '__global__ void scaleKernel(float* x) {}' > \"$1/scale3.cu\"" sh
                "${src}/back\\slash" RESULT_VARIABLE status)
if(NOT EXISTS "${src}/back\\slash/scale3.cu" OR NOT status EQUAL 0)
    gi_test_fail("cannot make a folder named back\\slash here")
endif()
file(WRITE "${src}/semi;colon/scale4.cu" "__global__ void scaleKernel(float* x) {}\n")

# refused(<call arguments besides the target, FUNCTION and RECORDER> <regex of the message>)
function(refused arguments expected)
    set(call "gi_optimize_cuda_kernel(app ${arguments} FUNCTION scaleKernel RECORDER app)")
    gi_test_call("${call}\n")
    gi_test_configure(out FAIL)
    gi_test_expect("${out}" "${expected}" "${call}")
    gi_test_expect_not("${out}" "does not exist|cannot evaluate the expression" "${call}: the real problem")
endfunction()

refused([[KERNEL "we'ird \"dir\"/scale2.cu"]]
        "KERNEL: 'we'ird \"dir\"/scale2.cu' contains '\"', which cannot be written in the #include")
refused([[KERNEL "back\\slash/scale3.cu"]] "KERNEL: 'back.slash/scale3.cu' contains a backslash")
refused([[KERNEL "semi\;colon/scale4.cu"]] "KERNEL: 'semi;colon/scale4.cu' contains ';', which CMake reads as a list separator")
refused([[KERNEL scale.cu CACHE_DIR "$<CONFIG>/cache"]]
        "CACHE_DIR: '\\$<CONFIG>/cache' holds a generator expression, but the cache folder is read when configuring")
refused([[KERNEL scale.cu BUDGET 20000000]]
        "BUDGET: 20000000 minutes is more than gi-tool evolve's --time-limit accepts \\(1e9 s: 16666666 minutes\\)")
refused([[KERNEL scale.cu BUDGET 99999999999999999999]]
        "BUDGET: 99999999999999999999 minutes is more than gi-tool evolve's --time-limit accepts")
refused([[KERNEL scale.cu BUDGET 000]] "BUDGET must be more than 0 minutes")
foreach(empty [[CACHE_DIR ""]] [[BLOCK_SIZE ""]] [[FLAGS "" -use_fast_math]] [[TOLERANCE " "]] [[BUDGET ""]])
    string(REGEX MATCH "^[A-Z_]+" keyword "${empty}")
    refused("KERNEL scale.cu ${empty}" "${keyword}: an empty value \\(an unset variable\\?\\)")
endforeach()
refused([[KERNEL ""]] "KERNEL: an empty value")

# GI_OPTIMIZE_TOOL must be a gi-tool: asked at configure time, not found out at build time.
gi_test_call("${GI_TEST_DEFAULT_CALL}")
gi_test_configure(out FAIL -DGI_OPTIMIZE_TOOL=/bin/true)
gi_test_expect("${out}" "GI_OPTIMIZE_TOOL='/bin/true' is not a gi-tool: '/bin/true version' answered '' \\(exit status 0\\)"
               "a tool that is not gi-tool")

# A tool that passes configure's question but writes nothing at build time: the build fails there
# (it used to compile the files an earlier build generated).
set(fake "${GI_TEST_WORK}/refusals/fake-gi-tool")
gi_test_fake_tool("${fake}")
gi_test_write_entry("SCALE=3" 90)
gi_test_configure(out PASS "-DGI_OPTIMIZE_TOOL=${fake}")
gi_test_build(out PASS app)
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=3" "the stand-in applies the entry")
gi_test_fake_mode("${fake}" apply-nothing)
file(REMOVE "${src}/gi-cache/scaleKernel.sm_90.xml")
file(TOUCH "${src}/scale.cu")
gi_test_build(out FAIL app)
gi_test_expect("${out}" "scaleKernel: the step that generates the kernel's files wrote none of them [^\n]*Is GI_OPTIMIZE_TOOL a gi-tool"
               "a step that wrote nothing fails the build")
gi_test_fake_mode("${fake}" "")
gi_test_build(out PASS app)
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: original kernel" "and the next good run regenerates")

# A cache folder this machine cannot write (here /proc, which no one can write into): nothing is
# evolved into it, configure says so; GI_STRICT makes it an error.
gi_test_call([[
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record CACHE_DIR /proc/gi-optimize-cache
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
gi_test_expect("${out}" "scaleKernel sm_90: original kernel \\(no cache entry [^\n]*, and CACHE_DIR /proc/gi-optimize-cache cannot be written here, so an evolved variant could not be kept: nothing is evolved\\)"
               "an unwritable cache folder is said when configuring")
file(READ "${build}/build.ninja" ninja)
gi_test_expect_not("${ninja}" "GIOptimizeEvolve.cmake" "and no evolution is planned")
gi_test_configure(out FAIL -DGI_GPU_ARCHITECTURE=90 -DGI_STRICT=ON)
gi_test_expect("${out}" "cannot be written here[^\n]*GI_STRICT is ON, so this is an error" "GI_STRICT: an unwritable cache folder is an error")
