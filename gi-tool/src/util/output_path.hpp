#pragma once
// The one rule for every file a command writes (-o, --html, --wrapper, --header, --options-file,
// evolve's outputs): an output never replaces a file the same command reads or must keep (its
// kernel, a cache entry, a run's record), never a folder, and two outputs of one command are never
// the same file. "The same" is decided after links: a link to the kernel is the kernel. What is
// written then goes through util/atomic_file, which never follows a link planted where it writes.
#include <filesystem>
#include <string>
#include <vector>

namespace gi {

class OutputGuard {
public:
    // A file the command reads or must keep; `what` names it in the message ("the kernel file",
    // "the run record"). A file that does not exist (yet) keeps nothing.
    OutputGuard& keep(const std::filesystem::path& file, const std::string& what);
    // A cache folder: every *.xml in it is read as an entry, so no output may be one, existing or not.
    OutputGuard& keep_cache_folder(const std::filesystem::path& folder);

    // Throws gi::UsageError (exit 2, nothing written) naming `option` and `output` when writing
    // `output` would break the rule; `written` names what would be written ("the variant"), for
    // the hint "write the variant to another file" (`advice`, when given, replaces that hint).
    // Remembers `output`, so a later output that is the same file is refused too.
    void check(const std::string& option, const std::filesystem::path& output, const std::string& written,
               const std::string& advice = "");

private:
    struct Kept {
        std::filesystem::path path;
        std::string what;
    };
    std::vector<Kept> kept_;
    std::vector<std::filesystem::path> cache_folders_;
    std::vector<Kept> outputs_;  // checked so far, `what` their option
};

}  // namespace gi
