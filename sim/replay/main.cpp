// drills_sim_replay: re-run a program's op log (sim/runtime/oplog_format.h) with the kernels of a
// library file, in this process, where none of the program's code runs, and write the launch
// records itself. Usage and exit codes: usage() below and sim/README.md.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "launch_core.h"
#include "library.h"
#include "memory.h"
#include "oplog_format.h"
#include "ptx_info.h"
#include "report.h"

namespace {

namespace oplog = simrt::oplog;

constexpr int kExitBadInput = 2;
constexpr int kExitIo = 1;
constexpr uint64_t kMaxRecordBytes = oplog::kDefaultLimit;

const char* usage() {
  return "usage: drills_sim_replay LIBRARY OPLOG --report R.jsonl [--after-mark TEXT]\n"
         "         [--set ADDR=FILE]... [--poison ADDR=N]... [--until-mark TEXT]\n"
         "         [--dump ADDR=N=FILE]...\n"
         "Re-runs the op log OPLOG (written by a program run with DRILLS_SIM_OPLOG) with the\n"
         "kernels of LIBRARY's fat binaries; launch records go to R.jsonl. At the first mark\n"
         "TEXT of --after-mark, --set writes FILE's bytes at ADDR and --poison N bytes of 0xFF;\n"
         "the replay stops at the first --until-mark TEXT after it (or at the end of the log),\n"
         "then --dump writes N bytes at ADDR to FILE. ADDR and N: decimal or 0x hex.\n"
         "Exit: 0 the replay ran (kernel faults included, see R.jsonl); 2 bad arguments,\n"
         "library or op log (one line on stderr says what); 1 an output cannot be written.\n";
}

// Every refusal ends the process with one line; nothing the log holds can make it crash.
// The line is one line of ASCII whatever names and labels the log carries.
[[noreturn]] void refuse(const std::string& what) {
  std::string line;
  for (unsigned char c : what.substr(0, 2000)) {
    if (c == '\n' && what.find("usage:") != std::string::npos) {
      line += '\n';   // the usage text after a wrong argument
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      line += buf;
    } else {
      line += static_cast<char>(c);
    }
  }
  fprintf(stderr, "drills_sim_replay: %s\n", line.c_str());
  exit(kExitBadInput);
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

bool parse_number(const std::string& s, uint64_t& out) {
  if (s.empty() || s[0] == '-' || s[0] == '+' || s[0] == ' ') return false;
  errno = 0;
  char* end = nullptr;
  const bool is_hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  out = strtoull(s.c_str(), &end, is_hex ? 16 : 10);
  return errno == 0 && end && *end == '\0';
}

struct SetOp {
  uint64_t addr = 0;
  std::string bytes;
  std::string what;     // the argument, for messages
};
struct PoisonOp {
  uint64_t addr = 0, n = 0;
  std::string what;
};
struct DumpOp {
  uint64_t addr = 0, n = 0;
  std::string file, what;
};

struct Options {
  std::string library, log, report, after_mark, until_mark;
  bool has_after = false, has_until = false;
  std::vector<SetOp> sets;
  std::vector<PoisonOp> poisons;
  std::vector<DumpOp> dumps;
};

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) refuse("cannot read " + path + " (" + what + ")");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

Options parse_args(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) refuse(std::string(flag) + " needs a value\n" + usage());
      return argv[++i];
    };
    if (a == "--report") {
      o.report = value("--report");
    } else if (a == "--after-mark") {
      o.after_mark = value("--after-mark");
      o.has_after = true;
    } else if (a == "--until-mark") {
      o.until_mark = value("--until-mark");
      o.has_until = true;
    } else if (a == "--set") {
      const std::string v = value("--set");
      const size_t eq = v.find('=');
      SetOp s;
      s.what = "--set " + v;
      if (eq == std::string::npos || !parse_number(v.substr(0, eq), s.addr))
        refuse("--set wants ADDR=FILE, not " + v);
      s.bytes = read_file(v.substr(eq + 1), s.what);
      o.sets.push_back(std::move(s));
    } else if (a == "--poison") {
      const std::string v = value("--poison");
      const size_t eq = v.find('=');
      PoisonOp p;
      p.what = "--poison " + v;
      if (eq == std::string::npos || !parse_number(v.substr(0, eq), p.addr) ||
          !parse_number(v.substr(eq + 1), p.n))
        refuse("--poison wants ADDR=N, not " + v);
      o.poisons.push_back(p);
    } else if (a == "--dump") {
      const std::string v = value("--dump");
      const size_t eq1 = v.find('=');
      const size_t eq2 = eq1 == std::string::npos ? eq1 : v.find('=', eq1 + 1);
      DumpOp d;
      d.what = "--dump " + v;
      if (eq2 == std::string::npos || !parse_number(v.substr(0, eq1), d.addr) ||
          !parse_number(v.substr(eq1 + 1, eq2 - eq1 - 1), d.n) || eq2 + 1 >= v.size())
        refuse("--dump wants ADDR=N=FILE, not " + v);
      d.file = v.substr(eq2 + 1);
      o.dumps.push_back(d);
    } else if (a == "-h" || a == "--help") {
      fputs(usage(), stdout);
      exit(0);
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      refuse("unknown option " + a + "\n" + usage());
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2 || o.report.empty()) refuse(std::string("wrong arguments\n") + usage());
  if ((!o.sets.empty() || !o.poisons.empty()) && !o.has_after)
    refuse("--set and --poison apply at a mark: give --after-mark");
  o.library = positional[0];
  o.log = positional[1];
  return o;
}

// One record's payload, read field by field; a read past its end is a malformed record.
class Payload {
 public:
  Payload(const std::vector<uint8_t>& b, const std::string& where) : b_(b), where_(where) {}
  uint32_t u32() { uint32_t v; take(&v, 4); return v; }
  uint64_t u64() { uint64_t v; take(&v, 8); return v; }
  std::string text() {
    const uint32_t n = u32();
    if (n > oplog::kMaxText) refuse(where_ + ": a text of " + std::to_string(n) + " bytes");
    std::string s(n, '\0');
    take(s.data(), n);
    return s;
  }
  uint64_t left() const { return b_.size() - at_; }
  const uint8_t* rest(uint64_t& n) {
    n = b_.size() - at_;
    const uint8_t* p = b_.data() + at_;
    at_ = b_.size();
    return p;
  }
  void take(void* out, uint64_t n) {
    if (n > b_.size() - at_) refuse(where_ + ": the record ends early");
    if (n) memcpy(out, b_.data() + at_, n);
    at_ += n;
  }
  void end() {
    if (at_ != b_.size()) refuse(where_ + ": the record has " + std::to_string(b_.size() - at_) +
                                 " bytes too many");
  }

 private:
  const std::vector<uint8_t>& b_;
  std::string where_;
  uint64_t at_ = 0;
};

struct Module {
  const replay::LibraryModule* source = nullptr;
  std::unique_ptr<sim::Module> module;
  simrt::PtxInfo info;
};

class Replay {
 public:
  Replay(const Options& o, const std::vector<replay::LibraryModule>& library)
      : o_(o), library_(library), device_(simrt::device_model()),
        settings_(simrt::launch_settings_from_env()), bound_(library.size(), false) {}

  void run(FILE* log) {
    struct stat st{};
    if (fstat(fileno(log), &st) != 0 || !S_ISREG(st.st_mode))
      refuse("op log " + o_.log + " is not a regular file");
    uint64_t left = static_cast<uint64_t>(st.st_size);
    char magic[sizeof oplog::kMagic];
    if (fread(magic, 1, sizeof magic, log) != sizeof magic ||
        memcmp(magic, oplog::kMagic, sizeof magic) != 0)
      refuse("op log " + o_.log + " does not start with DRLOG1 (not an op log, or empty)");
    left = left >= sizeof magic ? left - sizeof magic : 0;
    std::vector<uint8_t> payload;
    for (;;) {
      uint8_t header[oplog::kRecordHeader];
      const size_t got = fread(header, 1, sizeof header, log);
      if (got == 0 && feof(log)) break;
      ++record_;
      const std::string where = "op log record " + std::to_string(record_);
      if (got != sizeof header) refuse(where + ": the log ends inside a record header");
      left = left >= sizeof header ? left - sizeof header : 0;
      uint32_t type, zero;
      uint64_t length;
      memcpy(&type, header, 4);
      memcpy(&zero, header + 4, 4);
      memcpy(&length, header + 8, 8);
      if (zero != 0) refuse(where + ": malformed header (reserved field not zero)");
      if (type < oplog::kAlloc || type > oplog::kReset)
        refuse(where + ": unknown record type " + std::to_string(type));
      if (length > kMaxRecordBytes)
        refuse(where + ": a payload of " + std::to_string(length) + " bytes (at most " +
               std::to_string(kMaxRecordBytes) + ")");
      // Checked against the file before anything is allocated for it.
      bool whole = length <= left;
      if (whole) {
        payload.resize(length);
        whole = length == 0 || fread(payload.data(), 1, length, log) == length;
      }
      if (!whole)
        refuse(where + ": the log ends inside the record (" + std::to_string(length) +
               " bytes announced)");
      left -= length;
      if (type != oplog::kAlloc) finish_module_load(where);
      if (!apply(type, Payload(payload, where), where)) {
        stopped_ = true;
        break;
      }
    }
    finish_module_load("the end of the op log");
    if (o_.has_after && !applied_) refuse("the op log has no mark \"" + o_.after_mark + "\"");
    if (o_.has_until && !stopped_)
      refuse("the op log ends before the mark \"" + o_.until_mark + "\"");
  }

  void dump() {
    for (const DumpOp& d : o_.dumps) {
      const uint8_t* bytes = memory_.range(d.addr, d.n);
      if (!bytes)
        refuse(d.what + ": [" + hex(d.addr) + ", +" + std::to_string(d.n) +
               ") is not inside one live allocation");
      std::ofstream out(d.file, std::ios::binary | std::ios::trunc);
      out.write(reinterpret_cast<const char*>(bytes), static_cast<std::streamsize>(d.n));
      if (!out) {
        fprintf(stderr, "drills_sim_replay: cannot write %s\n", d.file.c_str());
        exit(kExitIo);
      }
    }
  }

  void summary() {
    simrt::Json j;
    j.begin_object();
    j.key("event").value("replay");
    j.key("records").value(record_);
    j.key("launches").value(launches_);
    j.key("skipped_after_fault").value(skipped_);
    j.key("sticky").value(sticky_ == cudaSuccess ? "" : simrt::launch_error_name(sticky_));
    j.key("stopped_at").value(stopped_ ? "until-mark" : "end");
    j.end_object();
    simrt::report_line(j.str());
    if (skipped_)
      fprintf(stderr,
              "drills_sim_replay: %" PRIu64 " launches after a kernel fault were not run (%s)\n",
              skipped_, simrt::launch_error_name(sticky_));
  }

 private:
  // false: stop here (the --until-mark).
  bool apply(uint32_t type, Payload p, const std::string& where) {
    switch (type) {
      case oplog::kAlloc: {
        const uint64_t addr = p.u64(), size = p.u64();
        const uint32_t kind = p.u32();
        const std::string label = p.text();
        p.end();
        if (kind > 3) refuse(where + ": ALLOC of unknown kind " + std::to_string(kind));
        if (kind == 3 && !loading_)
          refuse(where + ": ALLOC of a module variable outside a module load");
        if (kind != 3) finish_module_load(where);
        const std::string why = memory_.add(addr, size, kind, label);
        if (!why.empty()) refuse(where + ": ALLOC at " + hex(addr) + ": " + why);
        if (kind == 3) globals_[label] = {addr, size};
        return true;
      }
      case oplog::kFree: {
        const uint64_t addr = p.u64();
        p.end();
        if (!memory_.remove(addr))
          refuse(where + ": FREE of " + hex(addr) + ", not the start of a live allocation");
        return true;
      }
      case oplog::kWrite: {
        const uint64_t dst = p.u64();
        uint64_t n;
        const uint8_t* bytes = p.rest(n);
        uint8_t* to = memory_.range(dst, n);
        if (!to) refuse(where + ": WRITE to " + hex(dst) + " (" + std::to_string(n) +
                        " bytes) outside any allocation");
        if (n) memcpy(to, bytes, n);
        return true;
      }
      case oplog::kCopy: {
        const uint64_t dst = p.u64(), src = p.u64(), n = p.u64();
        p.end();
        uint8_t* to = memory_.range(dst, n);
        const uint8_t* from = memory_.range(src, n);
        if (!to || !from)
          refuse(where + ": COPY of " + std::to_string(n) + " bytes from " + hex(src) + " to " +
                 hex(dst) + " outside any allocation");
        if (n) memmove(to, from, n);
        return true;
      }
      case oplog::kMemset: {
        const uint64_t dst = p.u64();
        const uint32_t value = p.u32(), zero = p.u32();
        const uint64_t n = p.u64();
        p.end();
        if (zero != 0) refuse(where + ": malformed MEMSET (reserved field not zero)");
        uint8_t* to = memory_.range(dst, n);
        if (!to) refuse(where + ": MEMSET of " + std::to_string(n) + " bytes at " + hex(dst) +
                        " outside any allocation");
        if (n) memset(to, static_cast<int>(value & 0xFF), n);
        return true;
      }
      case oplog::kLaunch: launch(p, where); return true;
      case oplog::kMark: {
        const std::string text = p.text();
        p.end();
        if (o_.has_after && !applied_ && text == o_.after_mark) {
          apply_inputs();
          applied_ = true;
          return true;
        }
        if (o_.has_until && text == o_.until_mark && (!o_.has_after || applied_)) return false;
        return true;
      }
      case oplog::kAttr: {
        const uint32_t index = p.u32(), attribute = p.u32();
        const int32_t value = static_cast<int32_t>(p.u32());
        const std::string name = p.text();
        p.end();
        Module& m = module(index, where);
        if (!m.module->has_kernel(name)) refuse(where + ": ATTR of unknown kernel " + name);
        if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize)
          refuse(where + ": ATTR of attribute " + std::to_string(attribute) +
                 ", which the runtime does not log");
        const simrt::KernelInfo info = kernel_info(m, name);
        if (value < 0 || info.static_shared_bytes + uint64_t(value) > device_.shared_per_block_optin)
          refuse(where + ": ATTR sets " + std::to_string(value) +
                 " bytes of dynamic shared memory, which the runtime refuses");
        max_dynamic_shared_[{index, name}] = value;
        return true;
      }
      case oplog::kTruncated:
        refuse(where + ": TRUNCATED: the program's op log reached its size limit, so the run "
                       "cannot be replayed");
      case oplog::kModule: {
        const uint32_t index = p.u32(), zero = p.u32();
        const uint64_t hash = p.u64(), bytes = p.u64();
        p.end();
        if (zero != 0) refuse(where + ": malformed MODULE (reserved field not zero)");
        load_module(index, hash, bytes, where);
        return true;
      }
      case oplog::kReset:
        p.end();
        sticky_ = cudaSuccess;
        max_dynamic_shared_.clear();
        return true;
    }
    refuse(where + ": unknown record type " + std::to_string(type));
  }

  void load_module(uint32_t index, uint64_t hash, uint64_t bytes, const std::string& where) {
    if (modules_.count(index)) refuse(where + ": MODULE " + std::to_string(index) + " loaded twice");
    size_t pick = library_.size();
    for (size_t i = 0; i < library_.size(); ++i)
      if (!bound_[i] && library_[i].ptx.error.empty() && library_[i].hash == hash &&
          library_[i].ptx.text.size() == bytes) {
        pick = i;
        break;
      }
    if (pick == library_.size())
      refuse(where + ": MODULE " + std::to_string(index) + ": no fat binary of " + o_.library +
             " holds that PTX (the program ran other device code)");
    bound_[pick] = true;
    Module m;
    m.source = &library_[pick];
    try {
      m.module = sim::Module::parse(m.source->ptx.text);
    } catch (const std::exception& e) {
      refuse(where + ": the PTX of module " + std::to_string(index) + " does not parse: " + e.what());
    }
    m.info = simrt::scan_ptx(m.source->ptx.text);
    modules_[index] = std::move(m);
    loading_ = &modules_[index];
    loading_index_ = index;
    globals_.clear();
  }

  // The module's variables go where the log's ALLOC records put them; initialised as at load.
  void finish_module_load(const std::string& where) {
    if (!loading_) return;
    Module& m = *loading_;
    loading_ = nullptr;
    std::string missing;
    memory_.resolve_global = [&](uint64_t size, const std::string& label) -> uint64_t {
      auto it = globals_.find(label);
      if (it == globals_.end() || it->second.second != size) {
        if (missing.empty()) missing = label;
        return 0;
      }
      return it->second.first;
    };
    m.module->load_globals(memory_);
    memory_.resolve_global = nullptr;
    if (!missing.empty())
      refuse(where + ": module " + std::to_string(loading_index_) + "'s variable `" + missing +
             "` has no ALLOC record of its size");
  }

  Module& module(uint32_t index, const std::string& where) {
    auto it = modules_.find(index);
    if (it == modules_.end())
      refuse(where + ": module " + std::to_string(index) + " was never loaded (no MODULE record)");
    return it->second;
  }

  simrt::KernelInfo kernel_info(const Module& m, const std::string& name) {
    auto it = m.info.kernels.find(name);
    return it == m.info.kernels.end() ? simrt::KernelInfo{} : it->second;
  }

  void launch(Payload& p, const std::string& where) {
    const std::string name = p.text();
    dim3 grid, block;
    grid.x = p.u32(); grid.y = p.u32(); grid.z = p.u32();
    block.x = p.u32(); block.y = p.u32(); block.z = p.u32();
    const uint64_t shared = p.u64();
    const uint32_t nparams = p.u32();
    if (nparams > 4096) refuse(where + ": LAUNCH with " + std::to_string(nparams) + " parameters");
    std::vector<std::vector<uint64_t>> storage(nparams);   // 8-byte aligned, as the engine reads
    std::vector<uint32_t> sizes(nparams);
    for (uint32_t i = 0; i < nparams; ++i) {
      sizes[i] = p.u32();
      if (sizes[i] > 32768 || sizes[i] > p.left())
        refuse(where + ": LAUNCH parameter " + std::to_string(i) + " of " +
               std::to_string(sizes[i]) + " bytes");
      storage[i].assign((sizes[i] + 7) / 8 + 1, 0);
      p.take(storage[i].data(), sizes[i]);
    }
    const uint32_t index = p.u32();
    p.end();

    Module& m = module(index, where);
    if (!m.module->has_kernel(name))
      refuse(where + ": LAUNCH of " + name + ", which module " + std::to_string(index) +
             " does not have");
    const std::vector<uint64_t> expected = m.module->param_sizes(name);
    bool same = expected.size() == nparams;
    for (uint32_t i = 0; same && i < nparams; ++i) same = expected[i] == sizes[i];
    if (!same) {
      std::string want, got;
      for (uint64_t s : expected) want += (want.empty() ? "" : ",") + std::to_string(s);
      for (uint32_t s : sizes) got += (got.empty() ? "" : ",") + std::to_string(s);
      refuse(where + ": LAUNCH of " + name + " with parameters of " + (got.empty() ? "none" : got) +
             " bytes; the kernel's PTX has " + (want.empty() ? "none" : want));
    }
    if (sticky_ != cudaSuccess) {   // the runtime runs nothing after a fault until a reset
      ++skipped_;
      return;
    }
    std::vector<void*> args(nparams);
    for (uint32_t i = 0; i < nparams; ++i) args[i] = storage[i].data();

    simrt::LaunchKernel k;
    k.module = m.module.get();
    k.name = name;
    k.demangled = simrt::demangle(name);
    k.info = kernel_info(m, name);
    auto attr = max_dynamic_shared_.find({index, name});
    k.max_dynamic_shared = attr == max_dynamic_shared_.end() ? -1 : attr->second;
    const simrt::LaunchResult r = simrt::run_launch(k, grid, block, args.data(), shared, settings_,
                                                    device_, memory_);
    ++launches_;
    if (r.fault != cudaSuccess) sticky_ = r.fault;
  }

  void apply_inputs() {
    for (const SetOp& s : o_.sets) {
      uint8_t* to = memory_.range(s.addr, s.bytes.size());
      if (!to)
        refuse(s.what + ": " + std::to_string(s.bytes.size()) + " bytes at " + hex(s.addr) +
               " do not fit in one live allocation (" + memory_.describe(s.addr) + ")");
      if (!s.bytes.empty()) memcpy(to, s.bytes.data(), s.bytes.size());
    }
    for (const PoisonOp& q : o_.poisons) {
      uint8_t* to = memory_.range(q.addr, q.n);
      if (!to)
        refuse(q.what + ": " + std::to_string(q.n) + " bytes at " + hex(q.addr) +
               " do not fit in one live allocation (" + memory_.describe(q.addr) + ")");
      if (q.n) memset(to, 0xFF, q.n);
    }
  }

  const Options& o_;
  const std::vector<replay::LibraryModule>& library_;
  const simrt::DeviceModel& device_;
  simrt::LaunchSettings settings_;
  replay::ReplayMemory memory_;
  std::vector<bool> bound_;                       // library modules already given an index
  std::map<uint32_t, Module> modules_;            // by the runtime's module index
  Module* loading_ = nullptr;                     // whose variables' ALLOCs come now
  uint32_t loading_index_ = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> globals_;   // label -> (addr, size)
  std::map<std::pair<uint32_t, std::string>, int> max_dynamic_shared_;
  cudaError_t sticky_ = cudaSuccess;
  uint64_t record_ = 0, launches_ = 0, skipped_ = 0;
  bool applied_ = false, stopped_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  // Not dumpable: a process of the same user (the learner's, say) can then neither ptrace this
  // one nor write its memory through /proc while it replays.
  prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  const Options o = parse_args(argc, argv);

  std::string error;
  const std::vector<replay::LibraryModule> library = replay::read_library(o.library, error);
  if (library.empty()) refuse(error);

  FILE* log = fopen(o.log.c_str(), "rb");
  if (!log) refuse("cannot open the op log " + o.log);

  // The report is this process's alone: start it empty, and fail now if it cannot be written.
  const int fd = open(o.report.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    fprintf(stderr, "drills_sim_replay: cannot write the report %s\n", o.report.c_str());
    return kExitIo;
  }
  close(fd);
  setenv("DRILLS_SIM_REPORT", o.report.c_str(), 1);
  simrt::open_report();

  Replay replay(o, library);
  replay.run(log);
  fclose(log);
  replay.dump();
  replay.summary();
  return 0;
}
