// The judge's view of a run: one JSON object per line, appended to $DRILLS_SIM_REPORT and written
// with a single write() each, so a crash or _exit loses nothing already reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace simrt {

// Minimal JSON writer: enough for flat records, nested arrays and objects.
class Json {
 public:
  Json& begin_object();
  Json& end_object();
  Json& begin_array();
  Json& end_array();
  Json& key(const char* k);
  Json& value(const std::string& s);
  Json& value(const char* s) { return value(std::string(s)); }
  Json& value(uint64_t v);
  Json& value(int64_t v);
  Json& value(int v) { return value(static_cast<int64_t>(v)); }
  Json& value(uint32_t v) { return value(static_cast<uint64_t>(v)); }
  Json& value(double v);
  Json& value(bool v);
  Json& dim3(const sim::Dim3& d);
  const std::string& str() const { return out_; }

 private:
  void comma();
  std::string out_;
  std::vector<bool> first_;   // per open container: no element written yet
  bool after_key_ = false;
};

std::string json_escape(const std::string& s);

// Appends one line to the report file when DRILLS_SIM_REPORT is set. Async-signal-safe once the
// file is open (open_report() is called at start-up so the signal handler never opens it).
void open_report();
void report_line(const std::string& json_object);
void report_line_raw(const char* data, size_t n);   // for the signal handler

void report_launch(const std::string& demangled, const sim::LaunchReport& r);
void report_unsupported(const std::string& what);

}  // namespace simrt
