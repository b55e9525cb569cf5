# GIOptimizeAccept.cmake: the build step between an evolution and the cache (run with cmake -P by
# the custom command gi_optimize_cuda_kernel() adds; GI_ACCEPT_SETTINGS names the generated file
# holding its settings). The evolved candidate entry enters the cache only when the recorder
# program, built with the candidate compiled in, passes `gi-tool accept`: it exits 0 (its own
# self-checks included) and every launch it records reproduces the original's outputs. A candidate
# whose genome is empty (the original kernel won) needs no such run and is cached as it is. Without
# an acceptance program (the recorder does not compile the kernel file itself) the candidate,
# already validated on held-out cases, is taken as it is. The program is built here
# (GI_BUILD_COMMAND), only when there is a variant to run it with: a failed evolution or an empty
# genome costs no compile of it.
#
# A rejected candidate, or a failure of this step, is not an error of the build: the target keeps
# the original kernel, and one line says why and where the log is (the program's output is shown as
# it runs). With GI_STRICT (or GI_REQUIRE_CACHE) that line fails the build.
cmake_minimum_required(VERSION 3.25)
if(NOT GI_ACCEPT_SETTINGS OR NOT EXISTS "${GI_ACCEPT_SETTINGS}")
    message(FATAL_ERROR "GIOptimizeAccept.cmake: GI_ACCEPT_SETTINGS='${GI_ACCEPT_SETTINGS}' does not name its settings file")
endif()
include("${GI_ACCEPT_SETTINGS}")
cmake_path(GET GI_ACCEPTED PARENT_PATH work)
set(log "${work}/accept.log")

# _gi_keep_original(<reason>): the one line (the build goes on with the original kernel).
function(_gi_keep_original reason)
    set(line "gi-optimize: ${GI_LABEL}: keeping the original kernel: ${reason}")
    if(EXISTS "${log}")
        string(APPEND line "; log: ${log}")
    endif()
    if(GI_STRICT)
        message(FATAL_ERROR "${line} (GI_STRICT: a failed acceptance fails the build)")
    endif()
    message(NOTICE "${line}")
endfunction()

# _gi_cache_candidate(<how>): copies the candidate into the cache folder; a folder that cannot be
# written is said in the one line, not as CMake's error.
function(_gi_cache_candidate how)
    cmake_path(GET GI_CACHE_ENTRY PARENT_PATH cache_dir)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E make_directory "${cache_dir}" RESULT_VARIABLE status ERROR_VARIABLE error)
    if(status EQUAL 0)
        file(COPY_FILE "${GI_CANDIDATE}" "${GI_CACHE_ENTRY}" ONLY_IF_DIFFERENT RESULT status)
    endif()
    if(NOT status EQUAL 0)
        string(STRIP "${status} ${error}" error)
        string(CONCAT reason "the accepted entry could not be written to ${GI_CACHE_ENTRY} (${error}); it stays in "
               "${GI_CANDIDATE}")
        _gi_keep_original("${reason}")
        return()
    endif()
    message(STATUS "gi-optimize: ${GI_LABEL}: cached ${GI_CACHE_ENTRY}${how}")
endfunction()

if(NOT EXISTS "${GI_CANDIDATE}")
    # The evolution step gave up and said so in its own line.
    if(DEFINED GI_FAILURE_FILE AND EXISTS "${GI_FAILURE_FILE}")
        return()
    endif()
    _gi_keep_original("the evolution wrote no candidate entry (${GI_CANDIDATE})")
    return()
endif()

# An empty genome is the original kernel: nothing new to run the program with.
file(READ "${GI_CANDIDATE}" candidate LIMIT 1048576)
if(candidate MATCHES "<genome>(<!\\[CDATA\\[\\]\\]>)?</genome>|<genome */>")
    _gi_cache_candidate(" (the original kernel was the best found: no acceptance run)")
    return()
endif()

if(GI_PROGRAM STREQUAL "")
    _gi_cache_candidate(" (validated by replay; no program to run it in)")
    return()
endif()

# The program with the candidate compiled in. A variant that does not build in the program is not
# used, like one the program rejects; the build goes on with the original kernel.
file(WRITE "${log}" "")
if(DEFINED GI_BUILD_COMMAND AND NOT "${GI_BUILD_COMMAND}" STREQUAL "")
    list(JOIN GI_BUILD_COMMAND " " shown)
    file(APPEND "${log}" "gi-optimize: ${GI_LABEL}: building the acceptance program: ${shown}\n")
    message(STATUS "gi-optimize: ${GI_LABEL}: building ${GI_PROGRAM_TARGET}, the program with the evolved variant compiled in")
    execute_process(
        COMMAND ${GI_BUILD_COMMAND}
        RESULT_VARIABLE status
        OUTPUT_VARIABLE output ERROR_VARIABLE output
        ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
    file(APPEND "${log}" "${output}\nexit status '${status}'\n")
    if(NOT status STREQUAL "0")
        string(CONCAT reason "the evolved variant is NOT cached and NOT used: the program with it compiled in "
               "(${GI_PROGRAM_TARGET}) did not build (exit status ${status}; the compiler's output is above). The "
               "candidate entry stays in ${GI_CANDIDATE} for inspection ('gi-tool cache show')")
        _gi_keep_original("${reason}")
        return()
    endif()
endif()

list(GET GI_FUNCTIONS 0 function)
set(tolerance_options "")
foreach(item IN LISTS GI_TOLERANCE)
    list(APPEND tolerance_options --tolerance "${item}")
endforeach()
# A template whose argument is a parameter: its launches are named after the template.
set(recorded_options "")
if(GI_RECORD_WITH STREQUAL "launch")
    list(APPEND recorded_options --record-with launch)
endif()
if(DEFINED GI_RECORDED_NAME AND NOT "${GI_RECORDED_NAME}" STREQUAL "")
    list(APPEND recorded_options --recorded-name "${GI_RECORDED_NAME}")
endif()
# The budget's share: what the evolution step left of it, but at least twice the time the recording
# this run repeats took (a slow build of the acceptance program must not throw a good result away).
set(timeout_options "")
if(DEFINED GI_BUDGET_FILE AND EXISTS "${GI_BUDGET_FILE}")
    include("${GI_BUDGET_FILE}")
    string(TIMESTAMP now "%s")
    math(EXPR timeout "${GI_DEADLINE} - ${now}")
    math(EXPR least "2 * ${GI_ACCEPTANCE_SECONDS} + 30")
    if(timeout LESS least)
        set(timeout ${least})
    endif()
    set(timeout_options TIMEOUT ${timeout})
endif()
file(REMOVE_RECURSE "${GI_ACCEPTED}")
set(command "${GI_TOOL}" accept "${GI_KERNEL}" --function "${function}" --reference "${GI_REFERENCE}"
            --out "${GI_ACCEPTED}" --arch "sm_${GI_ARCHITECTURE}" ${tolerance_options} ${recorded_options}
            ${GI_COMPILE_ARGUMENTS} -- "${GI_PROGRAM}" ${GI_PROGRAM_ARGS})
list(JOIN command " " shown)
file(APPEND "${log}" "gi-optimize: ${GI_LABEL}: acceptance: ${shown}\n")
execute_process(
    COMMAND ${command}
    ${timeout_options}
    RESULT_VARIABLE status
    OUTPUT_VARIABLE output ERROR_VARIABLE output
    ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
file(APPEND "${log}" "${output}\nexit status '${status}'\n")
if(status STREQUAL "0")
    string(REGEX MATCH "gi-tool accept: accepted: [^\n]*" accepted "${output}")
    _gi_cache_candidate("; ${accepted}")
elseif(status MATCHES "^[0-9]+$")
    string(CONCAT reason "the evolved variant is NOT cached and NOT used: with it compiled in, the recorder program "
           "did not pass (gi-tool accept, exit status ${status}; its output is above). The candidate entry stays in "
           "${GI_CANDIDATE} for inspection ('gi-tool cache show')")
    _gi_keep_original("${reason}")
else()
    string(CONCAT reason "the evolved variant is NOT cached and NOT used: the acceptance run did not finish "
           "(${status}). The candidate entry stays in ${GI_CANDIDATE}")
    _gi_keep_original("${reason}")
endif()
