#pragma once
// The names of the files gi-tool evolve writes into its --out folder. No output of another command
// may replace one of them (report -o), and the kernel a run evolves may not be one of them (evolve
// would write its best variant over it).
#include <array>

namespace gi {

inline constexpr std::array<const char*, 10> kOutFolderNames = {
    "best.cu",
    "best.genome",
    "run.xml",
    "checkpoint.xml",
    "checkpoint.generations",  // run/checkpoint.hpp: the checkpoint's generation log
    "pareto.xml",
    "history.sqlite",      // history/history.hpp kHistoryFileName
    "history.sqlite-wal",  // SQLite's write-ahead log and its index beside it
    "history.sqlite-shm",
    ".gi-lock",            // util/folder_lock.hpp
};

}  // namespace gi
