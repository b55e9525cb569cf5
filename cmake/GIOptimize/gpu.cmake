# GIOptimize/gpu.cmake: which GPU this machine has, the one fact that decides whether a build
# evolves. Part of GIOptimize.cmake, which includes it.

# _gi_gpu_architecture(<out-var>): the architecture of this machine's first GPU ("" when none), from
# GI_GPU_ARCHITECTURE or nvidia-smi (asked once per configure).
function(_gi_gpu_architecture out_var)
    if(GI_GPU_ARCHITECTURE STREQUAL "none")
        set(${out_var} "" PARENT_SCOPE)
        return()
    elseif(NOT GI_GPU_ARCHITECTURE STREQUAL "")
        if(NOT GI_GPU_ARCHITECTURE MATCHES "^[1-9][0-9]+$")
            message(FATAL_ERROR "gi-optimize: GI_GPU_ARCHITECTURE='${GI_GPU_ARCHITECTURE}' is not an "
                                "architecture number such as 90 (or 'none', or empty to detect it)")
        endif()
        set(${out_var} "${GI_GPU_ARCHITECTURE}" PARENT_SCOPE)
        return()
    endif()
    get_property(known GLOBAL PROPERTY _GI_DETECTED_GPU SET)
    if(NOT known)
        set(detected "")
        find_program(_GI_NVIDIA_SMI nvidia-smi)
        mark_as_advanced(_GI_NVIDIA_SMI)
        if(_GI_NVIDIA_SMI)
            execute_process(COMMAND "${_GI_NVIDIA_SMI}" --query-gpu=compute_cap,name,driver_version --format=csv,noheader
                            RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET TIMEOUT 30)
            if(rc EQUAL 0 AND out MATCHES "^([0-9]+)\\.([0-9]+), *([^,\n]*), *([^\n]*)")
                set(detected "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
                # For the provenance of entries evolved here.
                set_property(GLOBAL PROPERTY _GI_DETECTED_GPU_NAME "${CMAKE_MATCH_3}")
                set_property(GLOBAL PROPERTY _GI_DETECTED_GPU_DRIVER "${CMAKE_MATCH_4}")
                _gi_debug("nvidia-smi reports a GPU of architecture sm_${detected} (${CMAKE_MATCH_3}, driver ${CMAKE_MATCH_4})")
            else()
                _gi_debug("nvidia-smi found no usable GPU (exit status ${rc})")
            endif()
        else()
            _gi_debug("no nvidia-smi on PATH: no GPU, so no evolution during this build")
        endif()
        set_property(GLOBAL PROPERTY _GI_DETECTED_GPU "${detected}")
    endif()
    get_property(detected GLOBAL PROPERTY _GI_DETECTED_GPU)
    set(${out_var} "${detected}" PARENT_SCOPE)
endfunction()
