#pragma once
// Stage 2, grammar: a kernel's source turned into what evolution may edit (Langdon's line grammar,
// seeds 000 section 8.14 and 001 section 3).
//
// Contract: concatenating `pieces` with every slot at its original value reproduces the source file
// byte for byte. Rules are the editable slots (statements, if conditions, for-header parts, unroll
// pragmas); genes are the fixed part of a genome (user parameters, #if guards, compile flags and the
// kernel-header options). A Grammar is a plain value: building it reads nothing but the SourceFile.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/shared_stage.hpp"

namespace gi {

// Grammar format version; bump when rule ids or their meaning change, since cache keys include it.
inline constexpr int kGrammarVersion = 1;

// The kinds of editable slot, one per row of grammar/rule_kinds.def: Statement, IfCondition,
// ForInit, ForCond, ForStep, Pragma.
enum class RuleKind {
#define GI_RULE_KIND(kind, ...) kind,
#include "grammar/rule_kinds.def"
#undef GI_RULE_KIND
};

// A row of grammar/rule_kinds.def: what the rest of gi-tool knows of a kind of slot.
struct RuleKindInfo {
    RuleKind kind;
    std::string_view prefix;    // of its rules' ids: "_", "IF_", "for1_", "for2_", "for3_", "pragma_"
    std::string_view words;     // "a statement", for messages
    std::string_view label;     // "statements", for counts
    std::string_view category;  // its edits' name in reports; "" for the operation's
    bool may_delete = false;    // besides being replaced by another of its kind
    bool may_insert = false;    // another of its kind inserted before it
};

// Every kind, in the table's order.
const std::vector<RuleKindInfo>& rule_kinds();
const RuleKindInfo& rule_kind_info(RuleKind kind);

// Prefix used in rule names: "_", "IF_", "for1_", "for2_", "for3_", "pragma_".
std::string_view rule_kind_prefix(RuleKind kind);

struct Rule {
    // Kind prefix, file basename, '_', 1-based line, and ".2", ".3"... for further slots of the same
    // kind on the line: "_k.cu_288", "IF_k.cu_245", "for2_k.cu_158", "pragma_k.cu_158".
    std::string id;
    RuleKind kind = RuleKind::Statement;
    std::string text;      // the slot's original text (a pragma slot's is "" when the source had none)
    int line = 0;          // line of the slot's first character
    std::string function;  // the __global__ / __device__ function it belongs to

    // Scope facts used to keep edits compilable. Locals are the names declared in the body of the
    // rule's own function (parameters, globals and members are not). A name declared with
    // different types in the selected functions is written "name:type" ("d:Real", "v:const_Prim&")
    // in all three lists, so it matches only where the same declaration's type is visible.
    std::vector<std::string> uses;      // local variable names the text mentions (through macros too)
    std::vector<std::string> declares;  // names the text itself declares (only a ForInit can)
    std::vector<std::string> in_scope;  // local names visible where the slot stands (sorted)
    int loop_depth = 0;                 // enclosing loops; 'break'/'continue' need > 0
    bool has_break_or_continue = false;
    bool is_barrier = false;            // the statement is a __syncthreads()-style barrier
    bool braceless_body = false;        // sole body of an if/else/for/while without braces
    std::vector<int> conditions;        // indexes into Grammar::conditions: the enclosing #if regions
};

// "<IF_stereo.cu_245>" for a rule; pragma constants are "<pragma_K0>" (plain) .. "<pragma_K16>".
std::string rule_name(const Rule& rule);
std::string pragma_constant_id(int unroll);    // "pragma_K0" (plain "#pragma unroll") .. "pragma_K16"
std::optional<int> parse_pragma_constant_id(std::string_view id);  // inverse; nullopt if not one
std::string pragma_constant_text(int unroll);  // "#pragma unroll" / "#pragma unroll 4"
inline constexpr int kMaxPragmaUnroll = 16;

enum class GeneKind {
    Param,         // user-declared #define parameter: BLOCK_W=32,64,128
    Guard,         // a macro tested by #if/#ifdef in the kernel: on/off (alternative code paths)
    Flag,          // user-declared compile option: use_fast_math on/off, maxrregcount=32..255
    Restrict,      // __restrict__ on all pointer parameters or none: "0"/"1"
    Volatile,      // volatile on all __shared__ declarations or none: "0"/"1"
    Const,         // const on one scalar parameter: "0"/"1"
    LaunchBounds,  // __launch_bounds__: "off", "on" (threads only), "1".."5" (threads, min blocks)
    // Transformations of the kernel's own code, one gene a site (grammar/transforms.hpp; the
    // variant stage rewrites the site's text, variant/transform_apply.hpp):
    Unroll,        // a canonical for loop's body unrolled by hand: "1" (as written), "2", "4", "8"
    Hoist,         // a loop-invariant declaration moved before its loop: "0"/"1"
    Unguard,       // a bounds check the launch geometry may make redundant dropped: "0"/"1"
    Vectorize,     // a unit-step loop's p[V] reads loaded as float2/float4: "1" (as written), "2", "4"
    WarpReduce,    // a shared-memory tree reduction's last six steps by warp shuffles: "0"/"1"
    Coarsen,       // each thread does the elements of 1, 2 or 4 threads, the grid divided: "1", "2", "4"
    Stage,         // a stencil loop's reads of a const array from a __shared__ copy of the block's window: "0"/"1"
};

// Vectorize: a `const float*` parameter the loop's body reads only as p[V].
struct VectorRead {
    std::string pointer;
    bool restricted = false;  // declared __restrict__: the body may store to other memory
};

// Where a transformation gene acts: byte ranges of the original file. The variant stage reads the
// text edits and other genes left there and rewrites it, so a transformation composes with them.
struct TransformSite {
    std::size_t begin = 0;       // the text a non-default value rewrites: Unroll the loop's body
    std::size_t end = 0;         // statement, Hoist the declaration, Unguard the if condition
    std::size_t at = 0;          // Hoist: where the declaration goes (the start of the loop's line)
    std::string indent;          // Hoist: that line's indentation
    std::size_t cond_begin = 0;  // Unroll: the loop header's condition and step
    std::size_t cond_end = 0;
    std::size_t step_begin = 0;
    std::size_t step_end = 0;
    std::string replacement;     // Unguard: the condition that drops the check ("true", "false")
    std::vector<VectorRead> reads;  // Vectorize (with Unroll's body, condition and step)
    std::size_t scope_begin = 0;    // WarpReduce: its function's body (inside the braces), whose
    std::size_t scope_end = 0;      // text before and after the loop [begin, end) the premise reads
    std::size_t grid_begin = 0;     // Coarsen: the x expression of the grid the file's host code
    std::size_t grid_end = 0;       // computes ([begin, end) is the kernel's body)
    StageContext stage;             // Stage (with WarpReduce's scope): the array, its element type, the
                                    // block size and the compile-time constant names
};

struct Gene {
    std::string name;                 // as written in genomes: "BLOCK_W", "XHALO", "use_fast_math", "restrict", "const_width"
    GeneKind kind = GeneKind::Param;
    std::vector<std::string> values;  // every allowed value, default included
    std::string default_value;        // what the unedited source means
    bool numeric = false;             // all values are integers (a tuner may sweep it)
    std::string flag_template;        // Flag: the option text with "{}" where the value goes ("" for on/off flags)
    std::string launch_threads;       // LaunchBounds: the max-threads expression
    int line = 0;                     // where the gene shows in the source (0 for flags)
    TransformSite site;               // the transformations (is_transform_gene): where it acts
};

// Whether the gene is a transformation of the kernel's code (Unroll, Hoist, Unguard, Vectorize,
// WarpReduce, Coarsen, Stage) rather than a configuration value.
bool is_transform_gene(GeneKind kind);

// A piece of the file: literal text, a rule slot, or a gene slot whose text depends on a gene value.
struct Piece {
    enum class Kind { Literal, RuleSlot, GeneSlot } kind = Kind::Literal;
    std::string text;   // Literal: the text. GeneSlot: the original text of the slot
    int index = -1;     // RuleSlot: index into rules; GeneSlot: index into genes
    // GeneSlot detail: for Param/Guard the macro line's prefix ("#define NAME "); for Restrict the
    // text value "1" writes there (" __restrict__", or " __restrict__ " before a glued name as in
    // "float *data"). RuleSlot of an empty pragma: the indentation of its for line.
    std::string extra;
    int line = 0;
};

// One #if/#ifdef/#elif/#else region's condition as a C preprocessor expression over macros,
// already combined with the earlier branches of its chain ("!(A) && (B)" for an #elif B).
struct PreprocessorCondition {
    std::string expression;
    int line = 0;
};

struct KernelParameter {
    std::string type;  // as written, without the name
    std::string name;
    bool is_pointer = false;
    bool is_const = false;
    int line = 0;
};

struct Function {
    std::string name;
    bool is_global = false;  // __global__ (kernel) or __device__ helper
    bool is_template = false;  // a template: the program runs instantiations of it ("k<32>")
    int first_line = 0;      // the line of the signature's start
    int body_first_line = 0; // the line of the opening brace
    int last_line = 0;       // the line of the closing brace
    std::vector<KernelParameter> parameters;
};

// The function a --function name means: "MatrixMulCUDA<32>" names the template MatrixMulCUDA (one
// instantiation of it, which replay runs); other names stand as they are.
std::string template_base_name(const std::string& name);

// The template arguments a --function name gives, split at top-level commas and trimmed:
// "K<32, float>" -> {"32", "float"}, "MatrixMulCUDA<TILE>" -> {"TILE"}, "k" -> {}.
std::vector<std::string> template_arguments(const std::string& name);

// The instantiation a registration names once each template argument that is one of `values`'
// names alone is replaced by its value: "MatrixMulCUDA<TILE>" with TILE=16 -> "MatrixMulCUDA<16>",
// the way a demangled kernel name spells it. `name` itself when no argument is such a name.
std::string with_template_arguments(const std::string& name, const std::map<std::string, std::string>& values);

// A file name as it appears in rule ids ("stereo.cu" in <_stereo.cu_288>): every character a genome
// cannot hold inside a rule name (white space, '<', '>', control characters) becomes '_', so a
// kernel named "my kernel.cu" gets ids like <_my_kernel.cu_12> that read back.
std::string rule_id_file_part(const std::string& file_name);

struct Grammar {
    std::string source_path;  // for messages
    std::string file_name;    // basename as used in ids: rule_id_file_part of the file's name
    std::string source_hash;  // sha256 of the source text
    std::vector<Piece> pieces;
    std::vector<Rule> rules;
    std::vector<Gene> genes;
    std::vector<PreprocessorCondition> conditions;
    std::vector<Function> functions;     // the kernels asked for, then the helpers included
    std::vector<std::string> notes;      // things a person should know (a gene not offered and why)
    // Object-like macros #defined at file level outside any #if (name -> replacement text), so #if
    // conditions can be evaluated under a genome's configuration.
    std::map<std::string, std::string> file_macros;

    const Rule* find_rule(std::string_view id) const;   // by id ("_k.cu_12") or name ("<_k.cu_12>")
    const Gene* find_gene(std::string_view name) const;
    int rule_index(std::string_view id) const;          // -1 when absent
    int gene_index(std::string_view name) const;        // -1 when absent
};

}  // namespace gi
