#include "genome/random_edit.hpp"

#include "genome/validate.hpp"
#include "grammar/liveness.hpp"

namespace gi {

EditSpace::EditSpace(const Grammar& grammar, const MacroTable& macros)
    : grammar_(std::make_shared<const Grammar>(grammar)), copies_(std::make_shared<const CopyContext>(*grammar_)) {
    const std::size_t n = grammar_->rules.size();
    live_.resize(n);
    for (std::size_t i = 0; i < n; ++i) live_[i] = rule_is_live(grammar_->rules[i], *grammar_, macros);

    auto add = [&](std::size_t target, Edit::Op op) {
        Group group{target, op, 0};
        if (op == Edit::Op::Delete) {
            group.count = 1;
        } else {
            for_each_source(group, [&](int) {
                ++group.count;
                return true;
            });
        }
        if (group.count > 0) groups_.push_back(group);
    };
    for (std::size_t t = 0; t < n; ++t) {
        if (!live_[t]) continue;
        const Rule& target = grammar_->rules[t];
        const RuleKindInfo& kind = rule_kind_info(target.kind);
        if (kind.may_delete && !target.text.empty()) add(t, Edit::Op::Delete);  // an empty slot: nothing to delete
        if (kind.may_insert) add(t, Edit::Op::Insert);
        add(t, Edit::Op::Replace);
    }
    for (const Group& group : groups_) size_ += group.count;
}

bool EditSpace::takes(const Group& group, int s) const {
    const Rule& target = grammar_->rules[group.target];
    if (s < 0) {
        // Pragma slots take the constants; copying another slot could only repeat one of them.
        return group.op == Edit::Op::Replace && target.kind == RuleKind::Pragma &&
               pragma_constant_text(-1 - s) != target.text;
    }
    const Rule& source = grammar_->rules[static_cast<std::size_t>(s)];
    if (target.kind == RuleKind::Pragma || !live_[static_cast<std::size_t>(s)] || source.kind != target.kind ||
        !copies_->allows(target, source))
        return false;
    return group.op == Edit::Op::Insert ? target.kind == RuleKind::Statement : source.text != target.text;
}

template <typename Visit>
void EditSpace::for_each_source(const Group& group, Visit visit) const {
    if (grammar_->rules[group.target].kind == RuleKind::Pragma) {
        for (int unroll = 0; unroll <= kMaxPragmaUnroll; ++unroll)
            if (takes(group, -1 - unroll) && !visit(-1 - unroll)) return;
        return;
    }
    for (std::size_t s = 0; s < grammar_->rules.size(); ++s)
        if (takes(group, static_cast<int>(s)) && !visit(static_cast<int>(s))) return;
}

Edit EditSpace::make_edit(const Group& group, std::size_t choice) const {
    Edit edit;
    edit.op = group.op;
    edit.target = grammar_->rules[group.target].id;
    if (group.op != Edit::Op::Delete) {
        int chosen = 0;
        std::size_t seen = 0;
        for_each_source(group, [&](int source) {
            if (seen++ < choice) return true;
            chosen = source;
            return false;
        });
        edit.source =
            chosen < 0 ? pragma_constant_id(-1 - chosen) : grammar_->rules[static_cast<std::size_t>(chosen)].id;
    }
    return edit;
}

std::vector<Edit> EditSpace::enumerate() const {
    std::vector<Edit> edits;
    edits.reserve(size_);
    for (const Group& group : groups_) {
        if (group.op == Edit::Op::Delete) {
            edits.push_back(make_edit(group, 0));
            continue;
        }
        for_each_source(group, [&](int source) {
            Edit edit{};
            edit.op = group.op;
            edit.target = grammar_->rules[group.target].id;
            edit.source =
                source < 0 ? pragma_constant_id(-1 - source) : grammar_->rules[static_cast<std::size_t>(source)].id;
            edits.push_back(std::move(edit));
            return true;
        });
    }
    return edits;
}

std::optional<Edit> EditSpace::draw(Rng& rng, EditWeighting weighting) const {
    if (groups_.empty()) return std::nullopt;
    std::vector<double> weights(groups_.size(), 0.0);
    if (weighting == EditWeighting::UniformOverEdits) {
        for (std::size_t g = 0; g < groups_.size(); ++g) weights[g] = static_cast<double>(groups_[g].count);
    } else {
        // Pick the operation first among those with any legal edit, then a target uniformly.
        constexpr Edit::Op kOps[] = {Edit::Op::Delete, Edit::Op::Replace, Edit::Op::Insert};
        std::vector<double> op_weights(3, 0.0);
        for (const Group& group : groups_)
            for (int k = 0; k < 3; ++k)
                if (group.op == kOps[k]) op_weights[static_cast<std::size_t>(k)] = 1.0;
        const Edit::Op op = kOps[rng.weighted_index(op_weights)];
        for (std::size_t g = 0; g < groups_.size(); ++g) weights[g] = groups_[g].op == op ? 1.0 : 0.0;
    }
    const Group& group = groups_[rng.weighted_index(weights)];
    return make_edit(group, group.op == Edit::Op::Delete ? 0 : rng.index(group.count));
}

std::optional<Edit> draw_random_edit(const Grammar& grammar, const MacroTable& macros, Rng& rng,
                                     EditWeighting weighting) {
    return EditSpace(grammar, macros).draw(rng, weighting);
}

std::vector<Edit> enumerate_legal_edits(const Grammar& grammar, const MacroTable& macros) {
    return EditSpace(grammar, macros).enumerate();
}

namespace {
std::string op_name(Edit::Op op) { return op == Edit::Op::Delete ? "delete" : op == Edit::Op::Replace ? "replace" : "insert"; }
}  // namespace

std::string edit_category(const Edit& edit, const Grammar& grammar) {
    if (is_ptx_edit(edit)) return "ptx";
    const Rule* target = grammar.find_rule(edit.target);
    if (target == nullptr) return "unknown";
    const RuleKindInfo& kind = rule_kind_info(target->kind);
    return kind.category.empty() ? op_name(edit.op) : std::string(kind.category);
}

std::vector<std::string> edit_categories() {
    std::vector<std::string> categories;
    for (const RuleKindInfo& kind : rule_kinds()) {
        if (!kind.category.empty()) {
            categories.emplace_back(kind.category);
            continue;
        }
        if (kind.may_delete) categories.push_back(op_name(Edit::Op::Delete));
        categories.push_back(op_name(Edit::Op::Replace));
        if (kind.may_insert) categories.push_back(op_name(Edit::Op::Insert));
    }
    return categories;
}

}  // namespace gi
