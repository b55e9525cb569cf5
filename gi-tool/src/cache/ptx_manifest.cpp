#include "cache/ptx_manifest.hpp"

#include "util/error.hpp"
#include "util/format.hpp"
#include "util/text_rule.hpp"

namespace gi {
namespace {

std::vector<std::string> split_on(const std::string& text, char separator) {
    std::vector<std::string> parts(1);
    for (const char c : text) {
        if (c == separator)
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

bool plain_name(const std::string& name) {
    return !name.empty() && name.find('/') == std::string::npos && name != "." && name != "..";
}

}  // namespace

PtxEditsFiles ptx_edits_files(const std::filesystem::path& wrapper, const std::string& file_identifier) {
    const std::filesystem::path dir = wrapper.parent_path();
    return {dir / (file_identifier + ".ptx-edits"), dir / (file_identifier + ".fallback.gi.cu"),
            dir / (file_identifier + ".fallback.options")};
}

std::string ptx_genome_file(const std::string& file_identifier, int architecture) {
    return file_identifier + ".sm_" + std::to_string(architecture) + ".ptx-edits";
}

std::string ptx_manifest_line(int architecture, const CheckedVariantView& variant, const std::string& genome_file) {
    std::string line = std::to_string(architecture) + "\t" + variant.function + "\t" + variant.variant_file + "\t" + genome_file;
    for (const std::string& option : variant.compile_options) line += "\t" + option;
    return line + "\n";
}

std::vector<PtxEditedArchitecture> parse_ptx_manifest(const std::string& text, const std::string& where) {
    std::vector<PtxEditedArchitecture> edited;
    int number = 0;
    for (const std::string& line : split_on(text, '\n')) {
        ++number;
        if (line.empty()) continue;
        const std::vector<std::string> fields = split_on(line, '\t');
        PtxEditedArchitecture e;
        const bool numeric = !fields[0].empty() && fields[0].size() < 5 &&
                             fields[0].find_first_not_of("0123456789") == std::string::npos;
        if (fields.size() < 4 || !numeric || fields[1].empty() || !plain_name(fields[2]) || !plain_name(fields[3]))
            throw Error(where + ", line " + std::to_string(number) + ": '" + excerpt(line) +
                        "' is not 'ARCH<tab>FUNCTION<tab>VARIANT<tab>GENOME[<tab>OPTION]...' (written by gi-tool cache "
                        "apply --ptx-edits; rebuild to write it again)");
        e.architecture = std::stoi(fields[0]);
        e.function = fields[1];
        e.variant_file = fields[2];
        e.genome_file = fields[3];
        e.compile_options.assign(fields.begin() + 4, fields.end());
        edited.push_back(std::move(e));
    }
    return edited;
}

std::string ptx_edits_blocker(bool several_registrations, const std::vector<std::string>& compile_options) {
    if (several_registrations)
        return "its PTX edits are not applied in a file with several registered kernels (their edits would have to "
               "be carried into one PTX together; register the kernel in a file of its own)";
    for (const std::string& option : compile_options)
        if (option.find_first_of("\t\n\r") != std::string::npos)
            return "its compile option '" + printable(option) + "' holds a tab or line end, which the list of PTX "
                   "edits cannot hold";
    return "";
}

}  // namespace gi
