#pragma once
// Variants given as compiled modules in a list (gi-worker --once --variants, and the sanitizer
// sessions' check-variants requests), and where a loaded module keeps a case's module variables.
#include <cuda.h>

#include <string>
#include <vector>

#include "replay.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {

// One variant of a --once run: its module file and launch shape fields (grid, block, shared).
struct OnceVariant {
    std::string cubin_path;
    Message shape;
    std::string kernel;  // its own kernel name, when not --kernel's (a variant's template instantiation)
};

// --variants FILE: one variant per line, "CUBIN<TAB>GRID<TAB>BLOCK<TAB>SHARED[<TAB>KERNEL]" (empty
// fields take the case's recorded values). Throws gi::Error naming the file and line.
std::vector<OnceVariant> read_variant_list(const std::string& path);

// A listed variant's launch: its grid, block and shared fields over the case's recorded ones.
LaunchShape shape_from(const Message& m, const TestCase& tc);

// Where `module` keeps the case's module variables (replay.hpp). With `guarded_image`, the module
// is a paired build and the places are those of its guarded half's copies. Throws gi::Error naming
// a variable the plain half has and the guarded half lacks.
VariablePlaces variable_places(CUmodule module, const TestCase& tc, const std::string* guarded_image = nullptr);

// A listed variant ready to launch: its module loaded, its kernel found, its launch shape, and where
// the module keeps the case's module variables. Throws gi::Error (with `label` in front) for a
// module that cannot be read, CudaError for one the driver refuses.
struct LoadedVariant {
    CUmodule module = nullptr;
    CUfunction kernel = nullptr;
    LaunchShape shape;
    VariablePlaces places;
};
LoadedVariant load_listed_variant(const OnceVariant& variant, const std::string& kernel_name, const TestCase& tc,
                                  const std::string& label = "");

// One listed variant run once on the case: its module loaded, the kernel launched on the restored
// case and the module unloaded after a launch that succeeded. Throws gi::Error (with `label` in
// front) for a module that cannot be read; returns the launch's result.
// `times`, when given, gets the module load, launch and unload times added (ms).
struct ListedRunTimes {
    double load_ms = 0, launch_ms = 0, unload_ms = 0;
};
CUresult run_listed_variant(Replay& replay, const OnceVariant& variant, const std::string& kernel_name, const std::string& label,
                            ListedRunTimes* times = nullptr);

}  // namespace gi::worker
