# GIOptimize/recorder.cmake: the programs the build steps run: the recorder (a twin of the target
# with the original kernel, when the target records itself) and the twins the acceptance step
# builds with a candidate compiled in. How RECORDER records is this file's business alone. Part of
# GIOptimize.cmake, which includes it.

# _gi_twin(<twin> <source-target> <replaced> <replacements> <gpu-architecture> <gen-dir> [<include-dir>])
# An executable made from <source-target>'s sources and settings, for <gpu-architecture> only, with
# its sources compiled as they are, except those of the list <replaced>, each replaced by the same
# item of <replacements> (the kernel file by a generated wrapper, or the sources that include a kernel
# header by their copies; the generated header folder <include-dir> comes first). Settings are read
# when the build is generated, so later changes count; the folder of the target's own generated
# header (under <gen-dir>) is left out, since its values describe the target's variant, not the twin's.
function(_gi_twin twin source_target replaced replacements gpu_architecture gen_dir)
    get_target_property(sources "${source_target}" SOURCES)
    get_target_property(source_dir "${source_target}" SOURCE_DIR)
    set(absolute_sources "")
    foreach(source IN LISTS sources)
        if(source MATCHES "^\\$<")
            list(APPEND absolute_sources "${source}")
            continue()
        endif()
        cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${source_dir}" NORMALIZE OUTPUT_VARIABLE absolute)
        list(FIND replaced "${absolute}" at)
        if(at GREATER -1)
            list(GET replacements ${at} absolute)
        endif()
        list(APPEND absolute_sources "${absolute}")
    endforeach()
    add_executable("${twin}" EXCLUDE_FROM_ALL ${absolute_sources})
    set(t "${source_target}")
    if(ARGN)
        target_include_directories("${twin}" PRIVATE ${ARGN})
    endif()
    string(REGEX REPLACE "([][+.*()^$?|\\])" "\\\\\\1" gen_dir_regex "${gen_dir}")
    target_include_directories("${twin}" PRIVATE
        "$<FILTER:$<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>,EXCLUDE,^${gen_dir_regex}>")
    target_compile_definitions("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_DEFINITIONS>")
    target_compile_options("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_OPTIONS>")
    target_compile_features("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},COMPILE_FEATURES>")
    target_link_libraries("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},LINK_LIBRARIES>")
    target_link_options("${twin}" PRIVATE "$<TARGET_PROPERTY:${t},LINK_OPTIONS>")
    foreach(property CXX_STANDARD CUDA_STANDARD CUDA_SEPARABLE_COMPILATION CUDA_RUNTIME_LIBRARY)
        get_target_property(value "${source_target}" ${property})
        if(NOT value STREQUAL "value-NOTFOUND")
            set_property(TARGET "${twin}" PROPERTY ${property} "${value}")
        endif()
    endforeach()
    set_property(TARGET "${twin}" PROPERTY CUDA_ARCHITECTURES "${gpu_architecture}")
endfunction()

# _gi_recorder_target(<out-var> <target> <recorder> <gpu-architecture> <gen-dir> <kernel>): the
# executable that records test cases. When it is the optimised target itself (the usual case: the
# program records while it runs), a twin with the original kernel, since the target's variant
# cannot be built before its evolution has run.
function(_gi_recorder_target out_var target recorder gpu_architecture gen_dir kernel)
    if(NOT recorder STREQUAL target)
        set(${out_var} "${recorder}" PARENT_SCOPE)
        return()
    endif()
    set(twin "${target}_gi_recorder")
    if(NOT TARGET "${twin}")
        _gi_twin("${twin}" "${target}" "" "" "${gpu_architecture}" "${gen_dir}")
        _gi_debug("${target}: RECORDER is the target itself: recording with its twin '${twin}' (original kernel, sm_${gpu_architecture})")
    endif()
    set(${out_var} "${twin}" PARENT_SCOPE)
endfunction()

# _gi_recording_problem(<out-var> <target> <identifier>): why RECORDER cannot record the kernel's
# launches on this machine ("" when it can), said when configuring, where it is cheap to fix, rather
# than after a build spent on a recorder run that records nothing.
#   RECORD_WITH intercept (the default): `gi-tool record` preloads its launch intercept (LD_PRELOAD),
#     which needs Linux and a dynamically linked program (a static CUDA runtime is fine: it still
#     loads the driver library, whose entry points are what the intercept wraps);
#   RECORD_WITH launch: the program's own gi::launch calls record, so it must link the recorder.
function(_gi_recording_problem out_var target identifier)
    _gi_registration_fields("${target}" "${identifier}" recorder record_with)
    set(problem "")
    if(record_with STREQUAL "launch")
        get_target_property(libraries "${recorder}" LINK_LIBRARIES)
        if(NOT libraries MATCHES "GIOptimize::recorder|(^|;)gi_recorder(;|$)|\\$<")
            string(CONCAT problem "RECORD_WITH launch records through the program's gi::launch calls, but RECORDER '${recorder}' "
                        "does not link GIOptimize::recorder: add target_link_libraries(${recorder} PRIVATE "
                        "GIOptimize::recorder), or leave RECORD_WITH out to record its launches by interception")
        endif()
    elseif(NOT CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
        string(CONCAT problem "recording intercepts the program's kernel launches by preloading a library (LD_PRELOAD), which "
                    "${CMAKE_HOST_SYSTEM_NAME} does not have: launch the kernel through gi::launch, link "
                    "GIOptimize::recorder and pass RECORD_WITH launch")
    else()
        get_target_property(link_options "${recorder}" LINK_OPTIONS)
        get_target_property(link_flags "${recorder}" LINK_FLAGS)
        foreach(where "LINK_OPTIONS of ${recorder}:${link_options}" "LINK_FLAGS of ${recorder}:${link_flags}"
                      "CMAKE_EXE_LINKER_FLAGS:${CMAKE_EXE_LINKER_FLAGS}")
            string(REGEX MATCH "^[^:]*" label "${where}")
            string(REGEX REPLACE "^[^:]*:" "" value "${where}")
            string(REPLACE ";" " " value "${value}")
            if(value MATCHES "(^| )(-static|-Wl,-static|LINKER:-static)( |$)")
                string(CONCAT problem "RECORDER '${recorder}' is linked fully static (-static in ${label}): such a program loads "
                            "no preloaded library, so its kernel launches cannot be intercepted. Link it dynamically "
                            "(a static CUDA runtime is fine), or launch the kernel through gi::launch, link "
                            "GIOptimize::recorder and pass RECORD_WITH launch")
                break()
            endif()
        endforeach()
    endif()
    set(${out_var} "${problem}" PARENT_SCOPE)
endfunction()
