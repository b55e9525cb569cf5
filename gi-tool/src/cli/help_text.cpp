#include "cli/help_text.hpp"

#include <sstream>

namespace gi::cli {

std::string option_help_line(const std::string& names, const std::string& help) {
    const std::string indent(kHelpNameColumn, ' ');
    std::string out = "  " + names;
    if (out.size() + 1 > kHelpNameColumn) out += "\n" + indent;
    else out += std::string(kHelpNameColumn - out.size(), ' ');
    std::size_t column = kHelpNameColumn;
    std::istringstream paragraphs(help);
    std::string paragraph;
    bool first_paragraph = true;
    while (std::getline(paragraphs, paragraph)) {
        if (!first_paragraph) {
            out += "\n" + indent;
            column = kHelpNameColumn;
        }
        first_paragraph = false;
        std::istringstream words(paragraph);
        std::string word;
        bool first_word = true;
        while (words >> word) {
            if (!first_word && column + 1 + word.size() > kHelpWidth) {
                out += "\n" + indent;
                column = kHelpNameColumn;
                first_word = true;
            }
            if (!first_word) {
                out += ' ';
                ++column;
            }
            out += word;
            column += word.size();
            first_word = false;
        }
    }
    return out + "\n";
}

}  // namespace gi::cli
