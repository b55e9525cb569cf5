#pragma once
// run.xml and the record part of checkpoint.xml: the RunRecord as XML (tinyxml2), and back.
// Numbers are written with 17 significant digits so a record read back compares equal.
#include <string>

#include <tinyxml2.h>

#include "run/run_record.hpp"

namespace gi {

inline constexpr int kRunRecordFormat = 1;

// Appends <gi-run> describing `record` under `parent` (a document or an element); without the
// generations' records (an empty <generations/>) when `with_generations` is false.
void write_run_record(tinyxml2::XMLNode* parent, const RunRecord& record, bool with_generations = true);

// One <generation> element as text (one record of the checkpoint's generation log), and the
// <generation> children of `parent` read back.
std::string generation_xml(const GenerationRecord& generation);
std::vector<GenerationRecord> read_generations(const tinyxml2::XMLElement* parent, const std::string& file);

// Reads a <gi-run> element; throws gi::Error naming `file`, the line and what is missing.
RunRecord read_run_record(const tinyxml2::XMLElement* element, const std::string& file);

// run.xml's full text.
std::string run_record_document(const RunRecord& record);

// Helpers shared with the checkpoint reader.
const tinyxml2::XMLElement* required_child(const tinyxml2::XMLElement* element, const char* name,
                                           const std::string& file);
std::string required_attribute(const tinyxml2::XMLElement* element, const char* name, const std::string& file);
double number_attribute(const tinyxml2::XMLElement* element, const char* name, const std::string& file);
long long integer_attribute(const tinyxml2::XMLElement* element, const char* name, const std::string& file);
bool bool_attribute(const tinyxml2::XMLElement* element, const char* name, const std::string& file);

}  // namespace gi
