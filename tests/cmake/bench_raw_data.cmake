# scripts/check-bench-data.sh, the rule that keeps raw benchmark data out of the tree (issue 43): it
# passes on this checkout, and on a scratch repository it refuses a log, an image (whatever the case
# of its extension) or any file under bench/results/data/ that raw-files.txt does not list, naming
# it, while it lets summaries and the listed files through. Needs git and bash only.
cmake_minimum_required(VERSION 3.25)
set(script "${GI_TEST_SOURCE}/scripts/check-bench-data.sh")
find_program(git NAMES git)
find_program(bash NAMES bash)
if(NOT git OR NOT bash)
    message("GI_TEST_SKIPPED: no git or bash")
    return()
endif()

# check(<expect> <root> <what> [<regex>]): runs the check on <root>; <expect> PASS or FAIL; the
# output must match <regex>.
function(check expect root what)
    execute_process(COMMAND "${bash}" "${script}" "${root}" RESULT_VARIABLE status OUTPUT_VARIABLE output
                    ERROR_VARIABLE output)
    if(expect STREQUAL "PASS" AND NOT status EQUAL 0)
        message(FATAL_ERROR "SCENARIO FAILED: ${what}: the check failed (${status}):\n${output}")
    elseif(expect STREQUAL "FAIL" AND NOT status EQUAL 1)
        message(FATAL_ERROR "SCENARIO FAILED: ${what}: the check should have failed, got exit status ${status}:\n${output}")
    endif()
    if(ARGC GREATER 3 AND NOT output MATCHES "${ARGV3}")
        message(FATAL_ERROR "SCENARIO FAILED: ${what}: expected output matching '${ARGV3}', got:\n${output}")
    endif()
endfunction()

# This checkout: no raw data beyond the list (skipped where the source is no git checkout, a tarball).
execute_process(COMMAND "${git}" -C "${GI_TEST_SOURCE}" rev-parse --git-dir RESULT_VARIABLE status
                OUTPUT_QUIET ERROR_QUIET)
if(status EQUAL 0)
    check(PASS "${GI_TEST_SOURCE}" "this checkout")
endif()

# A scratch repository: one listed log, a summary.
set(work "${GI_TEST_WORK}/bench_raw_data")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}/bench/results/data/old")
execute_process(COMMAND "${git}" init -q "${work}" RESULT_VARIABLE status)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "SCENARIO FAILED: git init ${work} failed")
endif()
function(git_add)
    execute_process(COMMAND "${git}" -C "${work}" add -f -- ${ARGN} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "SCENARIO FAILED: git add ${ARGN} failed")
    endif()
endfunction()
function(git_unstage)
    execute_process(COMMAND "${git}" -C "${work}" rm -q --cached -- ${ARGN} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "SCENARIO FAILED: git rm --cached ${ARGN} failed")
    endif()
endfunction()
file(WRITE "${work}/bench/results/raw-files.txt" "# the files from before the rule\nbench/results/old.log\nbench/results/data/old/run.xml\n")
foreach(file old.log data/old/run.xml summary.md notes.txt)
    file(WRITE "${work}/bench/results/${file}" "x\n")
endforeach()
git_add(bench/results)
check(PASS "${work}" "listed raw files and summaries")

foreach(case "new.log:a new log" "report.PNG:a new image, in capitals" "data/old/more.txt:a new file under data/"
             "run.tgz:a new archive")
    string(REPLACE ":" ";" case "${case}")
    list(GET case 0 file)
    list(GET case 1 what)
    file(WRITE "${work}/bench/results/${file}" "x\n")
    git_add("bench/results/${file}")
    string(REPLACE "." "\\." pattern "bench/results/${file}")
    check(FAIL "${work}" "${what}" "  ${pattern}\n.*bench/data/")
    git_unstage("bench/results/${file}")
endforeach()
check(PASS "${work}" "after unstaging them")

file(REMOVE "${work}/bench/results/raw-files.txt")
git_unstage(bench/results/raw-files.txt)
check(FAIL "${work}" "without the list" "raw-files.txt is missing")
