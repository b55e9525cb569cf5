#pragma once
// Stage "report": one self-contained HTML page of a run record (run.xml), with inline SVG charts:
// how fitness rose, what the search tried, how far the timings can be trusted, what each kept edit
// is worth and how the result was validated (issue 21). Pure: record in, text out.
#include <sstream>
#include <string>

#include "report/edit_diff.hpp"
#include "run/run_record.hpp"

namespace gi {

// What the page can say about the final genome's source, given the kernel (gi-tool report KERNEL.cu).
struct SourceView {
    std::vector<ItemDiff> items;  // each item of the final genome applied alone
    std::string note;             // why there is no view ("" when `items` is it)
};

// The view as HTML: per item its hunks (removed lines, then added ones), or `hint` when there is
// no view and no note saying why. Shared by the run report and the cache page.
std::string source_view_html(const SourceView& view, const std::string& hint);

// A <tr> of a two-column table: the name (escaped) and the value (HTML as given).
std::string table_row(const std::string& name, const std::string& value_html);
// Appends table_row(name, value_html) to `out`.
void append_table_row(std::ostringstream& out, const std::string& name, const std::string& value_html);

// The pages' one stylesheet (the <style> element's content).
std::string report_style();

// `source` names the run (its folder), shown in the title.
std::string html_report(const RunRecord& record, const std::string& source, const SourceView& view = {});

// How every page html_report() writes begins: a file that does not is no report of gi-tool's.
inline constexpr const char* kReportPageStart = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>gi-optimize run: ";

}  // namespace gi
