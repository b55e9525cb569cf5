# GIOptimizeApplied.cmake: the end of the build step that generates a target's kernel files (`cache
# apply`; run with cmake -P by the custom command gi_optimize_cuda_kernel() adds). The step writes its
# options file to GI_WRITTEN, a name removed just before it ran: when that file is missing the step
# wrote nothing (GI_OPTIMIZE_TOOL is not what it was when configured, say) and the build stops here,
# where it would otherwise compile what an earlier build generated. Otherwise GI_FILE is replaced only
# when its content changed, so an unchanged variant recompiles nothing.
cmake_minimum_required(VERSION 3.25)
if(NOT EXISTS "${GI_WRITTEN}")
    message(FATAL_ERROR "gi-optimize: ${GI_STEP}: the step that generates the kernel's files wrote none of them "
                        "(no ${GI_WRITTEN}); the target would compile what an earlier build generated. Is "
                        "GI_OPTIMIZE_TOOL a gi-tool? Configure again to check it")
endif()
file(COPY_FILE "${GI_WRITTEN}" "${GI_FILE}" ONLY_IF_DIFFERENT)
file(REMOVE "${GI_WRITTEN}")
