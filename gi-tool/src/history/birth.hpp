#pragma once
// How an individual came to be, for the history database and for lineage questions ("which
// births produce the winners?", seed 003 section 5). A strategy that knows its children's births
// implements BirthReporter; the history database asks it after each generation.
#include <string>
#include <vector>

namespace gi {

// Elite: a parent kept and measured again in the next generation (NSGA-II's elitism).
enum class Birth { Init, Mutation, Crossover, Triangulation, Elite, Tune, Minimise, Unknown };
std::string to_string(Birth birth);
Birth birth_from_string(const std::string& text);  // throws gi::Error on unknown text

struct BirthInfo {
    Birth birth = Birth::Unknown;
    std::vector<std::string> parents;  // genome texts, in the birth's order
};

class BirthReporter {
public:
    virtual ~BirthReporter() = default;
    // One entry per genome of the population the strategy returned last (initial or next), in order.
    virtual std::vector<BirthInfo> births() const = 0;
};

}  // namespace gi
