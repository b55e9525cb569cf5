#include "cuda/case_worker.hpp"

#include <iostream>
#include <optional>

#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "worker/case_messages.hpp"
#include "worker/case_store.hpp"

namespace gi {
using Clock = std::chrono::steady_clock;
using worker::Message;

CaseWorker::CaseWorker(std::string program, std::string arch_option, int spare_workers, std::vector<CaseSlot>& slots)
    : program_(std::move(program)), arch_(std::move(arch_option)), slots_(slots) {
    spares_ = std::make_unique<SpareWorkers>(spare_workers, *this);
}

CaseWorker::~CaseWorker() {
    if (process_ && process_->running()) {
        try {
            process_->request(worker::quit_message(), std::chrono::seconds(5));
        } catch (const std::exception&) {
        }
        process_->kill();
    }
    spares_.reset();
}

worker::WorkerOptions CaseWorker::worker_options() const {
    worker::WorkerOptions wo;
    wo.executable = program_;
    wo.env.insert(env_.begin(), env_.end());
    wo.launcher = launcher_;
    return wo;
}

void CaseWorker::set_launcher(std::vector<std::string> launcher, int retries) {
    launcher_ = std::move(launcher);
    launcher_retries_ = retries;
}

void CaseWorker::replace_lost(const worker::WorkerFailure& failure, int losses, const std::string& on) {
    drop();
    ++stats_.launcher_losses;
    if (!may_retry_lost(losses))
        throw Error(std::string(failure.what()) + "; that is " + std::to_string(losses) +
                    " workers in a row lost with their launcher on " + on + ", so the run stops. Check that the "
                    "launcher can start gi-worker on a GPU node (run it by hand with a command after it, e.g. "
                    "'... nvidia-smi'), or run without --worker-launcher");
    std::cerr << "gi-tool: note: " << failure.what() << "; starting another worker and running its request again\n";
}

Message CaseWorker::load_message(int index) const {
    const CaseSlot& slot = slots_.at(static_cast<std::size_t>(index));
    worker::LoadCase load;
    load.slot = index;
    load.path = slot.path.string();
    load.verify = !verified_.count(index);
    load.tolerances = slot.tolerances;
    if (!launcher_.empty()) {
        std::string& sha256 = case_sha256_[index];
        if (sha256.empty()) sha256 = worker::case_content_sha256(slot.path);
        load.sha256 = sha256;
    }
    if (!slot.reference_file.empty()) {
        load.reference_file = slot.reference_file.string();
        load.reference_sha256 = slot.reference_sha256;
        load.original_sha256 = original_sha256_;
    }
    return to_message(load);
}

Message CaseWorker::put_case_message(int index) {
    ++stats_.cases_sent;
    const CaseSlot& slot = slots_.at(static_cast<std::size_t>(index));
    std::string& sha256 = case_sha256_[index];
    if (sha256.empty()) sha256 = worker::case_content_sha256(slot.path);
    return worker::put_case_message(slot.path, sha256);
}

bool CaseWorker::took_reference(int index, const Message& reply) {
    const worker::CaseLoaded loaded = worker::case_loaded_from(reply);
    const std::string& state = loaded.reference;
    if (state == "loaded") {
        ++stats_.references_loaded;
        return true;
    }
    if (state == "rejected") {
        ++stats_.references_rejected;
        CaseSlot& slot = slots_[index];
        if (!slot.rejection_noted)
            std::cerr << "gi-tool: note: a GPU worker rejected the original's handed-over outputs for " << slot.path.string()
                      << " (" << loaded.reference_error << "); the original runs on each new worker for this case instead\n";
        slot.rejection_noted = true;
        // Never offered again: every later worker recomputes the reference itself.
        slot.reference_file.clear();
        slot.reference_sha256.clear();
        slot.reference_failed = true;
    }
    return false;
}

std::uint64_t CaseWorker::case_bytes(int index) const { return slots_.at(static_cast<std::size_t>(index)).bytes; }

SpareWorkers::Demand CaseWorker::demand() const {
    const double since = first_use_ == Clock::time_point{}
                             ? 0.0
                             : ms_since(first_use_);
    return {stats_.worker_restarts, since, gpu_memory_};
}

void CaseWorker::start(int want_case) {
    replacing_lost([&] { start_once(want_case); });
}

void CaseWorker::start_once(int want_case) {
    if (process_ && process_->running()) return;
    const bool replacing = process_ != nullptr;
    if (replacing) ++stats_.worker_restarts;
    process_.reset();
    loaded_.clear();
    referenced_.clear();
    if (replacing) {
        if (std::optional<SpareWorkers::Adopted> adopted = spares_->adopt(want_case)) {
            process_ = std::move(adopted->process);
            for (const auto& [index, reference] : adopted->cases) {
                loaded_.insert(index);
                verified_.insert(index);
                if (reference) referenced_.insert(index);
            }
            spares_->top_up();
            return;
        }
        ++stats_.cold_starts;
    }
    process_ = std::make_unique<worker::WorkerProcess>(worker_options());
    Message reply;
    try {
        // Through a launcher the worker may first wait for a free GPU (a queued srun step).
        reply = process_->request(worker::hello_message(), std::chrono::seconds(launcher_.empty() ? 120 : 600));
    } catch (const worker::WorkerFailure& e) {
        if (e.kind() == worker::WorkerFailure::Kind::LauncherLost) throw;
        throw Error(std::string("the GPU worker failed to start: ") + e.what());
    }
    if (reply.type == "error") throw Error("cannot use the GPU: " + worker::error_reply_from(reply).message);
    const worker::Ready ready = worker::ready_from(reply);
    device_ = ready.device;
    devices_ = ready.devices;
    gpu_memory_ = ready.memory_bytes;
    if (arch_.empty()) arch_ = "sm_" + std::to_string(ready.compute_capability);
    if (first_use_ == Clock::time_point{}) first_use_ = Clock::now();
    // Their CUDA start-up overlaps the original's compile and the first batch.
    spares_->top_up();
}

void CaseWorker::drop() {
    if (process_) process_->kill();
}

Message CaseWorker::request(const Message& m, std::chrono::milliseconds timeout) {
    start();
    return process_->request(m, timeout);
}

void CaseWorker::ensure_loaded(int index) {
    replacing_lost([&] { load_once(index); });
}

void CaseWorker::load_once(int index) {
    start(index);
    if (loaded_.count(index)) return;
    ++stats_.case_loads;
    Message reply;
    try {
        reply = process_->request(load_message(index), std::chrono::seconds(300));
        if (reply.type == "case-missing") {
            // Its node does not see the case: sent once (the node's store keeps it for later workers).
            const Message stored = process_->request(put_case_message(index), std::chrono::seconds(600));
            if (stored.type != "case-stored")
                throw Error(slots_[index].path.string() + ": the GPU worker could not store this case, sent to it: " +
                            (stored.type == "error" ? worker::error_reply_from(stored).message : "it answered '" + stored.type + "'"));
            reply = process_->request(load_message(index), std::chrono::seconds(300));
        }
    } catch (const worker::WorkerFailure& e) {
        if (e.kind() == worker::WorkerFailure::Kind::LauncherLost) throw;
        throw Error(slots_[index].path.string() + ": the GPU worker failed while loading this case: " + e.what());
    }
    if (reply.type != "case-loaded")
        throw Error(reply.type == "error" ? worker::error_reply_from(reply).message
                                          : "the GPU worker could not load " + slots_[index].path.string() +
                                                " (it answered '" + reply.type + "')");
    loaded_.insert(index);
    verified_.insert(index);
    if (took_reference(index, reply)) referenced_.insert(index);
}

void CaseWorker::unload(int index) {
    try {
        process_->request(to_message(worker::UnloadCase{index}), std::chrono::seconds(30));
    } catch (const worker::WorkerFailure&) {
        drop();
    }
    loaded_.erase(index);
    referenced_.erase(index);
}

}  // namespace gi
