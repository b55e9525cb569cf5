#include "check_cases.hpp"

#include <algorithm>
#include <vector>

#include "compare/tolerance.hpp"
#include "testcase/case_io.hpp"

namespace gi::worker {

std::size_t CheckCase::device_bytes() const {
    return (checked ? checked->device_bytes() : 0) + (zoned ? zoned->device_bytes() : 0);
}

std::string CheckCase::damage() {
    for (Replay* replay : {checked.get(), zoned.get()}) {
        if (!replay) continue;
        if (std::string zones = replay->guard_damage(); !zones.empty()) return zones;
        if (std::string own = replay->damage(false); !own.empty()) return own;
    }
    return "";
}

CheckCase CheckCases::open(const std::string& path, std::size_t guard_bytes, bool pages) {
    CheckCase c{path, guard_bytes, pages, nullptr, nullptr};
    TestCase tc = read_test_case(path, CaseLoad::Data);
    // With pages, a stray access faults, and a fault ends the worker: the session's next check
    // waits for a new one to start and open the case (dp_sweep's training cases: 43 faults cost
    // 11.4 s of start-up waits and 9.6 s of faulting launches in a 110 s search, H200). A write
    // just past the end, zones see without a fault; so with pages the case is opened a second time
    // with zones alone, and each variant runs there first: only one that passes the zones meets
    // the pages. Where the GPU's memory holds one copy and not two, the pages alone judge.
    TestCase zoned = pages ? tc : TestCase{};  // copied before the replay takes the case's inputs
    c.checked = std::make_unique<Replay>(std::move(tc), std::vector<Tolerance>{}, 0, stream_, nullptr, guard_bytes, pages);
    if (pages) {
        try {
            c.zoned = std::make_unique<Replay>(std::move(zoned), std::vector<Tolerance>{}, 0, stream_, nullptr, guard_bytes, false);
        } catch (const std::exception&) {
            c.zoned.reset();
        }
    }
    return c;
}

CheckCase& CheckCases::use(const std::string& path, std::size_t guard_bytes, bool pages, bool& opened) {
    opened = false;
    auto it = std::find_if(open_.begin(), open_.end(), [&](const CheckCase& c) {
        return c.path == path && c.guard_bytes == guard_bytes && c.pages == pages;
    });
    if (it != open_.end() && it != open_.begin() && !it->damage().empty()) {
        open_.erase(it);
        it = open_.end();
    }
    if (it != open_.end()) {
        open_.splice(open_.begin(), open_, it);
        return open_.front();
    }
    try {
        open_.push_front(open(path, guard_bytes, pages));
    } catch (const std::exception&) {
        // The others' memory may be what it needs: once more with this case alone.
        if (open_.empty()) throw;
        open_.clear();
        open_.push_front(open(path, guard_bytes, pages));
    }
    opened = true;
    trim();
    return open_.front();
}

std::string CheckCases::harm_after_stray_write(CheckCase& hit) {
    auto harm_to = [](CheckCase& c) -> std::string {
        for (Replay* replay : {c.checked.get(), c.zoned.get()})
            if (replay)
                if (std::string harm = replay->damage(true); !harm.empty()) return harm;
        return "";
    };
    if (std::string harm = harm_to(hit); !harm.empty()) return harm;
    for (CheckCase& c : open_)
        if (&c != &hit)
            if (std::string harm = harm_to(c); !harm.empty()) return "in case " + c.path + " (kept open beside), " + harm;
    return "";
}

void CheckCases::trim() {
    std::size_t bytes = 0;
    for (const CheckCase& c : open_) bytes += c.device_bytes();
    while (open_.size() > 1 && (open_.size() > max_cases_ || bytes > max_bytes_)) {
        bytes -= open_.back().device_bytes();
        open_.pop_back();
    }
}

}  // namespace gi::worker
