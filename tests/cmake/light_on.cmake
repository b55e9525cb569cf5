# GI_OPTIMIZE on without a GPU (the CI case) in a project that includes gi-optimize: only what turns
# cached genomes into source is built (gi-apply and the recorder the program links), not gi-tool;
# it configures and builds with SQLite3, Boost, CLI11 and fmt unavailable; the project's empty build type stays
# empty; `all` and `install` hold the project's own targets only, even with a plain
# add_subdirectory; a build that would have to evolve says which packages are missing; and a
# cached genome with PTX edits (which only gi-tool applies) builds the original kernel, saying why.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

gi_test_project(light_on)
file(APPEND "${src}/CMakeLists.txt" "install(TARGETS app DESTINATION bin)\n")
gi_test_write_entry("SCALE=3" 90)
set(no_packages -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON
    -DCMAKE_DISABLE_FIND_PACKAGE_fmt=ON)
foreach(mode plainsubdir fetch)
    file(REMOVE_RECURSE "${build}")
    gi_test_run(out PASS "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}"
        "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" "-DGI_TEST_MODE=${mode}" "-DGI_TEST_SOURCE=${GI_TEST_SOURCE}"
        -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none -DGI_REQUIRE_CACHE=ON ${no_packages})
    gi_test_expect("${out}" "gi-optimize: gi-tool not built: SQLite3 and Boost 1.74\\+ and CLI11 2.1\\+ and fmt 9\\+ not found \\(Debian/Ubuntu: apt-get install libsqlite3-dev libboost-dev libcli11-dev libfmt-dev\\)\\. Cached variants still build"
                   "${mode}: one line says gi-tool is left out and why")
    gi_test_expect("${out}" "scaleKernel sm_90: cached variant" "${mode}: the entry is found at configure time")
    gi_test_expect_empty_build_type("${mode}")
    gi_test_build(out PASS)
    gi_test_expect("${out}" "variant from [^\n]*: SCALE=3" "${mode}: the build applies the cached genome")
    gi_test_run(out PASS "${build}/app" --variant 90)
    gi_test_expect("${out}" "variant: SCALE=3" "${mode}: the program has the variant")
    # What the build made of gi-optimize's: gi-apply and the stage libraries it links (util .. cache
    # and the shared command-line pieces), nothing of the search side (this program links no recorder).
    file(GLOB_RECURSE made RELATIVE "${build}" "${build}/*.a" "${build}/*gi-tool" "${build}/*gi-worker"
         "${build}/*gi-apply" "${build}/*gi_record_demo" "${build}/*stereo_driver")
    list(SORT made)
    string(REGEX REPLACE "[^;]*/" "" made_names "${made}")
    if(NOT made_names STREQUAL "gi-apply;libgi_cache.a;libgi_cli_apply.a;libgi_genome.a;libgi_grammar.a;libgi_ptx.a;libgi_source.a;libgi_util.a;libgi_variant.a")
        gi_test_fail("${mode}: the build made more (or other) than gi-apply: ${made}")
    endif()
    gi_test_expect_install_only("${mode}" "bin/app")
endforeach()

# Without the entry, a GPU of the architecture means evolving, which needs gi-tool: configure says
# what is missing and how to go on, instead of failing at build time.
file(REMOVE_RECURSE "${build}" "${src}/gi-cache")
gi_test_run(out FAIL "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}"
    "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" -DGI_TEST_MODE=subdir "-DGI_TEST_SOURCE=${GI_TEST_SOURCE}"
    -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=90 ${no_packages})
gi_test_expect("${out}" "must evolve a kernel [^\n]*but gi-tool, which evolves kernels, is not built: SQLite3 [^\n]*not found"
               "evolution without gi-tool's packages is refused with the reason")
gi_test_expect("${out}" "GI_GPU_ARCHITECTURE=none to build the original kernel" "and the way out")

# A cached genome with PTX edits ships through gi-tool's compiler launcher: without gi-tool,
# configure says so in one line and the build compiles the original kernel, saying why too
# (tests/cmake/ptx_edits.cmake builds one with gi-tool).
file(REMOVE_RECURSE "${build}")
gi_test_write_entry("SCALE=3 ptx:del(1)" 90)
gi_test_run(out PASS "${CMAKE_COMMAND}" -S "${src}" -B "${build}" -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}"
    "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}" -DGI_TEST_MODE=subdir "-DGI_TEST_SOURCE=${GI_TEST_SOURCE}"
    -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none ${no_packages})
gi_test_expect("${out}" "gi-optimize: app: scaleKernel sm_90: original kernel \\(its cache entry's genome has PTX edits, and they are applied by gi-tool, which this build does not have \\(gi-tool, which evolves kernels, is not built: SQLite3"
               "configure says why a PTX-edited entry is not used")
gi_test_build(out PASS)
gi_test_expect("${out}" "scaleKernel sm_90: original kernel: [^\n]*ship only where the wrapper is compiled through gi-tool nvcc-launcher"
               "the build leaves the entry out, saying why")
gi_test_run(out PASS "${build}/app" --variant 90)
gi_test_expect("${out}" "variant: original kernel" "the program has the original kernel")
