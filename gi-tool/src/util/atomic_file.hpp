#pragma once
// Every file gi-tool writes goes through here: the content goes to a new temporary file beside the
// target, is flushed to disk, and replaces the target by rename(), so a reader (or a killed run)
// never sees half a file. The temporary is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) under
// an unpredictable name ("run.xml.tmp-h3Xq9Z"): a link planted in a shared output folder is never
// followed, and writers of the same file at the same time never share a temporary.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gi {

// Whether the content is flushed to disk before the rename: a run's scratch files (the original's
// reference outputs handed between workers, tens of MB a case, in a folder the run removes) need
// only the rename's all-or-nothing; an fsync each cost a large case set's cold start for nothing.
enum class Durability { Flushed, Scratch };

// Throws gi::Error naming the path and the system's reason when the file cannot be written; the
// temporary is then removed and the target left as it was.
void write_file_atomically(const std::filesystem::path& path, const std::string& content,
                           Durability durability = Durability::Flushed);

// Whether `file_name` is one of the temporaries write_file_atomically makes ("run.xml.tmp-h3Xq9Z";
// also "run.xml.tmp4711", the name earlier versions used).
bool is_atomic_write_temporary(const std::string& file_name);

// Removes the temporary files write_file_atomically leaves in `dir` when its process is killed
// mid-write. Call it only while holding the folder's lock (util/folder_lock), when no other
// process can be writing there. Returns how many were removed.
int remove_abandoned_temporaries(const std::filesystem::path& dir);

// Checkpoints and run records hold a population of genomes: megabytes at most. A larger one, or
// one that is not a regular file, was not written by gi-tool and is refused before it is read.
inline constexpr std::uintmax_t kMaxRunFileBytes = std::uintmax_t{512} << 20;

// Whole file as text; throws gi::Error naming the path when it cannot be read, is not a regular
// file or is larger than kMaxRunFileBytes. `what` names the file in messages ("checkpoint").
std::string read_text_file(const std::filesystem::path& path, const std::string& what = "file");

}  // namespace gi
