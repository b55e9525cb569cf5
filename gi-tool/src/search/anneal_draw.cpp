#include "search/anneal_draw.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "util/error.hpp"

namespace gi {

std::size_t best_index(const std::vector<Score>& scores) {
    if (scores.empty()) throw Error("best_index: no individuals");
    std::size_t best = 0;
    for (std::size_t i = 1; i < scores.size(); ++i)
        if (scores[i].mean > scores[best].mean) best = i;
    return best;
}

double draw_temperature(const Score& top, Rng& rng) {
    if (!(top.mean > 0)) return 1.0;
    const double hi = top.mean;
    const double lo = std::min(hi, std::max(top.deviation, 1e-6 * hi));
    return std::exp(std::log(lo) + rng.uniform01() * (std::log(hi) - std::log(lo)));
}

std::vector<double> draw_probabilities(const std::vector<Score>& scores, double temperature) {
    if (scores.empty()) return {};
    const Score& top = scores[best_index(scores)];
    std::vector<double> exponent(scores.size());
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const double noise = top.deviation + scores[i].deviation;
        exponent[i] = (scores[i].mean - top.mean + noise) / (temperature + noise);
    }
    // Subtracting the largest exponent keeps exp() finite; the ratios are unchanged.
    const double most = *std::max_element(exponent.begin(), exponent.end());
    std::vector<double> p(scores.size());
    double total = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) total += p[i] = std::exp(exponent[i] - most);
    for (double& v : p) v /= total;
    return p;
}

Genome triangulate(const Genome& base, const Genome& secondary, const Genome& primary, const Grammar& grammar) {
    Genome child;
    std::vector<std::string> names;
    for (const Genome* g : {&primary, &secondary, &base})
        for (const GeneSetting& s : g->settings)
            if (std::find(names.begin(), names.end(), s.name) == names.end()) names.push_back(s.name);
    for (const std::string& name : names) {
        const Gene* gene = grammar.find_gene(name);
        const std::string fallback = gene ? gene->default_value : std::string();
        const std::string b = setting_or(base, name, fallback), s = setting_or(secondary, name, fallback),
                          p = setting_or(primary, name, fallback);
        const std::string value = p != b ? p : s;
        // A gene the grammar lacks is kept as written so validation reports it.
        if (!gene || value != gene->default_value) child.settings.push_back({name, value});
    }
    auto has = [](const Genome& g, const Edit& e) { return std::find(g.edits.begin(), g.edits.end(), e) != g.edits.end(); };
    for (const Genome* g : {&primary, &secondary, &base}) {
        for (const Edit& e : g->edits) {
            if (has(child, e)) continue;
            const bool in_b = has(base, e), in_p = has(primary, e);
            if (in_p != in_b ? in_p : has(secondary, e)) child.edits.push_back(e);
        }
    }
    return child;
}

}  // namespace gi
