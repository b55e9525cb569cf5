# A failure in gi-optimize's own build steps never breaks the user's build by default (issue 40, item
# 4): when recording, evolution, cache write or the acceptance fails on a GPU machine, the build goes
# on with the original kernel for that architecture and prints one line saying why and where the
# log is; GI_STRICT=ON makes it an error. Also: an empty genome (the original kernel won) is cached
# without an acceptance run, the acceptance program is compiled only when there is a variant to run
# it with (not after a failed evolution or for an empty genome), and BUDGET bounds the whole step (evolve gets what the recordings left,
# less a reserve for the steps after it). No GPU here: GI_GPU_ARCHITECTURE=90 plans the evolution,
# a recorder program that crashes runs through the real gi-tool, and a stand-in gi-tool
# (gi_test_fake_tool) plays the GPU steps' outcomes.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
if(GI_TEST_SKIP)
    return()
endif()

# gi_test_one_line(<output> <regex> <what>): the output holds exactly one "keeping the original
# kernel" line, and it matches <regex>.
function(expect_one_line output regex what)
    string(REGEX MATCHALL "keeping the original kernel" lines "${output}")
    list(LENGTH lines count)
    if(NOT count EQUAL 1)
        gi_test_fail("${what}: expected one 'keeping the original kernel' line, got ${count}:\n${output}")
    endif()
    gi_test_expect("${output}" "gi-optimize: app: scaleKernel sm_90: keeping the original kernel: ${regex}" "${what}")
endfunction()

# expect_acceptance_program(<program> <built: YES|NO> <what>): whether the build compiled the
# acceptance program (the recorder with the candidate compiled in): its executable and its objects.
function(expect_acceptance_program program built what)
    file(GLOB_RECURSE objects "${build}/CMakeFiles/${program}.dir/*.o")
    if(built AND (NOT EXISTS "${build}/${program}" OR objects STREQUAL ""))
        gi_test_fail("${what}: the acceptance program ${program} was not built")
    elseif(NOT built AND (EXISTS "${build}/${program}" OR NOT objects STREQUAL ""))
        gi_test_fail("${what}: the acceptance program ${program} was compiled, with no variant to run it with: ${objects}")
    endif()
endfunction()

function(expect_variant expected what)
    gi_test_run(out PASS "${build}/app" --variant 90)
    gi_test_expect("${out}" "variant: ${expected}" "${what}")
endfunction()

# 1. A recorder program that crashes, through the real gi-tool: the build succeeds with the original
#    kernel; the line names the recording and the log, and the log holds gi-tool's words.
gi_test_project(build_failures)
file(WRITE "${src}/crash.cu" "#include <cstdlib>\nint main() { std::abort(); }\n")
gi_test_call([[
add_executable(crasher crash.cu scale.cu)
set_target_properties(crasher PROPERTIES CUDA_ARCHITECTURES 90)
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER crasher ARGS --record
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_OPTIMIZE_TOOL=${GI_TEST_TOOL}")
gi_test_build(out PASS app)
set(log "${build}/gi-optimize/app/evolve.sm_90/evolve.log")
expect_one_line("${out}" "recording the ARGS run of crasher failed \\(exit status 1\\): [^\n]*crasher --record` failed \\(signal 6\\)[^\n]*; log: ${log}"
                "a crashing recorder")
file(READ "${log}" text)
gi_test_expect("${text}" "gi-tool record: error: [^\n]*crasher --record` failed \\(signal 6\\)" "the log holds gi-tool's words")
gi_test_expect("${text}" "to try again now, remove [^\n]*evolved.stamp" "and says how to try again")
expect_variant("original kernel SCALE=2" "a crashing recorder: the original kernel")
expect_acceptance_program(crasher_gi_accept_sm90 NO "a crashing recorder")
if(EXISTS "${src}/gi-cache/scaleKernel.sm_90.xml")
    gi_test_fail("a failed evolution wrote a cache entry")
endif()
# A second build does not evolve again (a failure that costs the budget is not repeated each build).
gi_test_build(out PASS app)
gi_test_expect_not("${out}" "recording|keeping the original" "the failed evolution is not repeated")
# GI_STRICT: the same failure fails the build, with the same line.
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 -DGI_STRICT=ON)
file(REMOVE "${build}/gi-optimize/app/evolve.sm_90/evolved.stamp")
gi_test_build(out FAIL app)
gi_test_expect("${out}" "keeping the original kernel: recording the ARGS run of crasher failed [^\n]*GI_STRICT" "GI_STRICT fails the build")

# 2. The GPU steps' other outcomes, played by a stand-in gi-tool; BUDGET 1 (60 s for the whole step).
set(fake "${GI_TEST_WORK}/build_failures/fake-gi-tool")
gi_test_fake_tool("${fake}")
gi_test_call([[
gi_optimize_cuda_kernel(app KERNEL scale.cu FUNCTION scaleKernel RECORDER app ARGS --record BUDGET 1
    PARAMS SCALE 2 3 4 BLOCK=64,128,256 BLOCK_SIZE BLOCK GRID "(n + BLOCK - 1) / BLOCK" TOLERANCE exact)
]])
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 "-DGI_OPTIMIZE_TOOL=${fake}" -DGI_STRICT=OFF)
set(work "${build}/gi-optimize/app/evolve.sm_90")
macro(evolve_again)
    file(REMOVE "${work}/evolved.stamp" "${work}/accepted.stamp" "${src}/gi-cache/scaleKernel.sm_90.xml" "${fake}.calls")
endmacro()

# evolve fails: the original kernel and one line, with evolve's error.
gi_test_fake_mode("${fake}" evolve-fails)
gi_test_build(out PASS app)
expect_one_line("${out}" "gi-tool evolve failed \\(exit status 3\\): oracle gate: case k-0000 does not reproduce its outputs; log: ${work}/evolve.log"
                "a failed evolution")
expect_variant("original kernel SCALE=2" "a failed evolution: the original kernel")
expect_acceptance_program(app_gi_accept_sm90 NO "a failed evolution")
# BUDGET is the whole step's: evolve gets the 60 s less the recording's time, 30 s and twice the
# acceptance run's expected time (the recording's), so here at most 30 s.
file(READ "${fake}.calls" calls)
if(NOT calls MATCHES "(^|\n)evolve [^\n]*--time-limit ([0-9]+) ")
    gi_test_fail("evolve was not given a time limit:\n${calls}")
endif()
if(CMAKE_MATCH_2 GREATER 30 OR CMAKE_MATCH_2 LESS 20)
    gi_test_fail("BUDGET 1 gave evolve --time-limit ${CMAKE_MATCH_2}, not 60 s less the reserve for the steps after it")
endif()

# The original kernel won (an empty genome): cached without running the program.
evolve_again()
gi_test_fake_mode("${fake}" "")
gi_test_build(out PASS app)
gi_test_expect("${out}" "cached ${src}/gi-cache/scaleKernel.sm_90.xml \\(the original kernel was the best found: no acceptance run\\)"
               "an empty genome is cached without an acceptance run")
file(READ "${fake}.calls" calls)
gi_test_expect_not("${calls}" "(^|\n)accept " "no acceptance run for an empty genome")
if(NOT EXISTS "${src}/gi-cache/scaleKernel.sm_90.xml")
    gi_test_fail("the empty genome's entry is not in the cache")
endif()
expect_acceptance_program(app_gi_accept_sm90 NO "an empty genome")

# The program with the variant fails its self-check: not cached, one line; GI_STRICT fails the build.
evolve_again()
gi_test_fake_mode("${fake}" genome=SCALE=3 accept-fails)
gi_test_build(out PASS app)
expect_one_line("${out}" "the evolved variant is NOT cached and NOT used: [^\n]*exit status 1[^\n]*; log: ${work}/accept.log"
                "a rejected variant")
gi_test_expect("${out}" "self-check: FAILED" "the program's own words are shown")
gi_test_expect("${out}" "building app_gi_accept_sm90, the program with the evolved variant compiled in" "a variant to run: built")
expect_acceptance_program(app_gi_accept_sm90 YES "a variant to run")
if(EXISTS "${src}/gi-cache/scaleKernel.sm_90.xml")
    gi_test_fail("a rejected variant entered the cache")
endif()
expect_variant("original kernel SCALE=2" "a rejected variant: the original kernel")
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 -DGI_STRICT=ON)
evolve_again()
gi_test_build(out FAIL app)
gi_test_expect("${out}" "NOT cached and NOT used[^\n]*GI_STRICT" "GI_STRICT: a rejected variant fails the build")
gi_test_configure(out PASS -DGI_GPU_ARCHITECTURE=90 -DGI_STRICT=OFF)

# Accepted: cached, and the target compiles the variant.
evolve_again()
gi_test_fake_mode("${fake}" genome=SCALE=3)
gi_test_build(out PASS app)
gi_test_expect("${out}" "cached ${src}/gi-cache/scaleKernel.sm_90.xml; gi-tool accept: accepted: 1 launch reproduced" "an accepted variant is cached")
file(READ "${fake}.calls" calls)
gi_test_expect("${calls}" "(^|\n)accept [^\n]*scale.cu --function scaleKernel [^\n]*-- [^\n]*app_gi_accept_sm90 --record" "the acceptance ran the program")
expect_variant("SCALE=3 SCALE=3" "the accepted variant is compiled")
# The acceptance step built its program inside this build: the next build has nothing to do.
gi_test_build(out PASS app)
gi_test_expect("${out}" "no work to do" "a build after the acceptance built its program")

# Recording took so much of the budget that nothing is left to search: said, not searched.
evolve_again()
gi_test_fake_mode("${fake}" record-slow)
gi_test_build(out PASS app)
expect_one_line("${out}" "after recording \\([0-9]+ s\\) the BUDGET of 1 min leaves -?[0-9]+ s to search [^\n]*raise BUDGET"
                "a budget spent on recording")
file(READ "${fake}.calls" calls)
gi_test_expect_not("${calls}" "(^|\n)evolve " "no search without time for it")
