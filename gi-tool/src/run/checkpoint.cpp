#include "run/checkpoint.hpp"

#include <tinyxml2.h>

#include <limits>

#include "util/atomic_file.hpp"
#include "run/record_xml.hpp"
#include "util/error.hpp"

namespace gi {

using tinyxml2::XMLElement;

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint) {
    tinyxml2::XMLDocument document;
    document.InsertEndChild(document.NewDeclaration());
    XMLElement* root = document.NewElement("gi-checkpoint");
    document.InsertEndChild(root);
    root->SetAttribute("format", kCheckpointFormat);
    root->SetAttribute("phase", checkpoint.phase.c_str());
    root->SetAttribute("next-generation", checkpoint.next_generation);
    XMLElement* fingerprint = document.NewElement("fingerprint");
    root->InsertEndChild(fingerprint);
    for (const auto& [name, value] : checkpoint.fingerprint) {
        XMLElement* item = document.NewElement("item");
        item->SetAttribute("name", name.c_str());
        item->SetAttribute("value", value.c_str());
        fingerprint->InsertEndChild(item);
    }
    XMLElement* rng = document.NewElement("rng");
    rng->SetAttribute("state", checkpoint.rng_state.c_str());
    root->InsertEndChild(rng);
    XMLElement* strategy = document.NewElement("strategy");
    strategy->SetAttribute("state", checkpoint.strategy_state.c_str());
    root->InsertEndChild(strategy);
    XMLElement* population = document.NewElement("population");
    root->InsertEndChild(population);
    for (const Genome& genome : checkpoint.population) {
        XMLElement* member = document.NewElement("member");
        member->SetAttribute("genome", genome_to_text(genome).c_str());
        population->InsertEndChild(member);
    }
    write_run_record(root, checkpoint.record);
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    write_file_atomically(file, printer.CStr());
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
    const std::string file = path.string();
    if (!std::filesystem::exists(path))
        throw Error(file + ": no checkpoint to resume (the file does not exist); run without --resume to start a run");
    const std::string text = read_text_file(path, "checkpoint");
    tinyxml2::XMLDocument document;
    if (document.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS)
        throw_at(file, document.ErrorLineNum(), std::string("not a readable checkpoint: ") + document.ErrorStr(),
                 "the file is damaged; start the run again with --restart");
    const XMLElement* root = document.RootElement();
    if (root == nullptr || std::string(root->Name()) != "gi-checkpoint")
        throw_at(file, root ? root->GetLineNum() : 0, "not a gi-tool checkpoint (no <gi-checkpoint> element)",
                 "point --out at the directory of an earlier gi-tool evolve run");
    if (integer_attribute(root, "format", file) != kCheckpointFormat)
        throw_at(file, root->GetLineNum(),
                 "checkpoint format " + required_attribute(root, "format", file) + " is not the format " +
                     std::to_string(kCheckpointFormat) + " this gi-tool writes",
                 "start the run again with --restart");
    Checkpoint checkpoint;
    checkpoint.phase = required_attribute(root, "phase", file);
    if (checkpoint.phase != "search" && checkpoint.phase != "searched" && checkpoint.phase != "finished")
        throw_at(file, root->GetLineNum(), "unknown phase '" + checkpoint.phase + "'",
                 "the file is damaged; start the run again with --restart");
    const long long next_generation = integer_attribute(root, "next-generation", file);
    if (next_generation < 0 || next_generation > std::numeric_limits<int>::max())
        throw_at(file, root->GetLineNum(),
                 "next-generation=\"" + std::to_string(next_generation) + "\" is not a generation number",
                 "the file is damaged; start the run again with --restart");
    checkpoint.next_generation = static_cast<int>(next_generation);
    const XMLElement* fingerprint = required_child(root, "fingerprint", file);
    for (const XMLElement* item = fingerprint->FirstChildElement("item"); item; item = item->NextSiblingElement("item"))
        checkpoint.fingerprint.emplace_back(required_attribute(item, "name", file),
                                            required_attribute(item, "value", file));
    checkpoint.rng_state = required_attribute(required_child(root, "rng", file), "state", file);
    checkpoint.strategy_state = required_attribute(required_child(root, "strategy", file), "state", file);
    const XMLElement* population = required_child(root, "population", file);
    for (const XMLElement* member = population->FirstChildElement("member"); member;
         member = member->NextSiblingElement("member")) {
        try {
            checkpoint.population.push_back(parse_genome(required_attribute(member, "genome", file)));
        } catch (const Error& e) {
            throw_at(file, member->GetLineNum(), std::string("bad genome in the population: ") + e.what(),
                     "the file is damaged; start the run again with --restart");
        }
    }
    checkpoint.record = read_run_record(required_child(root, "gi-run", file), file);
    // Every finished generation left one record, so the two counts agree in any file gi-tool wrote.
    if (static_cast<std::size_t>(checkpoint.next_generation) != checkpoint.record.generations.size())
        throw_at(file, root->GetLineNum(),
                 "next-generation=\"" + std::to_string(checkpoint.next_generation) + "\" but the run record holds " +
                     std::to_string(checkpoint.record.generations.size()) + " finished generation(s)",
                 "the file is damaged; start the run again with --restart");
    return checkpoint;
}

void require_same_fingerprint(const Fingerprint& expected, const Fingerprint& found, const std::string& file) {
    std::string differences;
    auto value_in = [](const Fingerprint& list, const std::string& name) -> const std::string* {
        for (const auto& [n, v] : list)
            if (n == name) return &v;
        return nullptr;
    };
    for (const auto& [name, value] : expected) {
        const std::string* theirs = value_in(found, name);
        if (theirs != nullptr && *theirs == value) continue;
        differences += "\n  " + name + ": the checkpoint has " + (theirs ? "'" + *theirs + "'" : "nothing") +
                       ", this run has '" + value + "'";
    }
    for (const auto& [name, value] : found)
        if (value_in(expected, name) == nullptr)
            differences += "\n  " + name + ": the checkpoint has '" + value + "', this run has nothing";
    if (!differences.empty())
        throw Error(file + ": the checkpoint belongs to another run:" + differences +
                    "\n(resume with the same kernel, kernel options and search options, or start this run "
                    "afresh with --restart or another --out)");
}

}  // namespace gi
