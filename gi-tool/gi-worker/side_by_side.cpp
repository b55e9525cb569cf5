#include "side_by_side.hpp"

#include <algorithm>
#include <chrono>

#include "cuda_driver.hpp"
#include "testcase/case_io.hpp"

namespace gi::worker {

SideBySideLanes::SideBySideLanes(const std::string& case_path)
    : case_path_(case_path), tc_(read_test_case(case_path, CaseLoad::Data)) {}

SideBySideLanes::~SideBySideLanes() {
    for (Lane& l : lanes_) {
        l.replay.reset();  // its buffers, before the stream they were used on
        if (l.stream) cuStreamDestroy(l.stream);
    }
}

SideBySideLanes::Lane& SideBySideLanes::lane(std::size_t i) {
    while (lanes_.size() <= i) {
        Lane l;
        check_cuda(cuStreamCreate(&l.stream, CU_STREAM_NON_BLOCKING), "creating a stream for a variant run side by side");
        try {
            l.replay = std::make_unique<Replay>(tc_, std::vector<Tolerance>{}, 0, l.stream);
        } catch (...) {
            cuStreamDestroy(l.stream);
            throw;
        }
        lanes_.push_back(std::move(l));
    }
    return lanes_[i];
}

std::size_t SideBySideLanes::lanes_within_budget(std::size_t wanted, std::size_t lane_bytes) {
    if (wanted <= 1) return 1;
    return std::min<std::size_t>(wanted, 1 + kLaneBudget / std::max<std::size_t>(1, lane_bytes));
}

std::size_t SideBySideLanes::lanes_for(std::size_t wanted) {
    return wanted <= 1 ? 1 : lanes_within_budget(wanted, lane(0).replay->device_bytes());
}

CUresult SideBySideLanes::run(const std::vector<OnceVariant>& variants, std::size_t from, std::size_t to,
                              const std::string& kernel_name, ListedRunTimes& times) {
    using Clock = std::chrono::steady_clock;
    std::vector<LoadedVariant> loaded;
    // Modules of a run that did not finish stay loaded: the worker ends after it, as after a
    // failed launch one at a time.
    auto start = Clock::now();
    for (std::size_t k = from; k < to; ++k) {
        loaded.push_back(load_listed_variant(variants[k], kernel_name, tc_));
        // Loaded now, not at its first launch: under lazy loading (the driver's default) that
        // launch waits for the kernels already running, which put the variants back one after
        // another (racecheck, 9 stereo modules: 19.3 s of launches lazily, 2.4 s loaded first;
        // bench/racecheck-concurrency.sh section 5, H200).
#if CUDA_VERSION >= 12040  // cuFuncLoad's first toolkit; before it, lazily (correct, not side by side)
        check_cuda(cuFuncLoad(loaded.back().kernel), "loading the kernel's code");
#endif
    }
    // Every lane this run needs exists before the first launch: making one allocates and uploads
    // a copy of the case, which is no work to put between launches meant to overlap.
    if (!loaded.empty()) lane(loaded.size() - 1);
    times.load_ms += ms_since(start);
    start = Clock::now();
    CUresult result = CUDA_SUCCESS;
    for (std::size_t i = 0; i < loaded.size() && result == CUDA_SUCCESS; ++i)
        result = lane(i).replay->start_once(loaded[i].kernel, loaded[i].shape, loaded[i].places);
    // Every lane's work, also after a launch that did not start: the others may be running.
    const CUresult waited = cuCtxSynchronize();
    if (result == CUDA_SUCCESS) result = waited;
    times.launch_ms += ms_since(start);
    start = Clock::now();
    if (result == CUDA_SUCCESS)
        for (const LoadedVariant& l : loaded) check_cuda(cuModuleUnload(l.module), "unloading the compiled module");
    times.unload_ms += ms_since(start);
    return result;
}

SideBySideLanes::Outcome SideBySideLanes::run_all(const std::vector<OnceVariant>& variants, std::size_t at_once,
                                                  const std::string& kernel_name, ListedRunTimes& times) {
    at_once = std::max<std::size_t>(1, at_once);
    for (std::size_t from = 0; from < variants.size(); from += at_once) {
        const std::size_t to = std::min(variants.size(), from + at_once);
        if (const CUresult r = run(variants, from, to, kernel_name, times); r != CUDA_SUCCESS) return {r, from, to};
    }
    return {};
}

}  // namespace gi::worker
