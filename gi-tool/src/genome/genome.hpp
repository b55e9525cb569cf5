#pragma once
// Stage 3, genome: a patch to the kernel. A fixed part (gene values; genes not listed keep their
// defaults) and a variable-length list of edits applied left to right (seeds 000 8.14, 001 3.2).
// Text form, one line, space separated:
//   BLOCK_W=64 ROWS=5 <IF_k.cu_245><IF_k.cu_167> <_k.cu_288>+<_k.cu_293> <_k.cu_300>
//   <pragma_k.cu_158><pragma_K4>
// "NAME=value" sets a gene; "<A>" deletes rule A; "<A><B>" replaces A by a copy of B;
// "<A>+<B>" inserts a copy of B before A; "<pragma_x><pragma_Kn>" sets an unroll pragma.
// The empty genome is the original kernel. Parsing needs no grammar; validate() checks against one.
// Instruction-level edits on the variant's PTX (issue 46, src/ptx/) are items starting "ptx:":
//   ptx:del(12)  ptx:copy(12,40)  ptx:move(12,40)  ptx:swap(12,40)  ptx:opnd(12,1,%f7)
// delete instruction 12; insert a copy of 40 before 12; move 40 before 12; swap 12 and 40; make
// the register instruction 12 reads second (read operand 1) %f7. Numbers are instruction indexes
// in the PTX of the variant the genome's source part makes (genes and source edits), before any
// PTX edit: so dropping one PTX edit leaves the others naming the same instructions. PTX edits
// are applied after every source edit, whatever their place in the text. No earlier genome text
// holds such an item (it was neither NAME=value nor <...>), so every old genome parses the same.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gi {

// A genome file holds one line of rule names and values (a list of genomes, one per line): far
// past this size it is not a genome file, and it is refused before it is read.
inline constexpr std::uintmax_t kMaxGenomeFileBytes = std::uintmax_t{64} << 20;

struct GeneSetting {
    std::string name;
    std::string value;
    friend bool operator==(const GeneSetting&, const GeneSetting&) = default;
};

struct Edit {
    enum class Op { Delete, Replace, Insert, PtxDelete, PtxCopy, PtxMove, PtxSwap, PtxOperand } op = Op::Delete;
    std::string target;  // rule id as in the text between < >: "IF_k.cu_245", "_k.cu_288"; Ptx*: "12"
    // Replace/Insert: id of the copied rule, or a pragma constant "pragma_K4"; PtxCopy/Move/Swap:
    // the other instruction ("40"); PtxOperand: the register put in ("%f7")
    std::string source;
    int operand = 0;  // PtxOperand: which register the target reads, from 0
    friend bool operator==(const Edit&, const Edit&) = default;
};

// Whether the edit is one of the PTX instruction edits (applied to the compiled PTX, not the source).
inline bool is_ptx_edit(const Edit& edit) { return edit.op >= Edit::Op::PtxDelete; }

struct Genome {
    std::vector<GeneSetting> settings;  // in the order written
    std::vector<Edit> edits;            // applied left to right
    friend bool operator==(const Genome&, const Genome&) = default;
    bool empty() const { return settings.empty() && edits.empty(); }
};

// "<IF_k.cu_245><IF_k.cu_167>" etc. for one edit.
std::string edit_to_text(const Edit& edit);

// Canonical single-line text; parse_genome(genome_to_text(g)) == g, and for text with single
// spaces between items genome_to_text(parse_genome(t)) == t.
std::string genome_to_text(const Genome& genome);

// Throws gi::Error naming the offending item and its position in the text.
Genome parse_genome(const std::string& text);

// The value a genome gives a gene: its last setting, or `default_value` when it sets none.
std::string setting_or(const Genome& genome, const std::string& name, const std::string& default_value);

// Sets (or replaces) a gene value, keeping the position of an existing setting.
void set_gene(Genome& genome, const std::string& name, const std::string& value);

}  // namespace gi
