#include "genome/genome_list.hpp"

#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {

std::vector<GenomeLine> read_genome_lines(const std::string& path) {
    std::istringstream in;
    try {
        in.str(read_input_file(path, kMaxGenomeFileBytes, "genome list"));
    } catch (const Error& e) {
        throw UsageError(std::string("--genomes: ") + e.what());
    }
    std::vector<GenomeLine> out;
    std::string text;
    for (int number = 1; std::getline(in, text); ++number) {
        if (!text.empty() && text.back() == '\r') text.pop_back();
        if (text.find_first_not_of(" \t") == std::string::npos || text[text.find_first_not_of(" \t")] == '#') continue;
        GenomeLine line;
        line.line = number;
        std::string genome = text;
        if (const std::size_t tab = text.find('\t'); tab != std::string::npos) {
            const std::string case_text = text.substr(0, tab);
            char* end = nullptr;
            errno = 0;
            const long value = std::strtol(case_text.c_str(), &end, 10);
            if (case_text.empty() || *end != '\0' || errno == ERANGE || value < 0 || value > 1000000)
                throw UsageError(located_message(path, number, "'" + case_text + "' before the tab is not a case number",
                                                 "write CASE<TAB>GENOME, or the genome alone"));
            line.case_index = static_cast<int>(value);
            genome = text.substr(tab + 1);
        }
        try {
            line.genome = parse_genome(genome);
        } catch (const Error& e) {
            throw UsageError(located_message(path, number, e.what()));
        }
        out.push_back(std::move(line));
    }
    if (out.empty()) throw UsageError("--genomes " + path + ": the file holds no genome");
    return out;
}

}  // namespace gi
