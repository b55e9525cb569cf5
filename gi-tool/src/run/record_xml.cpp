#include "run/record_xml.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <concepts>
#include <type_traits>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {

using tinyxml2::XMLElement;
using tinyxml2::XMLNode;

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

XMLElement* add(XMLNode* parent, const char* name) {
    XMLElement* element = parent->GetDocument()->NewElement(name);
    parent->InsertEndChild(element);
    return element;
}

// Each record's XML is declared once, by a `fields(io, record)` function below that names its
// attributes and child elements in order. The same declaration writes the record (XmlOut, with a
// const record) and reads it back (XmlIn), so no field can be written and not read, or the reverse;
// RecordXml.EveryFieldRoundTrips checks each record type field by field.
class XmlOut {
public:
    explicit XmlOut(XMLElement* element, bool with_generations = true)
        : element_(element), with_generations_(with_generations) {}
    // False for the checkpoint's record, whose generations are in the generation log.
    bool with_generations() const { return with_generations_; }

    void attribute(const char* name, const std::string& value) { element_->SetAttribute(name, value.c_str()); }
    void attribute(const char* name, double value) { attribute(name, exact(value)); }
    void attribute(const char* name, int value) { element_->SetAttribute(name, value); }
    void attribute(const char* name, long long value) { attribute(name, std::to_string(value)); }
    void attribute(const char* name, bool value) { attribute(name, std::string(value ? "1" : "0")); }
    void attribute(const char* name, EvalStatus value) { attribute(name, std::string(to_string(value))); }
    // Written unless it has the value that its absence stands for (records from before it existed).
    template <typename T>
    void optional(const char* name, const T& value, const T& absent) {
        if (!(value == absent)) attribute(name, value);
    }
    // Always written; absent from records written before it was kept, which read as the default.
    template <typename T>
    void since(const char* name, const T& value) { attribute(name, value); }
    // The three attributes of a timing on this element itself.
    void timing(const Timing& timing) {
        attribute("median-ms", timing.median_ms);
        attribute("spread-ms", timing.spread_ms);
        attribute("repetitions", timing.repetitions);
    }
    void timing(const char* name, const Timing& value) { XmlOut(add(element_, name)).timing(value); }
    // A child element whose content `body(child_io)` declares.
    template <typename Body>
    void element(const char* name, Body&& body) {
        XmlOut child(add(element_, name));
        body(child);
    }
    // One child element `name` per item, each declared by fields().
    template <typename T>
    void each(const char* name, const std::vector<T>& items) {
        for (const T& item : items) element(name, [&](XmlOut& child) { fields(child, item); });
    }

private:
    XMLElement* element_;
    bool with_generations_ = true;
};

class XmlIn {
public:
    XmlIn(const XMLElement* element, const std::string& file) : element_(element), file_(file) {}
    bool with_generations() const { return true; }  // whatever the element holds

    void attribute(const char* name, std::string& value) { value = required_attribute(element_, name, file_); }
    void attribute(const char* name, double& value) { value = number_attribute(element_, name, file_); }
    void attribute(const char* name, int& value) { value = int_attribute(element_, name, file_); }
    void attribute(const char* name, long long& value) { value = integer_attribute(element_, name, file_); }
    void attribute(const char* name, bool& value) { value = bool_attribute(element_, name, file_); }
    void attribute(const char* name, EvalStatus& value) {
        const std::string text = required_attribute(element_, name, file_);
        try {
            value = eval_status_from_string(text);
        } catch (const Error&) {
            damaged(element_, file_, "unknown status '" + text + "'");
        }
    }
    template <typename T>
    void optional(const char* name, T& value, const T& absent) {
        if (element_->Attribute(name)) attribute(name, value);
        else value = absent;
    }
    template <typename T>
    void since(const char* name, T& value) {
        if (element_->Attribute(name)) attribute(name, value);
    }
    void timing(Timing& timing) {
        attribute("median-ms", timing.median_ms);
        attribute("spread-ms", timing.spread_ms);
        attribute("repetitions", timing.repetitions);
    }
    void timing(const char* name, Timing& value) { XmlIn(required_child(element_, name, file_), file_).timing(value); }
    template <typename Body>
    void element(const char* name, Body&& body) {
        XmlIn child(required_child(element_, name, file_), file_);
        body(child);
    }
    template <typename T>
    void each(const char* name, std::vector<T>& items) {
        items.clear();
        for (const XMLElement* e = element_->FirstChildElement(name); e; e = e->NextSiblingElement(name)) {
            XmlIn child(e, file_);
            fields(child, items.emplace_back());
        }
    }

private:
    const XMLElement* element_;
    const std::string& file_;
};


// The records' declarations. R is the record, const when writing (XmlOut) and not when reading
// (XmlIn); the order is the order of the attributes and elements in the file.
template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, std::pair<std::string, std::string>>
void fields(Io& io, R& setting) {
    io.attribute("name", setting.first);
    io.attribute("value", setting.second);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, TunePoint>
void fields(Io& io, R& point) {
    io.attribute("genome", point.genome);
    io.attribute("status", point.status);
    io.attribute("error", point.error);
    io.attribute("gain", point.gain);
    io.attribute("accepted", point.accepted);
    io.timing("time", point.time);
    io.timing("start", point.start);
    io.timing("original", point.original);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, TuneResult>
void fields(Io& io, R& tune) {
    io.attribute("ran", tune.ran);
    io.attribute("note", tune.note);
    io.attribute("case", tune.case_index);
    io.attribute("space-size", tune.space_size);
    io.attribute("sampled", tune.sampled);
    io.attribute("start", tune.start);
    io.attribute("best", tune.best);
    io.timing("start-time", tune.start_time);
    io.timing("best-time", tune.best_time);
    io.timing("original", tune.original);
    io.each("point", tune.points);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, MinimiseStep>
void fields(Io& io, R& step) {
    io.attribute("item", step.item);
    // Records from before repeated passes have no "pass": every step was the first pass's.
    io.optional("pass", step.pass, 1);
    io.attribute("removed", step.removed);
    io.attribute("reason", step.reason);
    io.attribute("status", step.status);
    io.attribute("error", step.error);
    // Each side's timing and the uncertainty of its median that the decision compared (absent from
    // records written before it was kept).
    io.element("reference", [&](auto& side) {
        side.timing(step.reference);
        side.since("median-error-ms", step.reference_error_ms);
    });
    io.element("candidate", [&](auto& side) {
        side.timing(step.candidate);
        side.since("median-error-ms", step.candidate_error_ms);
    });
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, MinimiseResult>
void fields(Io& io, R& minimise) {
    io.attribute("ran", minimise.ran);
    io.attribute("note", minimise.note);
    io.attribute("case", minimise.case_index);
    io.attribute("before", minimise.before);
    io.attribute("after", minimise.after);
    io.timing("before-time", minimise.before_time);
    io.each("step", minimise.steps);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, IndividualRecord>
void fields(Io& io, R& i) {
    io.attribute("genome", i.genome);
    io.attribute("status", i.status);
    io.attribute("error", i.error);
    io.timing(i.time);
    io.attribute("accepted", i.accepted);
    io.attribute("speedup", i.speedup);
    io.attribute("repeat", i.repeat);
    io.optional("temperature", i.temperature, 0.0);
    io.attribute("detail", i.detail);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, GenerationRecord>
void fields(Io& io, R& g) {
    io.attribute("index", g.index);
    io.attribute("case", g.case_index);
    io.attribute("evaluated", g.evaluated);
    io.attribute("distinct", g.distinct);
    io.attribute("compiled", g.compiled);
    io.attribute("accepted", g.accepted);
    io.attribute("best-speedup", g.best_speedup);
    io.attribute("best-genome", g.best_genome);
    io.timing("original", g.original);
    io.each("individual", g.individuals);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, BestRecord>
void fields(Io& io, R& best) {
    io.attribute("found", best.found);
    io.attribute("genome", best.genome);
    io.attribute("speedup", best.speedup);
    io.attribute("generation", best.generation);
    io.attribute("case", best.case_index);
    io.attribute("error", best.error);
    // Absent from records written before winners were confirmed on every case.
    io.since("refused", best.refused);
    io.since("last-refusal", best.last_refusal);
    // Absent from records written before the best's speed was measured again.
    io.since("search-speedup", best.search_speedup);
    io.since("confirm-repeats", best.confirm_repeats);
    io.since("confirm-note", best.confirm_note);
    io.timing("original", best.original);
    io.timing("time", best.time);
}

template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, FinalCheckRecord>
void fields(Io& io, R& check) {
    io.attribute("ran", check.ran);
    io.attribute("note", check.note);
    io.attribute("passed", check.passed);
    io.attribute("summary", check.summary);
    io.attribute("elements", check.elements);
    io.attribute("mismatches", check.mismatches);
    io.attribute("worst-error", check.worst_error);
}

// Everything under <gi-run> but its format attribute.
template <typename Io, typename R>
    requires std::same_as<std::remove_const_t<R>, RunRecord>
void fields(Io& io, R& record) {
    io.element("settings", [&](auto& settings) { settings.each("setting", record.settings); });
    io.element("evaluator", [&](auto& evaluator) {
        evaluator.attribute("name", record.evaluator);
        evaluator.attribute("measures-time", record.measures_time);
        // Records written before it was kept lack it.
        evaluator.since("device", record.device);
    });
    io.element("base", [&](auto& base) { base.attribute("genome", record.base_genome); });
    io.element("pre-tune", [&](auto& tune) { fields(tune, record.pre_tune); });
    io.element("generations", [&](auto& generations) {
        if (io.with_generations()) generations.each("generation", record.generations);
    });
    io.element("best", [&](auto& best) { fields(best, record.best); });
    io.element("minimise", [&](auto& minimise) { fields(minimise, record.minimise); });
    io.element("post-tune", [&](auto& tune) { fields(tune, record.post_tune); });
    io.element("final-check", [&](auto& check) { fields(check, record.final_check); });
    io.element("final", [&](auto& final_element) {
        final_element.attribute("genome", record.final_genome);
        final_element.attribute("stop-reason", record.stop_reason);
        // Records written before it was kept lack it; they read as unfinished (cache write refuses them).
        final_element.since("finished", record.finished);
    });
    // Wall time is the one thing that differs between identical runs; it lives alone so tools and
    // tests comparing records can drop it.
    io.element("wall", [&](auto& wall) {
        wall.attribute("seconds", record.wall_seconds);
        // Records written before these were kept lack them.
        wall.since("search-evaluate-seconds", record.search_evaluate_seconds);
        wall.since("search-gate-seconds", record.search_gate_seconds);
        // With the gate overlapped: what ran alongside it, and what became of the guesses.
        wall.since("search-gate-alongside-seconds", record.search_gate_alongside_seconds);
        wall.since("search-gate-turn-wait-seconds", record.search_gate_turn_wait_seconds);
        wall.since("search-gate-delay-seconds", record.search_gate_delay_seconds);
        wall.since("search-gate-join-seconds", record.search_gate_join_seconds);
        wall.since("search-gate-discarded-seconds", record.search_gate_discarded_seconds);
        wall.since("guesses-kept", record.guesses_kept);
        wall.since("guesses-discarded", record.guesses_discarded);
        wall.since("gate-prescreen-rejected", record.gate_prescreen_rejected);
        // By phase.
        wall.since("pre-tune-seconds", record.pre_tune_seconds);
        wall.since("search-seconds", record.search_seconds);
        wall.since("confirm-seconds", record.confirm_seconds);
        wall.since("minimise-seconds", record.minimise_seconds);
        wall.since("post-tune-seconds", record.post_tune_seconds);
        wall.since("final-check-seconds", record.final_check_seconds);
    });
}

}  // namespace

void write_run_record(XMLNode* parent, const RunRecord& record, bool with_generations) {
    XMLElement* root = add(parent, "gi-run");
    root->SetAttribute("format", kRunRecordFormat);
    XmlOut out(root, with_generations);
    fields(out, record);
}

std::string generation_xml(const GenerationRecord& generation) {
    tinyxml2::XMLDocument document;
    XmlOut out(add(&document, "generation"));
    fields(out, generation);
    tinyxml2::XMLPrinter printer;
    document.Print(&printer);
    return printer.CStr();
}

std::vector<GenerationRecord> read_generations(const XMLElement* parent, const std::string& file) {
    std::vector<GenerationRecord> generations;
    XmlIn(parent, file).each("generation", generations);
    return generations;
}

RunRecord read_run_record(const XMLElement* root, const std::string& file) {
    if (root == nullptr || std::string(root->Name()) != "gi-run") damaged(root, file, "expected a <gi-run> element");
    if (integer_attribute(root, "format", file) != kRunRecordFormat)
        damaged(root, file, "run record format " + required_attribute(root, "format", file) + " is not " +
                                std::to_string(kRunRecordFormat));
    RunRecord record;
    XmlIn in(root, file);
    fields(in, record);
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
