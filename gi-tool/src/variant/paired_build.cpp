#include "variant/paired_build.hpp"

#include <cctype>

#include "source/source_file.hpp"
#include "util/error.hpp"
#include "variant/hang_guard.hpp"

namespace gi {

std::string paired_build_refusal(const std::string& source, const std::string& function) {
    if (function.rfind("_Z", 0) == 0)
        return "the kernel is named by its mangled name '" + function + "', which its guarded copy cannot have";
    // `extern` outside comments and strings (masked text), then "C" in the raw text (masking
    // blanks literals). Text that cannot be masked is judged raw: its compile fails anyway.
    std::string masked = source;
    try {
        masked = mask_comments_and_strings(make_source_file("variant.cu", source));
    } catch (const Error&) {
    }
    for (std::size_t at = masked.find("extern"); at != std::string::npos; at = masked.find("extern", at + 1)) {
        if (at > 0 && (std::isalnum(static_cast<unsigned char>(masked[at - 1])) || masked[at - 1] == '_')) continue;
        std::size_t k = at + 6;
        while (k < source.size() && std::isspace(static_cast<unsigned char>(source[k]))) ++k;
        if (source.compare(k, 3, "\"C\"") == 0)
            return "the file has extern \"C\" declarations, which would clash with their guarded copies";
    }
    return "";
}

LoopGuardResult paired_source(const std::string& plain_source, const std::string& name, HangGuards guards) {
    LoopGuardResult guarded = guard_hangs(plain_source, name, guards);
    const std::string& preamble = loop_guard_preamble();
    const std::string body = guarded.source.substr(preamble.size());
    // The plain copy ends without a newline now and then; the namespace must open on its own line.
    guarded.source = preamble + plain_source + "\nnamespace " + kGuardedNamespace + " {\n#line 1\n" + body +
                     "\n}  // namespace " + kGuardedNamespace + "\n";
    return guarded;
}

}  // namespace gi
