// The decoded form of a PTX module: what the executor runs. No strings on the hot path: operands
// are register slots, branch targets are instruction indices, symbols are resolved to offsets.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine.h"

namespace sim::eng {

enum class Ty : uint8_t { None, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F16, F16x2, BF16, F32, F64, Pred, BF16x2, TF32 };
int ty_bytes(Ty t);
bool ty_is_float(Ty t);
bool ty_is_signed(Ty t);
const char* ty_name(Ty t);

enum class Space : uint8_t { Generic, Global, Shared, Local, Param, KParam, Const };

// Instruction classes the executor dispatches on; everything else is kAlu (handler does the work).
enum Cls : uint8_t { kAlu, kMem, kBra, kCall, kRet, kExit, kBar, kWarpSync, kTrap, kNop, kSleep };

// Operand slots: the top two bits say where the 32 lane values live.
constexpr uint16_t kSlotReg = 0x0000;      // the current call frame's registers
constexpr uint16_t kSlotConst = 0x4000;    // the module's constant pool (immediates, symbol addresses)
constexpr uint16_t kSlotSpecial = 0x8000;  // per-warp special registers (%tid, %laneid, ...)
constexpr uint16_t kNoSlot = 0xffff;
constexpr uint16_t kSlotIndex = 0x3fff;

enum Special : uint16_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY, kNctaidZ,
  kLaneid, kWarpid, kNwarpid, kLanemaskEq, kLanemaskLt, kLanemaskLe, kLanemaskGt, kLanemaskGe,
  kClock, kClock64, kSmid, kNsmid, kGridid, kDynSmem, kTotalSmem, kDepot, kSpecialCount
};

// Generic-address windows for the shared and local state spaces (cvta.shared / cvta.local).
// The runtime must not place device allocations in [kLocalWindow, kSharedWindow + 2^32).
constexpr uint64_t kSharedWindow = 0x00fe000000000000ull;
constexpr uint64_t kLocalWindow = 0x00fd000000000000ull;

enum MemOp : uint8_t { kOpLd, kOpSt, kOpAtom, kOpRed, kOpLdsm, kOpStsm, kOpLdgsts };

// Rounding modifiers
enum Rnd : uint8_t { kRndDefault, kRn, kRz, kRm, kRp, kRni, kRzi, kRmi, kRpi, kRna };
// Instruction flags
enum : uint16_t { kFtz = 1, kSat = 2, kApprox = 4, kUni = 8, kResultUnused = 16, kHi = 32, kWide = 64,
                  kNc = 128, kVolatile = 256, kClamp = 512, kShiftAmt = 1024, kCC = 2048,
                  kBypass = 4096,     // cp.async.cg: L1 bypassed (ncu's ..._cache_bypass)
                  kTensor = 8192,     // runs on the tensor pipe: Instr::vec is its HMMA count
                  kMatrixLoad = 16384 // wmma.load.a/.b: from shared memory it is one LDSM
};

// How ptxas changes what a warp issues (issue.cpp sets these, the executor applies them).
enum : uint8_t {
  kIssueIfConverted = 1,  // a branch ptxas predicates away: its body is issued by every warp, the branch by none
  kIssuePairLead = 2,     // the first of two shared accesses ptxas merges: one access of twice the width
  kIssuePaired = 4,       // the second of them: no instruction of its own
};

// Latency class of an instruction for the critical-path estimate (timing.h, engine.h Latencies).
enum : uint8_t { kLatNone, kLatAlu, kLatSfu, kLatShared, kLatGlobal, kLatWarp };

struct Exec;
struct Warp;
struct Instr;
using Handler = void (*)(Exec&, Warp&, const Instr&, uint32_t mask);

struct Instr {
  Handler fn = nullptr;
  Cls cls = kAlu;
  uint8_t nd = 0, na = 0;
  uint16_t d[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  uint16_t a[4] = {kNoSlot, kNoSlot, kNoSlot, kNoSlot};
  uint16_t guard = kNoSlot;
  bool guard_neg = false;
  Ty type = Ty::None, type2 = Ty::None;
  Space space = Space::Generic;
  uint8_t rnd = kRndDefault;
  uint8_t mode = 0;        // op-specific: compare op, shfl mode, vote mode, atom op, boolean op ...
  uint8_t mode2 = 0;
  uint8_t memop = 0;       // kMem: MemOp
  uint8_t vec = 1;         // vector width of ld/st
  uint8_t bytes = 0;       // bytes per element for memory ops
  uint16_t flags = 0;
  int64_t imm = 0;         // address offset
  int32_t target = -1;     // branch target, call site index
  int32_t ipdom = -1;      // reconvergence pc of a branch (-1: the function's exit)
  int32_t line_id = 0;     // index into Program::lines
  int32_t func = 0;        // function this instruction belongs to
  uint8_t issue = 0;       // kIssue* marks
  uint8_t lat = kLatAlu;   // kLat* class
};

struct LineKey {
  std::string file;
  int line = 0;
};

struct ParamCopy {
  uint16_t from, to, nslots;
};
struct CallSite {
  int callee = -1;                // function index, or -1 for a builtin
  std::string builtin;            // "vprintf", ...
  std::vector<ParamCopy> args;    // caller slot -> callee slot
  std::vector<ParamCopy> rets;    // callee slot -> caller slot
  std::vector<uint16_t> arg_slots;  // for builtins: first slot of each argument
  std::vector<uint16_t> ret_slots;
};

struct KParam {
  std::string name;
  uint64_t offset = 0, size = 0, align = 1;
};

struct SharedVar {
  std::string name;
  uint64_t offset = 0, size = 0, align = 1;
  bool dynamic = false;
};

struct Function {
  std::string name;
  bool is_entry = false;
  bool is_extern = false;
  int begin = 0, end = 0;        // code range [begin, end)
  uint32_t nregs = 0;            // register slots in one frame
  uint32_t depot = 0;            // .local bytes per thread in this frame
  std::vector<KParam> params;    // kernels: the param buffer layout
  uint64_t param_bytes = 0;
  std::vector<uint16_t> param_slots;   // .func: first slot of each parameter
  std::vector<uint32_t> param_nslots;
  std::vector<uint16_t> ret_slots;
  std::vector<uint32_t> ret_nslots;
  uint64_t shared_static = 0;    // kernels: static shared bytes (layout incl. module-level vars)
  std::vector<SharedVar> shared_vars;  // kernels: their own .shared variables (for messages)
  uint64_t shared_align = 16;    // where dynamic shared starts
  std::vector<int> callees;
  uint32_t max_regs = 0, max_depot = 0;  // over the deepest call chain (kernels)
  std::string unsupported;       // set when the body uses something the engine cannot run
};

struct GlobalVar {
  std::string name;
  uint64_t size = 0, align = 1;
  std::vector<uint8_t> init;     // empty: zero-filled
  bool is_const = false;
  uint64_t address = 0;
};

struct ConstFixup {
  uint32_t pool_index;           // constant-pool slot to patch
  int global;                    // index into globals
  int64_t offset;
};

struct Program {
  std::vector<Instr> code;
  std::vector<std::string> text;     // source text of each instruction, for messages
  std::vector<Function> funcs;
  std::vector<CallSite> calls;
  std::vector<LineKey> lines;
  std::vector<GlobalVar> globals;
  std::vector<uint64_t> consts;      // constant pool, one value per slot (broadcast on use)
  std::vector<uint64_t> const_lanes; // consts expanded to 32 lanes
  std::vector<ConstFixup> fixups;
  uint64_t module_shared = 0;        // module-level .shared bytes (start of every block's window)
  std::vector<SharedVar> module_shared_vars;
  std::string unsupported;           // first unsupported construct, when deferred to launch
  std::vector<std::vector<uint16_t>> slot_lists;  // operand lists longer than Instr's (mma, wmma)
};

// Parses and decodes; throws std::runtime_error("unsupported PTX: ...").
void build_program(const std::string& ptx, Program& out);

// Marks the instructions whose issue ptxas changes (issue.cpp); build_program calls it.
void model_issue(Program& P);

// The opcode table: every row's name, for the test that walks it (half-precision rows included,
// named "add.half" and so on).
std::vector<std::string> opcode_names();

}  // namespace sim::eng
