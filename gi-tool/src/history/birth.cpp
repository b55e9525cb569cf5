#include "history/birth.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace gi {

std::string births_to_text(const std::vector<BirthInfo>& births) {
    std::string out;
    for (const BirthInfo& b : births) {
        out += to_string(b.birth);
        for (const std::string& parent : b.parents) out += "\t" + parent;
        out += "\n";
    }
    return out;
}

std::vector<BirthInfo> births_from_text(const std::string& text, const std::string& owner) {
    std::vector<BirthInfo> births;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        BirthInfo info;
        std::size_t field = 0, at = 0;
        while (at <= line.size()) {
            const std::size_t tab = std::min(line.find('\t', at), line.size());
            const std::string part = line.substr(at, tab - at);
            if (field++ == 0) {
                try {
                    info.birth = birth_from_string(part);
                } catch (const Error& e) {
                    throw Error(owner + " checkpoint state: " + e.what() + " (the checkpoint may be damaged)");
                }
            } else {
                info.parents.push_back(part);
            }
            at = tab + 1;
        }
        births.push_back(std::move(info));
    }
    return births;
}

}  // namespace gi
