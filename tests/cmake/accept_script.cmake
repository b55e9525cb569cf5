# GIOptimizeAccept.cmake, the build step between an evolution and the cache, with a stand-in for
# gi-tool (a shell script) so both outcomes run without a GPU: an accepted candidate is copied into
# the cache folder; a rejected one is not, the build step still succeeds (the target keeps the
# original kernel) and the warning shows what the program and gi-tool said. Without an acceptance
# program the candidate is cached as it is. The step builds the program itself (GI_BUILD_COMMAND): a
# variant that does not build in it is not cached, and the build step still succeeds.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(root "${GI_TEST_WORK}/accept_script")
file(REMOVE_RECURSE "${root}")
file(MAKE_DIRECTORY "${root}/candidate" "${root}/cache")
file(WRITE "${root}/candidate/k.sm_90.xml" "<candidate/>\n")

# accept_with(<tool-exit> <tool-words> <program> [<build-command>...])
function(_gi_bracket_test out_var)
    set(text "")
    foreach(item IN LISTS ARGN)
        string(APPEND text " [==[${item}]==]")
    endforeach()
    set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

function(accept_with tool_exit tool_words program)
    _gi_bracket_test(build_text ${ARGN})
    file(WRITE "${root}/gi-tool" "#!/bin/sh\necho \"$*\" > '${root}/arguments'\necho '${tool_words}'\nexit ${tool_exit}\n")
    file(CHMOD "${root}/gi-tool" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
    file(WRITE "${root}/settings.cmake" "
set(GI_TOOL [==[${root}/gi-tool]==])
set(GI_KERNEL [==[${root}/k.cu]==])
set(GI_FUNCTIONS k)
set(GI_TOLERANCE [==[out:abs=1e-3]==])
set(GI_ARCHITECTURE 90)
set(GI_PROGRAM [==[${program}]==])
set(GI_PROGRAM_ARGS [==[--size]==] [==[64 64]==])
set(GI_REFERENCE [==[${root}/held-out]==])
set(GI_ACCEPTED [==[${root}/accepted]==])
set(GI_CANDIDATE [==[${root}/candidate/k.sm_90.xml]==])
set(GI_CACHE_ENTRY [==[${root}/cache/k.sm_90.xml]==])
set(GI_LABEL [==[app: k sm_90]==])
set(GI_PROGRAM_TARGET app_accept)
set(GI_BUILD_COMMAND${build_text})
")
    file(REMOVE "${root}/cache/k.sm_90.xml" "${root}/arguments")
    gi_test_run(out PASS "${CMAKE_COMMAND}" "-DGI_ACCEPT_SETTINGS=${root}/settings.cmake"
                -P "${GI_TEST_SOURCE}/cmake/GIOptimizeAccept.cmake")
    set(out "${out}" PARENT_SCOPE)
endfunction()

accept_with(1 "row_filter: FAILED (relative L2 error 1)" "${root}/app_accept")
gi_test_expect("${out}" "the evolved variant is NOT cached and NOT used" "a rejected candidate is said so")
gi_test_expect("${out}" "row_filter: FAILED \\(relative L2 error 1\\)" "with the program's words")
if(EXISTS "${root}/cache/k.sm_90.xml")
    gi_test_fail("a rejected candidate entered the cache")
endif()
file(READ "${root}/arguments" arguments)
gi_test_expect("${arguments}" "^accept ${root}/k.cu --function k --reference ${root}/held-out --out ${root}/accepted --arch sm_90 --tolerance out:abs=1e-3 -- ${root}/app_accept --size 64 64"
               "gi-tool accept gets the registration and the program's arguments")

accept_with(0 "gi-tool accept: accepted: it matched" "${root}/app_accept")
gi_test_expect("${out}" "cached ${root}/cache/k.sm_90.xml; gi-tool accept: accepted: it matched" "an accepted candidate is cached")
if(NOT EXISTS "${root}/cache/k.sm_90.xml")
    gi_test_fail("the accepted candidate is not in the cache")
endif()

accept_with(1 "never run" "")
gi_test_expect("${out}" "validated by replay; no program to run it in" "without a program the candidate is cached as it is")
if(EXISTS "${root}/arguments")
    gi_test_fail("gi-tool accept ran without a program")
endif()

# The program is built first; one that does not build with the variant: not cached, said in one line.
accept_with(0 "gi-tool accept: accepted: it matched" "${root}/app_accept" "${CMAKE_COMMAND}" -E echo "building app_accept")
gi_test_expect("${out}" "\nbuilding app_accept\ngi-tool accept: accepted: it matched\n" "the program is built, then run")
gi_test_expect("${out}" "cached ${root}/cache/k.sm_90.xml; gi-tool accept: accepted" "and the variant cached")
accept_with(0 "never run" "${root}/app_accept" "${CMAKE_COMMAND}" -E false)
gi_test_expect("${out}" "keeping the original kernel: the evolved variant is NOT cached and NOT used: the program with it compiled in \\(app_accept\\) did not build"
               "a variant that does not build in the program")
if(EXISTS "${root}/cache/k.sm_90.xml" OR EXISTS "${root}/arguments")
    gi_test_fail("a variant that did not build in the program was run or cached")
endif()
