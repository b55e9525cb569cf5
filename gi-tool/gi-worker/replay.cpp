#include "replay.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "buffer_label.hpp"
#include "cuda_driver.hpp"
#include "variant/barrier_guard.hpp"
#include "variant/shared_guard.hpp"

namespace gi::worker {
namespace {
constexpr int kMaxCopies = 8;
}  // namespace

Replay::Replay(TestCase tc, std::vector<Tolerance> tolerances, std::size_t l2_bytes, CUstream stream,
               DeviceCompare* device_compare, std::size_t guard_bytes, bool guard_pages)
    : tc_(std::move(tc)), tolerances_(std::move(tolerances)), stream_(stream), guard_(guard_bytes), device_compare_(device_compare) {
    if (guard_pages && guard_bytes > 0 && GuardPagedMemory::supported()) paged_ = std::make_unique<GuardPagedMemory>();
    tolerances_.resize(tc_.buffers.size());
    std::size_t case_bytes = 0;
    for (const auto& b : tc_.buffers) case_bytes += b.size;
    // Enough copies that one repetition's inputs have left the L2 cache before they are used again.
    // A replay for single launches (l2_bytes 0: the gate's checks) runs on copy 0 alone; a second
    // copy doubled what a guard-zones session maps, buffer by buffer, at every case it opens.
    int wanted = case_bytes == 0 ? 1 : static_cast<int>(std::min<std::size_t>(kMaxCopies, (2 * l2_bytes) / case_bytes + 1));
    if (l2_bytes > 0) wanted = std::max(wanted, 2);
    try {
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
            const CaseBuffer& buffer = tc_.buffers[b];
            CUdeviceptr p = 0;
            check_cuda(cuMemAlloc(&p, std::max<std::size_t>(buffer.size, 1)), "allocating a case buffer");
            pristine_.push_back(p);
            check_cuda(cuMemcpyHtoD(p, buffer.before.data(), buffer.size), "copying a case buffer to the GPU");
            CUdeviceptr poison = 0;
            Bytes pattern;
            if (!buffer.read_only) {
                pattern.resize(buffer.size);
                fill_poison(pattern.data(), pattern.size(), buffer.element);
                check_cuda(cuMemAlloc(&poison, std::max<std::size_t>(buffer.size, 1)), "allocating a poison image");
                check_cuda(cuMemcpyHtoD(poison, pattern.data(), buffer.size), "copying a poison image");
            }
            poison_.push_back(poison);
            poison_host_.push_back(std::move(pattern));
        }
        for (int c = 0; c < wanted; ++c) {
            std::vector<CUdeviceptr> copy;
            bool ok = true;
            for (const auto& buffer : tc_.buffers) {
                const CUdeviceptr p = allocate_working(buffer.size);
                if (!p) {
                    ok = false;
                    break;
                }
                copy.push_back(p);
            }
            if (!ok) {
                for (CUdeviceptr p : copy) free_working(p);
                if (c == 0) throw Error("not enough GPU memory for one working copy of case " + tc_.path);
                break;  // fewer copies: less rotation, still correct
            }
            for (std::size_t b = 0; b < copy.size(); ++b)
                check_cuda(cuMemcpyDtoD(copy[b], pristine_[b], tc_.buffers[b].size), "copying a case buffer");
            copies_.push_back(std::move(copy));
        }
    } catch (...) {
        for (CUdeviceptr p : pristine_) cuMemFree(p);
        for (CUdeviceptr p : poison_) if (p) cuMemFree(p);
        for (auto& copy : copies_) for (CUdeviceptr p : copy) free_working(p);
        throw;
    }
    write_sets_.assign(tc_.buffers.size(), WriteSet{});
    // Until the original's first run says otherwise: buffers the recorded launch changed.
    for (const CaseBuffer& buffer : tc_.buffers) restore_each_.push_back(!buffer.read_only && buffer.changed);
    // The host copies of the inputs move to damage()'s expectations; the recorded outputs (the
    // oracle) stay in the case.
    for (auto& b : tc_.buffers) {
        pristine_host_.push_back(std::move(b.before));
        Bytes().swap(b.before);
    }
    // Reading everything back after every variant costs ~1 ms per 20 MB (a volume case with two
    // working copies: >100 MB, several times the run itself). Small buffers, which the driver
    // sub-allocates side by side, are where a short stray write lands, so they are always checked;
    // above the limit large ones are checked after a variant that failed. A writer whose own
    // outputs are right then goes unseen until the next failure finds the damage (and that
    // variant is reported as corrupting, the worker replaced); it never becomes a parent or a
    // cache entry anyway, since compute-sanitizer's memcheck gates both.
    std::size_t to_check = 0;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        const std::size_t size = tc_.buffers[b].size;
        to_check += size + (poison_[b] ? size : 0) + (tc_.buffers[b].read_only ? size * copies_.size() : 0);
    }
    check_large_ = to_check <= kFullCheckBytes;
    relocate_copies();
    keep_golden_copies();
}

CUdeviceptr Replay::device_copy_or_none(CUdeviceptr source, std::size_t bytes) {
    CUdeviceptr p = 0;
    if (bytes == 0 || cuMemAlloc(&p, bytes) != CUDA_SUCCESS) return 0;
    if (cuMemcpyDtoD(p, source, bytes) != CUDA_SUCCESS) {
        cuMemFree(p);
        return 0;
    }
    return p;
}

void Replay::keep_golden_copies() {
    golden_.assign(tc_.buffers.size(), 0);
    golden_poison_.assign(tc_.buffers.size(), 0);
    if (!device_compare_) return;
    // Copied from the buffers just uploaded, before any variant ran; damage() has the host bytes
    // for whatever has no golden copy.
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        golden_[b] = device_copy_or_none(pristine_[b], tc_.buffers[b].size);
        if (poison_[b]) golden_poison_[b] = device_copy_or_none(poison_[b], tc_.buffers[b].size);
    }
}

void Replay::relocate_copies() {
    relocated_host_.assign(copies_.size(), std::vector<Bytes>(tc_.buffers.size()));
    relocated_.assign(copies_.size(), std::vector<CUdeviceptr>(tc_.buffers.size(), 0));
    relocated_args_.assign(copies_.size(), std::vector<Bytes>(tc_.args.size()));
    auto relocate = [&](Bytes bytes, const std::vector<EmbeddedPointer>& pointers, std::size_t copy) {
        for (const EmbeddedPointer& p : pointers) {
            const std::uint64_t address = copies_[copy][static_cast<std::size_t>(p.buffer)] + p.offset;
            std::memcpy(bytes.data() + p.at, &address, sizeof address);
        }
        return bytes;
    };
    for (std::size_t c = 0; c < copies_.size(); ++c) {
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
            const CaseBuffer& buffer = tc_.buffers[b];
            if (buffer.pointers.empty()) continue;
            relocated_host_[c][b] = relocate(pristine_host_[b], buffer.pointers, c);
            check_cuda(cuMemcpyHtoD(copies_[c][b], relocated_host_[c][b].data(), buffer.size), "copying a relocated buffer to the GPU");
            if (buffer.read_only) continue;
            check_cuda(cuMemAlloc(&relocated_[c][b], std::max<std::size_t>(buffer.size, 1)), "allocating a relocated image");
            check_cuda(cuMemcpyHtoD(relocated_[c][b], relocated_host_[c][b].data(), buffer.size), "copying a relocated image");
        }
        for (std::size_t a = 0; a < tc_.args.size(); ++a)
            if (!tc_.args[a].pointers.empty()) relocated_args_[c][a] = relocate(tc_.args[a].value, tc_.args[a].pointers, c);
    }
}

CUdeviceptr Replay::restore_source(int copy, std::size_t b) const {
    const CUdeviceptr relocated = relocated_[static_cast<std::size_t>(copy)][b];
    return relocated ? relocated : pristine_[b];
}

Replay::~Replay() {
    free_reference_on_device();
    for (CUdeviceptr p : golden_) if (p) cuMemFree(p);
    for (CUdeviceptr p : golden_poison_) if (p) cuMemFree(p);
    for (auto& images : relocated_) for (CUdeviceptr p : images) if (p) cuMemFree(p);
    if (clock_) cuMemFree(clock_);
    for (CUdeviceptr p : pristine_) cuMemFree(p);
    for (CUdeviceptr p : poison_) if (p) cuMemFree(p);
    for (auto& copy : copies_) for (CUdeviceptr p : copy) free_working(p);
}

CUdeviceptr Replay::allocate_working(std::size_t bytes) {
    bytes = std::max<std::size_t>(bytes, 1);
    if (paged_) {
        // The zone before the buffer as usual; after it, the unmapped page.
        const CUdeviceptr p = paged_->allocate(bytes, guard_);
        if (p && cuMemsetD8(p - guard_, kGuardByte, guard_) != CUDA_SUCCESS) {
            paged_->free(p);
            return 0;
        }
        return p;
    }
    CUdeviceptr base = 0;
    if (cuMemAlloc(&base, bytes + 2 * guard_) != CUDA_SUCCESS) return 0;
    if (guard_ > 0 && (cuMemsetD8(base, kGuardByte, guard_) != CUDA_SUCCESS ||
                       cuMemsetD8(base + guard_ + bytes, kGuardByte, guard_) != CUDA_SUCCESS)) {
        cuMemFree(base);
        return 0;
    }
    return base + guard_;
}

void Replay::free_working(CUdeviceptr p) {
    if (paged_) return paged_->free(p);
    cuMemFree(p - guard_);
}

std::string Replay::guard_damage() {
    if (guard_ == 0 || copies_.empty()) return "";
    check_cuda(cuStreamSynchronize(stream_), "waiting for the launch before reading the guard zones");
    Bytes zone(guard_);
    std::string found;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        const std::size_t size = std::max<std::size_t>(tc_.buffers[b].size, 1);
        for (const bool after : {false, true}) {
            if (after && paged_) continue;  // unmapped: a write there faulted the launch instead
            const CUdeviceptr at = after ? copies_[0][b] + size : copies_[0][b] - guard_;
            check_cuda(cuMemcpyDtoH(zone.data(), at, guard_), "reading a guard zone back");
            std::size_t changed = 0, nearest = guard_ + 1, farthest = 0;
            for (std::size_t i = 0; i < guard_; ++i) {
                if (zone[i] == kGuardByte) continue;
                ++changed;
                // Bytes from the buffer: 1 is the byte right after its end, or right before its start.
                const std::size_t distance = after ? i + 1 : guard_ - i;
                nearest = std::min(nearest, distance);
                farthest = std::max(farthest, distance);
            }
            if (changed == 0) continue;
            // Refilled, so the zone judges the next variant on its own writes.
            check_cuda(cuMemsetD8(at, kGuardByte, guard_), "refilling a guard zone");
            found += (found.empty() ? "" : "; ") + buffer_label(tc_, b) + ": " + std::to_string(changed) + " of the " +
                     std::to_string(guard_) + " bytes " + (after ? "after its end" : "before its start") +
                     " changed (from " + std::to_string(nearest) + " to " + std::to_string(farthest) + " bytes " +
                     (after ? "past the end" : "before the start") + ")";
        }
    }
    return found;
}

std::size_t Replay::device_bytes() const {
    std::size_t total = 0;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
        total += tc_.buffers[b].size * (1 + copies_.size() + (poison_[b] ? 1 : 0));
    return total;
}

std::vector<std::uint64_t> Replay::writable_sizes() const {
    std::vector<std::uint64_t> sizes;
    for (const auto& b : tc_.buffers) sizes.push_back(b.read_only ? 0 : b.size);
    return sizes;
}

void Replay::adopt_reference(std::vector<Bytes> outputs, const std::string& poisonable) {
    const std::vector<std::uint64_t> sizes = writable_sizes();
    if (outputs.size() != sizes.size()) throw Error("the handed-over reference has the wrong number of buffers for case " + tc_.path);
    for (std::size_t b = 0; b < sizes.size(); ++b)
        if (outputs[b].size() != sizes[b]) throw Error("the handed-over reference has a buffer of the wrong size for case " + tc_.path);
    // As the worker that ran the original learnt them (the hand-over carries them).
    std::vector<WriteSet> sets = write_sets_from_text(poisonable, tc_.buffers);
    reference_ = std::move(outputs);
    set_write_sets(std::move(sets));
    has_reference_ = true;
    keep_reference_on_device();
}

void Replay::keep_reference_on_device() {
    free_reference_on_device();
    identical_.assign(tc_.buffers.size(), BufferComparison{});
    reference_device_.assign(tc_.buffers.size(), 0);
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        const CaseBuffer& buffer = tc_.buffers[b];
        if (buffer.read_only) continue;
        identical_[b] = compare_buffer(buffer.element, reference_[b].data(), reference_[b].data(), buffer.size, tolerances_[b],
                                       poisoned(b));
        if (!device_compare_ || !buffer.pointers.empty() || buffer.size == 0) continue;
        // Out of memory is no error: that buffer is compared on the host.
        CUdeviceptr p = 0;
        if (cuMemAlloc(&p, buffer.size) != CUDA_SUCCESS) continue;
        if (cuMemcpyHtoD(p, reference_[b].data(), buffer.size) != CUDA_SUCCESS) {
            cuMemFree(p);
            continue;
        }
        reference_device_[b] = p;
    }
}

void Replay::free_reference_on_device() {
    for (CUdeviceptr& p : reference_device_)
        if (p) {
            cuMemFree(p);
            p = 0;
        }
}

void Replay::restore(int copy, bool poison_outputs) {
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        if (tc_.buffers[b].read_only) continue;
        const CUdeviceptr source = poison_outputs && poisoned(b) ? poison_[b] : restore_source(copy, b);
        check_cuda(cuMemcpyDtoDAsync(copies_[copy][b], source, tc_.buffers[b].size, stream_), "restoring a case buffer");
    }
}

void Replay::variables_in(int copy, const VariablePlaces& places) {
    for (std::size_t b = 0; b < places.size() && b < tc_.buffers.size(); ++b)
        if (places[b].address)
            check_cuda(cuMemcpyDtoDAsync(places[b].address, copies_[copy][b], std::min<std::size_t>(places[b].bytes, tc_.buffers[b].size), stream_),
                       "copying the case's module variable '" + tc_.buffers[b].variable + "' into the module");
}

void Replay::variables_out(int copy, const VariablePlaces& places) {
    for (std::size_t b = 0; b < places.size() && b < tc_.buffers.size(); ++b)
        if (places[b].address && !tc_.buffers[b].read_only)
            check_cuda(cuMemcpyDtoDAsync(copies_[copy][b], places[b].address, std::min<std::size_t>(places[b].bytes, tc_.buffers[b].size), stream_),
                       "copying the module variable '" + tc_.buffers[b].variable + "' out of the module");
}

CUresult Replay::launch_with(CUfunction kernel, const LaunchShape& shape, int copy, const VariablePlaces& places) {
    variables_in(copy, places);
    if (CUresult r = launch(kernel, shape, copy); r != CUDA_SUCCESS) return r;
    variables_out(copy, places);
    return CUDA_SUCCESS;
}

CUresult Replay::launch(CUfunction kernel, const LaunchShape& shape, int copy) {
    std::vector<unsigned long long> pointers(tc_.args.size(), 0);
    std::vector<void*> params(tc_.args.size());
    for (std::size_t i = 0; i < tc_.args.size(); ++i) {
        CaseArg& arg = tc_.args[i];
        if (arg.kind == CaseArg::Kind::Scalar) {
            Bytes& relocated = relocated_args_[static_cast<std::size_t>(copy)][i];
            params[i] = relocated.empty() ? arg.value.data() : relocated.data();
        } else {
            if (arg.kind == CaseArg::Kind::Pointer) pointers[i] = copies_[copy][arg.buffer] + arg.offset;
            params[i] = &pointers[i];
        }
    }
    return cuLaunchKernel(kernel, shape.grid.x, shape.grid.y, shape.grid.z, shape.block.x, shape.block.y,
                          shape.block.z, shape.shared_bytes, stream_, params.data(), nullptr);
}

std::string Replay::damage(bool everything) {
    // The variant's work is on stream_ (non-blocking, so the synchronous copies below would not
    // wait for it).
    check_cuda(cuStreamSynchronize(stream_), "waiting for the variant's work before checking the case's copies");
    // Each of the worker's own buffers, what it must hold on the host, and its golden copy on
    // the GPU when there is one; in the order damage is reported.
    struct Check {
        CUdeviceptr device;
        const Bytes* expected;
        CUdeviceptr golden;
        std::string what;
    };
    std::vector<Check> checks;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        checks.push_back({pristine_[b], &pristine_host_[b], golden_.empty() ? 0 : golden_[b],
                          "the worker's pristine copy of " + buffer_label(tc_, b)});
        if (poison_[b])
            checks.push_back({poison_[b], &poison_host_[b], golden_poison_.empty() ? 0 : golden_poison_[b],
                              "the worker's poison image of " + buffer_label(tc_, b)});
    }
    for (std::size_t c = 0; c < copies_.size(); ++c)
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
            if (tc_.buffers[b].read_only) {
                // A relocated copy holds its own pointers: only the host has its expected bytes.
                const bool relocated = !relocated_host_[c][b].empty();
                checks.push_back({copies_[c][b], relocated ? &relocated_host_[c][b] : &pristine_host_[b],
                                  relocated || golden_.empty() ? 0 : golden_[b],
                                  "the worker's working copy " + std::to_string(c) + " of " + buffer_label(tc_, b)});
            }
    std::vector<bool> on_gpu_differs(checks.size(), true);
    damage_on_gpu_ = damage_on_host_ = 0;
    if (device_compare_) {
        std::vector<std::size_t> queued;
        for (std::size_t i = 0; i < checks.size(); ++i)
            if (checks[i].golden && !checks[i].expected->empty()) {
                device_compare_->queue(checks[i].device, checks[i].golden, checks[i].expected->size());
                queued.push_back(i);
            }
        if (!queued.empty()) {
            const std::vector<bool> found = device_compare_->differs();
            for (std::size_t k = 0; k < queued.size(); ++k) on_gpu_differs[queued[k]] = found[k];
        }
    }
    // "" when the device bytes at `p` equal `expected`, else how many differ and where.
    auto differs = [&](CUdeviceptr p, const Bytes& expected) -> std::string {
        readback_.resize(expected.size());
        check_cuda(cuMemcpyDtoH(readback_.data(), p, expected.size()), "reading back a case buffer to check it");
        if (std::memcmp(readback_.data(), expected.data(), expected.size()) == 0) return {};
        std::size_t first = expected.size(), count = 0;
        for (std::size_t i = 0; i < expected.size(); ++i)
            if (readback_[i] != expected[i]) {
                first = std::min(first, i);
                ++count;
            }
        return " (" + std::to_string(count) + " of " + std::to_string(expected.size()) + " bytes differ, the first at byte " +
               std::to_string(first) + ")";
    };
    for (std::size_t i = 0; i < checks.size(); ++i) {
        const Check& check = checks[i];
        if (check.expected->empty()) continue;
        if (check.golden && !on_gpu_differs[i]) {
            ++damage_on_gpu_;
            continue;
        }
        // Read back to say what changed; unchecked buffers without a golden copy stay unchecked
        // when large (see the constructor).
        if (!check.golden && !everything && !check_large_ && check.expected->size() >= kLargeBuffer) continue;
        ++damage_on_host_;
        if (std::string d = differs(check.device, *check.expected); !d.empty()) return check.what + " changed during the run" + d;
        // Intact, so its golden copy is what changed: a stray write all the same.
        if (check.golden) return "the GPU copy that " + check.what + " is checked against changed during the run";
    }
    return {};
}

CUresult Replay::launch_once(CUfunction kernel, const LaunchShape& shape, const VariablePlaces& variables) {
    if (CUresult r = start_once(kernel, shape, variables); r != CUDA_SUCCESS) return r;
    return cuStreamSynchronize(stream_);
}

CUresult Replay::start_once(CUfunction kernel, const LaunchShape& shape, const VariablePlaces& variables) {
    restore(0, false);
    return launch_with(kernel, shape, 0, variables);
}

std::vector<Bytes> Replay::download_writable(int copy) {
    std::vector<Bytes> out(tc_.buffers.size());
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
        if (!tc_.buffers[b].read_only) {
            out[b].resize(tc_.buffers[b].size);
            download(copy, b, out[b].data());
        }
    return out;
}

void Replay::download(int copy, std::size_t b, unsigned char* out) {
    check_cuda(cuMemcpyDtoH(out, copies_[copy][b], tc_.buffers[b].size), "copying outputs to the host");
    // Pointers still where they were relocated to read as recorded, so outputs compare alike
    // across copies, workers and the oracle.
    for (const EmbeddedPointer& p : tc_.buffers[b].pointers) {
        std::uint64_t value = 0;
        std::memcpy(&value, out + p.at, sizeof value);
        if (value == copies_[copy][static_cast<std::size_t>(p.buffer)] + p.offset)
            std::memcpy(out + p.at, pristine_host_[b].data() + p.at, sizeof value);
    }
}

HostStaging::~HostStaging() {
    if (pinned_) cuMemFreeHost(pinned_);
}

HostStaging::HostStaging(HostStaging&& other) noexcept
    : pinned_(std::exchange(other.pinned_, nullptr)), size_(std::exchange(other.size_, 0)), plain_(std::move(other.plain_)) {}

unsigned char* HostStaging::get(std::size_t bytes) {
    if (pinned_ && size_ >= bytes) return static_cast<unsigned char*>(pinned_);
    if (plain_.size() >= bytes && !plain_.empty()) return plain_.data();
    if (pinned_) cuMemFreeHost(std::exchange(pinned_, nullptr));
    size_ = 0;
    if (cuMemAllocHost(&pinned_, std::max<std::size_t>(bytes, 1)) == CUDA_SUCCESS) {
        size_ = bytes;
        Bytes().swap(plain_);
        return static_cast<unsigned char*>(pinned_);
    }
    pinned_ = nullptr;
    plain_.resize(std::max<std::size_t>(bytes, 1));
    return plain_.data();
}

RunReport Replay::fault(CUresult code, const std::string& when) {
    RunReport report;
    // Whether the context survived: a sticky error shows again on the next synchronisation.
    const CUresult after = cuCtxSynchronize();
    report.sticky = is_sticky(code) || after != CUDA_SUCCESS;
    report.outcome = report.sticky || code == CUDA_ERROR_LAUNCH_TIMEOUT ? RunReport::Outcome::Fault
                                                                      : RunReport::Outcome::LaunchError;
    report.cuda_error = cuda_error_name(code);
    report.detail = when + ": " + cuda_error_name(code) + " (" + cuda_error_text(code) + ")";
    return report;
}

RunReport Replay::run(CUfunction kernel, const RunRequest& request, const std::function<void(const char*)>& progress) {
    if (!request.original && !has_reference_)
        throw Error("a variant was sent before the original kernel ran on case " + tc_.path);
    if (request.shape.shared_bytes > 48 * 1024)
        cuFuncSetAttribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(request.shape.shared_bytes));

    RunReport report;

    if (request.original && !has_reference_) {
        restore(0, false);
        const auto plain_start = std::chrono::steady_clock::now();
        if (CUresult r = launch_with(kernel, request.shape, 0, request.variables); r != CUDA_SUCCESS) return fault(r, "launching the original");
        if (CUresult r = cuStreamSynchronize(stream_); r != CUDA_SUCCESS) return fault(r, "running the original");
        const double plain_ms = ms_since(plain_start);
        reference_ = download_writable(0);
        std::vector<WriteSet> sets(tc_.buffers.size());
        bool learnt = false;
        if (!request.poisonable.empty()) {
            // Learnt by an earlier worker on this case: no need to probe again after a restart.
            try {
                sets = write_sets_from_text(request.poisonable, tc_.buffers);
                learnt = true;
            } catch (const Error& e) {
                report.detail = std::string("the write sets learnt before do not fit the case (") + e.what() + "): probed again";
            }
        }
        if (!learnt && request.probe_poison) {
            probe_plan_ = {plain_ms, 2, 0};  // the verification, twice at most
            for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
                if (!tc_.buffers[b].read_only) {
                    probe_plan_.launches += 2;
                    probe_plan_.bytes += 4 * tc_.buffers[b].size;
                }
            if (request.announce_probe) progress("probing");
            const auto probe_start = std::chrono::steady_clock::now();
            if (auto failed = probe_write_sets(kernel, request, sets, report.detail)) return *failed;
            // An original's first run has no check launch: its stage times say what the probes took.
            report.stages.check_ms = ms_since(probe_start);
        }
        set_write_sets(std::move(sets));
        has_reference_ = true;
        keep_reference_on_device();
        report.poisonable = write_sets_text(write_sets_);
        // How far this GPU's original is from the recorded oracle (the program's own run).
        const auto compare_start = std::chrono::steady_clock::now();
        std::vector<BufferComparison> versus_oracle;
        std::vector<std::string> labels;
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
            if (!tc_.buffers[b].read_only) {
                versus_oracle.push_back(compare_buffer(tc_.buffers[b].element, tc_.buffers[b].after.data(),
                                                       reference_[b].data(), tc_.buffers[b].size, tolerances_[b], false));
                labels.push_back(buffer_label(tc_, b));
            }
        report.comparison = summarise_comparisons(versus_oracle, labels);
        report.stages.compare_ms = ms_since(compare_start);
    } else if (!request.original) {
        const LoopGuard* guard = request.guard;
        const auto check_start = std::chrono::steady_clock::now();
        restore(0, true);
        check_cuda(cuStreamSynchronize(stream_), "restoring the case's buffers");
        progress("started");
        if (guard && request.shape.shared_bytes > 48 * 1024)
            cuFuncSetAttribute(guard->kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(request.shape.shared_bytes));
        if (guard) arm(*guard);
        const char* build = guard ? " (its loop-guarded build)" : "";
        if (CUresult r = launch_with(guard ? guard->kernel : kernel, request.shape, 0, guard ? guard->variables : request.variables);
            r != CUDA_SUCCESS)
            return fault(r, std::string("launching the variant") + build);
        if (CUresult r = cuStreamSynchronize(stream_); r != CUDA_SUCCESS)
            return fault(r, std::string("running the variant") + build);
        const unsigned int stopped = guard ? overrun_flag(*guard) : 0u;
        report.stages.check_ms = ms_since(check_start);
        progress("checked");
        if (stopped == kSharedOutOfBounds) {
            report.outcome = RunReport::Outcome::OutOfBounds;
            report.detail = "an access to a __shared__ array fell outside it (on the GPU: an illegal address that "
                            "ends the context); the shared-memory guard kept it inside";
            return report;
        }
        if (stopped != 0u) {
            report.outcome = RunReport::Outcome::LoopOverrun;
            const std::string budget = std::to_string(static_cast<double>(guard->budget_ns) / 1e6) +
                                       " ms after the kernel started (the original's time x the timeout factor + "
                                       "the guard's margin)";
            if (stopped == kBarrierSplitWarp)
                report.detail = "a warp's threads reached different __syncthreads() calls at once (undefined: on the "
                                "GPU such a barrier hangs); the barrier guard let the block go on";
            else if (stopped == kBarrierOverrun)
                report.detail = "a barrier was still waiting for threads that never came " + budget +
                                " (a deadlock); the barrier guard let the block go on";
            else
                report.detail = "a loop was still running " + budget + "; the loop guard stopped it";
            return report;
        }
        const auto compare_start = std::chrono::steady_clock::now();
        report.comparison = compare_with_reference(0, report);
        report.stages.compare_ms = ms_since(compare_start);
        if (report.comparison.hard_failure) return report;
    }

    // The guarded build passed the check, but the plain one is what is timed and shipped: its own
    // outputs (of the last timed repetition, or of one run when nothing is timed) must match too.
    const int total = request.time ? request.warmups + request.repetitions : 0;
    // Buffers the original updates in place (read-modify-write elements, or read and written): a
    // second launch would start from its first's results (compare/write_set.hpp, restores_each_launch).
    // Read-only module variables are the same in every copy.
    bool in_place = false;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) in_place = in_place || restore_each_[b];
    const int launches = in_place ? 1 : std::max(1, request.launches_per_time);
    report.launches_per_time = launches;
    // Launch l of repetition r runs on copy (r * launches + l) % copies(), rotated as single launches
    // are, so caches flatter a batch no more than consecutive repetitions.
    const int plain_copy = total > 0 ? (total * launches - 1) % copies() : 0;
    auto check_plain_build = [&]() {
        const auto compare_start = std::chrono::steady_clock::now();
        const ErrorSummary plain = compare_with_reference(plain_copy, report);
        report.stages.compare_ms += ms_since(compare_start);
        const ErrorSummary& checked = report.comparison;
        if (!plain.hard_failure && plain.mismatches <= checked.mismatches && plain.error <= checked.error) return;
        report.comparison = plain;
        report.comparison.hard_failure = true;
        report.comparison.detail = "the unguarded build (the one timed) gives other outputs than its loop-guarded build "
                                   "did in the check: " + (plain.detail.empty() ? "a larger error" : plain.detail);
        report.times_ms.clear();
    };
    if (request.original || !request.guard) {
        if (!request.time) return report;
    } else if (!request.time) {
        const auto start = std::chrono::steady_clock::now();
        restore(plain_copy, true);
        if (CUresult r = launch_with(kernel, request.shape, plain_copy, request.variables); r != CUDA_SUCCESS)
            return fault(r, "launching the unguarded build");
        if (CUresult r = cuStreamSynchronize(stream_); r != CUDA_SUCCESS) return fault(r, "running the unguarded build");
        report.stages.timed_ms = ms_since(start);
        check_plain_build();
        return report;
    } else {
        // Poisoned once, so an output the plain build leaves unwritten is caught (the copy may still
        // hold the guarded check's outputs).
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
            if (!tc_.buffers[b].read_only && poisoned(b))
                check_cuda(cuMemcpyDtoDAsync(copies_[plain_copy][b], poison_[b], tc_.buffers[b].size, stream_),
                           "poisoning a case buffer");
    }
    const auto timed_start = std::chrono::steady_clock::now();
    std::vector<CUevent> events(2 * static_cast<std::size_t>(total), nullptr);
    for (auto& e : events) check_cuda(cuEventCreate(&e, CU_EVENT_DEFAULT), "creating timing events");
    struct EventGuard {
        std::vector<CUevent>& events;
        ~EventGuard() { for (CUevent e : events) if (e) cuEventDestroy(e); }
    } guard{events};
    for (int r = 0; r < total; ++r) {
        const int copy = (r * launches) % copies();
        // Poisoned outputs need no restoring when the kernel overwrites them wherever poisoned and
        // never writes the rest; buffers it updates in place do (and then a repetition is one
        // launch), from the same image as the check.
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
            if (tc_.buffers[b].read_only || (poisoned(b) && !restore_each_[b])) continue;
            const CUdeviceptr source = poisoned(b) ? poison_[b] : restore_source(copy, b);
            check_cuda(cuMemcpyDtoDAsync(copies_[copy][b], source, tc_.buffers[b].size, stream_), "restoring a case buffer");
        }
        // Module variables are copied in and out outside the timed interval.
        variables_in(copy, request.variables);
        check_cuda(cuEventRecord(events[2 * r], stream_), "recording a timing event");
        for (int l = 0; l < launches; ++l)
            if (CUresult res = launch(kernel, request.shape, (r * launches + l) % copies()); res != CUDA_SUCCESS)
                return fault(res, "launching a timed repetition");
        check_cuda(cuEventRecord(events[2 * r + 1], stream_), "recording a timing event");
        variables_out(copy, request.variables);
    }
    if (CUresult r = cuStreamSynchronize(stream_); r != CUDA_SUCCESS) return fault(r, "running timed repetitions");
    for (int r = request.warmups; r < total; ++r) {
        float ms = 0;
        check_cuda(cuEventElapsedTime(&ms, events[2 * r], events[2 * r + 1]), "reading a timing event");
        report.times_ms.push_back(static_cast<double>(ms) / launches);
    }
    report.stages.timed_ms = ms_since(timed_start);
    if (!request.original && request.guard) check_plain_build();
    return report;
}

ErrorSummary Replay::compare_with_reference(int copy, RunReport& report) {
    // First on the GPU, every buffer that has the reference there; the host sees only those that differ.
    std::vector<bool> differs(tc_.buffers.size(), true);
    if (device_compare_) {
        std::vector<std::size_t> queued;
        for (std::size_t b = 0; b < tc_.buffers.size(); ++b)
            if (!tc_.buffers[b].read_only && b < reference_device_.size() && reference_device_[b]) {
                device_compare_->queue(copies_[copy][b], reference_device_[b], tc_.buffers[b].size);
                queued.push_back(b);
            }
        if (!queued.empty()) {
            const std::vector<bool> found = device_compare_->differs();
            for (std::size_t i = 0; i < queued.size(); ++i) differs[queued[i]] = found[i];
        }
    }
    downloaded_.resize(tc_.buffers.size());
    std::vector<BufferComparison> comparisons;
    std::vector<std::string> labels;
    for (std::size_t b = 0; b < tc_.buffers.size(); ++b) {
        if (tc_.buffers[b].read_only) continue;
        if (!differs[b]) {
            comparisons.push_back(identical_[b]);
            ++report.compared_on_gpu;
        } else {
            unsigned char* outputs = downloaded_[b].get(tc_.buffers[b].size);
            download(copy, b, outputs);
            comparisons.push_back(compare_buffer_parallel(tc_.buffers[b].element, reference_[b].data(), outputs,
                                                          tc_.buffers[b].size, tolerances_[b], poisoned(b), compare_threads()));
            ++report.compared_on_host;
        }
        labels.push_back(buffer_label(tc_, b));
    }
    return summarise_comparisons(comparisons, labels);
}

// Threads for the host comparison of a large output that differs: the worker has the machine's
// cores mostly to itself between requests (compiles run beside it at a lower priority).
unsigned Replay::compare_threads() {
    static const unsigned threads = std::max(1u, std::min(8u, std::thread::hardware_concurrency() / 2));
    return threads;
}

void Replay::arm(const LoopGuard& guard) {
    if (!clock_) check_cuda(cuMemAlloc(&clock_, sizeof clock_host_), "allocating the loop guard's clock");
    // With lazy loading (the default) a kernel's code is loaded at its first launch, after the
    // clock is read: that would eat into the guard's budget and stop a correct variant.
    check_cuda(cuFuncLoad(guard.clock), "loading the loop guard's clock kernel");
    check_cuda(cuFuncLoad(guard.kernel), "loading the variant's loop-guarded kernel");
    void* params[] = {&clock_};
    check_cuda(cuLaunchKernel(guard.clock, 1, 1, 1, 1, 1, 1, 0, stream_, params, nullptr), "reading the GPU clock");
    check_cuda(cuMemcpyDtoHAsync(clock_host_, clock_, sizeof clock_host_, stream_), "reading the GPU clock");
    check_cuda(cuStreamSynchronize(stream_), "reading the GPU clock");
    deadline_host_ = clock_host_[0] + guard.budget_ns;
    // On the launch's stream, so the kernel cannot start before its deadline is in place.
    check_cuda(cuMemcpyHtoDAsync(guard.deadline, &deadline_host_, sizeof deadline_host_, stream_),
               "setting the loop guard's deadline");
}

unsigned int Replay::overrun_flag(const LoopGuard& guard) {
    unsigned int flag = 0;
    check_cuda(cuMemcpyDtoHAsync(&flag, guard.overrun, sizeof flag, stream_), "reading the loop guard's flag");
    check_cuda(cuStreamSynchronize(stream_), "reading the loop guard's flag");
    return flag;
}

}  // namespace gi::worker
