# GIOptimize/registrations.cmake: a target's registrations as gi-tool reads them: one as options
# (what the key covers), those of one kernel file together (one wrapper puts their variants
# together), and the names of an evolution's folder and acceptance program. Part of
# GIOptimize.cmake, which includes it.

# _gi_registration_fields(<target> <identifier> <field>...): sets each <field> (kernel, functions,
# params, ..., as gi_optimize_cuda_kernel() kept them on the target) in the caller, "" where unset.
function(_gi_registration_fields target identifier)
    foreach(name IN LISTS ARGN)
        get_target_property(value "${target}" _GI_${identifier}_${name})
        if(value MATCHES "-NOTFOUND$")
            set(value "")
        endif()
        set(${name} "${value}" PARENT_SCOPE)
    endforeach()
endfunction()

# _gi_registration_arguments(<out-var> <target> <identifier>): the gi-tool options describing the
# registration (what the cache key covers), in the order gi-tool hashes them.
function(_gi_registration_arguments out_var target identifier)
    set(prefix "_GI_${identifier}")
    get_target_property(functions "${target}" ${prefix}_functions)
    get_target_property(params "${target}" ${prefix}_params)
    get_target_property(flags "${target}" ${prefix}_flags)
    get_target_property(block_size "${target}" ${prefix}_block_size)
    get_target_property(grid "${target}" ${prefix}_grid)
    get_target_property(tolerance "${target}" ${prefix}_tolerance)
    set(arguments "")
    foreach(function IN LISTS functions)
        list(APPEND arguments --function "${function}")
    endforeach()
    foreach(param IN LISTS params)
        list(APPEND arguments --param "${param}")
    endforeach()
    foreach(flag IN LISTS flags)
        list(APPEND arguments --flag "${flag}")
    endforeach()
    if(block_size)
        string(JOIN "," block_size ${block_size})
        list(APPEND arguments --block-size "${block_size}")
    endif()
    if(grid)
        string(JOIN "," grid ${grid})
        list(APPEND arguments --grid "${grid}")
    endif()
    foreach(item IN LISTS tolerance)
        list(APPEND arguments --tolerance "${item}")
    endforeach()
    set(${out_var} "${arguments}" PARENT_SCOPE)
endfunction()

# _gi_file_registrations(<out-var> <target> <kernel>): the registrations of <target> whose KERNEL
# is <kernel>, in the order of the calls (the order their variants are put together in).
function(_gi_file_registrations out_var target kernel)
    get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
    set(result "")
    foreach(identifier IN LISTS registered)
        get_target_property(other_kernel "${target}" _GI_${identifier}_kernel)
        if(other_kernel STREQUAL kernel)
            list(APPEND result "${identifier}")
        endif()
    endforeach()
    set(${out_var} "${result}" PARENT_SCOPE)
endfunction()

# _gi_file_identifier(<out-var> <target> <kernel>): how the generated files of <kernel> are named:
# its registration's identifier, or all of them joined by '+' (gi-tool cache apply does the same).
function(_gi_file_identifier out_var target kernel)
    _gi_file_registrations(file_registrations "${target}" "${kernel}")
    list(JOIN file_registrations "+" joined)
    set(${out_var} "${joined}" PARENT_SCOPE)
endfunction()

# _gi_apply_registrations(<out-args> <out-headers> <out-depends> <target> <kernel> <architecture>
#                         <header-dir> [<identifier> <cache-dir>]):
# the registration part of a `gi-tool cache apply` command for every registered kernel of
# <kernel>, joined by --and in the order of the calls, each with its cache folder (for
# <identifier>, <cache-dir> instead: a candidate) and its header in <header-dir>. <out-depends>:
# the other registrations' entries for <architecture> that exist now and the stamps of their
# acceptance steps in this build, which must come first (their entries are read); none for an empty
# <architecture> (the target's own apply step, which depends on every entry and stamp itself).
function(_gi_apply_registrations out_args out_headers out_depends target kernel architecture header_dir)
    set(replaced "")
    set(replacement "")
    if(ARGC GREATER 8)
        set(replaced "${ARGV7}")
        set(replacement "${ARGV8}")
    endif()
    _gi_file_registrations(file_registrations "${target}" "${kernel}")
    set(arguments "")
    set(headers "")
    set(depends "")
    foreach(identifier IN LISTS file_registrations)
        if(NOT arguments STREQUAL "")
            list(APPEND arguments --and)
        endif()
        _gi_registration_arguments(registration "${target}" "${identifier}")
        get_target_property(cache_dir "${target}" _GI_${identifier}_cache_dir)
        if(identifier STREQUAL replaced)
            set(cache_dir "${replacement}")
        elseif(NOT architecture STREQUAL "")
            get_target_property(functions "${target}" _GI_${identifier}_functions)
            _gi_name_for_files(entry_name "+" ${functions})
            if(EXISTS "${cache_dir}/${entry_name}.sm_${architecture}.xml")
                list(APPEND depends "${cache_dir}/${entry_name}.sm_${architecture}.xml")
            endif()
            get_property(stamp TARGET "${target}" PROPERTY _GI_${identifier}_accepted_sm${architecture})
            if(stamp)
                list(APPEND depends "${stamp}")
            endif()
        endif()
        list(APPEND arguments ${registration} --cache-dir "${cache_dir}" --header "${header_dir}/${identifier}.gi.h")
        list(APPEND headers "${header_dir}/${identifier}.gi.h")
    endforeach()
    set(${out_args} "${arguments}" PARENT_SCOPE)
    set(${out_headers} "${headers}" PARENT_SCOPE)
    set(${out_depends} "${depends}" PARENT_SCOPE)
endfunction()

# _gi_work_names(<work-var> <accept-var> <target> <identifier> <recorder> <gen-dir> <architecture>):
# the folder an evolution works in and the name of its acceptance program. A target with one
# registration keeps the short names (evolve.sm_90, <recorder>_gi_accept_sm90); with several, each
# registration's are its own.
function(_gi_work_names work_var accept_var target identifier recorder gen_dir architecture)
    get_property(registered TARGET "${target}" PROPERTY _GI_REGISTRATIONS)
    list(LENGTH registered count)
    if(count GREATER 1)
        set(${work_var} "${gen_dir}/evolve.${identifier}.sm_${architecture}" PARENT_SCOPE)
        set(${accept_var} "${recorder}_gi_accept_${identifier}_sm${architecture}" PARENT_SCOPE)
    else()
        set(${work_var} "${gen_dir}/evolve.sm_${architecture}" PARENT_SCOPE)
        set(${accept_var} "${recorder}_gi_accept_sm${architecture}" PARENT_SCOPE)
    endif()
endfunction()
