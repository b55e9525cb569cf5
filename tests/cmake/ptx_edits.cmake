# A cache entry whose genome has PTX edits (issue 46): the build compiles the wrapper through
# gi-tool nvcc-launcher (the target's CUDA_COMPILER_LAUNCHER, before the ccache the scenarios set),
# so the binary's sm_90 code is the edited kernel: the evaluator's code for the genome (cache verify
# --compile --program) and not the code of the same genome without its PTX edits. A build whose nvcc makes other PTX than the edits index (-ftz=true, a flag the
# registration does not see) builds the original kernel for sm_90, saying why; GI_REQUIRE_CACHE
# makes that an error.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(ptx_edits)
# The index of the kernel's fma.rn.f32 in the PTX of the variant SCALE=3 (instructions counted as
# gi-tool's PTX parser counts them: every statement that is not a directive, label or brace).
file(READ "${src}/scale.cu" variant_text)
string(REPLACE "#define SCALE 2" "#define SCALE 3" variant_text "${variant_text}")
file(WRITE "${_gi_root}/variant.cu" "${variant_text}")
gi_test_run(out PASS "${GI_TEST_NVCC}" -arch=sm_90 -ptx "${_gi_root}/variant.cu" -o "${_gi_root}/variant.ptx")
file(STRINGS "${_gi_root}/variant.ptx" ptx_lines)
set(index 0)
set(fma -1)
foreach(line IN LISTS ptx_lines)
    string(STRIP "${line}" line)
    if(line MATCHES "^[a-z@]")
        if(line MATCHES "^fma\\.rn\\.f32" AND fma EQUAL -1)
            set(fma ${index})
        endif()
        math(EXPR index "${index} + 1")
    endif()
endforeach()
if(fma EQUAL -1)
    gi_test_fail("no fma.rn.f32 in the variant's PTX:\n${ptx_lines}")
endif()

# The same genome without its PTX edits, for comparison.
gi_test_write_entry("SCALE=3" 90)
gi_test_configure(out PASS)
gi_test_build(out PASS)
gi_test_device_code(source_only_sass "${build}/app" 90)
file(REMOVE_RECURSE "${build}")

set(genome "SCALE=3 ptx:del(${fma})")
gi_test_write_entry("${genome}" 90)
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_build(out PASS)
gi_test_expect("${out}" "gi-optimize: scaleKernel sm_90: variant from [^\n]*: SCALE=3 ptx:del\\(${fma}\\)"
               "the build uses the entry with PTX edits")
gi_test_expect_not("${out}" "ship only where|cannot be applied" "the PTX edits are applied")
file(READ "${build}/gi-optimize/app/scaleKernel.ptx-edits" listed)
gi_test_expect("${listed}" "^90\tscaleKernel\tscaleKernel.sm_90.cu\tscaleKernel.sm_90.ptx-edits\n$" "the list of edited architectures")
gi_test_device_code(edited_sass "${build}/app" 90)
if(edited_sass STREQUAL source_only_sass)
    gi_test_fail("the sm_90 code is the variant's without its PTX edits")
endif()
# The program holds the code the evaluator built for the genome (NVRTC's PTX, the edits, ptxas).
gi_test_run(out PASS "${GI_TEST_TOOL}" cache verify "${src}/gi-cache" "${src}/scale.cu" ${GI_TEST_REGISTRATION} --arch 90
            --compile --program "${build}/app")
gi_test_expect("${out}" "replayed for sm_90: nvcc's PTX of the variant, edited, assembled by ptxas" "cache verify replays the edits")
gi_test_expect("${out}" "/app holds this code for sm_90" "the program's sm_90 code is the evaluator's")
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=3 ptx:del\\(${fma}\\) SCALE=3 BLOCK=128" "the header gives the edited variant for sm_90")
# A rebuild with nothing changed compiles nothing.
gi_test_build(out PASS)
gi_test_expect_up_to_date("${out}" "an unchanged build is up to date")

# nvcc's PTX is not the one the edits index: the original kernel, with one line saying why, and the
# header's lookups give the original kernel's row.
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=OFF -DCMAKE_CUDA_FLAGS=-ftz=true)
gi_test_build(out PASS)
gi_test_expect("${out}" "gi-optimize: scaleKernel sm_90: original kernel: the variant's PTX edits cannot be applied: [^\n]*"
               "the fallback says why")
gi_test_device_code(fallback_sass "${build}/app" 90)
gi_test_run(out FAIL "${GI_TEST_TOOL}" cache verify "${src}/gi-cache" "${src}/scale.cu" ${GI_TEST_REGISTRATION} --arch 90
            --compile --program "${build}/app")
gi_test_expect("${out}" "/app does not hold this code for sm_90" "cache verify --program sees the fallback")
# Host code sizing launches from the header must see the kernel that runs: the original's values.
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: original kernel SCALE=2 BLOCK=128" "the header gives the original for sm_90 after the fallback")
set(build_edited "${build}")
set(build "${_gi_root}/build-off")
gi_test_configure(out PASS -DGI_OPTIMIZE=OFF -DCMAKE_CUDA_FLAGS=-ftz=true)
gi_test_build(out PASS)
gi_test_device_code(original_sass "${build}/app" 90)
if(NOT fallback_sass STREQUAL original_sass)
    gi_test_fail("the fallback's sm_90 code is not the original kernel's")
endif()

# GI_REQUIRE_CACHE: the same is an error.
set(build "${build_edited}")
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON -DCMAKE_CUDA_FLAGS=-ftz=true)
gi_test_build(out FAIL)
gi_test_expect("${out}" "gi-optimize: scaleKernel sm_90: error: the variant's PTX edits cannot be applied" "strict mode fails")
