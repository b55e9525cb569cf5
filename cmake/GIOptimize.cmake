# GIOptimize.cmake: gi_optimize_cuda_kernel(), the one call a downstream project adds to have a CUDA
# kernel replaced, at build time, by the variant gi-optimize evolved for each GPU architecture.
#
# Included by gi-optimize's own CMakeLists.txt (add_subdirectory, FetchContent) and by
# GIOptimizeConfig.cmake (find_package). Public surface: gi_optimize_cuda_kernel() and the options
# below; everything named _gi_* is private. docs/cmake.md is the reference.
#
# How a build goes, per registered kernel, when GI_OPTIMIZE is ON:
#   configure  each architecture's cache entry is looked up and its key recomputed here (same text as
#              gi-tool's key_text), giving one line per architecture: cached variant, original kernel
#              (with the reason) or, with a GPU of that architecture, evolution during the build.
#   build      gi-apply (`gi-tool cache apply` built alone) checks every entry fully (checksum, key,
#              genome valid for the kernel's grammar), rebuilds each variant from the genome and the ORIGINAL kernel, and
#              writes a wrapper .cu that the target compiles instead of the kernel: it includes one
#              variant per nvcc pass (__CUDA_ARCH__), the original for architectures without one.
#              A header tells host code which variant runs and its parameter values.
# The configure-time verdict only decides notices, GI_REQUIRE_CACHE errors and whether evolution runs;
# the build-time check is the one that decides which code is compiled, so an entry that is corrupt or
# edited by hand after configuring is still refused.

cmake_minimum_required(VERSION 3.25)
include_guard(GLOBAL)
# The module's own policies, whatever the including project's cmake_minimum_required says (3.20 up
# to CMake 4.x): include() gives this file a policy scope of its own, and functions run with the
# policies in force where they were defined. Set only where this CMake knows them. CMP0174: an
# empty string after a one-value keyword sets it to "" (the module's calls never pass one, but a
# user's `KERNEL "${UNSET}"` then reads as an empty value, refused by name, not as a missing keyword).
foreach(_gi_policy CMP0174)
    if(POLICY ${_gi_policy})
        cmake_policy(SET ${_gi_policy} NEW)
    endif()
endforeach()

# The build steps' scripts and the templates live beside this file (installed with it). A global
# property: the including project's directories do not see this file's variables when it comes by
# add_subdirectory.
set_property(GLOBAL PROPERTY _GI_MODULE_DIR "${CMAKE_CURRENT_LIST_DIR}")
# A kernel defined in a header: which sources include it (also the build step that copies them).
include("${CMAKE_CURRENT_LIST_DIR}/GIOptimizeIncluder.cmake")

option(GI_OPTIMIZE "Compile the kernels registered with gi_optimize_cuda_kernel() as their cached (or, with a GPU, freshly evolved) variants. OFF builds every target exactly as if the calls were not there." OFF)
option(GI_REQUIRE_CACHE "Make a missing or stale cache entry an error instead of a notice (for CI: the committed cache must be complete and current)." OFF)
option(GI_STRICT "Make a failure of gi-optimize's own build steps (recording, evolution, cache write, acceptance) a build error, for CI. OFF: the build goes on with the original kernel and prints one line saying why and where the log is." OFF)
option(GI_OPTIMIZE_VERBOSE "Print every decision gi_optimize_cuda_kernel() takes (the same as --log-level=DEBUG for its messages)." OFF)
set(GI_GPU_ARCHITECTURE "" CACHE STRING
    "Architecture of the GPU evolution may run on, e.g. 90. Empty: ask nvidia-smi at configure time. 'none': never evolve, only use the cache.")
set(GI_GPUS "all" CACHE STRING
    "The GPUs of this machine evolution spreads its evaluations over (gi-tool evolve --gpus): all, the first N, or ordinals separated by commas (0,2). Only read where a GPU evolves; a machine without one uses the cache.")
set(GI_WORKER_LAUNCHER "" CACHE STRING
    "A command prefix evolution starts every gi-worker through (gi-tool evolve --worker-launcher), e.g. \"srun --gres=gpu:1 -N1 -n1 --quiet\": variants run on other machines, such as a cluster's GPU nodes (docs/cluster.md); GI_GPUS is not read then. Empty: on this machine.")
set(GI_COMPILE_LAUNCHER "" CACHE STRING
    "A command prefix evolution starts NVRTC's compile processes through (gi-tool evolve --compile-launcher), e.g. \"srun -N1 -n1 --cpus-per-task=1 --quiet\": variants compile on other machines when this one's CPUs are the limit (docs/cluster.md). Empty: on this machine.")
set(GI_OPTIMIZE_TOOL "" CACHE FILEPATH
    "A gi-tool executable to use instead of the GIOptimize::gi-tool target (e.g. a prebuilt one, so gi-tool is not built again).")

# The module by concern, each file in GIOptimize/ (functions only; nothing runs when they are
# included). Generated scripts are the templates GIOptimize/*.in; the build steps' own scripts are
# GIOptimizeEvolve.cmake, GIOptimizeAccept.cmake, GIOptimizeApplied.cmake and GIOptimizeIncluder.cmake.
foreach(_gi_part
        common        # messages, GI_STRICT, shared text forms, templates
        arguments     # checks and parsers of single arguments
        register      # gi_optimize_cuda_kernel() itself
        cache         # the cache key, an entry's state, the entries' folder
        gpu           # this machine's GPU
        tool          # which gi-tool or gi-apply the build steps run
        sources       # how the target compiles its kernel
        registrations # a target's registrations as gi-tool options
        recorder      # the recorder program and the twins built from the target
        wrappers      # generated files compiled in place of the kernel or its includers
        plan          # each architecture's decision: cached, original, or evolve
        evolve_step   # the build step that evolves on this machine's GPU
        accept_step   # the build step that runs the program with the candidate before caching it
        ptx_edits     # cached variants with PTX edits: the wrapper compiled through gi-tool's launcher
        finalize)     # the deferred step: the target compiles the generated files
    include("${CMAKE_CURRENT_LIST_DIR}/GIOptimize/${_gi_part}.cmake")
endforeach()
