# GIOptimizeAccept.cmake: the build step between an evolution and the cache (run with cmake -P by
# the custom command gi_optimize_cuda_kernel() adds; GI_ACCEPT_SETTINGS names the generated file
# holding its settings). The evolved candidate entry enters the cache only when the recorder
# program, built with the candidate compiled in, passes `gi-tool accept`: it exits 0 (its own
# self-checks included) and every launch it records reproduces the original's outputs. A rejected
# candidate is not an error of the build: the target keeps the original kernel, and the program's
# output and the reason are shown. Without an acceptance program (the recorder does not compile
# the kernel file itself) the candidate, already validated on held-out cases, is taken as it is.
cmake_minimum_required(VERSION 3.25)
if(NOT GI_ACCEPT_SETTINGS OR NOT EXISTS "${GI_ACCEPT_SETTINGS}")
    message(FATAL_ERROR "GIOptimizeAccept.cmake: GI_ACCEPT_SETTINGS='${GI_ACCEPT_SETTINGS}' does not name its settings file")
endif()
include("${GI_ACCEPT_SETTINGS}")

if(NOT EXISTS "${GI_CANDIDATE}")
    message(FATAL_ERROR "gi-optimize: ${GI_LABEL}: the evolution wrote no candidate entry (${GI_CANDIDATE})")
endif()

if(GI_PROGRAM STREQUAL "")
    file(COPY_FILE "${GI_CANDIDATE}" "${GI_CACHE_ENTRY}" ONLY_IF_DIFFERENT)
    message(STATUS "gi-optimize: ${GI_LABEL}: cached ${GI_CACHE_ENTRY} (validated by replay; no program to run it in)")
    return()
endif()

list(GET GI_FUNCTIONS 0 function)
set(tolerance_options "")
foreach(item IN LISTS GI_TOLERANCE)
    list(APPEND tolerance_options --tolerance "${item}")
endforeach()
# A template whose argument is a parameter: its launches are named after the template.
set(recorded_options "")
if(DEFINED GI_RECORDED_NAME AND NOT "${GI_RECORDED_NAME}" STREQUAL "")
    set(recorded_options --recorded-name "${GI_RECORDED_NAME}")
endif()
file(REMOVE_RECURSE "${GI_ACCEPTED}")
execute_process(
    COMMAND "${GI_TOOL}" accept "${GI_KERNEL}" --function "${function}" --reference "${GI_REFERENCE}"
            --out "${GI_ACCEPTED}" --arch "sm_${GI_ARCHITECTURE}" ${tolerance_options} ${recorded_options} ${GI_COMPILE_ARGUMENTS}
            -- "${GI_PROGRAM}" ${GI_PROGRAM_ARGS}
    RESULT_VARIABLE status
    OUTPUT_VARIABLE output
    ERROR_VARIABLE output)
if(status EQUAL 0)
    cmake_path(GET GI_CACHE_ENTRY PARENT_PATH cache_dir)
    file(MAKE_DIRECTORY "${cache_dir}")
    file(COPY_FILE "${GI_CANDIDATE}" "${GI_CACHE_ENTRY}" ONLY_IF_DIFFERENT)
    string(REGEX MATCH "gi-tool accept: accepted: [^\n]*" accepted "${output}")
    message(STATUS "gi-optimize: ${GI_LABEL}: cached ${GI_CACHE_ENTRY}; ${accepted}")
else()
    message(WARNING "gi-optimize: ${GI_LABEL}: the evolved variant is NOT cached and NOT used: with it compiled in, "
                    "the recorder program did not pass (gi-tool accept, exit status ${status}). The target builds the "
                    "original kernel. The candidate entry stays in ${GI_CANDIDATE} for inspection "
                    "('gi-tool cache show'). What the program and gi-tool said:\n${output}")
endif()
