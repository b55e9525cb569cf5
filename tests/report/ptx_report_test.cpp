// The report names PTX edits for what they are (issue 46): an instruction edit on the kernel's PTX,
// not a compile option, with the source lines of the genome's other items as before.
#include <gtest/gtest.h>

#include "genome/genome.hpp"
#include "grammar/build_grammar.hpp"
#include "report/edit_diff.hpp"
#include "report/html_report.hpp"

namespace gi {
namespace {

TEST(PtxReport, NamesAPtxEditAsAnInstructionEdit) {
    GrammarOptions options;
    options.params = {parse_param_declaration("BLOCK=32,64", "--param")};
    const std::string text = "#define BLOCK 64\n__global__ void k(float* a) {\n    a[threadIdx.x] = BLOCK;\n}\n";
    const Grammar grammar = build_grammar(make_source_file("k.cu", text), options);
    SourceView view;
    view.items = item_diffs(parse_genome("BLOCK=32 ptx:del(4)"), grammar, text);
    ASSERT_EQ(view.items.size(), 2u);
    EXPECT_FALSE(view.items[0].hunks.empty());
    EXPECT_TRUE(view.items[1].hunks.empty());
    const std::string html = source_view_html(view, "");
    EXPECT_NE(html.find("<code>ptx:del(4)</code>: an instruction edit on the kernel's PTX (changes no source line)"),
              std::string::npos)
        << html;
    EXPECT_EQ(html.find("compile option"), std::string::npos) << html;
}

}  // namespace
}  // namespace gi
