// What the front end hands to the opcode table's decoders: one parsed instruction with its
// operands, and a context that turns operands into slots, addresses and branch targets.
#pragma once

#include <string>
#include <vector>

#include "program.h"

namespace sim::eng {

struct Operand {
  enum Kind { None, Name, Number, Vec, Addr, List, Sink } kind = None;
  std::string text;             // Name / Number: the token; Addr: the base ("" when only a number)
  int64_t offset = 0;           // Addr: the constant displacement
  bool negated = false;         // !%p
  std::vector<Operand> items;   // Vec / List
  std::vector<Operand> pipe;    // a|b: the second destination
};

struct ParsedInstr {
  std::string opcode;           // "ld"
  std::vector<std::string> mods;  // {"global", "v4", "f32"}
  std::vector<Operand> ops;
  std::string text;             // the whole instruction, for messages
  int line = 0;                 // its line in the PTX text
};

class DecodeCtx {
 public:
  virtual ~DecodeCtx() = default;
  virtual uint16_t dst(const Operand& o) = 0;                 // a register (or "_": a scratch slot)
  virtual uint16_t src(const Operand& o, Ty t) = 0;           // a register, immediate or symbol address
  // Fills in.a[0] (base slot) and in.imm; returns the space a symbol base implies (Generic if none).
  virtual Space addr(const Operand& o, Instr& in) = 0;
  virtual int32_t label(const Operand& o) = 0;
  virtual int32_t call_site(const ParsedInstr& p) = 0;        // decodes call's operand lists
  virtual bool result_unused(const Operand& o) = 0;           // register never read in the function
  virtual Ty reg_type(const Operand& o) = 0;                  // declared type of a register (None: not one)
  virtual int32_t slot_list(std::vector<uint16_t> slots) = 0; // keeps a long operand list; its index
  [[noreturn]] void unsupported(const ParsedInstr& p, const std::string& why = "");
};

struct OpcodeRow {
  const char* name;
  void (*decode)(DecodeCtx&, const ParsedInstr&, Instr&);
};
const OpcodeRow* find_opcode(const std::string& name);
const std::vector<OpcodeRow>& opcode_table();
// Rows of the opcodes added for tensor-core programs (ops_tensor.cpp); opcode_table() includes them.
const std::vector<OpcodeRow>& tensor_opcode_rows();
// Half-precision forms of arithmetic opcodes (add.f16, cvt.rn.bf16x2.f32, ...): ops_half.cpp. Their
// names are "opcode.half" ("add.half"); find_row() picks one when a modifier names a 16-bit float.
const std::vector<OpcodeRow>& half_opcode_rows();
const OpcodeRow* find_half_row(const ParsedInstr& p);
// The row that decodes p: its half-precision form when there is one, else its opcode's row.
const OpcodeRow* find_row(const ParsedInstr& p);

Ty parse_ty(const std::string& s);   // Ty::None when s is not a type name

}  // namespace sim::eng
