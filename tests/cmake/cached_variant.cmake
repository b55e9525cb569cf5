# GI_OPTIMIZE=ON with a valid cache entry (and GI_REQUIRE_CACHE=ON): configure names the entry, the
# build regenerates the variant from the genome and the original kernel, the binary's device code
# is the variant's (differs from the OFF build), and the generated header describes it.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(cached_variant)
gi_test_configure(out PASS -DGI_OPTIMIZE=OFF)
gi_test_build(out PASS)
gi_test_device_code(original_sass "${build}/app" 90)
file(REMOVE_RECURSE "${build}")

gi_test_write_entry("SCALE=3 BLOCK=256" 90)
gi_test_configure(out PASS -DGI_REQUIRE_CACHE=ON)
gi_test_expect("${out}" "gi-optimize: app: scaleKernel sm_90: cached variant from [^\n]*gi-cache/scaleKernel.sm_90.xml"
               "configure names the cached entry")
gi_test_build(out PASS)
gi_test_expect("${out}" "gi-optimize: scaleKernel sm_90: variant from [^\n]*: SCALE=3 BLOCK=256" "build applies the genome")
file(READ "${build}/gi-optimize/app/scaleKernel.sm_90.cu" variant)
gi_test_expect("${variant}" "^// gi-optimize variant: SCALE=3 BLOCK=256\n" "the variant file starts with its genome")
gi_test_expect("${variant}" "#define SCALE 3" "the variant sets the parameter")
file(READ "${build}/gi-optimize/app/scaleKernel.gi.cu" wrapper)
gi_test_expect("${wrapper}" "#elif __CUDA_ARCH__ == 900\n#include \"scaleKernel.sm_90.cu\"" "the wrapper picks the variant for sm_90")

gi_test_device_code(variant_sass "${build}/app" 90)
if(variant_sass STREQUAL original_sass)
    gi_test_fail("the sm_90 code built from the cache equals the original kernel's")
endif()
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: SCALE=3 BLOCK=256 SCALE=3 BLOCK=256" "the header gives the variant's values for sm_90")
gi_test_run(out PASS "${build}/app" --variant 80)
gi_test_expect("${out}" "variant: original kernel SCALE=2 BLOCK=128" "other architectures get the original's values")
gi_test_run(out PASS "${GI_TEST_TOOL}" cache verify "${src}/gi-cache" "${src}/scale.cu" ${GI_TEST_REGISTRATION} --arch 90 --compile)
gi_test_expect("${out}" "scaleKernel.sm_90.xml: valid" "cache verify accepts the entry")
gi_test_expect("${out}" "compiled for sm_90" "cache verify --compile compiles it")
