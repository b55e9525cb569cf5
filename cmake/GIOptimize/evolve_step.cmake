# GIOptimize/evolve_step.cmake: the build step that evolves a kernel on this machine's GPU (records
# test cases, searches, writes a candidate entry; GIOptimizeEvolve.cmake runs it, with the settings
# written here from evolve-settings.cmake.in). The acceptance step that follows it is
# GIOptimize/accept_step.cmake. Part of GIOptimize.cmake, which includes it.

# _gi_evolve_steps(<out-stamp> <target> <identifier> <architecture> <gen-dir> <tool> <registration>
#                  <block-size> <compiled-count>): the build steps that make an entry on this machine's GPU. They run
# in the build, never at configure time:
#   1. record the training (ARGS) and HELD_OUT cases with `gi-tool record` (which captures the kernel
#      file's module variables too), evolve within what is left of BUDGET, and write the run's entry
#      as a candidate in the build folder (`cache write` refuses an unfinished or unvalidated run):
#      GIOptimizeEvolve.cmake, with the settings generated here;
#   2. build the recorder program with the candidate variant compiled in (a twin, like the target's
#      own build) and run it through `gi-tool accept` with the HELD_OUT arguments (else ARGS): only
#      when it succeeds and reproduces the original's recorded outputs does the candidate enter
#      CACHE_DIR (_gi_acceptance_step, GIOptimize/accept_step.cmake; an empty genome, the original
#      kernel, needs no such run, and no such program: the step builds it only when it has a
#      variant to run).
# A failure of either step leaves the target on the original kernel with one line saying why (an
# error with GI_STRICT). <out-stamp> is the file the final generation step waits for. <compiled-count>:
# how many architectures the target compiles (two or more share one host pass).
function(_gi_evolve_steps out_stamp target identifier architecture gen_dir tool registration block_size_text
         compiled_count)
    set(prefix "_GI_${identifier}")
    _gi_registration_fields("${target}" "${identifier}" kernel functions tolerance cache_dir budget recorder
                            record_with recorder_args held_out sanitize_args nondeterministic allow_unvalidated)
    list(GET functions 0 function)
    list(JOIN functions "+" kernel_name)
    _gi_name_for_files(entry_name "+" ${functions})
    set(entry_file "${entry_name}.sm_${architecture}.xml")

    _gi_recorder_target(recorder_target "${target}" "${recorder}" "${architecture}" "${gen_dir}" "${kernel}")
    _gi_compile_arguments(compile_arguments "${target}" "${kernel}" "${gen_dir}")
    _gi_work_names(work accept_target "${target}" "${identifier}" "${recorder}" "${gen_dir}" "${architecture}")
    set(evolved_stamp "${work}/evolved.stamp")
    # A template whose argument is a parameter ("MatrixMulCUDA<TILE>", PARAMS TILE ...): the program
    # names its launches after the template (gi::launch(MatrixMulCUDA<TILE>, "MatrixMulCUDA", ...)),
    # since the instantiation changes with the variant.
    set(recorded_name "")
    get_target_property(params "${target}" ${prefix}_params)
    if(function MATCHES "^([A-Za-z_][A-Za-z0-9_]*)[ \t]*<(.*)>$")
        set(base "${CMAKE_MATCH_1}")
        string(REPLACE "," ";" template_arguments "${CMAKE_MATCH_2}")
        foreach(argument IN LISTS template_arguments)
            string(STRIP "${argument}" argument)
            foreach(declaration IN LISTS params)
                string(REGEX REPLACE "=.*" "" name "${declaration}")
                if(argument STREQUAL name)
                    set(recorded_name "${base}")
                endif()
            endforeach()
        endforeach()
    endif()
    set(record_options --function "${function}" --arch sm_${architecture} ${compile_arguments})
    if(record_with STREQUAL "launch")
        list(APPEND record_options --record-with launch)
    endif()
    if(recorded_name)
        list(APPEND record_options --recorded-name "${recorded_name}")
        _gi_debug("${target}: ${function}: its template argument is a parameter, so its launches are recorded under "
                  "the name '${recorded_name}'")
    endif()
    # The further recordings: HELD_OUT (validation), SANITIZE_ARGS (small cases for the search's
    # sanitizer gate: memcheck of a large case costs seconds a variant, issue 19; the final checks
    # still run on the training and held-out cases).
    set(case_options "")
    foreach(recording "held_out:held-out:--held-out" "sanitize_args:sanitize-cases:--sanitize-cases")
        string(REPLACE ":" ";" recording "${recording}")
        list(GET recording 0 arguments)
        list(GET recording 1 folder)
        list(GET recording 2 option)
        if(${arguments})
            list(APPEND case_options ${option} "${work}/${folder}")
        endif()
    endforeach()
    set(evolve_options "")
    # Workers started elsewhere, e.g. by srun on a cluster's GPU nodes (GI_WORKER_LAUNCHER,
    # docs/cluster.md), each on the GPU its launcher gives it: GI_GPUS, this machine's GPUs, is not
    # read then (evolve refuses the two together). Else every GPU of the machine by default
    # (GI_GPUS): the BUDGET's minutes buy that many more evaluations.
    if(NOT "${GI_WORKER_LAUNCHER}" STREQUAL "")
        list(APPEND evolve_options --worker-launcher "${GI_WORKER_LAUNCHER}")
    elseif(NOT "${GI_GPUS}" STREQUAL "")
        list(APPEND evolve_options --gpus "${GI_GPUS}")
    endif()
    # Variants compiled elsewhere when this machine's CPUs are the limit (GI_COMPILE_LAUNCHER).
    if(NOT "${GI_COMPILE_LAUNCHER}" STREQUAL "")
        list(APPEND evolve_options --compile-launcher "${GI_COMPILE_LAUNCHER}")
    endif()
    if(nondeterministic)
        list(APPEND evolve_options --nondeterministic)
    endif()
    if(NOT block_size_text STREQUAL "")
        list(APPEND evolve_options --block "${block_size_text}")
    endif()
    # The target's architectures share one host pass, which sees one variant's #defines: cache apply
    # refuses a variant changing one that host code of the kernel file reads, so evolution keeps those
    # at the file's value rather than spend the budget on settings the build would throw away.
    if(compiled_count GREATER 1)
        list(APPEND evolve_options --target-architectures ${compiled_count})
    endif()
    set(write_options --nvcc-version "${CMAKE_CUDA_COMPILER_VERSION}")
    get_property(gpu_name GLOBAL PROPERTY _GI_DETECTED_GPU_NAME)
    get_property(gpu_driver GLOBAL PROPERTY _GI_DETECTED_GPU_DRIVER)
    if(gpu_name)
        list(APPEND write_options --gpu "${gpu_name}" --driver "${gpu_driver}")
    endif()
    if(allow_unvalidated)
        list(APPEND write_options --allow-unvalidated)
    endif()
    math(EXPR budget_seconds "${budget} * 60")
    _gi_strict(strict)
    set(tool_file "${tool}")
    if(TARGET "${tool}")
        set(tool_file "$<TARGET_FILE:${tool}>")
    endif()
    # gi-tool runs variants on the GPU through gi-worker, which it finds next to itself.
    set(worker "")
    if(GI_OPTIMIZE_TOOL STREQUAL "" AND TARGET GIOptimize::gi-worker)
        set(worker GIOptimize::gi-worker)
    endif()

    # The step's settings, as a script it includes (arguments may hold any characters; generator
    # expressions in ARGS are evaluated here, at generation): evolve-settings.cmake.in, each value
    # written as bracket arguments.
    set(label "${target}: ${kernel_name} sm_${architecture}")
    set(program_file "$<TARGET_FILE:${recorder_target}>")
    foreach(optional held_out sanitize_args)
        set(has_${optional} OFF)
        if(NOT "${${optional}}" STREQUAL "")
            set(has_${optional} ON)
        endif()
    endforeach()
    foreach(variable tool_file kernel label work architecture budget_seconds strict program_file record_options
            recorder_args held_out sanitize_args has_held_out has_sanitize_args registration compile_arguments
            evolve_options case_options write_options)
        _gi_bracket(bracketed_${variable} ${${variable}})
    endforeach()
    set(evolve_settings "${work}/evolve-settings.cmake")
    _gi_configure_template(settings_text evolve-settings.cmake)
    file(GENERATE OUTPUT "${evolve_settings}" CONTENT "${settings_text}")
    get_property(module_dir GLOBAL PROPERTY _GI_MODULE_DIR)
    # BYPRODUCTS: the log, which the step always writes, so ninja's clean and restat know it. Not the
    # files only one outcome writes (failure.txt, budget.cmake, the candidate): ninja runs a step
    # again on every build while one of its byproducts is missing.
    add_custom_command(
        OUTPUT "${evolved_stamp}"
        BYPRODUCTS "${work}/evolve.log"
        COMMAND "${CMAKE_COMMAND}" "-DGI_EVOLVE_SETTINGS=${evolve_settings}" -P "${module_dir}/GIOptimizeEvolve.cmake"
        COMMAND "${CMAKE_COMMAND}" -E touch "${evolved_stamp}"
        DEPENDS "${kernel}" "${recorder_target}" ${tool} ${worker} "${evolve_settings}"
                "${module_dir}/GIOptimizeEvolve.cmake"
        WORKING_DIRECTORY "${gen_dir}"
        COMMENT "gi-optimize: recording ${kernel_name} with ${recorder_target} and evolving it for sm_${architecture} (at most ${budget} min; log: ${work}/evolve.log)"
        USES_TERMINAL
        VERBATIM)

    _gi_acceptance_step(accepted_stamp "${target}" "${identifier}" "${architecture}" "${gen_dir}" "${tool}"
                        "${evolved_stamp}" "${compile_arguments}" "${recorded_name}")
    set(${out_stamp} "${accepted_stamp}" PARENT_SCOPE)
endfunction()
