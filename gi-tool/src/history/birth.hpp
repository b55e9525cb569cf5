#pragma once
// How an individual came to be, for the history database and for lineage questions ("which
// births produce the winners?", seed 003 section 5). A strategy that knows its children's births
// says so through Strategy::births(); the history database asks it after each generation.
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

// A strategy's births as checkpoint text (one line per genome: the birth, then its parents' genome
// texts, tab-separated) and back. `owner` names the strategy in the error a damaged text gives.
std::string births_to_text(const std::vector<BirthInfo>& births);
std::vector<BirthInfo> births_from_text(const std::string& text, const std::string& owner);

}  // namespace gi
