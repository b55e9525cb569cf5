# gi-tool/check_stage_includes.cmake, the build step that keeps the stages free of cycles: it
# passes gi-tool's own sources under the rules the build wrote (stage_rules.txt), and fails, naming
# the file, the line and what the stage may include, on a tree where a lower stage includes a
# higher one. Needs nothing built: cmake -P only.
cmake_minimum_required(VERSION 3.25)
set(script "${GI_TEST_SOURCE}/gi-tool/check_stage_includes.cmake")
set(work "${GI_TEST_WORK}/stage_includes")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}")

function(run_check out_result out_output rules source_dir)
    execute_process(COMMAND "${CMAKE_COMMAND}" -DRULES=${rules} -DSOURCE_DIR=${source_dir} -DSTAMP=${work}/stamp
                            -P "${script}"
                    RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
    set(${out_result} "${result}" PARENT_SCOPE)
    set(${out_output} "${output}" PARENT_SCOPE)
endfunction()

# The real sources under the real rules.
if(NOT EXISTS "${GI_TEST_RULES}")
    message(FATAL_ERROR "SCENARIO FAILED: no stage rules at ${GI_TEST_RULES} (the build writes them)")
endif()
run_check(result output "${GI_TEST_RULES}" "${GI_TEST_SOURCE}/gi-tool/src")
if(NOT result EQUAL 0)
    message(FATAL_ERROR "SCENARIO FAILED: gi-tool's own sources break the stage order:\n${output}")
endif()

# A small tree: low <- high, and low including high/ on its line 3.
file(WRITE "${work}/src/low/a.hpp" "#pragma once\n#include <vector>\n#include \"high/b.hpp\"\n")
file(WRITE "${work}/src/high/b.hpp" "#pragma once\n#include \"low/a.hpp\"\n")
file(WRITE "${work}/src/top/c.cpp" "#include \"high/b.hpp\"\n#include \"low/a.hpp\"\n")
file(WRITE "${work}/rules.txt" "low low : \nhigh high : low\ntop top : *\n")
run_check(result output "${work}/rules.txt" "${work}/src")
if(result EQUAL 0)
    message(FATAL_ERROR "SCENARIO FAILED: a lower stage including a higher one passed the check")
endif()
if(NOT output MATCHES "src/low/a.hpp:3: includes high/, a stage that low is not above")
    message(FATAL_ERROR "SCENARIO FAILED: the refusal does not name the file and line:\n${output}")
endif()
# Without the offending line the same tree passes (the top may include anything).
file(WRITE "${work}/src/low/a.hpp" "#pragma once\n#include <vector>\n")
run_check(result output "${work}/rules.txt" "${work}/src")
if(NOT result EQUAL 0)
    message(FATAL_ERROR "SCENARIO FAILED: a tree in stage order was refused:\n${output}")
endif()
message(STATUS "stage_includes: the real sources pass; a cycle is refused with its file and line")
