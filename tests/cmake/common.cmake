# Helpers for the CMake scenarios (run with cmake -P by ctest, see cmake/tests.cmake). Each scenario
# copies tests/cmake/project into its own folder under GI_TEST_WORK, writes the
# gi_optimize_cuda_kernel() call it tests, configures and builds with the real tools, and checks
# what CMake, gi-tool and ninja print and produce.
#
# Inputs (-D): GI_TEST_SOURCE (gi-optimize's source), GI_TEST_TOOL (gi-tool), GI_TEST_NVCC,
# GI_TEST_NINJA, GI_TEST_WORK, GI_TEST_PREFIX (where the install fixture installed gi-optimize),
# and GI_TEST_GENERATOR: Ninja (the default) or "Unix Makefiles", CMake's own default on Linux and
# the one a sample-style project's `cmake .. && make` uses.

cmake_minimum_required(VERSION 3.25)

set(GI_TEST_SKIP OFF)
if(NOT GI_TEST_GENERATOR)
    set(GI_TEST_GENERATOR Ninja)
endif()
if(GI_TEST_GENERATOR STREQUAL "Ninja")
    set(GI_TEST_GENERATOR_ARGS -G Ninja "-DCMAKE_MAKE_PROGRAM=${GI_TEST_NINJA}")
elseif(GI_TEST_GENERATOR STREQUAL "Unix Makefiles")
    set(GI_TEST_GENERATOR_ARGS -G "Unix Makefiles")
else()
    message(FATAL_ERROR "GI_TEST_GENERATOR is '${GI_TEST_GENERATOR}': Ninja or Unix Makefiles")
endif()
if(NOT GI_TEST_NVCC OR NOT EXISTS "${GI_TEST_NVCC}")
    # ctest's SKIP_REGULAR_EXPRESSION turns this line into a skipped test.
    message("GI_TEST_SKIPPED: no nvcc (the CMake scenarios compile CUDA; install the CUDA toolkit to run them)")
    set(GI_TEST_SKIP ON)
endif()

# Many scenarios build the same gi-optimize sources with the same flags (subdir, plainsubdir and
# fetch modes, one after another), and the same app sources with nvcc: with ccache installed (scripts/install-deps.sh installs it),
# every configure here compiles through it, into a cache of the scenarios' own, so each source is
# compiled once per run (issue 20: scripts/test.sh must not grow). ccache answers only for the same
# preprocessed source and flags, and ninja sees the same outputs either way.
find_program(_gi_ccache NAMES ccache)
if(_gi_ccache AND NOT DEFINED ENV{CMAKE_CXX_COMPILER_LAUNCHER})
    set(ENV{CMAKE_CXX_COMPILER_LAUNCHER} "${_gi_ccache}")
    set(ENV{CMAKE_CUDA_COMPILER_LAUNCHER} "${_gi_ccache}")
    set(ENV{CCACHE_DIR} "${GI_TEST_WORK}/ccache")
endif()

# The registration of the default call below, as gi-tool options (for `gi-tool cache write`).
set(GI_TEST_REGISTRATION --function scaleKernel --param SCALE=2,3,4 --param BLOCK=64,128,256
    --block-size BLOCK --grid "(n + BLOCK - 1) / BLOCK" --tolerance exact)
set(GI_TEST_DEFAULT_CALL [=[
gi_optimize_cuda_kernel(app
    KERNEL scale.cu FUNCTION scaleKernel
    RECORDER app ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256
    BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK"
    TOLERANCE exact)
]=])

# gi_test_fail(<message>...): ends the scenario as failed.
function(gi_test_fail)
    string(JOIN "" text ${ARGN})
    message(FATAL_ERROR "SCENARIO FAILED: ${text}")
endfunction()

# gi_test_project(<name>): a fresh copy of the test project in GI_TEST_WORK/<name>/src with the
# default call; sets `src` and `build` in the caller.
macro(gi_test_project name)
    set(_gi_root "${GI_TEST_WORK}/${name}")
    file(REMOVE_RECURSE "${_gi_root}")
    file(COPY "${CMAKE_CURRENT_LIST_DIR}/project/" DESTINATION "${_gi_root}/src")
    set(src "${_gi_root}/src")
    set(build "${_gi_root}/build")
    file(WRITE "${src}/call.cmake" "${GI_TEST_DEFAULT_CALL}")
endmacro()

# gi_test_call(<text>): replaces the call under test.
function(gi_test_call text)
    file(WRITE "${src}/call.cmake" "${text}")
endfunction()

# gi_test_run(<out-var> <expect> <command>...): runs a command with output captured; <expect> is
# PASS or FAIL (what its exit status must say). <out-var> gets stdout and stderr together.
function(gi_test_run out_var expect)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(expect STREQUAL "PASS" AND NOT rc EQUAL 0)
        string(JOIN " " command ${ARGN})
        gi_test_fail("'${command}' failed (${rc}):\n${out}")
    elseif(expect STREQUAL "FAIL" AND rc EQUAL 0)
        string(JOIN " " command ${ARGN})
        gi_test_fail("'${command}' succeeded but should have failed:\n${out}")
    endif()
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# gi_test_configure(<out-var> <expect> [MODE subdir|fetch|package|none] [-D...]...): configures
# ${src} into ${build} with Ninja, GI_OPTIMIZE=ON and no GPU evolution unless the arguments say else.
function(gi_test_configure out_var expect)
    set(mode package)
    set(args ${ARGN})
    if(args MATCHES "^MODE;([a-z]+)")
        set(mode "${CMAKE_MATCH_1}")
        list(REMOVE_AT args 0 1)
    endif()
    set(extra "")
    if(mode STREQUAL "package")
        list(APPEND extra "-DCMAKE_PREFIX_PATH=${GI_TEST_PREFIX}")
    endif()
    gi_test_run(out ${expect} "${CMAKE_COMMAND}" -S "${src}" -B "${build}" ${GI_TEST_GENERATOR_ARGS}
        "-DCMAKE_CUDA_COMPILER=${GI_TEST_NVCC}"
        -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
        "-DGI_TEST_MODE=${mode}" "-DGI_TEST_SOURCE=${GI_TEST_SOURCE}"
        -DGI_OPTIMIZE=ON -DGI_GPU_ARCHITECTURE=none ${extra} ${args})
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# gi_test_build_dir(<out-var> <expect> <build-dir> [ninja arguments...]): builds <build-dir>. With
# Unix Makefiles the arguments must be targets (ninja's own flags have no make equivalent here).
function(gi_test_build_dir out_var expect build_dir)
    if(GI_TEST_GENERATOR STREQUAL "Ninja")
        gi_test_run(out ${expect} "${GI_TEST_NINJA}" -C "${build_dir}" ${ARGN})
    else()
        set(targets "")
        foreach(arg IN LISTS ARGN)
            if(arg MATCHES "^-")
                gi_test_fail("gi_test_build(${ARGN}): '${arg}' is a ninja flag; this scenario runs with Ninja only")
            endif()
            list(APPEND targets --target "${arg}")
        endforeach()
        gi_test_run(out ${expect} "${CMAKE_COMMAND}" --build "${build_dir}" --parallel 2 ${targets})
    endif()
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# gi_test_build(<out-var> <expect> [ninja arguments...]): builds ${build}.
function(gi_test_build out_var expect)
    gi_test_build_dir(out ${expect} "${build}" ${ARGN})
    set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# gi_test_expect(<text> <regex> <what>) / gi_test_expect_not(...): output checks. CMake wraps its
# messages, so gi_test_expect also tries <text> with runs of spaces and newlines made one space
# ([^\n]* then spans what CMake wrapped); gi_test_expect_not matches the text as it is.
function(gi_test_expect text regex what)
    string(REGEX REPLACE "[ \t\r\n]+" " " flat "${text}")
    if(NOT text MATCHES "${regex}" AND NOT flat MATCHES "${regex}")
        gi_test_fail("${what}: expected output matching '${regex}', got:\n${text}")
    endif()
endfunction()
# gi_test_expect_up_to_date(<build output> <what>): the build had nothing to do ("ninja: no work to
# do"; make prints only its "Built target" lines, nothing built, generated or linked).
function(gi_test_expect_up_to_date text what)
    if(GI_TEST_GENERATOR STREQUAL "Ninja")
        gi_test_expect("${text}" "ninja: no work to do" "${what}")
    elseif(text MATCHES "(Building|Generating|Linking|gi-optimize:)[^\n]*")
        gi_test_fail("${what}: make did work: '${CMAKE_MATCH_0}' in:\n${text}")
    endif()
endfunction()
function(gi_test_expect_not text regex what)
    if(text MATCHES "${regex}")
        gi_test_fail("${what}: output must not match '${regex}', got:\n${text}")
    endif()
endfunction()

# gi_test_write_entry(<genome> <architecture> [extra gi-tool options]): a hand-picked cache entry
# for the default registration in ${src}/gi-cache, written with the opt-in a genome gi-tool did not
# validate needs (the scenarios test the build's mechanics, not the genomes).
function(gi_test_write_entry genome architecture)
    gi_test_run(out PASS "${GI_TEST_TOOL}" cache write "${src}/scale.cu" ${GI_TEST_REGISTRATION}
        --arch ${architecture} --cache-dir "${src}/gi-cache" --genome "${genome}" --allow-unvalidated
        --note "hand-picked by the CMake scenario" ${ARGN})
endfunction()

# _gi_test_u32(<out-var> <hex> <byte-offset> <bytes>): a little-endian integer read from hex text.
function(_gi_test_uint out_var hex offset bytes)
    set(value "")
    math(EXPR last "${bytes} - 1")
    foreach(i RANGE ${last})
        math(EXPR at "(${offset} + ${i}) * 2")
        string(SUBSTRING "${hex}" ${at} 2 byte)
        set(value "${byte}${value}")
    endforeach()
    math(EXPR value "0x${value}")
    set(${out_var} ${value} PARENT_SCOPE)
endfunction()

# gi_test_device_code(<out-var> <binary> <architecture>): the SASS (cubin) the binary holds for one
# architecture, as hex, read from its .nv_fatbin section (fatbinary header: magic 0xBA55ED50, u16
# header size at +6, u64 size at +8; each entry: u16 kind at +0 (2 = cubin), u32 header size at
# +4, u64 payload size at +8, u32 architecture at +28). The CUDA toolkit here has no cuobjdump, and
# the cubin is what the GPU runs, so comparing it tells which kernel a build contains.
function(gi_test_device_code out_var binary architecture)
    find_program(_gi_objcopy NAMES objcopy REQUIRED)
    set(section "${binary}.nv_fatbin")
    gi_test_run(out PASS "${_gi_objcopy}" -O binary --only-section=.nv_fatbin "${binary}" "${section}")
    file(READ "${section}" hex HEX)
    string(LENGTH "${hex}" hex_length)
    math(EXPR total "${hex_length} / 2")
    set(found "")
    set(position 0)
    while(position LESS total)
        math(EXPR at "${position} * 2")
        string(SUBSTRING "${hex}" ${at} 8 magic)
        if(NOT magic STREQUAL "50ed55ba")
            math(EXPR position "${position} + 8")
            continue()
        endif()
        _gi_test_uint(header_size "${hex}" "${position} + 6" 2)
        _gi_test_uint(fat_size "${hex}" "${position} + 8" 8)
        math(EXPR entry "${position} + ${header_size}")
        math(EXPR end "${entry} + ${fat_size}")
        while(entry LESS end)
            _gi_test_uint(kind "${hex}" ${entry} 2)
            _gi_test_uint(entry_header "${hex}" "${entry} + 4" 4)
            _gi_test_uint(payload_size "${hex}" "${entry} + 8" 8)
            _gi_test_uint(entry_arch "${hex}" "${entry} + 28" 4)
            if(kind EQUAL 2 AND entry_arch EQUAL architecture)
                math(EXPR from "(${entry} + ${entry_header}) * 2")
                math(EXPR length "${payload_size} * 2")
                string(SUBSTRING "${hex}" ${from} ${length} payload)
                string(APPEND found "${payload}")
            endif()
            math(EXPR entry "${entry} + ${entry_header} + ${payload_size}")
        endwhile()
        set(position ${end})
    endwhile()
    if(found STREQUAL "")
        gi_test_fail("${binary} holds no sm_${architecture} code")
    endif()
    set(${out_var} "${found}" PARENT_SCOPE)
endfunction()

# gi_test_expect_empty_build_type(<what>): ${build} was configured without CMAKE_BUILD_TYPE and
# including gi-optimize left it empty (a program's asserts stay on).
function(gi_test_expect_empty_build_type what)
    file(STRINGS "${build}/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
    if(NOT build_type MATCHES "^CMAKE_BUILD_TYPE:[A-Z]*=$")
        gi_test_fail("${what}: the project's empty build type was changed: ${build_type}")
    endif()
endfunction()

# gi_test_expect_install_only(<what> <files>...): `cmake --install` of ${build} installs exactly these.
function(gi_test_expect_install_only what)
    gi_test_run(out PASS "${CMAKE_COMMAND}" --install "${build}" --prefix "${build}/installed")
    file(GLOB_RECURSE installed RELATIVE "${build}/installed" "${build}/installed/*")
    list(SORT installed)
    set(expected ${ARGN})
    list(SORT expected)
    if(NOT installed STREQUAL expected)
        gi_test_fail("${what}: the install holds more (or other) than the project's own: ${installed}")
    endif()
endfunction()

# gi_test_fake_tool(<path>): a stand-in for gi-tool at <path> (bash) for the steps a build runs on a
# GPU machine, so they run here without one. Each call's arguments are appended to <path>.calls, one
# call a line. `version`, `cache apply` and anything not listed run the real gi-tool (GI_TEST_TOOL).
# What the others do is read, at each call, from the words in <path>.mode:
#   record: creates its --out folder and succeeds; `record-fails`: exits 1 with an error line, as when
#     the program crashes; `record-slow`: sleeps 11 s first
#   evolve, report: succeed, writing nothing; `evolve-fails`: evolve exits 3 with an error line
#   cache write: the real one, with `--genome G` from a word `genome=G` (default: empty, the original
#     kernel won) in place of --from-run, and --allow-unvalidated for a non-empty genome
#   accept: prints an accepted line and succeeds; `accept-fails`: prints a failed self-check, exits 1
#   cache apply: `apply-nothing`: succeeds and writes nothing (a tool that is not what was configured)
function(gi_test_fake_tool path)
    file(WRITE "${path}" "#!/bin/bash
real='${GI_TEST_TOOL}'
printf '%s\\n' \"$*\" >> '${path}.calls'
mode=\" $(cat '${path}.mode' 2>/dev/null) \"
has() { [[ \"$mode\" == *\" $1 \"* ]]; }
case \"$1\" in
record)
    if has record-fails; then echo 'gi-tool record: error: the program was killed by signal 6 (Aborted)' >&2; exit 1; fi
    if has record-slow; then sleep 11; fi
    out=''; previous=''
    for a in \"$@\"; do [[ $previous == --out ]] && out=$a; previous=$a; done
    mkdir -p \"$out\"; echo \"recorded 1 case into $out\"; exit 0;;
evolve)
    if has evolve-fails; then echo 'gi-tool evolve: error: oracle gate: case k-0000 does not reproduce its outputs' >&2; exit 3; fi
    exit 0;;
report) exit 0;;
accept)
    if has accept-fails; then echo 'self-check: FAILED (3 of 1000 elements differ)'; exit 1; fi
    echo 'gi-tool accept: accepted: 1 launch reproduced'; exit 0;;
cache)
    if [[ $2 == apply ]] && has apply-nothing; then exit 0; fi
    if [[ $2 == write ]]; then
        genome=''
        for word in $mode; do [[ $word == genome=* ]] && genome=\${word#genome=}; done
        args=(); skip=0
        for a in \"\${@:2}\"; do
            if (( skip )); then skip=0; continue; fi
            if [[ $a == --from-run ]]; then skip=1; continue; fi
            args+=(\"$a\")
        done
        if [[ -n $genome ]]; then args+=(--allow-unvalidated); fi
        exec \"$real\" cache \"\${args[@]}\" --genome \"$genome\"
    fi
    exec \"$real\" \"$@\";;
*) exec \"$real\" \"$@\";;
esac
")
    file(CHMOD "${path}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    file(REMOVE "${path}.calls" "${path}.mode")
endfunction()

# gi_test_fake_mode(<path> <words>...): what the stand-in at <path> does from now on.
function(gi_test_fake_mode path)
    string(JOIN " " words ${ARGN})
    file(WRITE "${path}.mode" "${words}\n")
endfunction()

# gi_test_evolve_calls(<out-var> <work>): runs the evolution step a configure planned in <work> (its
# generated evolve-settings.cmake) with the stand-in gi-tool, and gives the gi-tool calls it made,
# one a line ("record ...", "evolve ...", "report ...", "cache write ..."): the commands a GPU
# machine's build runs.
function(gi_test_evolve_calls out_var work)
    set(fake "${work}/fake-gi-tool")
    gi_test_fake_tool("${fake}")
    file(WRITE "${work}/fake-settings.cmake"
         "include([==[${work}/evolve-settings.cmake]==])\nset(GI_TOOL [==[${fake}]==])\n")
    gi_test_run(out PASS "${CMAKE_COMMAND}" "-DGI_EVOLVE_SETTINGS=${work}/fake-settings.cmake"
                -P "${GI_TEST_SOURCE}/cmake/GIOptimizeEvolve.cmake")
    file(READ "${fake}.calls" calls)
    set(${out_var} "${calls}" PARENT_SCOPE)
endfunction()
