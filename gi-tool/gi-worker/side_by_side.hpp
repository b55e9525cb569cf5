#pragma once
// Listed variants run at once, for check-variants' side_by_side (case_messages.hpp). Under
// racecheck a launch of a few blocks takes most of a second and leaves the GPU nearly idle, and
// the launches of one process on different streams run together where those of several processes
// take turns (issue 19, bench/results/2026-11-27-h200-racecheck-side-by-side.md). Each variant
// gets a lane: a stream and a replay of the case of its own, so no variant reads what another
// wrote.
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "listed_variants.hpp"
#include "replay.hpp"

namespace gi::worker {

class SideBySideLanes {
public:
    // Lanes for the case at `case_path`, read here (a Replay keeps no host copy of the case's
    // inputs: it moves them into its own) and copied into each lane as a request needs it.
    explicit SideBySideLanes(const std::string& case_path);
    ~SideBySideLanes();
    SideBySideLanes(const SideBySideLanes&) = delete;
    SideBySideLanes& operator=(const SideBySideLanes&) = delete;

    const std::string& case_path() const { return case_path_; }

    // How many of `wanted` variants may run at once when a lane takes `lane_bytes` of GPU memory:
    // every lane holds the case several times over (pristine, poison images, working copies), so
    // the lanes beyond the first share kLaneBudget. A case too large for a second lane gets 1.
    static std::size_t lanes_within_budget(std::size_t wanted, std::size_t lane_bytes);
    // The same with this case's lanes (the first is made to measure one).
    std::size_t lanes_for(std::size_t wanted);

    // Runs variants [from, to) at once (to - from <= lanes_for()), each once on its freshly
    // restored case, and waits for all of them. Their modules are unloaded when every launch
    // succeeded. Returns the first failure (a launch that did not start, or the wait's error)
    // or CUDA_SUCCESS. Throws gi::Error for a module that cannot be read or has no such kernel.
    CUresult run(const std::vector<OnceVariant>& variants, std::size_t from, std::size_t to, const std::string& kernel_name,
                 ListedRunTimes& times);

    // All of `variants`, `at_once` at a time (at most lanes_for()), until a run fails: that run's
    // result and its variants [from, to), or CUDA_SUCCESS.
    struct Outcome {
        CUresult result = CUDA_SUCCESS;
        std::size_t from = 0, to = 0;
    };
    Outcome run_all(const std::vector<OnceVariant>& variants, std::size_t at_once, const std::string& kernel_name,
                    ListedRunTimes& times);

    static constexpr std::uint64_t kLaneBudget = 1ull << 30;

private:
    struct Lane {
        CUstream stream = nullptr;
        std::unique_ptr<Replay> replay;
    };
    Lane& lane(std::size_t i);

    std::string case_path_;
    TestCase tc_;
    std::vector<Lane> lanes_;
};

}  // namespace gi::worker
