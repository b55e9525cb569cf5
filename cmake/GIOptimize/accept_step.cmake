# GIOptimize/accept_step.cmake: the build step between an evolution and the cache: the recorder
# program built with the candidate compiled in (a twin, GIOptimize/recorder.cmake) and run through
# `gi-tool accept` (GIOptimizeAccept.cmake, with the settings written here from
# accept-settings.cmake.in). Part of GIOptimize.cmake, which includes it.

# _gi_acceptance_step(<out-stamp> <target> <identifier> <architecture> <gen-dir> <tool> <evolved-stamp>
#                     <compile-arguments> <recorded-name>): the steps that take the candidate the
# evolution step (<evolved-stamp>) wrote into CACHE_DIR only when the recorder program, with the
# candidate compiled in, passes `gi-tool accept` with the HELD_OUT arguments (else ARGS); an empty
# genome, the original kernel, needs no such run. <compile-arguments> and <recorded-name>: as the
# evolution step recorded with them. <out-stamp> is the file the final generation step waits for.
function(_gi_acceptance_step out_stamp target identifier architecture gen_dir tool evolved_stamp compile_arguments
         recorded_name)
    _gi_registration_fields("${target}" "${identifier}"
                            kernel functions tolerance cache_dir recorder record_with recorder_args held_out)
    list(JOIN functions "+" kernel_name)
    _gi_name_for_files(entry_name "+" ${functions})
    set(entry_file "${entry_name}.sm_${architecture}.xml")
    _gi_work_names(work accept_target "${target}" "${identifier}" "${recorder}" "${gen_dir}" "${architecture}")
    _gi_strict(strict)
    set(tool_file "${tool}")
    if(TARGET "${tool}")
        set(tool_file "$<TARGET_FILE:${tool}>")
    endif()

    # The acceptance program: the recorder with the candidate compiled in. Possible when the
    # recorder compiles the kernel file itself (it is the target, or another program built from it),
    # or, for a kernel header, sources that include it.
    _gi_kernel_includers(recorder_includers "${recorder}" "${kernel}")
    _gi_header_kernel(header "${kernel}")
    set(accept_args "${recorder_args}")
    set(reference "${work}/cases")
    if(held_out)
        set(accept_args "${held_out}")
        set(reference "${work}/held-out")
    endif()
    set(candidate_source "${work}/candidate-source")
    set(program "")
    set(build_command "")
    # What the acceptance program is built from besides its own sources: the candidate's files, made
    # here (their step orders this acceptance after the other kernels' of the file).
    set(candidate_files "")
    if(NOT recorder_includers STREQUAL "")
        # The candidate as the build will compile it: with the other registered kernels of the file
        # as the cache has them (their acceptance steps in this build come first).
        _gi_file_identifier(file_identifier "${target}" "${kernel}")
        set(candidate_wrapper "${candidate_source}/${file_identifier}.gi.cu")
        set(candidate_options "${candidate_source}/${file_identifier}.options")
        _gi_apply_registrations(apply_registrations candidate_headers others "${target}" "${kernel}" "${architecture}"
                                "${candidate_source}/include" "${identifier}" "${work}/candidate")
        set(candidate_files "${candidate_wrapper}" ${candidate_headers} "${candidate_options}"
                            "${candidate_source}/${file_identifier}.sm_${architecture}.cu")
        add_custom_command(
            OUTPUT ${candidate_files}
            COMMAND ${tool} cache apply "${kernel}" --arch ${architecture} --wrapper "${candidate_wrapper}"
                    --options-file "${candidate_options}" ${apply_registrations}
            DEPENDS "${evolved_stamp}" "${kernel}" ${others} ${tool}
            COMMENT "gi-optimize: ${kernel_name} sm_${architecture}: the evolved candidate's source"
            VERBATIM COMMAND_EXPAND_LISTS)
        if(header)
            # The recorder's sources that include the header, as copies including the candidate.
            _gi_include_dirs(include_dirs "${recorder}")
            set(copies "")
            foreach(includer IN LISTS recorder_includers)
                _gi_includer_copy(copy "${includer}" "${candidate_source}" "${include_dirs}" "${kernel}"
                                  "${candidate_wrapper}" "${candidate_options}")
                list(APPEND copies "${copy}")
                list(APPEND candidate_files "${copy}")
            endforeach()
            _gi_twin("${accept_target}" "${recorder}" "${recorder_includers}" "${copies}" "${architecture}"
                     "${gen_dir}" "${candidate_source}/include")
        else()
            _gi_twin("${accept_target}" "${recorder}" "${kernel}" "${candidate_wrapper}" "${architecture}" "${gen_dir}"
                     "${candidate_source}/include")
            _gi_wrapper_properties("${candidate_wrapper}" "${kernel}" "${candidate_options}")
        endif()
        set(program "$<TARGET_FILE:${accept_target}>")
        # Built by the acceptance step itself, and only when there is a variant to run it with: after
        # a failed evolution or an empty genome (the original kernel won) the program is never
        # compiled (with -rdc and nvcc, tens of seconds of a build that gains nothing from it).
        # Everything else it needs is built first: its libraries by the recorder's build (the
        # evolution step waits for it), the candidate's files by the steps above.
        set(build_command "${CMAKE_COMMAND}" --build "${CMAKE_BINARY_DIR}" --target "${accept_target}")
        get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
        if(multi_config)
            list(APPEND build_command --config "$<CONFIG>")
        endif()
        _gi_debug("${target}: ${kernel_name} sm_${architecture}: the candidate is accepted by running '${accept_target}' "
                  "(${recorder} with the variant) with ${accept_args}")
    else()
        set(accept_target "")
        message(STATUS "gi-optimize: ${target}: ${kernel_name} sm_${architecture}: RECORDER '${recorder}' does not compile "
                       "${kernel} itself, so the evolved variant cannot be run inside it before it is cached; it is "
                       "checked by replay and held-out validation only")
    endif()

    # The acceptance step's settings, as a script it includes (arguments may hold any characters):
    # accept-settings.cmake.in.
    _gi_bracket(functions_text ${functions})
    _gi_bracket(tolerance_text ${tolerance})
    _gi_bracket(args_text ${accept_args})
    _gi_bracket(compile_text ${compile_arguments})
    _gi_bracket(build_text ${build_command})
    set(settings "${work}/accept-settings.cmake")
    _gi_configure_template(settings_text accept-settings.cmake)
    file(GENERATE OUTPUT "${settings}" CONTENT "${settings_text}")
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    set(accepted_stamp "${work}/accepted.stamp")
    # No BYPRODUCTS: accept.log is written only when a program runs (ninja would run a step whose
    # byproduct is missing on every build), and the entry it copies into CACHE_DIR is the project's
    # own (committed) file, which a clean must never remove.
    add_custom_command(
        OUTPUT "${accepted_stamp}"
        COMMAND "${CMAKE_COMMAND}" "-DGI_ACCEPT_SETTINGS=${settings}" -P "${module_dir}/GIOptimizeAccept.cmake"
        COMMAND "${CMAKE_COMMAND}" -E touch "${accepted_stamp}"
        DEPENDS "${evolved_stamp}" ${candidate_files} "${settings}" "${module_dir}/GIOptimizeAccept.cmake" ${tool}
        WORKING_DIRECTORY "${gen_dir}"
        COMMENT "gi-optimize: ${kernel_name} sm_${architecture}: running ${recorder} with the evolved variant before caching it"
        USES_TERMINAL
        VERBATIM)
    # A later registration of the same file builds its candidate with this entry: after this step.
    set_property(TARGET "${target}" PROPERTY _GI_${identifier}_accepted_sm${architecture} "${accepted_stamp}")
    set(${out_stamp} "${accepted_stamp}" PARENT_SCOPE)
endfunction()
