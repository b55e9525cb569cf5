#pragma once
// Which GPUs of this host the cuda evaluator spreads a run over (`--gpus all|N|LIST`, issue 45):
// the option's text read once into a value, and resolved against the GPUs the driver sees once a
// worker has said how many (cuda/multi_gpu_evaluator.hpp). Pure functions; errors name the option.
#include <string>
#include <vector>

namespace gi {

struct GpuSelection {
    enum class Kind {
        All,    // "all": every GPU the driver sees
        Count,  // "N": the first N (ordinals 0..N-1)
        List,   // "0,2": these ordinals, in this order (the first runs the final checks)
    };
    Kind kind = Kind::Count;
    int count = 1;              // Kind::Count
    std::vector<int> ordinals;  // Kind::List
    std::string text;           // as given, for messages

    // Exactly one GPU, ordinal 0: the evaluator of a single GPU as before --gpus, workers untouched.
    bool just_the_default() const { return kind == Kind::Count && count == 1; }
    // The ordinal the first evaluator opens before the driver has been asked how many there are.
    int first() const { return kind == Kind::List ? ordinals.front() : 0; }
};

// "all", a count ("2") or two or more distinct ordinals separated by commas ("0,2"). Throws
// gi::UsageError naming `option` and the text otherwise.
GpuSelection parse_gpu_selection(const std::string& text, const std::string& option = "--gpus");

// The ordinals `selection` means on a machine whose driver sees `devices` GPUs (0: a worker that did
// not say, taken as one). Throws gi::UsageError naming `option` when it asks for more GPUs than
// there are, or for an ordinal the driver does not have.
std::vector<int> resolve_gpu_selection(const GpuSelection& selection, int devices, const std::string& option = "--gpus");

}  // namespace gi
