// PTX front end: tokenizer, module/function parser, symbol and register resolution, and the CFG
// analysis (immediate post-dominators) the executor reconverges on. Instruction semantics are not
// here: each instruction goes to its opcode table row (ops.cpp) to be decoded.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "decode.h"

namespace sim::eng {

[[noreturn]] static void fail(const std::string& what) { throw std::runtime_error("unsupported PTX: " + what); }

void DecodeCtx::unsupported(const ParsedInstr& p, const std::string& why) {
  fail("`" + p.text + "` (PTX line " + std::to_string(p.line) + ")" + (why.empty() ? "" : ": " + why));
}

// ---------------------------------------------------------------------------------------------
// Tokens

struct Token {
  enum Kind { Ident, Num, Str, Punct, End } kind;
  std::string text;
  int line;
};

static bool ident_start(char c) { return std::isalpha((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; }
static bool ident_char(char c) { return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.'; }

static std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '\n') { ++line; ++i; continue; }
    if (std::isspace((unsigned char)c)) { ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '/') { while (i < n && s[i] != '\n') ++i; continue; }
    if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) { if (s[i] == '\n') ++line; ++i; }
      i += 2;
      continue;
    }
    if (c == '"') {
      size_t j = i + 1;
      std::string t;
      while (j < n && s[j] != '"') { if (s[j] == '\\' && j + 1 < n) ++j; t += s[j++]; }
      out.push_back({Token::Str, t, line});
      i = j + 1;
      continue;
    }
    if (std::isdigit((unsigned char)c)) {
      size_t j = i;
      while (j < n && (std::isalnum((unsigned char)s[j]) || s[j] == '.' ||
                       ((s[j] == '+' || s[j] == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E') && s[i + 1] != 'x' &&
                        s[i + 1] != 'f' && s[i + 1] != 'd')))
        ++j;
      out.push_back({Token::Num, s.substr(i, j - i), line});
      i = j;
      continue;
    }
    if (ident_start(c)) {
      size_t j = i;
      // "::" belongs to the name: .shared::cta, .L2::128B, .L2::cache_hint
      while (j < n && (ident_char(s[j]) || (s[j] == ':' && j + 1 < n && s[j + 1] == ':' && j + 2 < n && ident_char(s[j + 2]))))
        j += s[j] == ':' ? 2 : 1;
      out.push_back({Token::Ident, s.substr(i, j - i), line});
      i = j;
      continue;
    }
    out.push_back({Token::Punct, std::string(1, c), line});
    ++i;
  }
  out.push_back({Token::End, "", line + 1});
  return out;
}

Ty parse_ty(const std::string& s) {
  static const std::map<std::string, Ty> m = {
      {"b8", Ty::B8},   {"b16", Ty::B16}, {"b32", Ty::B32}, {"b64", Ty::B64},     {"u8", Ty::U8},
      {"u16", Ty::U16}, {"u32", Ty::U32}, {"u64", Ty::U64}, {"s8", Ty::S8},       {"s16", Ty::S16},
      {"s32", Ty::S32}, {"s64", Ty::S64}, {"f16", Ty::F16}, {"f16x2", Ty::F16x2}, {"bf16", Ty::BF16},
      {"f32", Ty::F32}, {"f64", Ty::F64}, {"pred", Ty::Pred}, {"bf16x2", Ty::BF16x2}, {"tf32", Ty::TF32}};
  auto it = m.find(s);
  return it == m.end() ? Ty::None : it->second;
}

int ty_bytes(Ty t) {
  switch (t) {
    case Ty::B8: case Ty::U8: case Ty::S8: return 1;
    case Ty::B16: case Ty::U16: case Ty::S16: case Ty::F16: case Ty::BF16: return 2;
    case Ty::B32: case Ty::U32: case Ty::S32: case Ty::F32: case Ty::F16x2: case Ty::BF16x2: case Ty::TF32: return 4;
    case Ty::B64: case Ty::U64: case Ty::S64: case Ty::F64: return 8;
    case Ty::Pred: return 1;
    default: return 0;
  }
}
bool ty_is_float(Ty t) {
  return t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2 || t == Ty::TF32 || t == Ty::F32 || t == Ty::F64;
}
bool ty_is_signed(Ty t) { return t == Ty::S8 || t == Ty::S16 || t == Ty::S32 || t == Ty::S64; }
const char* ty_name(Ty t) {
  static const char* n[] = {"none", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
                            "s64", "f16", "f16x2", "bf16", "f32", "f64", "pred", "bf16x2", "tf32"};
  return n[int(t)];
}

// ---------------------------------------------------------------------------------------------
// Parsed module (before decoding)

struct VarDecl {
  std::string name;
  std::string space;          // ".reg" ".shared" ".local" ".param" ".global" ".const"
  Ty ty = Ty::None;
  uint64_t align = 0, count = 1;  // count: array length (0 for [] )
  bool array = false, unsized = false;
  std::vector<uint8_t> init;
  uint64_t bytes() const { return uint64_t(ty_bytes(ty)) * (array ? count : 1); }
};

struct Stmt {
  enum Kind { Instr, Label, Decl } kind = Instr;
  ParsedInstr ins;
  Operand guard;              // Name (maybe negated) or None
  std::string label;
  VarDecl decl;
  int file = 0, line = 0;
};

struct PFunc {
  std::string name;
  bool entry = false, has_body = false;
  std::vector<VarDecl> params, rets;
  std::vector<Stmt> body;
};

class Parser {
 public:
  explicit Parser(const std::string& text) : t_(tokenize(text)) {}
  std::vector<PFunc> funcs;
  std::vector<VarDecl> module_vars;
  std::map<int, std::string> files;

  void module() {
    while (peek().kind != Token::End) top_level();
  }

 private:
  std::vector<Token> t_;
  size_t p_ = 0;
  int cur_file_ = 0, cur_line_ = 0;

  const Token& peek(int k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  const Token& next() { const Token& t = t_[p_]; if (p_ + 1 < t_.size()) ++p_; return t; }
  bool is(const char* s, int k = 0) const { return peek(k).text == s && peek(k).kind != Token::Str; }
  void expect(const char* s) {
    if (!is(s)) fail("expected '" + std::string(s) + "' near '" + peek().text + "' (line " + std::to_string(peek().line) + ")");
    next();
  }
  void skip_line() {
    int l = peek().line;
    while (peek().kind != Token::End && peek().line == l) next();
  }
  uint64_t number() {
    const Token& t = next();
    if (t.kind != Token::Num) fail("expected a number near '" + t.text + "'");
    return std::stoull(t.text, nullptr, 0);
  }

  void top_level() {
    const Token& t = peek();
    if (t.text == ".version" || t.text == ".target" || t.text == ".address_size") { skip_line(); return; }
    if (t.text == ".file") {
      next();
      int id = int(number());
      if (peek().kind == Token::Str) files[id] = next().text;
      skip_line_rest(t.line);
      return;
    }
    if (t.text == ".section") {
      next();
      while (!is("{")) next();
      skip_braces();
      return;
    }
    bool entry = false;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) next();
    if (is(".entry") || is(".func")) {
      entry = is(".entry");
      next();
      function(entry);
      return;
    }
    if (is(".global") || is(".const") || is(".shared")) {
      VarDecl d = var_decl();
      module_vars.push_back(d);
      return;
    }
    fail("directive '" + t.text + "' (line " + std::to_string(t.line) + ")");
  }
  void skip_line_rest(int line) { while (peek().kind != Token::End && peek().line == line) next(); }
  void skip_braces() {
    int depth = 0;
    do {
      if (is("{")) ++depth;
      if (is("}")) --depth;
      next();
    } while (depth > 0 && peek().kind != Token::End);
  }

  // .param/.reg/.shared/... declarations: space, attributes, type, name, [N], = {init}
  VarDecl var_decl() {
    VarDecl d;
    d.space = next().text;
    for (;;) {
      if (is(".align")) { next(); d.align = number(); continue; }
      if (is(".ptr") || is(".global") || is(".shared") || is(".local") || is(".const") || is(".v2") || is(".v4")) {
        if (is(".v2") || is(".v4")) fail("vector variable declaration");
        next();
        continue;
      }
      Ty ty = peek().kind == Token::Ident && peek().text[0] == '.' ? parse_ty(peek().text.substr(1)) : Ty::None;
      if (ty != Ty::None) { next(); d.ty = ty; continue; }
      break;
    }
    if (d.ty == Ty::None) fail("declaration without a type near '" + peek().text + "'");
    d.name = next().text;
    if (is("<")) {  // %r<19>: handled by the caller through count
      next();
      d.count = number();
      expect(">");
      d.array = false;
      d.unsized = true;  // marks a register range
    }
    if (is("[")) {
      next();
      d.array = true;
      if (is("]")) { d.count = 0; } else { d.count = number(); }
      expect("]");
    }
    if (is("=")) {
      next();
      int w = ty_bytes(d.ty);
      auto push = [&](uint64_t v) { for (int k = 0; k < w; ++k) d.init.push_back(uint8_t(v >> (8 * k))); };
      if (is("{")) {
        next();
        while (!is("}")) {
          push(literal(d.ty));
          if (is(",")) next();
        }
        next();
      } else {
        push(literal(d.ty));
      }
    }
    if (is(";")) next();
    return d;
  }
  uint64_t literal(Ty ty) {
    bool neg = false;
    if (is("-")) { next(); neg = true; }
    const Token& t = next();
    if (t.kind != Token::Num) fail("initialiser '" + t.text + "'");
    uint64_t v;
    if (t.text.size() > 2 && (t.text[1] == 'f' || t.text[1] == 'F' || t.text[1] == 'd' || t.text[1] == 'D') && t.text[0] == '0')
      v = std::stoull(t.text.substr(2), nullptr, 16);
    else if (t.text.find('.') != std::string::npos) {
      double x = std::stod(t.text);
      if (ty == Ty::F32) { float f = float(x); uint32_t b; memcpy(&b, &f, 4); v = b; }
      else memcpy(&v, &x, 8);
    } else v = std::stoull(t.text, nullptr, 0);
    return neg ? uint64_t(-int64_t(v)) : v;
  }

  std::vector<VarDecl> param_list() {
    std::vector<VarDecl> ps;
    expect("(");
    while (!is(")")) {
      if (!is(".param") && !is(".reg")) fail("parameter '" + peek().text + "'");
      ps.push_back(var_decl());
      if (is(",")) next();
    }
    next();
    return ps;
  }

  void function(bool entry) {
    PFunc f;
    f.entry = entry;
    if (is("(")) f.rets = param_list();
    f.name = next().text;
    if (is("(")) f.params = param_list();
    // Performance directives (.maxntid 256, 1, 1 / .reqntid / .minnctapersm / .noreturn / .maxnreg)
    while (!is("{") && !is(";")) next();
    if (is(";")) { next(); funcs.push_back(f); return; }
    f.has_body = true;
    next();  // {
    int depth = 1;
    while (depth > 0) {
      if (peek().kind == Token::End) fail("unterminated function " + f.name);
      if (is("{")) { next(); ++depth; continue; }
      if (is("}")) { next(); --depth; continue; }
      statement(f);
    }
    funcs.push_back(std::move(f));
  }

  void statement(PFunc& f) {
    const Token& t = peek();
    if (t.text == ".loc") {
      int l = t.line;
      next();
      cur_file_ = int(number());
      cur_line_ = int(number());
      skip_line_rest(l);
      return;
    }
    if (t.text == ".pragma") { while (!is(";")) next(); next(); return; }
    if (t.text == ".reg" || t.text == ".shared" || t.text == ".local" || t.text == ".param" || t.text == ".global" ||
        t.text == ".const") {
      Stmt s;
      s.kind = Stmt::Decl;
      s.decl = var_decl();
      // ".reg .f16 low, high;" (cuda_fp16.h's inline PTX): more names of the same type
      while (is(",")) {
        next();
        Stmt more = s;
        more.decl.name = next().text;
        more.decl.count = 1, more.decl.array = false, more.decl.unsized = false;
        if (is("<")) { next(); more.decl.count = number(); expect(">"); more.decl.unsized = true; }
        f.body.push_back(std::move(s));
        s = std::move(more);
      }
      if (is(";")) next();
      f.body.push_back(std::move(s));
      return;
    }
    if (t.kind == Token::Ident && peek(1).text == ":" ) {
      Stmt s;
      s.kind = Stmt::Label;
      s.label = next().text;
      next();
      f.body.push_back(std::move(s));
      return;
    }
    if (t.kind == Token::Ident && t.text[0] == '.') fail("directive '" + t.text + "' in " + f.name);
    Stmt s;
    s.kind = Stmt::Instr;
    s.file = cur_file_;
    s.line = cur_line_;
    std::string text;
    if (is("@")) {
      next();
      text = "@";
      if (is("!")) { next(); s.guard.negated = true; text += "!"; }
      s.guard.kind = Operand::Name;
      s.guard.text = next().text;
      text += s.guard.text + " ";
    }
    const Token& op = next();
    if (op.kind != Token::Ident) fail("instruction '" + op.text + "' (line " + std::to_string(op.line) + ")");
    s.ins.line = op.line;
    text += op.text;
    size_t dot = op.text.find('.');
    s.ins.opcode = op.text.substr(0, dot);
    for (size_t b = dot; b != std::string::npos;) {
      size_t e = op.text.find('.', b + 1);
      s.ins.mods.push_back(op.text.substr(b + 1, e == std::string::npos ? std::string::npos : e - b - 1));
      b = e;
    }
    size_t start = p_;
    while (!is(";")) {
      s.ins.ops.push_back(operand());
      if (is(",")) next();
    }
    for (size_t k = start; k < p_; ++k) text += (k == start ? " " : t_[k].text == "," ? "" : " ") + t_[k].text;
    next();
    s.ins.text = text;
    f.body.push_back(std::move(s));
  }

  Operand operand() {
    Operand o;
    if (is("{")) {
      next();
      o.kind = Operand::Vec;
      while (!is("}")) { o.items.push_back(operand()); if (is(",")) next(); }
      next();
      return o;
    }
    if (is("(")) {
      next();
      o.kind = Operand::List;
      while (!is(")")) { o.items.push_back(operand()); if (is(",")) next(); }
      next();
      return o;
    }
    if (is("[")) {
      next();
      o.kind = Operand::Addr;
      if (peek().kind == Token::Ident) o.text = next().text;
      else if (peek().kind == Token::Num) { o.offset = int64_t(std::stoull(next().text, nullptr, 0)); }
      while (is("+") || is("-")) {
        bool neg = next().text == "-";
        if (is("-")) { next(); neg = !neg; }
        int64_t v = int64_t(std::stoull(next().text, nullptr, 0));
        o.offset += neg ? -v : v;
      }
      expect("]");
      return o;
    }
    if (is("!")) { next(); o = operand(); o.negated = true; return o; }
    if (is("-")) {
      next();
      o.kind = Operand::Number;
      o.text = "-" + next().text;
      return o;
    }
    if (is("_")) { next(); o.kind = Operand::Sink; return o; }
    const Token& t = next();
    if (t.kind == Token::Num) { o.kind = Operand::Number; o.text = t.text; }
    else if (t.kind == Token::Ident) { o.kind = Operand::Name; o.text = t.text; }
    else fail("operand '" + t.text + "'");
    if (is("|")) { next(); o.pipe.push_back(operand()); }
    return o;
  }
};

// ---------------------------------------------------------------------------------------------
// Decoding: one function at a time

struct Builder;

struct FuncCtx : DecodeCtx {
  Builder& B;
  Program& P;
  int fi;                                   // index into P.funcs
  PFunc& pf;
  std::unordered_map<std::string, uint16_t> regs;       // register or param variable -> slot
  std::unordered_map<std::string, uint32_t> reg_nslots;
  std::unordered_map<std::string, Ty> reg_ty;           // declared type of each .reg
  std::unordered_map<std::string, uint64_t> shared_off; // this function's .shared vars
  std::unordered_map<std::string, int32_t> labels;
  std::set<uint16_t> read_slots;            // slots read anywhere in the function
  std::string depot;
  uint32_t nregs = 0;
  int32_t base_pc = 0;
  std::vector<std::pair<int32_t, std::string>> label_fixups;
  FuncCtx(Builder& b, Program& p, int f, PFunc& pf_);

  uint16_t new_slots(uint32_t n) {
    uint16_t s = uint16_t(nregs);
    nregs += n;
    if (nregs > kSlotIndex) fail("too many registers in " + pf.name);
    return s;
  }
  uint16_t dst(const Operand& o) override;
  uint16_t src(const Operand& o, Ty t) override;
  Space addr(const Operand& o, Instr& in) override;
  int32_t label(const Operand& o) override;
  int32_t call_site(const ParsedInstr& p) override;
  int32_t slot_list(std::vector<uint16_t> slots) override {
    P.slot_lists.push_back(std::move(slots));
    return int32_t(P.slot_lists.size() - 1);
  }
  Ty reg_type(const Operand& o) override {
    auto it = o.kind == Operand::Name ? reg_ty.find(o.text) : reg_ty.end();
    return it == reg_ty.end() ? Ty::None : it->second;
  }
  bool result_unused(const Operand& o) override {
    if (o.kind == Operand::Sink) return true;
    auto it = regs.find(o.text);
    return it != regs.end() && !read_slots.count(it->second);
  }
};

struct Builder {
  Program& P;
  Parser& ps;
  std::unordered_map<std::string, int> func_index;
  std::unordered_map<std::string, int> global_index;
  std::unordered_map<std::string, uint64_t> module_shared;
  std::map<uint64_t, uint32_t> const_index;

  Builder(Program& p, Parser& s) : P(p), ps(s) {}

  uint16_t constant(uint64_t v) {
    auto it = const_index.find(v);
    if (it != const_index.end()) return uint16_t(kSlotConst | it->second);
    uint32_t i = uint32_t(P.consts.size());
    if (i > kSlotIndex) fail("constant pool overflow");
    P.consts.push_back(v);
    const_index[v] = i;
    return uint16_t(kSlotConst | i);
  }
  uint16_t global_address(int g, int64_t off) {
    uint32_t i = uint32_t(P.consts.size());
    P.consts.push_back(0);
    P.fixups.push_back({i, g, off});
    return uint16_t(kSlotConst | i);
  }

  int line_id(const std::string& file, int line) {
    for (size_t i = 0; i < P.lines.size(); ++i)
      if (P.lines[i].line == line && P.lines[i].file == file) return int(i);
    P.lines.push_back({file, line});
    return int(P.lines.size() - 1);
  }

  void run() {
    // Module-scope variables
    for (auto& v : ps.module_vars) {
      if (v.space == ".shared") {
        if (v.array && v.count == 0) continue;  // dynamic shared: placed per kernel, after its statics
        uint64_t a = std::max<uint64_t>(v.align, std::max(1, ty_bytes(v.ty)));
        P.module_shared = (P.module_shared + a - 1) / a * a;
        module_shared[v.name] = P.module_shared;
        P.module_shared_vars.push_back({v.name, P.module_shared, v.bytes(), a, false});
        P.module_shared += v.bytes();
        continue;
      }
      GlobalVar g;
      g.name = v.name;
      g.size = v.bytes();
      g.align = std::max<uint64_t>(v.align, ty_bytes(v.ty));
      g.init = v.init;
      g.is_const = v.space == ".const";
      global_index[v.name] = int(P.globals.size());
      P.globals.push_back(g);
    }
    // Dynamic shared (.extern .shared at module scope): the same symbol in every kernel, after statics.
    for (size_t i = 0; i < ps.funcs.size(); ++i) {
      auto& f = ps.funcs[i];
      if (func_index.count(f.name) && ps.funcs[func_index[f.name]].has_body && !f.has_body) continue;
      func_index[f.name] = int(i);
    }
    P.funcs.resize(ps.funcs.size());
    for (size_t i = 0; i < ps.funcs.size(); ++i) {
      auto& f = ps.funcs[i];
      P.funcs[i].name = f.name;
      P.funcs[i].is_entry = f.entry;
      P.funcs[i].is_extern = !f.has_body;
    }
    // A function the engine cannot run is reported when a launch reaches it (SimError
    // "unsupported"), so the module's other kernels still run.
    for (size_t i = 0; i < ps.funcs.size(); ++i) {
      if (!ps.funcs[i].has_body) continue;
      size_t code0 = P.code.size(), calls0 = P.calls.size();
      try {
        build_function(int(i));
      } catch (const std::runtime_error& e) {
        P.code.resize(code0);
        P.text.resize(code0);
        P.calls.resize(calls0);
        Function& F = P.funcs[i];
        F.unsupported = e.what();
        F.callees.clear();
        F.begin = int(code0);
        Instr stop;
        stop.func = int(i);
        stop.cls = kTrap;
        P.code.push_back(stop);
        P.text.push_back(e.what());
        F.end = int(P.code.size());
      }
    }
    // Call sites name the callee's parameter slots, known once every function is built.
    for (auto& cs : P.calls) {
      if (cs.callee < 0) continue;
      Function& C = P.funcs[cs.callee];
      if (!C.unsupported.empty()) continue;
      if (cs.args.size() != C.param_slots.size()) fail("argument count in a call to " + C.name);
      for (auto& a : cs.args) a.to = C.param_slots[a.to];
      for (auto& r : cs.rets) {
        if (r.from >= C.ret_slots.size()) fail("return value count in a call to " + C.name);
        r.from = C.ret_slots[r.from];
      }
    }
    P.const_lanes.resize(P.consts.size() * 32);
    for (size_t i = 0; i < P.consts.size(); ++i)
      for (int l = 0; l < 32; ++l) P.const_lanes[i * 32 + l] = P.consts[i];
    // Frame sizes over the deepest call chain
    for (auto& f : P.funcs) {
      if (!f.is_entry) continue;
      std::vector<int> path;
      chain(int(&f - P.funcs.data()), path, f.max_regs, f.max_depot, 0, 0);
    }
  }

  void chain(int fi, std::vector<int>& path, uint32_t& regs, uint32_t& depot, uint32_t r0, uint32_t d0) {
    if (std::find(path.begin(), path.end(), fi) != path.end()) {
      Function& k = P.funcs[path.front()];
      if (k.unsupported.empty()) k.unsupported = "unsupported PTX: recursive call to " + P.funcs[fi].name;
      return;
    }
    Function& f = P.funcs[fi];
    Function& k = P.funcs[path.empty() ? fi : path.front()];
    if (!f.unsupported.empty() && k.unsupported.empty()) k.unsupported = f.unsupported;
    r0 += f.nregs;
    d0 += (f.depot + 15) / 16 * 16;
    regs = std::max(regs, r0);
    depot = std::max(depot, d0);
    path.push_back(fi);
    for (int c : f.callees) chain(c, path, regs, depot, r0, d0);
    path.pop_back();
  }

  void build_function(int fi);
  void compute_ipdoms(int fi);
};

FuncCtx::FuncCtx(Builder& b, Program& p, int f, PFunc& pf_) : B(b), P(p), fi(f), pf(pf_) {}

static bool is_special(const std::string& n, uint16_t& s) {
  static const std::map<std::string, uint16_t> m = {
      {"%tid.x", kTidX},       {"%tid.y", kTidY},         {"%tid.z", kTidZ},         {"%ntid.x", kNtidX},
      {"%ntid.y", kNtidY},     {"%ntid.z", kNtidZ},       {"%ctaid.x", kCtaidX},     {"%ctaid.y", kCtaidY},
      {"%ctaid.z", kCtaidZ},   {"%nctaid.x", kNctaidX},   {"%nctaid.y", kNctaidY},   {"%nctaid.z", kNctaidZ},
      {"%laneid", kLaneid},    {"%warpid", kWarpid},      {"%nwarpid", kNwarpid},    {"%lanemask_eq", kLanemaskEq},
      {"%lanemask_lt", kLanemaskLt}, {"%lanemask_le", kLanemaskLe}, {"%lanemask_gt", kLanemaskGt},
      {"%lanemask_ge", kLanemaskGe}, {"%clock", kClock},  {"%clock64", kClock64},    {"%smid", kSmid},
      {"%nsmid", kNsmid},      {"%gridid", kGridid},      {"%dynamic_smem_size", kDynSmem},
      {"%total_smem_size", kTotalSmem}};
  auto it = m.find(n);
  if (it == m.end()) return false;
  s = uint16_t(kSlotSpecial | it->second);
  return true;
}

uint16_t FuncCtx::dst(const Operand& o) {
  if (o.kind == Operand::Sink) return new_slots(1);
  if (o.kind != Operand::Name) fail("destination '" + o.text + "'");
  auto it = regs.find(o.text);
  if (it == regs.end()) fail("undeclared register " + o.text + " in " + pf.name);
  return it->second;
}

static uint64_t parse_number(const std::string& t0, Ty ty) {
  bool neg = !t0.empty() && t0[0] == '-';
  std::string t = neg ? t0.substr(1) : t0;
  uint64_t v;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F')) {
    v = std::stoull(t.substr(2), nullptr, 16);
    if (ty == Ty::F64) { float f; uint32_t b = uint32_t(v); memcpy(&f, &b, 4); double d = f; memcpy(&v, &d, 8); }
    if (neg) v ^= (ty == Ty::F64 ? 1ull << 63 : 1ull << 31);
    return v;
  }
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'd' || t[1] == 'D')) {
    v = std::stoull(t.substr(2), nullptr, 16);
    if (ty == Ty::F32) { double d; memcpy(&d, &v, 8); float f = float(d); uint32_t b; memcpy(&b, &f, 4); v = b; }
    if (neg) v ^= (ty == Ty::F32 ? 1ull << 31 : 1ull << 63);
    return v;
  }
  bool is_float_text = t.find('.') != std::string::npos || ((t.find('e') != std::string::npos) && t.find("0x") != 0);
  if (is_float_text || (ty_is_float(ty) && ty != Ty::F16 && ty != Ty::F16x2)) {
    double d = std::stod(t);
    if (neg) d = -d;
    if (ty == Ty::F32) { float f = float(d); uint32_t b; memcpy(&b, &f, 4); return b; }
    if (ty == Ty::F64) { memcpy(&v, &d, 8); return v; }
    return uint64_t(int64_t(d));
  }
  v = std::stoull(t, nullptr, 0);
  return neg ? uint64_t(-int64_t(v)) : v;
}

uint16_t FuncCtx::src(const Operand& o, Ty t) {
  if (o.kind == Operand::Number) {
    uint64_t v = parse_number(o.text, t);
    int w = ty_bytes(t);
    if (w > 0 && w < 8 && !ty_is_float(t)) v &= (1ull << (8 * w)) - 1;
    return B.constant(v);
  }
  if (o.kind != Operand::Name) fail("source operand of kind " + std::to_string(int(o.kind)));
  uint16_t s;
  if (is_special(o.text, s)) return s;
  auto it = regs.find(o.text);
  if (it != regs.end()) { read_slots.insert(it->second); return it->second; }
  auto sh = shared_off.find(o.text);
  if (sh != shared_off.end()) return B.constant(sh->second);
  auto msh = B.module_shared.find(o.text);
  if (msh != B.module_shared.end()) return B.constant(msh->second);
  auto g = B.global_index.find(o.text);
  if (g != B.global_index.end()) return B.global_address(g->second, 0);
  if (o.text == depot) return uint16_t(kSlotSpecial | kDepot);
  fail("unknown operand '" + o.text + "' in " + pf.name);
}

Space FuncCtx::addr(const Operand& o, Instr& in) {
  if (o.kind != Operand::Addr) fail("expected an address, got '" + o.text + "'");
  in.imm = o.offset;
  if (o.text.empty()) { in.a[0] = B.constant(0); return Space::Generic; }
  const std::string& n = o.text;
  Function& F = P.funcs[fi];
  if (F.is_entry) {
    for (auto& kp : F.params)
      if (kp.name == n) { in.a[0] = B.constant(0); in.imm += int64_t(kp.offset); return Space::KParam; }
  }
  auto it = regs.find(n);
  if (it != regs.end()) {
    in.a[0] = it->second;
    if (reg_nslots.count(n)) return Space::Param;   // a .param variable living in slots
    read_slots.insert(it->second);
    return Space::Generic;
  }
  auto sh = shared_off.find(n);
  if (sh != shared_off.end()) { in.a[0] = B.constant(0); in.imm += int64_t(sh->second); return Space::Shared; }
  auto msh = B.module_shared.find(n);
  if (msh != B.module_shared.end()) { in.a[0] = B.constant(0); in.imm += int64_t(msh->second); return Space::Shared; }
  auto g = B.global_index.find(n);
  if (g != B.global_index.end()) {
    in.a[0] = B.global_address(g->second, 0);
    return P.globals[g->second].is_const ? Space::Const : Space::Global;
  }
  if (n == depot) { in.a[0] = uint16_t(kSlotSpecial | kDepot); return Space::Local; }
  fail("unknown address base '" + n + "' in " + pf.name);
}

int32_t FuncCtx::label(const Operand& o) {
  label_fixups.push_back({int32_t(P.code.size()), o.text});
  return -1;
}

int32_t FuncCtx::call_site(const ParsedInstr& p) {
  CallSite cs;
  size_t k = 0;
  const Operand* ret = nullptr;
  if (k < p.ops.size() && p.ops[k].kind == Operand::List) ret = &p.ops[k++];
  if (k >= p.ops.size() || p.ops[k].kind != Operand::Name) fail("call without a callee: " + p.text);
  std::string callee = p.ops[k++].text;
  const Operand* args = k < p.ops.size() && p.ops[k].kind == Operand::List ? &p.ops[k++] : nullptr;
  if (k < p.ops.size()) fail("indirect call: " + p.text);
  auto fit = B.func_index.find(callee);
  if (fit == B.func_index.end()) fail("call to undeclared function " + callee);
  int ci = fit->second;
  auto slot_of = [&](const Operand& o) -> std::pair<uint16_t, uint32_t> {
    auto it = regs.find(o.text);
    if (it == regs.end()) fail("call argument " + o.text + " is not a .param variable");
    read_slots.insert(it->second);
    auto n = reg_nslots.find(o.text);
    return {it->second, n == reg_nslots.end() ? 1u : n->second};
  };
  if (P.funcs[ci].is_extern) {
    if (callee != "vprintf") fail("call to external function " + callee);
    cs.builtin = callee;
    if (args) for (auto& a : args->items) cs.arg_slots.push_back(slot_of(a).first);
    if (ret) for (auto& r : ret->items) cs.ret_slots.push_back(slot_of(r).first);
  } else {
    cs.callee = ci;
    auto& F = P.funcs[fi];
    if (std::find(F.callees.begin(), F.callees.end(), ci) == F.callees.end()) F.callees.push_back(ci);
    size_t na = args ? args->items.size() : 0;
    if (args) for (size_t i = 0; i < na; ++i) {
      auto s = slot_of(args->items[i]);
      cs.args.push_back({s.first, uint16_t(i), uint16_t(s.second)});  // 'to' patched once the callee is built
    }
    if (ret) for (size_t i = 0; i < ret->items.size(); ++i) {
      auto s = slot_of(ret->items[i]);
      cs.rets.push_back({uint16_t(i), s.first, uint16_t(s.second)});
    }
  }
  P.calls.push_back(cs);
  return int32_t(P.calls.size() - 1);
}


void Builder::build_function(int fi) {
  PFunc& pf = ps.funcs[fi];
  Function& F = P.funcs[fi];
  FuncCtx c(*this, P, fi, pf);
  F.begin = int(P.code.size());
  // Parameters
  if (F.is_entry) {
    uint64_t off = 0;
    for (auto& p : pf.params) {
      uint64_t a = std::max<uint64_t>(p.align, std::max(1, ty_bytes(p.ty)));
      off = (off + a - 1) / a * a;
      F.params.push_back({p.name, off, p.bytes(), a});
      off += p.bytes();
    }
    F.param_bytes = off;
  } else {
    auto add = [&](const VarDecl& v, std::vector<uint16_t>& slots, std::vector<uint32_t>& ns) {
      uint32_t n = uint32_t((v.bytes() + 7) / 8);
      uint16_t s = c.new_slots(n);
      c.regs[v.name] = s;
      c.reg_nslots[v.name] = n;
      slots.push_back(s);
      ns.push_back(n);
    };
    for (auto& p : pf.params) add(p, F.param_slots, F.param_nslots);
    for (auto& r : pf.rets) add(r, F.ret_slots, F.ret_nslots);
  }
  // Declarations (any scope: nvcc's names are unique per function, callseq params reuse their slot)
  uint64_t shared = 0;
  for (auto& s : pf.body) {
    if (s.kind != Stmt::Decl) continue;
    VarDecl& d = s.decl;
    if (d.space == ".reg") {
      if (d.unsized) {
        for (uint64_t i = 0; i < d.count; ++i) {
          c.regs[d.name + std::to_string(i)] = c.new_slots(1);
          c.reg_ty[d.name + std::to_string(i)] = d.ty;
        }
      } else if (!c.regs.count(d.name)) {
        c.regs[d.name] = c.new_slots(1);
        c.reg_ty[d.name] = d.ty;
      }
    } else if (d.space == ".param") {
      uint32_t n = uint32_t((d.bytes() + 7) / 8);
      auto it = c.reg_nslots.find(d.name);
      if (it == c.reg_nslots.end() || it->second < n) {
        c.regs[d.name] = c.new_slots(n);
        c.reg_nslots[d.name] = n;
      }
    } else if (d.space == ".shared") {
      if (!F.is_entry) fail(".shared variable inside device function " + pf.name);
      uint64_t a = std::max<uint64_t>(d.align, std::max(1, ty_bytes(d.ty)));
      shared = (shared + a - 1) / a * a;
      c.shared_off[d.name] = P.module_shared + shared;
      F.shared_vars.push_back({d.name, P.module_shared + shared, d.bytes(), a, false});
      shared += d.bytes();
    } else if (d.space == ".local") {
      if (!c.depot.empty()) fail("two .local declarations in " + pf.name);
      c.depot = d.name;
      F.depot = uint32_t(d.bytes());
    } else {
      fail(d.space + " variable inside " + pf.name);
    }
  }
  F.shared_static = P.module_shared + shared;
  // Dynamic shared: module-level ".extern .shared .b8 buf[]" resolves to the end of the statics.
  for (auto& v : ps.module_vars)
    if (v.space == ".shared" && v.array && v.count == 0) {
      uint64_t a = std::max<uint64_t>(v.align, 16);
      uint64_t off = (F.shared_static + a - 1) / a * a;
      c.shared_off[v.name] = off;
      F.shared_align = a;
      F.shared_vars.push_back({v.name, off, 0, a, true});
    }
  // Pre-scan reads so atom's "result unused" is known when decoding.
  for (auto& s : pf.body) {
    if (s.kind != Stmt::Instr) continue;
    auto mark = [&](const Operand& o, auto& self) -> void {
      if (o.kind == Operand::Name || (o.kind == Operand::Addr && !o.text.empty())) {
        auto it = c.regs.find(o.text);
        if (it != c.regs.end()) c.read_slots.insert(it->second);
      }
      for (auto& i : o.items) self(i, self);
    };
    const std::string& op = s.ins.opcode;
    bool has_dst = !(op == "st" || op == "red" || op == "bra" || op == "bar" || op == "barrier" || op == "call" ||
                     op == "ret" || op == "exit" || op == "stmatrix" || op == "cp" ||
                     (op == "wmma" && !s.ins.mods.empty() && s.ins.mods[0] == "store"));
    for (size_t k = has_dst ? 1 : 0; k < s.ins.ops.size(); ++k) mark(s.ins.ops[k], mark);
    if (s.ins.opcode == "call") for (auto& o : s.ins.ops) mark(o, mark);
    if (s.guard.kind == Operand::Name) mark(s.guard, mark);
  }
  // Instructions
  std::string fname;
  for (auto& s : pf.body) {
    if (s.kind == Stmt::Label) { c.labels[s.label] = int32_t(P.code.size()); continue; }
    if (s.kind != Stmt::Instr) continue;
    Instr in;
    in.func = fi;
    auto fit = ps.files.find(s.file);
    in.line_id = line_id(fit == ps.files.end() ? "" : fit->second, s.line);
    if (s.guard.kind == Operand::Name) {
      auto it = c.regs.find(s.guard.text);
      if (it == c.regs.end()) fail("undeclared predicate " + s.guard.text);
      in.guard = it->second;
      in.guard_neg = s.guard.negated;
    }
    const OpcodeRow* row = find_row(s.ins);
    if (!row) fail("`" + s.ins.text + "` (PTX line " + std::to_string(s.ins.line) + "): no such instruction");
    row->decode(c, s.ins, in);
    // In a device function every ret goes to one final ret, so the function has a single exit.
    if (in.cls == kRet && !F.is_entry) { in.cls = kBra; in.target = -2; }
    if (in.cls == kRet && F.is_entry) in.cls = kExit;
    P.code.push_back(in);
    P.text.push_back(s.ins.text);
  }
  Instr fin;
  fin.func = fi;
  fin.cls = F.is_entry ? kExit : kRet;
  fin.line_id = P.code.empty() || int(P.code.size()) == F.begin ? line_id("", 0) : P.code.back().line_id;
  P.code.push_back(fin);
  P.text.push_back(F.is_entry ? "exit (end of kernel)" : "ret (end of function)");
  F.end = int(P.code.size());
  for (auto& [pc, name] : c.label_fixups) {
    auto it = c.labels.find(name);
    if (it == c.labels.end()) fail("undefined label " + name + " in " + pf.name);
    P.code[pc].target = it->second;
  }
  for (int pc = F.begin; pc < F.end; ++pc)
    if (P.code[pc].target == -2 && P.code[pc].cls == kBra) P.code[pc].target = F.end - 1;
  F.nregs = c.nregs;
  compute_ipdoms(fi);
}

// Immediate post-dominators on the function's CFG: where a divergent branch reconverges.
void Builder::compute_ipdoms(int fi) {
  Function& F = P.funcs[fi];
  const int b = F.begin, e = F.end;
  std::vector<char> leader(e - b + 1, 0);
  leader[0] = 1;
  for (int pc = b; pc < e; ++pc) {
    const Instr& in = P.code[pc];
    if (in.cls == kBra) leader[in.target - b] = 1;
    if (in.cls == kBra || in.cls == kExit || in.cls == kRet || in.cls == kTrap) leader[pc + 1 - b] = 1;
  }
  std::vector<int> block_of(e - b), starts;
  for (int pc = b; pc < e; ++pc) {
    if (leader[pc - b]) starts.push_back(pc);
    block_of[pc - b] = int(starts.size()) - 1;
  }
  const int nb = int(starts.size()), exit_node = nb, nn = nb + 1;
  std::vector<std::vector<int>> succ(nn);
  for (int i = 0; i < nb; ++i) {
    int last = (i + 1 < nb ? starts[i + 1] : e) - 1;
    const Instr& in = P.code[last];
    bool guarded = in.guard != kNoSlot;
    if (in.cls == kBra) {
      succ[i].push_back(block_of[in.target - b]);
      if (guarded && last + 1 < e) succ[i].push_back(block_of[last + 1 - b]);
    } else if (in.cls == kExit || in.cls == kRet || in.cls == kTrap) {
      succ[i].push_back(exit_node);
      if (guarded && last + 1 < e) succ[i].push_back(block_of[last + 1 - b]);
    } else if (last + 1 < e) {
      succ[i].push_back(block_of[last + 1 - b]);
    } else {
      succ[i].push_back(exit_node);
    }
  }
  const int W = (nn + 63) / 64;
  std::vector<std::vector<uint64_t>> pdom(nn, std::vector<uint64_t>(W, ~0ull));
  pdom[exit_node].assign(W, 0);
  pdom[exit_node][exit_node / 64] |= 1ull << (exit_node % 64);
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = nb - 1; i >= 0; --i) {
      std::vector<uint64_t> x(W, ~0ull);
      for (int s : succ[i]) for (int w = 0; w < W; ++w) x[w] &= pdom[s][w];
      x[i / 64] |= 1ull << (i % 64);
      if (x != pdom[i]) { pdom[i] = x; changed = true; }
    }
  }
  auto count = [&](int i) { int c = 0; for (auto w : pdom[i]) c += __builtin_popcountll(w); return c; };
  for (int i = 0; i < nb; ++i) {
    int last = (i + 1 < nb ? starts[i + 1] : e) - 1;
    Instr& in = P.code[last];
    if (in.cls != kBra) continue;
    // Nodes that never reach the exit post-dominate nothing useful: no reconvergence point.
    bool reaches_exit = pdom[i][exit_node / 64] >> (exit_node % 64) & 1;
    int best = -1, best_count = -1, mine = count(i);
    if (reaches_exit && mine < nn) {
      for (int d = 0; d < nn; ++d) {
        if (d == i || !(pdom[i][d / 64] >> (d % 64) & 1)) continue;
        int cd = count(d);
        if (cd > best_count) { best_count = cd; best = d; }
      }
    }
    in.ipdom = best < 0 || best == exit_node ? -1 : starts[best];
  }
}

}  // namespace sim::eng

namespace sim::eng {
void build_program(const std::string& ptx, Program& out) {
  Parser ps(ptx);
  ps.module();
  Builder b(out, ps);
  b.run();
  model_issue(out);
}
}  // namespace sim::eng
