#include "run/checkpoint.hpp"

#include <tinyxml2.h>

#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "genome/validate.hpp"
#include "util/atomic_file.hpp"
#include "run/record_xml.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {

using tinyxml2::XMLElement;

std::string phase_word(CheckpointPhase phase) {
    switch (phase) {
        case CheckpointPhase::Start: return "start";
        case CheckpointPhase::Search: return "search";
        case CheckpointPhase::Searched: return "searched";
        case CheckpointPhase::Finished: return "finished";
    }
    return "unknown";
}

std::optional<CheckpointPhase> saved_phase_from_word(const std::string& word) {
    // "start" is left out: the first save comes after that phase, so a file naming it was not ours.
    for (CheckpointPhase phase : {CheckpointPhase::Search, CheckpointPhase::Searched, CheckpointPhase::Finished})
        if (word == phase_word(phase)) return phase;
    return std::nullopt;
}

std::filesystem::path generation_log_path(const std::filesystem::path& file) {
    std::filesystem::path log = file;
    return log.replace_extension(".generations");
}

namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& path, int error) {
    throw Error(path.string() + ": cannot write the generation log (" + std::strerror(error) + ")");
}

}  // namespace

CheckpointWriter::CheckpointWriter(std::filesystem::path file, const Checkpoint* continued)
    : file_(std::move(file)), log_(generation_log_path(file_)) {
    // A format-1 checkpoint (generations inline, no log) counts no bytes: its generations are all
    // written to the log at the first save.
    if (continued != nullptr && continued->generation_log_bytes > 0) {
        logged_ = continued->record.generations.size();
        log_bytes_ = continued->generation_log_bytes;
    }
}

void CheckpointWriter::append_to_log(const std::string& text) {
    // Never through a link planted where the log goes (O_NOFOLLOW), and written at the offset the
    // last checkpoint counts: what a killed session appended after it is overwritten or cut off.
    const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) cannot_write(log_, errno);
    auto fail = [&](int error) {
        ::close(fd);
        cannot_write(log_, error);
    };
    if (!log_opened_) {
        struct stat info {};
        if (::fstat(fd, &info) != 0) fail(errno);
        if (!S_ISREG(info.st_mode)) fail(EINVAL);
        if (::ftruncate(fd, static_cast<off_t>(log_bytes_)) != 0) fail(errno);
        log_opened_ = true;
    }
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(log_bytes_ + done));
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(errno);
        }
        done += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) fail(errno);
    if (::close(fd) != 0) cannot_write(log_, errno);
    log_bytes_ += text.size();
    bytes_written_ += text.size();
}

void CheckpointWriter::save(const Checkpoint& checkpoint) {
    const std::vector<GenerationRecord>& generations = checkpoint.record.generations;
    if (generations.size() < logged_)
        throw Error(file_.string() + ": the run record holds " + std::to_string(generations.size()) +
                    " generations, fewer than the " + std::to_string(logged_) + " already in " + log_.string());
    std::string appended;
    for (std::size_t i = logged_; i < generations.size(); ++i) appended += generation_xml(generations[i]);
    if (!appended.empty() || !log_opened_) append_to_log(appended);
    logged_ = generations.size();

    tinyxml2::XMLDocument document;
    document.InsertEndChild(document.NewDeclaration());
    XMLElement* root = document.NewElement("gi-checkpoint");
    document.InsertEndChild(root);
    root->SetAttribute("format", kCheckpointFormat);
    root->SetAttribute("phase", phase_word(checkpoint.phase).c_str());
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
    XMLElement* log = document.NewElement("generation-log");
    log->SetAttribute("file", log_.filename().string().c_str());
    log->SetAttribute("records", static_cast<int64_t>(logged_));
    log->SetAttribute("bytes", static_cast<int64_t>(log_bytes_));
    root->InsertEndChild(log);
    write_run_record(root, checkpoint.record, /*with_generations=*/false);
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    write_file_atomically(file_, printer.CStr());
    bytes_written_ += static_cast<std::uint64_t>(printer.CStrSize() > 0 ? printer.CStrSize() - 1 : 0);
}

void save_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint) {
    CheckpointWriter(file, nullptr).save(checkpoint);
}

namespace {

// The generations a format-2 checkpoint counts, read from its log.
std::vector<GenerationRecord> read_generation_log(const std::filesystem::path& checkpoint_file,
                                                  const XMLElement* log_element, std::uint64_t& bytes) {
    const std::string file = checkpoint_file.string();
    const std::filesystem::path log = generation_log_path(checkpoint_file);
    const long long records = integer_attribute(log_element, "records", file);
    const long long counted = integer_attribute(log_element, "bytes", file);
    if (records < 0 || counted < 0)
        throw_at(file, log_element->GetLineNum(), "<generation-log> counts a negative number",
                 "the file is damaged; start the run again with --restart");
    if (!std::filesystem::exists(log))
        throw Error(log.string() + ": the generation log of " + file + " is missing (it holds the records of the " +
                    std::to_string(records) + " finished generations); restore it, or start the run again with --restart");
    const std::string text = read_text_file(log, "generation log");
    if (text.size() < static_cast<std::uint64_t>(counted))
        throw Error(log.string() + ": holds " + std::to_string(text.size()) + " bytes, but " + file + " counts " +
                    std::to_string(counted) + "; the log was cut or replaced: start the run again with --restart");
    // Bytes past the count are a generation a killed session appended after its last checkpoint.
    const std::string wrapped = "<generations>" + text.substr(0, static_cast<std::size_t>(counted)) + "</generations>";
    tinyxml2::XMLDocument document;
    if (document.Parse(wrapped.c_str(), wrapped.size()) != tinyxml2::XML_SUCCESS)
        throw_at(log.string(), document.ErrorLineNum(), std::string("not a readable generation log: ") + document.ErrorStr(),
                 "the file is damaged; start the run again with --restart");
    std::vector<GenerationRecord> generations = read_generations(document.RootElement(), log.string());
    if (generations.size() != static_cast<std::size_t>(records))
        throw Error(log.string() + ": holds " + std::to_string(generations.size()) + " generation records where " + file +
                    " counts " + std::to_string(records) + "; the file is damaged: start the run again with --restart");
    for (std::size_t i = 0; i < generations.size(); ++i)
        if (generations[i].index != static_cast<int>(i))
            throw Error(log.string() + ": record " + std::to_string(i + 1) + " is of generation " +
                        std::to_string(generations[i].index) + ", not " + std::to_string(i) +
                        "; the file is damaged: start the run again with --restart");
    bytes = static_cast<std::uint64_t>(counted);
    return generations;
}

}  // namespace

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
    const long long format = integer_attribute(root, "format", file);
    if (format != kCheckpointFormat && format != 1)
        throw_at(file, root->GetLineNum(),
                 "checkpoint format " + required_attribute(root, "format", file) + " is not a format (1 or " +
                     std::to_string(kCheckpointFormat) + ") this gi-tool reads",
                 "start the run again with --restart");
    Checkpoint checkpoint;
    const std::string phase = required_attribute(root, "phase", file);
    const std::optional<CheckpointPhase> saved = saved_phase_from_word(phase);
    if (!saved)
        throw_at(file, root->GetLineNum(), "unknown phase '" + phase + "'",
                 "the file is damaged; start the run again with --restart");
    checkpoint.phase = *saved;
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
    if (format != 1)
        checkpoint.record.generations =
            read_generation_log(path, required_child(root, "generation-log", file), checkpoint.generation_log_bytes);
    // Every finished generation left one record, so the two counts agree in any file gi-tool wrote.
    if (static_cast<std::size_t>(checkpoint.next_generation) != checkpoint.record.generations.size())
        throw_at(file, root->GetLineNum(),
                 "next-generation=\"" + std::to_string(checkpoint.next_generation) + "\" but the run record holds " +
                     std::to_string(checkpoint.record.generations.size()) + " finished generation(s)",
                 "the file is damaged; start the run again with --restart");
    return checkpoint;
}

void check_resumed_population(const Checkpoint& checkpoint, const Grammar& grammar, std::size_t expected,
                              const std::string& file) {
    const std::string advice = "\n(the file is damaged or was edited; start the run again with --restart)";
    const std::size_t size = checkpoint.population.size();
    if (checkpoint.phase == CheckpointPhase::Search && size != expected)
        throw Error(file + ": the population has " + std::to_string(size) + (size == 1 ? " member" : " members") +
                    ", but this run's generation " + std::to_string(checkpoint.next_generation) + " has " +
                    std::to_string(expected) + advice);
    for (std::size_t i = 0; i < size; ++i) {
        const std::vector<GenomeProblem> problems = validate_genome(checkpoint.population[i], grammar);
        if (problems.empty()) continue;
        std::string message = file + ": population member " + std::to_string(i + 1) + " '" +
                              excerpt(genome_to_text(checkpoint.population[i])) + "' does not fit the kernel " +
                              grammar.source_path + ":";
        constexpr std::size_t kListed = 5;
        for (std::size_t p = 0; p < problems.size() && p < kListed; ++p)
            message += "\n  " + excerpt(problems[p].item) + ": " + problems[p].message;
        if (problems.size() > kListed) message += "\n  ... and " + std::to_string(problems.size() - kListed) + " more";
        throw Error(message + advice);
    }
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
