#pragma once
// The cases a check-variants worker (a sanitizer gate session) keeps open. A recording of several
// launches is several gate cases, and the gate's prescreen runs each would-be parent on all of
// them: with one case open at a time, a session opened a case again at almost every check
// (wavefront's 5 gate cases: 237 opens, 26.7 s of a 110 s search's checks, H200), since with guard
// pages each case is two copies mapped page by page.
#include <cuda.h>

#include <cstddef>
#include <list>
#include <memory>
#include <string>

#include "replay.hpp"

namespace gi::worker {

struct CheckCase {
    std::string path;
    std::size_t guard_bytes = 0;
    bool pages = false;
    std::unique_ptr<Replay> checked;  // the run that counts
    std::unique_ptr<Replay> zoned;    // with pages: the same case with zones alone, run first; may be null
    std::size_t device_bytes() const;
    // "" when both copies' guard zones and the worker's own copies are as uploaded, else what changed.
    std::string damage();
};

class CheckCases {
public:
    // `max_cases` (worker::kCheckCasesKept) and `max_bytes` of the GPU's memory bound what is kept;
    // the case in use is kept whatever its size.
    CheckCases(CUstream stream, std::size_t max_cases, std::size_t max_bytes)
        : stream_(stream), max_cases_(max_cases), max_bytes_(max_bytes) {}

    // The case at `path` with those guards, kept open from an earlier request or opened now (then
    // `opened` is set). A kept case other than the last one used is checked first: a variant run
    // on another case may have written past its zones into this one's memory, and such a case is
    // opened again rather than blamed on the next variant. Throws what opening the case throws.
    CheckCase& use(const std::string& path, std::size_t guard_bytes, bool pages, bool& opened);

    // After a variant's write into the zones of `hit`: damage to the worker's own copies of every
    // case kept open, both copies of `hit` first ("" when none). Past the zones the write may have
    // reached any of them.
    std::string harm_after_stray_write(CheckCase& hit);

    std::size_t size() const { return open_.size(); }

private:
    CheckCase open(const std::string& path, std::size_t guard_bytes, bool pages);
    void trim();  // drops the least recently used beyond the bounds, never the one in use

    CUstream stream_;
    std::size_t max_cases_, max_bytes_;
    std::list<CheckCase> open_;  // the most recently used first
};

}  // namespace gi::worker
