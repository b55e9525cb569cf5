#include "cuda/gpu_selection.hpp"

#include <algorithm>
#include <charconv>

#include "util/error.hpp"

namespace gi {
namespace {

constexpr int kMaxGpuOrdinal = 1023;

// A whole non-negative decimal number, or -1.
int gpu_number(const std::string& word) {
    int value = -1;
    if (word.empty() || word.size() > 4) return -1;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    if (ec != std::errc() || end != word.data() + word.size()) return -1;
    return value;
}

}  // namespace

GpuSelection parse_gpu_selection(const std::string& text, const std::string& option) {
    GpuSelection s;
    s.text = text;
    const std::string expected = " (expected all, a number of GPUs such as 2, or GPU ordinals separated by commas such as 0,2)";
    if (text == "all") {
        s.kind = GpuSelection::Kind::All;
        return s;
    }
    if (text.find(',') == std::string::npos) {
        const int count = gpu_number(text);
        if (count < 1 || count > kMaxGpuOrdinal + 1)
            throw UsageError(option + " " + (text.empty() ? "''" : text) + ": not a number of GPUs from 1 to " +
                             std::to_string(kMaxGpuOrdinal + 1) + expected);
        s.kind = GpuSelection::Kind::Count;
        s.count = count;
        return s;
    }
    s.kind = GpuSelection::Kind::List;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string word = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const int ordinal = gpu_number(word);
        if (ordinal < 0 || ordinal > kMaxGpuOrdinal)
            throw UsageError(option + " " + text + ": '" + word + "' is not a GPU ordinal (0 to " + std::to_string(kMaxGpuOrdinal) +
                             ")" + expected);
        if (std::find(s.ordinals.begin(), s.ordinals.end(), ordinal) != s.ordinals.end())
            throw UsageError(option + " " + text + ": GPU " + word + " is named twice; name each GPU once");
        s.ordinals.push_back(ordinal);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return s;
}

std::vector<int> resolve_gpu_selection(const GpuSelection& selection, int devices, const std::string& option) {
    const int seen = std::max(1, devices);
    const std::string there = "the driver sees " + std::to_string(seen) + (seen == 1 ? " GPU" : " GPUs") +
                              " (ordinals 0 to " + std::to_string(seen - 1) + "; CUDA_VISIBLE_DEVICES limits them)";
    std::vector<int> out;
    switch (selection.kind) {
    case GpuSelection::Kind::All:
        for (int i = 0; i < seen; ++i) out.push_back(i);
        return out;
    case GpuSelection::Kind::Count:
        if (selection.count > seen)
            throw UsageError(option + " " + selection.text + ": asks for " + std::to_string(selection.count) + " GPUs, but " +
                             there + "; give --gpus all or a smaller number");
        for (int i = 0; i < selection.count; ++i) out.push_back(i);
        return out;
    case GpuSelection::Kind::List:
        for (int ordinal : selection.ordinals)
            if (ordinal >= seen)
                throw UsageError(option + " " + selection.text + ": there is no GPU " + std::to_string(ordinal) + ": " + there);
        return selection.ordinals;
    }
    return out;
}

}  // namespace gi
