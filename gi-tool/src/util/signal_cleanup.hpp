#pragma once
// Temporary folders a run makes (compiles, sanitizer logs, reference outputs in /dev/shm) are
// removed by their owners' destructors, which a process ended by a signal never runs: Ctrl-C or a
// CI job's SIGTERM during evolve left a gi-compile-XXXXXX folder of variant sources and cubins in
// the temporary folder each time. A folder registered here is also removed when SIGINT, SIGTERM or
// SIGHUP ends the process; the signal then ends it as before (same exit status), so interrupting
// and resuming a run behaves as it did.
//
// The handler is installed on the first registration, and only for a signal whose disposition is
// still the default (a signal the process ignores, as a shell's background job does SIGINT, stays
// ignored). It removes the folders with async-signal-safe calls only.
#include <filesystem>

namespace gi {

// Registers `folder` (an absolute path) for removal should one of those signals end the process,
// for as long as the object lives. Registration is best effort: a path longer than 1 KB, or more
// than 256 folders at once, is not registered (the destructor of its owner still removes it).
class RemovedOnFatalSignal {
public:
    explicit RemovedOnFatalSignal(const std::filesystem::path& folder);
    ~RemovedOnFatalSignal();
    RemovedOnFatalSignal(const RemovedOnFatalSignal&) = delete;
    RemovedOnFatalSignal& operator=(const RemovedOnFatalSignal&) = delete;

    bool registered() const { return slot_ >= 0; }

private:
    int slot_ = -1;
};

}  // namespace gi
