#include "run/record_xml.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "util/error.hpp"

namespace gi {

using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

std::string format_number(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return buffer;
}

namespace {

[[noreturn]] void damaged(const XMLElement* element, const std::string& file, const std::string& what) {
    throw_at(file, element ? element->GetLineNum() : 0, what,
             "the file is damaged or was not written by this gi-tool; start the run again without --resume");
}

}  // namespace

const XMLElement* required_child(const XMLElement* element, const char* name, const std::string& file) {
    const XMLElement* child = element->FirstChildElement(name);
    if (child == nullptr) damaged(element, file, std::string("<") + element->Name() + "> lacks <" + name + ">");
    return child;
}

std::string required_attribute(const XMLElement* element, const char* name, const std::string& file) {
    const char* value = element->Attribute(name);
    if (value == nullptr)
        damaged(element, file, std::string("<") + element->Name() + "> lacks the attribute '" + name + "'");
    return value;
}

double number_attribute(const XMLElement* element, const char* name, const std::string& file) {
    const std::string text = required_attribute(element, name, file);
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
        damaged(element, file, std::string("attribute '") + name + "' is not a number: '" + text + "'");
    return value;
}

long long integer_attribute(const XMLElement* element, const char* name, const std::string& file) {
    const std::string text = required_attribute(element, name, file);
    char* end = nullptr;
    errno = 0;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        damaged(element, file, std::string("attribute '") + name + "' is not an integer: '" + text + "'");
    return value;
}

bool bool_attribute(const XMLElement* element, const char* name, const std::string& file) {
    const std::string text = required_attribute(element, name, file);
    if (text != "0" && text != "1")
        damaged(element, file, std::string("attribute '") + name + "' is not 0 or 1: '" + text + "'");
    return text == "1";
}

namespace {

int int_attribute(const XMLElement* element, const char* name, const std::string& file) {
    const long long value = integer_attribute(element, name, file);
    if (value < -2147483647LL || value > 2147483647LL)
        damaged(element, file, std::string("attribute '") + name + "' is out of range");
    return static_cast<int>(value);
}

void set(XMLElement* element, const char* name, const std::string& value) { element->SetAttribute(name, value.c_str()); }
void set(XMLElement* element, const char* name, double value) { set(element, name, format_number(value)); }
void set(XMLElement* element, const char* name, int value) { element->SetAttribute(name, value); }
void set(XMLElement* element, const char* name, bool value) { element->SetAttribute(name, value ? "1" : "0"); }

XMLElement* add(XMLNode* parent, const char* name) {
    XMLElement* element = parent->GetDocument()->NewElement(name);
    parent->InsertEndChild(element);
    return element;
}

void set_timing(XMLElement* element, const Timing& timing) {
    set(element, "median-ms", timing.median_ms);
    set(element, "spread-ms", timing.spread_ms);
    set(element, "repetitions", timing.repetitions);
}

void add_timing(XMLNode* parent, const char* name, const Timing& timing) { set_timing(add(parent, name), timing); }

Timing read_timing_attributes(const XMLElement* element, const std::string& file) {
    Timing timing;
    timing.median_ms = number_attribute(element, "median-ms", file);
    timing.spread_ms = number_attribute(element, "spread-ms", file);
    timing.repetitions = int_attribute(element, "repetitions", file);
    return timing;
}

Timing read_timing(const XMLElement* parent, const char* name, const std::string& file) {
    return read_timing_attributes(required_child(parent, name, file), file);
}

EvalStatus status_attribute(const XMLElement* element, const std::string& file) {
    const std::string text = required_attribute(element, "status", file);
    try {
        return eval_status_from_string(text);
    } catch (const Error&) {
        damaged(element, file, "unknown status '" + text + "'");
    }
}

void write_tune(XMLNode* parent, const char* name, const TuneResult& tune) {
    XMLElement* e = add(parent, name);
    set(e, "ran", tune.ran);
    set(e, "note", tune.note);
    set(e, "case", tune.case_index);
    set(e, "space-size", tune.space_size);
    set(e, "sampled", tune.sampled);
    set(e, "start", tune.start);
    set(e, "best", tune.best);
    add_timing(e, "start-time", tune.start_time);
    add_timing(e, "best-time", tune.best_time);
    add_timing(e, "original", tune.original);
    for (const TunePoint& point : tune.points) {
        XMLElement* p = add(e, "point");
        set(p, "genome", point.genome);
        set(p, "status", to_string(point.status));
        set(p, "error", point.error);
        set(p, "gain", point.gain);
        set(p, "accepted", point.accepted);
        add_timing(p, "time", point.time);
        add_timing(p, "start", point.start);
        add_timing(p, "original", point.original);
    }
}

TuneResult read_tune(const XMLElement* parent, const char* name, const std::string& file) {
    const XMLElement* e = required_child(parent, name, file);
    TuneResult tune;
    tune.ran = bool_attribute(e, "ran", file);
    tune.note = required_attribute(e, "note", file);
    tune.case_index = int_attribute(e, "case", file);
    tune.space_size = number_attribute(e, "space-size", file);
    tune.sampled = bool_attribute(e, "sampled", file);
    tune.start = required_attribute(e, "start", file);
    tune.best = required_attribute(e, "best", file);
    tune.start_time = read_timing(e, "start-time", file);
    tune.best_time = read_timing(e, "best-time", file);
    tune.original = read_timing(e, "original", file);
    for (const XMLElement* p = e->FirstChildElement("point"); p; p = p->NextSiblingElement("point")) {
        TunePoint point;
        point.genome = required_attribute(p, "genome", file);
        point.status = status_attribute(p, file);
        point.error = number_attribute(p, "error", file);
        point.gain = number_attribute(p, "gain", file);
        point.accepted = bool_attribute(p, "accepted", file);
        point.time = read_timing(p, "time", file);
        point.start = read_timing(p, "start", file);
        point.original = read_timing(p, "original", file);
        tune.points.push_back(std::move(point));
    }
    return tune;
}

void write_minimise(XMLNode* parent, const MinimiseResult& minimise) {
    XMLElement* e = add(parent, "minimise");
    set(e, "ran", minimise.ran);
    set(e, "note", minimise.note);
    set(e, "case", minimise.case_index);
    set(e, "before", minimise.before);
    set(e, "after", minimise.after);
    add_timing(e, "before-time", minimise.before_time);
    for (const MinimiseStep& step : minimise.steps) {
        XMLElement* s = add(e, "step");
        set(s, "item", step.item);
        if (step.pass > 1) set(s, "pass", step.pass);
        set(s, "removed", step.removed);
        set(s, "reason", step.reason);
        set(s, "status", to_string(step.status));
        set(s, "error", step.error);
        add_timing(s, "reference", step.reference);
        add_timing(s, "candidate", step.candidate);
    }
}

MinimiseResult read_minimise(const XMLElement* parent, const std::string& file) {
    const XMLElement* e = required_child(parent, "minimise", file);
    MinimiseResult minimise;
    minimise.ran = bool_attribute(e, "ran", file);
    minimise.note = required_attribute(e, "note", file);
    minimise.case_index = int_attribute(e, "case", file);
    minimise.before = required_attribute(e, "before", file);
    minimise.after = required_attribute(e, "after", file);
    minimise.before_time = read_timing(e, "before-time", file);
    for (const XMLElement* s = e->FirstChildElement("step"); s; s = s->NextSiblingElement("step")) {
        MinimiseStep step;
        step.item = required_attribute(s, "item", file);
        // Records from before repeated passes have no "pass": every step was the first pass's.
        if (s->Attribute("pass")) step.pass = int_attribute(s, "pass", file);
        step.removed = bool_attribute(s, "removed", file);
        step.reason = required_attribute(s, "reason", file);
        step.status = status_attribute(s, file);
        step.error = number_attribute(s, "error", file);
        step.reference = read_timing(s, "reference", file);
        step.candidate = read_timing(s, "candidate", file);
        minimise.steps.push_back(std::move(step));
    }
    return minimise;
}

}  // namespace

void write_run_record(XMLNode* parent, const RunRecord& record) {
    XMLElement* root = add(parent, "gi-run");
    set(root, "format", kRunRecordFormat);
    XMLElement* settings = add(root, "settings");
    for (const auto& [name, value] : record.settings) {
        XMLElement* s = add(settings, "setting");
        set(s, "name", name);
        set(s, "value", value);
    }
    XMLElement* evaluator = add(root, "evaluator");
    set(evaluator, "name", record.evaluator);
    set(evaluator, "measures-time", record.measures_time);
    set(add(root, "base"), "genome", record.base_genome);
    write_tune(root, "pre-tune", record.pre_tune);

    XMLElement* generations = add(root, "generations");
    for (const GenerationRecord& g : record.generations) {
        XMLElement* ge = add(generations, "generation");
        set(ge, "index", g.index);
        set(ge, "case", g.case_index);
        set(ge, "evaluated", g.evaluated);
        set(ge, "distinct", g.distinct);
        set(ge, "compiled", g.compiled);
        set(ge, "accepted", g.accepted);
        set(ge, "best-speedup", g.best_speedup);
        set(ge, "best-genome", g.best_genome);
        add_timing(ge, "original", g.original);
        for (const IndividualRecord& i : g.individuals) {
            XMLElement* ie = add(ge, "individual");
            set(ie, "genome", i.genome);
            set(ie, "status", to_string(i.status));
            set(ie, "error", i.error);
            set_timing(ie, i.time);
            set(ie, "accepted", i.accepted);
            set(ie, "speedup", i.speedup);
            set(ie, "repeat", i.repeat);
            if (i.temperature > 0) set(ie, "temperature", i.temperature);
            set(ie, "detail", i.detail);
        }
    }

    XMLElement* best = add(root, "best");
    set(best, "found", record.best.found);
    set(best, "genome", record.best.genome);
    set(best, "speedup", record.best.speedup);
    set(best, "generation", record.best.generation);
    set(best, "case", record.best.case_index);
    set(best, "error", record.best.error);
    set(best, "refused", record.best.refused);
    set(best, "last-refusal", record.best.last_refusal);
    add_timing(best, "original", record.best.original);
    add_timing(best, "time", record.best.time);

    write_minimise(root, record.minimise);
    write_tune(root, "post-tune", record.post_tune);
    XMLElement* check = add(root, "final-check");
    set(check, "ran", record.final_check.ran);
    set(check, "note", record.final_check.note);
    set(check, "passed", record.final_check.passed);
    set(check, "summary", record.final_check.summary);
    set(check, "elements", std::to_string(record.final_check.elements));
    set(check, "mismatches", std::to_string(record.final_check.mismatches));
    set(check, "worst-error", record.final_check.worst_error);
    XMLElement* final_element = add(root, "final");
    set(final_element, "genome", record.final_genome);
    set(final_element, "stop-reason", record.stop_reason);
    set(final_element, "finished", record.finished);
    // Wall time is the one thing that differs between identical runs; it lives alone so tools and
    // tests comparing records can drop it.
    XMLElement* wall = add(root, "wall");
    set(wall, "seconds", record.wall_seconds);
    set(wall, "search-evaluate-seconds", record.search_evaluate_seconds);
    set(wall, "search-gate-seconds", record.search_gate_seconds);
}

RunRecord read_run_record(const XMLElement* root, const std::string& file) {
    if (root == nullptr || std::string(root->Name()) != "gi-run") damaged(root, file, "expected a <gi-run> element");
    if (integer_attribute(root, "format", file) != kRunRecordFormat)
        damaged(root, file, "run record format " + required_attribute(root, "format", file) + " is not " +
                                std::to_string(kRunRecordFormat));
    RunRecord record;
    const XMLElement* settings = required_child(root, "settings", file);
    for (const XMLElement* s = settings->FirstChildElement("setting"); s; s = s->NextSiblingElement("setting"))
        record.settings.emplace_back(required_attribute(s, "name", file), required_attribute(s, "value", file));
    const XMLElement* evaluator = required_child(root, "evaluator", file);
    record.evaluator = required_attribute(evaluator, "name", file);
    record.measures_time = bool_attribute(evaluator, "measures-time", file);
    record.base_genome = required_attribute(required_child(root, "base", file), "genome", file);
    record.pre_tune = read_tune(root, "pre-tune", file);

    const XMLElement* generations = required_child(root, "generations", file);
    for (const XMLElement* ge = generations->FirstChildElement("generation"); ge;
         ge = ge->NextSiblingElement("generation")) {
        GenerationRecord g;
        g.index = int_attribute(ge, "index", file);
        g.case_index = int_attribute(ge, "case", file);
        g.evaluated = int_attribute(ge, "evaluated", file);
        g.distinct = int_attribute(ge, "distinct", file);
        g.compiled = int_attribute(ge, "compiled", file);
        g.accepted = int_attribute(ge, "accepted", file);
        g.best_speedup = number_attribute(ge, "best-speedup", file);
        g.best_genome = required_attribute(ge, "best-genome", file);
        g.original = read_timing(ge, "original", file);
        for (const XMLElement* ie = ge->FirstChildElement("individual"); ie;
             ie = ie->NextSiblingElement("individual")) {
            IndividualRecord i;
            i.genome = required_attribute(ie, "genome", file);
            i.status = status_attribute(ie, file);
            i.error = number_attribute(ie, "error", file);
            i.time = read_timing_attributes(ie, file);
            i.accepted = bool_attribute(ie, "accepted", file);
            i.speedup = number_attribute(ie, "speedup", file);
            i.repeat = bool_attribute(ie, "repeat", file);
            if (ie->Attribute("temperature")) i.temperature = number_attribute(ie, "temperature", file);
            i.detail = required_attribute(ie, "detail", file);
            g.individuals.push_back(std::move(i));
        }
        record.generations.push_back(std::move(g));
    }

    const XMLElement* best = required_child(root, "best", file);
    record.best.found = bool_attribute(best, "found", file);
    record.best.genome = required_attribute(best, "genome", file);
    record.best.speedup = number_attribute(best, "speedup", file);
    record.best.generation = int_attribute(best, "generation", file);
    record.best.case_index = int_attribute(best, "case", file);
    record.best.error = number_attribute(best, "error", file);
    // Absent from records written before winners were confirmed on every case.
    if (best->Attribute("refused")) record.best.refused = int_attribute(best, "refused", file);
    if (const char* refusal = best->Attribute("last-refusal")) record.best.last_refusal = refusal;
    record.best.original = read_timing(best, "original", file);
    record.best.time = read_timing(best, "time", file);

    record.minimise = read_minimise(root, file);
    record.post_tune = read_tune(root, "post-tune", file);
    const XMLElement* check = required_child(root, "final-check", file);
    record.final_check.ran = bool_attribute(check, "ran", file);
    record.final_check.note = required_attribute(check, "note", file);
    record.final_check.passed = bool_attribute(check, "passed", file);
    record.final_check.summary = required_attribute(check, "summary", file);
    record.final_check.elements = integer_attribute(check, "elements", file);
    record.final_check.mismatches = integer_attribute(check, "mismatches", file);
    record.final_check.worst_error = number_attribute(check, "worst-error", file);
    const XMLElement* final_element = required_child(root, "final", file);
    record.final_genome = required_attribute(final_element, "genome", file);
    record.stop_reason = required_attribute(final_element, "stop-reason", file);
    // Records written before it was kept lack it; they read as unfinished (cache write refuses them).
    if (final_element->Attribute("finished")) record.finished = bool_attribute(final_element, "finished", file);
    const XMLElement* wall = required_child(root, "wall", file);
    record.wall_seconds = number_attribute(wall, "seconds", file);
    // Records written before these were kept lack them.
    if (wall->Attribute("search-evaluate-seconds")) record.search_evaluate_seconds = number_attribute(wall, "search-evaluate-seconds", file);
    if (wall->Attribute("search-gate-seconds")) record.search_gate_seconds = number_attribute(wall, "search-gate-seconds", file);
    return record;
}

std::string run_record_document(const RunRecord& record) {
    tinyxml2::XMLDocument document;
    document.InsertEndChild(document.NewDeclaration());
    write_run_record(&document, record);
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    return printer.CStr();
}

}  // namespace gi
