#include "run/run_files.hpp"

#include "run/record_xml.hpp"
#include "util/atomic_file.hpp"

namespace gi {

RunFiles::RunFiles(std::filesystem::path dir, const Checkpoint* resumed)
    : dir_(std::move(dir)), checkpoint_(dir_ / "checkpoint.xml", resumed) {}

bool RunFiles::record_due(const Checkpoint& state) const {
    if (!last_phase_ || *last_phase_ != state.phase || state.phase != CheckpointPhase::Search) return true;
    const std::size_t done = state.record.generations.size();
    if (done <= kRecordEveryGeneration) return true;
    if (done - recorded_generations_ >= std::max<std::size_t>(1, recorded_generations_ / 8)) return true;
    // Wall time only decides how fresh run.xml is, never what it holds.
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - recorded_at_).count();
    return since >= kRecordSeconds && since >= 20 * record_write_s_;
}

void RunFiles::write_record(const RunRecord& record) {
    const auto start = std::chrono::steady_clock::now();
    const std::string text = run_record_document(record);
    write_file_atomically(run_xml(), text);
    recorded_at_ = std::chrono::steady_clock::now();
    record_write_s_ = std::chrono::duration<double>(recorded_at_ - start).count();
    recorded_generations_ = record.generations.size();
    record_bytes_ += text.size();
    ++record_writes_;
}

void RunFiles::save(const Checkpoint& state) {
    // The record first: if the run dies between the two writes, resuming rewrites it.
    if (record_due(state)) write_record(state.record);
    checkpoint_.save(state);
    last_phase_ = state.phase;
}

}  // namespace gi
