#pragma once
// Stage "report": one self-contained HTML page of a run record (run.xml), with inline SVG charts:
// how fitness rose, what the search tried, how far the timings can be trusted, what each kept edit
// is worth and how the result was validated (issue 21). Pure: record in, text out.
#include <string>

#include "report/edit_diff.hpp"
#include "search/run_record.hpp"

namespace gi {

// What the page can say about the final genome's source, given the kernel (gi-tool report KERNEL.cu).
struct SourceView {
    std::vector<ItemDiff> items;  // each item of the final genome applied alone
    std::string note;             // why there is no view ("" when `items` is it)
};

// `source` names the run (its folder), shown in the title.
std::string html_report(const RunRecord& record, const std::string& source, const SourceView& view = {});

}  // namespace gi
