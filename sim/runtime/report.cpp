#include "report.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace simrt {

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

void Json::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
}

Json& Json::begin_object() { comma(); out_ += '{'; first_.push_back(true); return *this; }
Json& Json::end_object() { out_ += '}'; first_.pop_back(); return *this; }
Json& Json::begin_array() { comma(); out_ += '['; first_.push_back(true); return *this; }
Json& Json::end_array() { out_ += ']'; first_.pop_back(); return *this; }

Json& Json::key(const char* k) {
  comma();
  out_ += '"';
  out_ += json_escape(k);
  out_ += "\":";
  after_key_ = true;
  return *this;
}

Json& Json::value(const std::string& s) {
  comma();
  out_ += '"';
  out_ += json_escape(s);
  out_ += '"';
  return *this;
}

Json& Json::value(uint64_t v) { comma(); out_ += std::to_string(v); return *this; }
Json& Json::value(int64_t v) { comma(); out_ += std::to_string(v); return *this; }
Json& Json::value(bool v) { comma(); out_ += v ? "true" : "false"; return *this; }

Json& Json::value(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_ += "null";
  } else {
    char buf[32];
    snprintf(buf, sizeof buf, "%.9g", v);
    out_ += buf;
  }
  return *this;
}

Json& Json::dim3(const sim::Dim3& d) {
  begin_array().value(d.x).value(d.y).value(d.z);
  return end_array();
}

namespace {
int g_report_fd = -2;   // -2: not opened yet, -1: no report
}

void open_report() {
  if (g_report_fd != -2) return;
  const char* path = getenv("DRILLS_SIM_REPORT");
  if (!path || !*path) {
    g_report_fd = -1;
    return;
  }
  g_report_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (g_report_fd < 0) fprintf(stderr, "drills-sim: cannot open DRILLS_SIM_REPORT=%s\n", path);
}

void report_line_raw(const char* data, size_t n) {
  if (g_report_fd < 0) return;
  while (n > 0) {
    ssize_t w = write(g_report_fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data += w;
    n -= static_cast<size_t>(w);
  }
}

void report_line(const std::string& json_object) {
  open_report();
  if (g_report_fd < 0) return;
  std::string line = json_object + "\n";
  report_line_raw(line.data(), line.size());
}

static void metrics_json(Json& j, const sim::Metrics& m) {
  j.begin_object();
  for (const auto& [name, v] : m) j.key(name.c_str()).value(v);
  j.end_object();
}

void report_launch(const std::string& demangled, const sim::LaunchReport& r) {
  open_report();
  if (g_report_fd < 0) return;
  Json j;
  j.begin_object();
  j.key("event").value("launch");
  j.key("kernel").value(demangled);
  j.key("mangled").value(r.kernel);
  j.key("grid").dim3(r.grid);
  j.key("block").dim3(r.block);
  j.key("seconds").value(r.seconds);
  j.key("metrics");
  metrics_json(j, r.metrics);
  j.key("lines").begin_array();
  for (const auto& line : r.lines) {
    j.begin_object();
    j.key("file").value(line.file);
    j.key("line").value(line.line);
    j.key("metrics");
    metrics_json(j, line.metrics);
    const auto& s = line.sample;
    if (!s.space.empty()) {
      j.key("sample").begin_object();
      j.key("space").value(s.space);
      j.key("op").value(s.op);
      j.key("bytes_per_lane").value(s.bytes_per_lane);
      j.key("active_mask").value(s.active_mask);
      j.key("address").begin_array();
      for (uint64_t a : s.address) j.value(a);
      j.end_array();
      j.key("block").dim3(s.block);
      j.key("warp").value(s.warp);
      j.end_object();
    }
    j.end_object();
  }
  j.end_array();
  j.key("errors").begin_array();
  for (const auto& e : r.errors) {
    j.begin_object();
    j.key("kind").value(e.kind);
    j.key("message").value(e.message);
    j.key("block").dim3(e.block);
    j.key("thread").dim3(e.thread);
    j.key("file").value(e.file);
    j.key("line").value(e.line);
    j.key("address").value(e.address);
    j.key("allocation").value(e.allocation);
    j.key("offset").value(e.offset);
    j.key("detail").value(e.detail);
    j.end_object();
  }
  j.end_array();
  j.end_object();
  report_line(j.str());
}

void report_unsupported(const std::string& what) {
  Json j;
  j.begin_object().key("event").value("unsupported").key("what").value(what).end_object();
  report_line(j.str());
}

}  // namespace simrt
