#pragma once
// What evolve leaves in its --out folder after each generation and phase, at a cost that does not
// grow with the generations done. Rebuilding and rewriting the whole run record twice a generation
// (run.xml and the checkpoint) made a run quadratic: 0.76 s of CPU for 250 generations, 12.6 s
// for 1000 (issue 39). Now:
//   - the checkpoint (run/checkpoint.hpp: the state and an appended generation log) every time, so
//     --resume continues from the last generation exactly;
//   - run.xml, the whole record for people and `gi-tool report`, when it is due: at the first save
//     of a session, at every phase change and at the end; during the search after each of the
//     first kRecordEveryGeneration generations, then when the generations since the last write
//     reach an eighth of those it held (so each generation's record is written about nine times
//     in all, however long the run), or kRecordSeconds have passed since it was written and that
//     is 20 times what writing it took. A report made while a run goes on may so be a few
//     generations (or seconds) behind the checkpoint; it is always a whole record.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "run/checkpoint.hpp"

namespace gi {

inline constexpr std::size_t kRecordEveryGeneration = 8;
inline constexpr double kRecordSeconds = 10;

class RunFiles {
public:
    // `dir`: the run's --out folder. `resumed`: the checkpoint a resumed run loaded, else nullptr.
    RunFiles(std::filesystem::path dir, const Checkpoint* resumed);

    std::filesystem::path checkpoint() const { return dir_ / "checkpoint.xml"; }
    std::filesystem::path run_xml() const { return dir_ / "run.xml"; }

    // Writes run.xml when due (see above), then the checkpoint. Throws gi::Error naming the file
    // that cannot be written.
    void save(const Checkpoint& state);
    // Writes run.xml now.
    void write_record(const RunRecord& record);

    // What this session wrote so far, for tests of the cost of a generation.
    std::uint64_t bytes_written() const { return record_bytes_ + checkpoint_.bytes_written(); }
    int record_writes() const { return record_writes_; }

private:
    bool record_due(const Checkpoint& state) const;

    std::filesystem::path dir_;
    CheckpointWriter checkpoint_;
    std::optional<CheckpointPhase> last_phase_;  // of the last save; none before the first
    std::size_t recorded_generations_ = 0;   // generations in run.xml when it was last written
    std::chrono::steady_clock::time_point recorded_at_{};
    double record_write_s_ = 0;              // how long that write took
    std::uint64_t record_bytes_ = 0;
    int record_writes_ = 0;
};

}  // namespace gi
