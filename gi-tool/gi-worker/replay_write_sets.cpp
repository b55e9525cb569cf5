// The write sets of a case (compare/write_set.hpp): which elements of each writable buffer the
// original writes, learnt by running it on the buffer filled with two poison patterns and verified
// by one run on every buffer's poisoned image, and the poison images variants then meet.
#include <algorithm>

#include "buffer_label.hpp"
#include "cuda_driver.hpp"
#include "replay.hpp"

namespace gi::worker {

Bytes Replay::poison_image(std::size_t b, const WriteSet& set) const {
    Bytes image = pristine_host_[b];
    apply_poison(image.data(), set, tc_.buffers[b].element);
    return image;
}

void Replay::set_write_sets(std::vector<WriteSet> sets) {
    sets.resize(tc_.buffers.size());
    write_sets_ = std::move(sets);
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        const CaseBuffer& buffer = tc_.buffers[b];
        WriteSet& set = write_sets_[b];
        if (!can_poison(b)) set.poisoned.clear();
        restore_each_[b] = !buffer.read_only && restores_each_launch(set, buffer.changed);
        if (!poisoned(b)) continue;
        poison_host_[b] = poison_image(b, set);
        check_cuda(cuMemcpyHtoD(poison_[b], poison_host_[b].data(), buffer.size), "copying a poison image");
        if (golden_poison_[b])
            check_cuda(cuMemcpyHtoD(golden_poison_[b], poison_host_[b].data(), buffer.size), "copying a poison image");
    }
}

std::optional<RunReport> Replay::probe_write_sets(CUfunction kernel, const RunRequest& request, std::vector<WriteSet>& sets,
                                                  std::string& detail) {
    const std::size_t buffers = tc_.buffers.size();
    auto run_original = [&](const std::string& what) -> std::optional<RunReport> {
        if (CUresult r = launch_with(kernel, request.shape, 0, request.variables); r != CUDA_SUCCESS)
            return fault(r, "launching the original " + what);
        if (CUresult r = cuStreamSynchronize(stream_); r != CUDA_SUCCESS) return fault(r, "running the original " + what);
        return std::nullopt;
    };
    Bytes image, scratch;
    // Whether copy 0's buffer `b` differs from the reference.
    auto differs = [&](std::size_t b) {
        scratch.resize(tc_.buffers[b].size);
        download(0, b, scratch.data());
        return scratch != reference_[b];
    };
    for (std::size_t b = 0; b < buffers; ++b) {
        const CaseBuffer& buffer = tc_.buffers[b];
        if (!can_poison(b) || buffer.size == 0 || (!request.probe_unchanged && !buffer.changed)) continue;
        bool others_changed = false;
        Bytes from[2];
        for (const Poison which : {Poison::First, Poison::Second}) {
            restore(0, false);
            image.resize(buffer.size);
            fill_poison(image.data(), buffer.size, buffer.element, which);
            check_cuda(cuMemcpyHtoDAsync(copies_[0][b], image.data(), buffer.size, stream_), "poisoning a case buffer");
            if (auto failed = run_original("on " + buffer_label(tc_, b) + " filled with poison")) return failed;
            Bytes& own = from[which == Poison::First ? 0 : 1];
            own.resize(buffer.size);
            download(0, b, own.data());
            for (std::size_t o = 0; o < buffers && !others_changed; ++o)
                others_changed = o != b && !tc_.buffers[o].read_only && differs(o);
        }
        sets[b] = learn_write_set(buffer.element, buffer.size, reference_[b].data(), from[0].data(), from[1].data(), others_changed);
    }
    // Each buffer was probed with the others as recorded; variants meet them all poisoned at once.
    // That must give the reference still, or the poisoning would fail a correct variant.
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (std::none_of(sets.begin(), sets.end(), [](const WriteSet& s) { return !s.poisoned.empty(); })) break;
        restore(0, false);
        for (std::size_t b = 0; b < buffers; ++b) {
            if (sets[b].poisoned.empty()) continue;
            image = poison_image(b, sets[b]);
            check_cuda(cuMemcpyHtoDAsync(copies_[0][b], image.data(), tc_.buffers[b].size, stream_), "poisoning a case buffer");
        }
        if (auto failed = run_original("on every buffer's poisoned image")) return failed;
        std::vector<bool> outputs_differ(buffers, false);
        std::string which;
        for (std::size_t b = 0; b < buffers; ++b)
            if (!tc_.buffers[b].read_only && differs(b)) {
                outputs_differ[b] = true;
                which += (which.empty() ? "" : ", ") + buffer_label(tc_, b);
            }
        if (which.empty()) break;
        give_up_unverified(sets, outputs_differ, attempt == 1);
        detail += (detail.empty() ? "" : "; ") + std::string("the original from every buffer's poisoned image changed ") + which +
                  ": their poisoning is given up";
    }
    return std::nullopt;
}

bool Replay::can_poison(std::size_t b) const {
    // Poison in place of an array of pointers would only make the variant fault.
    return !tc_.buffers[b].read_only && tc_.buffers[b].pointers.empty();
}

}  // namespace gi::worker
