#include "genome/random_edit.hpp"

#include "genome/validate.hpp"
#include "variant/apply.hpp"

namespace gi {

EditSpace::EditSpace(const Grammar& grammar, const MacroTable& macros) {
    const std::size_t n = grammar.rules.size();
    rule_ids_.reserve(n);
    std::vector<bool> live(n);
    for (std::size_t i = 0; i < n; ++i) {
        rule_ids_.push_back(grammar.rules[i].id);
        live[i] = rule_is_live(grammar.rules[i], grammar, macros);
    }

    const CopyContext copies(grammar);
    for (std::size_t t = 0; t < n; ++t) {
        if (!live[t]) continue;
        const Rule& target = grammar.rules[t];
        Group replace{t, Edit::Op::Replace, {}};
        if (target.kind == RuleKind::Pragma) {
            // Pragma slots take the constants; copying another slot could only repeat one of them.
            for (int unroll = 0; unroll <= kMaxPragmaUnroll; ++unroll)
                if (pragma_constant_text(unroll) != target.text) replace.sources.push_back(-1 - unroll);
            if (!target.text.empty()) groups_.push_back({t, Edit::Op::Delete, {}});
        } else {
            Group insert{t, Edit::Op::Insert, {}};
            for (std::size_t s = 0; s < n; ++s) {
                const Rule& source = grammar.rules[s];
                if (!live[s] || source.kind != target.kind || !copies.allows(target, source)) continue;
                if (source.text != target.text) replace.sources.push_back(static_cast<int>(s));
                if (target.kind == RuleKind::Statement) insert.sources.push_back(static_cast<int>(s));
            }
            if (target.kind == RuleKind::Statement) {
                groups_.push_back({t, Edit::Op::Delete, {}});
                if (!insert.sources.empty()) groups_.push_back(std::move(insert));
            }
        }
        if (!replace.sources.empty()) groups_.push_back(std::move(replace));
    }
    for (const Group& group : groups_) size_ += group.count();
}

Edit EditSpace::make_edit(const Group& group, std::size_t choice) const {
    Edit edit;
    edit.op = group.op;
    edit.target = rule_ids_[group.target];
    if (group.op != Edit::Op::Delete) {
        const int source = group.sources.at(choice);
        edit.source = source < 0 ? pragma_constant_id(-1 - source) : rule_ids_[static_cast<std::size_t>(source)];
    }
    return edit;
}

std::vector<Edit> EditSpace::enumerate() const {
    std::vector<Edit> edits;
    edits.reserve(size_);
    for (const Group& group : groups_)
        for (std::size_t i = 0; i < group.count(); ++i) edits.push_back(make_edit(group, i));
    return edits;
}

std::optional<Edit> EditSpace::draw(Rng& rng, EditWeighting weighting) const {
    if (groups_.empty()) return std::nullopt;
    std::vector<double> weights(groups_.size(), 0.0);
    if (weighting == EditWeighting::UniformOverEdits) {
        for (std::size_t g = 0; g < groups_.size(); ++g) weights[g] = static_cast<double>(groups_[g].count());
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
    return make_edit(group, group.op == Edit::Op::Delete ? 0 : rng.index(group.sources.size()));
}

std::optional<Edit> draw_random_edit(const Grammar& grammar, const MacroTable& macros, Rng& rng,
                                     EditWeighting weighting) {
    return EditSpace(grammar, macros).draw(rng, weighting);
}

std::vector<Edit> enumerate_legal_edits(const Grammar& grammar, const MacroTable& macros) {
    return EditSpace(grammar, macros).enumerate();
}

std::string edit_category(const Edit& edit, const Grammar& grammar) {
    const Rule* target = grammar.find_rule(edit.target);
    if (target == nullptr) return "unknown";
    switch (target->kind) {
        case RuleKind::Statement:
            return edit.op == Edit::Op::Delete ? "delete" : edit.op == Edit::Op::Replace ? "replace" : "insert";
        case RuleKind::IfCondition: return "if";
        case RuleKind::ForInit: return "for1";
        case RuleKind::ForCond: return "for2";
        case RuleKind::ForStep: return "for3";
        case RuleKind::Pragma: return "pragma";
    }
    return "unknown";
}

}  // namespace gi
