#include "report/cache_page.hpp"

#include <sstream>

#include "cache/check.hpp"
#include "cache/registration.hpp"
#include "grammar/grammar_options.hpp"
#include "report/svg_chart.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {


std::string ms_text(double ms) { return ms < 0 ? "not measured" : significant(ms, 4) + " ms"; }

}  // namespace

SourceView entry_source_view(const CacheEntry& entry, const std::string& source_path, const std::string& source_text) {
    SourceView view;
    if (sha256_hex(source_text) != entry.source_sha256) {
        view.note = source_path + " is not the kernel source this entry was made from (sha256 " +
                    sha256_hex(source_text).substr(0, 12) + "..., the entry's " + entry.source_sha256.substr(0, 12) +
                    "...): the entry is stale for it.";
        return view;
    }
    try {
        GrammarOptions options;
        options.functions = entry.registration.functions;
        for (const std::string& p : entry.registration.params) options.params.push_back(parse_param_declaration(p, "param"));
        for (const std::string& f : entry.registration.flags) options.flags.push_back(parse_flag_declaration(f, "flag"));
        options.block_size = entry.registration.block_size;
        const RegisteredKernel kernel =
            make_registered_kernel(make_source_file(source_path, source_text), entry.registration, options);
        view.items = item_diffs(parse_genome(entry.genome), kernel.grammar, source_text);
    } catch (const std::exception& e) {
        view.note = std::string("The entry's genome does not apply to ") + source_path + ": " + e.what();
    }
    return view;
}

std::string cache_page(const std::vector<CachePageEntry>& entries, const std::string& title) {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gi-optimize cache: " << html_escape(title)
        << "</title>\n<style>\n" << report_style() << ".bad{color:#b00;font-weight:bold}.good{color:#070}\n"
        << "</style></head><body>\n<h1>gi-optimize cache entries</h1>\n<p><code>" << html_escape(title) << "</code>: "
        << entries.size() << " entr" << (entries.size() == 1 ? "y" : "ies") << ".</p>\n";
    for (const CachePageEntry& item : entries) {
        out << "<h2>" << html_escape(item.path.filename().string()) << "</h2>\n";
        if (!item.entry) {
            out << "<p class=\"bad\">unreadable: " << html_escape(item.problem) << "</p>\n";
            continue;
        }
        const CacheEntry& e = *item.entry;
        const Provenance& p = e.provenance;
        out << "<table>\n";
        append_table_row(out, "kernel", "<code>" + html_escape(e.kernel_file) + "</code> " + html_escape(join(e.registration.functions, " ")) +
                               ", " + html_escape(architecture_name(e.architecture)));
        append_table_row(out, "genome", e.genome.empty() ? "(empty: the original kernel)" : "<code>" + html_escape(e.genome) + "</code>");
        std::vector<std::string> values;
        for (const ParameterValue& v : e.parameters) values.push_back(v.name + "=" + v.value);
        append_table_row(out, "parameters", values.empty() ? "(none declared)" : "<code>" + html_escape(join(values, " ")) + "</code>");
        std::string origin = p.origin.empty() ? "unknown origin" : p.origin;
        if (!p.gpu.empty()) origin += " on " + p.gpu;
        if (!p.driver.empty()) origin += ", driver " + p.driver;
        if (!p.nvcc.empty()) origin += ", nvcc " + p.nvcc;
        if (!p.date.empty()) origin += ", " + p.date;
        append_table_row(out, "made by", html_escape(origin));
        append_table_row(out, "time", "original " + ms_text(p.original_ms) + ", variant " + ms_text(p.variant_ms) +
                             (p.speedup() > 0 ? " (<b>" + significant(p.speedup(), 4) + "x</b>)" : std::string()));
        append_table_row(out, "validated", p.cases_validated < 0 ? std::string("not recorded")
                                                    : std::to_string(p.cases_validated) + " cases, " +
                                                          std::to_string(p.elements_validated) + " elements, worst error " +
                                                          significant(p.worst_error, 4));
        if (!p.waiver.empty()) append_table_row(out, "UNCHECKED", "<span class=\"bad\">" + html_escape(p.waiver) + "</span>");
        else if (!e.genome.empty() && !p.validated())
            append_table_row(out, "UNCHECKED", "<span class=\"bad\">not validated and no waiver: the build refuses this entry</span>");
        if (!p.note.empty()) append_table_row(out, "note", html_escape(p.note));
        append_table_row(out, "checksum", item.checksum_ok ? "<span class=\"good\">ok</span>"
                                              : "<span class=\"bad\">MISMATCH: edited by hand or damaged; the build refuses it</span>");
        out << "</table>\n";
        if (!e.genome.empty())
            out << source_view_html(item.view, "Give the kernel file (--kernel FILE) to see the source lines each item changes.");
    }
    out << "</body></html>\n";
    return out.str();
}

}  // namespace gi
