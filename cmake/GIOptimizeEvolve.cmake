# GIOptimizeEvolve.cmake: the build step that evolves a kernel on this machine's GPU (run with
# cmake -P by the custom command gi_optimize_cuda_kernel() adds; GI_EVOLVE_SETTINGS names the
# generated file holding its settings). It records test cases with `gi-tool record` (ARGS, then
# HELD_OUT, then SANITIZE_ARGS), evolves within what is left of BUDGET, writes the run's report and
# writes the result as a candidate entry in the build folder, for the acceptance step
# (GIOptimizeAccept.cmake) to run the program with it before it enters the cache.
#
# A failure here never breaks the build by default: the step says in one line what failed and where
# its log is, and ends successfully without a candidate, so the target builds the original kernel
# for this architecture. With GI_STRICT (or GI_REQUIRE_CACHE) the same line fails the build.
#
# BUDGET is the whole step's, acceptance included: the deadline is BUDGET after this step starts;
# each recording may use what is left of it; evolve's --time-limit is what is left after the
# recordings less a reserve for the report, cache write, the acceptance program's build and its run
# (30 s and twice the recording run the acceptance repeats). A phase that runs past the deadline
# (evolve: past its time limit by more than a minute) is stopped, and that is a failure like any other.
cmake_minimum_required(VERSION 3.25)
if(NOT GI_EVOLVE_SETTINGS OR NOT EXISTS "${GI_EVOLVE_SETTINGS}")
    message(FATAL_ERROR "GIOptimizeEvolve.cmake: GI_EVOLVE_SETTINGS='${GI_EVOLVE_SETTINGS}' does not name its settings file")
endif()
include("${GI_EVOLVE_SETTINGS}")

set(log "${GI_WORK}/evolve.log")
set(failure_file "${GI_WORK}/failure.txt")
# Seconds kept for what follows the search (report, cache write, building the acceptance program) and
# the grace evolve gets past its time limit before it is stopped; the least time worth searching.
set(reserve_seconds 30)
set(grace_seconds 60)
set(least_search_seconds 10)

file(REMOVE_RECURSE "${GI_WORK}/cases" "${GI_WORK}/held-out" "${GI_WORK}/sanitize-cases" "${GI_WORK}/run"
                    "${GI_WORK}/candidate" "${GI_WORK}/accepted")
file(REMOVE "${failure_file}" "${GI_WORK}/budget.cmake" "${GI_WORK}/accept.log")
string(TIMESTAMP start "%s")
string(TIMESTAMP now_text "%Y-%m-%d %H:%M:%S")
math(EXPR deadline "${start} + ${GI_BUDGET_SECONDS}")
file(WRITE "${log}" "gi-optimize: ${GI_LABEL}: evolution step started ${now_text}, budget ${GI_BUDGET_SECONDS} s\n")

# _gi_last_words(<out-var> <output>): the line of a command's output that says why it failed (its
# last "error:" line, else its last line), shortened, control characters shown as '?'.
function(_gi_last_words out_var output)
    # Found by position, not as a list of lines: a '[' or ';' in the output would upset a list.
    string(REPLACE "\r" "\n" output "${output}")
    string(STRIP "${output}" output)
    string(FIND "${output}" "error:" at REVERSE)
    if(at EQUAL -1)
        string(LENGTH "${output}" at)
    endif()
    string(SUBSTRING "${output}" 0 ${at} before)
    string(FIND "${before}" "\n" line_start REVERSE)
    math(EXPR line_start "${line_start} + 1")
    string(SUBSTRING "${output}" ${line_start} -1 chosen)
    string(FIND "${chosen}" "\n" line_end)
    if(line_end GREATER -1)
        string(SUBSTRING "${chosen}" 0 ${line_end} chosen)
    endif()
    string(STRIP "${chosen}" chosen)
    string(REGEX REPLACE "^gi-tool [a-z ]+: error: " "" chosen "${chosen}")
    string(REGEX REPLACE "[ :]+$" "" chosen "${chosen}")  # "... Its last output:" introduces lines the log has
    string(ASCII 1 2 3 4 5 6 7 8 9 11 12 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 127 controls)
    string(REGEX REPLACE "[${controls}]" "?" chosen "${chosen}")
    string(LENGTH "${chosen}" length)
    if(length GREATER 240)
        string(SUBSTRING "${chosen}" 0 237 chosen)
        string(APPEND chosen "...")
    endif()
    if(chosen STREQUAL "")
        set(chosen "(it printed nothing)")
    endif()
    set(${out_var} "${chosen}" PARENT_SCOPE)
endfunction()

# _gi_run(<what> <timeout-seconds> <command>...): runs one phase, its output shown as it comes and
# kept in the log. Sets in the caller: phase_failed (TRUE/FALSE), phase_reason (for the one line)
# and phase_seconds.
function(_gi_run what timeout)
    string(TIMESTAMP before "%s")
    list(JOIN ARGN " " shown)
    file(APPEND "${log}" "\n==== ${what} (at most ${timeout} s): ${shown}\n")
    execute_process(COMMAND ${ARGN}
                    WORKING_DIRECTORY "${GI_WORK}"
                    TIMEOUT ${timeout}
                    RESULT_VARIABLE status
                    OUTPUT_VARIABLE output ERROR_VARIABLE output
                    ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
    string(TIMESTAMP after "%s")
    math(EXPR seconds "${after} - ${before}")
    file(APPEND "${log}" "${output}\n==== ${what}: exit status '${status}' after ${seconds} s\n")
    set(phase_seconds ${seconds} PARENT_SCOPE)
    if(status STREQUAL "0")
        set(phase_failed FALSE PARENT_SCOPE)
        return()
    endif()
    set(phase_failed TRUE PARENT_SCOPE)
    if(NOT status MATCHES "^[0-9]+$")
        if(status MATCHES "timeout")
            set(status "stopped after ${seconds} s, its share of the budget")
        endif()
        set(phase_reason "${what} did not finish (${status})" PARENT_SCOPE)
    else()
        _gi_last_words(words "${output}")
        set(phase_reason "${what} failed (exit status ${status}): ${words}" PARENT_SCOPE)
    endif()
endfunction()

# _gi_give_up(<reason>): the one line, and the failure noted for the acceptance step.
function(_gi_give_up reason)
    file(WRITE "${failure_file}" "${reason}\n")
    set(line "gi-optimize: ${GI_LABEL}: keeping the original kernel: ${reason}; log: ${log}")
    file(APPEND "${log}" "\n${line}\nThe build does not evolve this kernel again until the kernel, the recorder or "
                         "gi-tool changes; to try again now, remove ${GI_WORK}/evolved.stamp and build.\n")
    if(GI_STRICT)
        message(FATAL_ERROR "${line} (GI_STRICT: a failed evolution fails the build)")
    endif()
    message(NOTICE "${line}")
endfunction()

# _gi_time_left(<out-var>): seconds to the deadline, at least 1 (execute_process needs a positive timeout).
function(_gi_time_left out_var)
    string(TIMESTAMP now "%s")
    math(EXPR left "${deadline} - ${now}")
    if(left LESS 1)
        set(left 1)
    endif()
    set(${out_var} ${left} PARENT_SCOPE)
endfunction()

# 1. The recordings. The acceptance runs the program again as the HELD_OUT recording did (else as ARGS):
#    that recording's time is what the acceptance run is expected to take.
cmake_path(GET GI_PROGRAM FILENAME program_name)
set(recordings "cases:ARGS")
if(GI_HAS_HELD_OUT)
    list(APPEND recordings "held-out:HELD_OUT")
endif()
if(GI_HAS_SANITIZE_ARGS)
    list(APPEND recordings "sanitize-cases:SANITIZE_ARGS")
endif()
set(acceptance_seconds 0)
foreach(recording IN LISTS recordings)
    string(REPLACE ":" ";" recording "${recording}")
    list(GET recording 0 folder)
    list(GET recording 1 keyword)
    _gi_time_left(left)
    _gi_run("recording the ${keyword} run of ${program_name}" ${left}
            "${GI_TOOL}" record "${GI_KERNEL}" ${GI_RECORD_OPTIONS} --out "${GI_WORK}/${folder}" --
            "${GI_PROGRAM}" ${GI_${keyword}})
    if(phase_failed)
        _gi_give_up("${phase_reason}")
        return()
    endif()
    if(keyword STREQUAL "ARGS" OR keyword STREQUAL "HELD_OUT")
        set(acceptance_seconds ${phase_seconds})
    endif()
endforeach()

# 2. The search, in what is left of the budget.
string(TIMESTAMP now "%s")
math(EXPR recorded_seconds "${now} - ${start}")
math(EXPR time_limit "${deadline} - ${now} - ${reserve_seconds} - 2 * ${acceptance_seconds}")
if(time_limit LESS least_search_seconds)
    math(EXPR minutes "${GI_BUDGET_SECONDS} / 60")
    string(CONCAT reason "after recording (${recorded_seconds} s) the BUDGET of ${minutes} min leaves ${time_limit} s "
           "to search (${reserve_seconds} s and twice the acceptance run's ${acceptance_seconds} s are kept for the "
           "steps after it): raise BUDGET")
    _gi_give_up("${reason}")
    return()
endif()
math(EXPR evolve_timeout "${time_limit} + ${grace_seconds}")
_gi_run("gi-tool evolve" ${evolve_timeout}
        "${GI_TOOL}" evolve "${GI_KERNEL}" ${GI_REGISTRATION} ${GI_COMPILE_ARGUMENTS} ${GI_EVOLVE_OPTIONS}
        --evaluator cuda --arch sm_${GI_ARCHITECTURE} --cases "${GI_WORK}/cases" ${GI_CASE_OPTIONS}
        --time-limit ${time_limit} --out "${GI_WORK}/run")
if(phase_failed)
    _gi_give_up("${phase_reason}")
    return()
endif()

# 3. The run as a page with charts (its path is printed). Only a note when it fails: the run is good.
_gi_time_left(left)
math(EXPR left "${left} + ${grace_seconds}")
_gi_run("gi-tool report" ${left} "${GI_TOOL}" report --out "${GI_WORK}/run" "${GI_KERNEL}" ${GI_REGISTRATION}
        ${GI_COMPILE_ARGUMENTS})
if(phase_failed)
    message(NOTICE "gi-optimize: ${GI_LABEL}: note: the run's report.html was not written (${phase_reason}); log: ${log}")
endif()

# 4. The run's entry, as a candidate (refused when the run did not finish or was not validated).
_gi_time_left(left)
math(EXPR left "${left} + ${grace_seconds}")
_gi_run("gi-tool cache write" ${left} "${GI_TOOL}" cache write "${GI_KERNEL}" ${GI_REGISTRATION}
        --arch ${GI_ARCHITECTURE} --cache-dir "${GI_WORK}/candidate" --from-run "${GI_WORK}/run" ${GI_WRITE_OPTIONS})
if(phase_failed)
    _gi_give_up("${phase_reason}")
    return()
endif()

# What the acceptance step may still use of the budget.
file(WRITE "${GI_WORK}/budget.cmake" "set(GI_DEADLINE ${deadline})\nset(GI_ACCEPTANCE_SECONDS ${acceptance_seconds})\n")
