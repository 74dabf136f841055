#include "ptx_info.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

namespace simrt {

namespace {

std::string strip_comments(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    } else if (s[i] == '"') {   // string literals (in .file) may hold "//"
      out += s[i++];
      while (i < s.size() && s[i] != '"') out += s[i++];
      if (i < s.size()) out += s[i++];
    } else {
      out += s[i++];
    }
  }
  // .loc and .file end at the line, not at a semicolon: drop them so they do not run into the
  // statement that follows.
  std::string kept;
  kept.reserve(out.size());
  for (size_t start = 0; start < out.size();) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    size_t first = out.find_first_not_of(" \t", start);
    auto directive = [&](const char* d, size_t n) {
      return first + n < end && out.compare(first, n, d) == 0 && isspace(static_cast<unsigned char>(out[first + n]));
    };
    bool line_directive = first < end && (directive(".loc", 4) || directive(".file", 5));
    if (!line_directive) kept.append(out, start, end - start).append("\n");
    start = end + 1;
  }
  return kept;
}

bool ident_char(char c) { return isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

std::vector<std::string> identifiers(const std::string& s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    if (ident_char(s[i]) || s[i] == '%' || s[i] == '.') {
      size_t j = i + 1;
      while (j < s.size() && ident_char(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

uint64_t type_size(const std::string& t) {
  if (t.size() < 3 || t[0] != '.') return 0;
  if (t == ".pred") return 1;
  char k = t[1];
  if (k != 'b' && k != 'u' && k != 's' && k != 'f') return 0;
  int bits = atoi(t.c_str() + 2);
  return bits >= 8 ? static_cast<uint64_t>(bits / 8) : 0;
}

struct VarDecl {
  std::string name;
  uint64_t bytes = 0;
};

// `.shared .align 4 .b8 tile[4224]` or `.local .align 8 .b8 __local_depot0[32]`
VarDecl parse_decl(const std::string& stmt) {
  VarDecl d;
  uint64_t elem = 0, vec = 1;
  size_t i = 0;
  while (i < stmt.size()) {
    while (i < stmt.size() && isspace(static_cast<unsigned char>(stmt[i]))) ++i;
    size_t j = i;
    while (j < stmt.size() && !isspace(static_cast<unsigned char>(stmt[j])) && stmt[j] != '[' &&
           stmt[j] != '=' && stmt[j] != ';')
      ++j;
    std::string tok = stmt.substr(i, j - i);
    if (tok.empty()) break;
    i = j;
    if (tok == ".align") {
      while (i < stmt.size() && isspace(static_cast<unsigned char>(stmt[i]))) ++i;
      while (i < stmt.size() && isdigit(static_cast<unsigned char>(stmt[i]))) ++i;
    } else if (tok == ".v2" || tok == ".v4" || tok == ".v8") {
      vec = static_cast<uint64_t>(atoi(tok.c_str() + 2));
    } else if (tok[0] == '.') {
      if (uint64_t s = type_size(tok)) elem = s;
    } else {
      d.name = tok;
      break;
    }
  }
  uint64_t count = 1;
  while (i < stmt.size() && stmt[i] == '[') {
    size_t close = stmt.find(']', i);
    if (close == std::string::npos) break;
    std::string n = stmt.substr(i + 1, close - i - 1);
    count *= n.empty() ? 0 : strtoull(n.c_str(), nullptr, 10);
    i = close + 1;
  }
  d.bytes = elem * vec * count;
  return d;
}

struct Function {
  std::string name;
  bool entry = false;
  std::string header;   // between the name and the body: .maxntid etc.
  std::string body;
};

std::string function_name(const std::string& header) {
  // `.visible .entry _Z3addPfi(` or `.func (.param .b32 r) _Z1fv(`: the identifier before the
  // first '(' that follows the return-value list.
  size_t kw = header.find(".entry");
  size_t pos = kw != std::string::npos ? kw + 6 : header.find(".func") + 5;
  while (pos < header.size() && isspace(static_cast<unsigned char>(header[pos]))) ++pos;
  if (pos < header.size() && header[pos] == '(') {
    int depth = 0;
    for (; pos < header.size(); ++pos) {
      if (header[pos] == '(') ++depth;
      if (header[pos] == ')' && --depth == 0) {
        ++pos;
        break;
      }
    }
  }
  while (pos < header.size() && isspace(static_cast<unsigned char>(header[pos]))) ++pos;
  size_t end = pos;
  while (end < header.size() && ident_char(header[end])) ++end;
  return header.substr(pos, end - pos);
}

int launch_bound(const std::string& header, const char* directive) {
  size_t p = header.find(directive);
  if (p == std::string::npos) return 0;
  p += strlen(directive);
  int product = 1;
  for (int k = 0; k < 3; ++k) {
    while (p < header.size() && (isspace(static_cast<unsigned char>(header[p])) || header[p] == ','))
      ++p;
    if (p >= header.size() || !isdigit(static_cast<unsigned char>(header[p]))) break;
    product *= atoi(header.c_str() + p);
    while (p < header.size() && isdigit(static_cast<unsigned char>(header[p]))) ++p;
  }
  return product;
}

}  // namespace

PtxInfo scan_ptx(const std::string& raw) {
  PtxInfo info;
  const std::string s = strip_comments(raw);
  // `.version 9.0` (directives like it end at the line, not at a semicolon)
  size_t v = s.find(".version");
  if (v != std::string::npos) info.version = static_cast<int>(atof(s.c_str() + v + 8) * 10 + 0.5);
  std::map<std::string, uint64_t> module_shared;
  std::vector<Function> functions;

  size_t stmt_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == ';') {
      std::string stmt = s.substr(stmt_start, i - stmt_start);
      if (stmt.find(".shared") != std::string::npos && stmt.find(".func") == std::string::npos) {
        VarDecl d = parse_decl(stmt.substr(stmt.find(".shared")));
        if (!d.name.empty()) module_shared[d.name] = d.bytes;
      }
      stmt_start = i + 1;
    } else if (c == '{') {
      std::string header = s.substr(stmt_start, i - stmt_start);
      int depth = 1;
      size_t j = i + 1;
      for (; j < s.size() && depth > 0; ++j) {
        if (s[j] == '{') ++depth;
        if (s[j] == '}') --depth;
      }
      if (header.find(".entry") != std::string::npos || header.find(".func") != std::string::npos) {
        Function f;
        f.entry = header.find(".entry") != std::string::npos;
        f.name = function_name(header);
        f.header = header;
        f.body = s.substr(i + 1, j - i - 2);
        functions.push_back(std::move(f));
      }
      i = j - 1;
      stmt_start = j;
    }
  }

  std::map<std::string, const Function*> by_name;
  for (const auto& f : functions) by_name[f.name] = &f;

  for (const auto& f : functions) {
    if (!f.entry) continue;
    KernelInfo k;
    std::set<std::string> visited, shared_used;
    std::vector<const Function*> todo{&f};
    while (!todo.empty()) {
      const Function* g = todo.back();
      todo.pop_back();
      if (!visited.insert(g->name).second) continue;
      // Function-scope declarations, one statement at a time.
      size_t start = 0;
      for (size_t p = 0; p <= g->body.size(); ++p) {
        if (p < g->body.size() && g->body[p] != ';') continue;
        std::string stmt = g->body.substr(start, p - start);
        start = p + 1;
        // Declarations start with their state space; instructions never do.
        size_t first = stmt.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) continue;
        stmt = stmt.substr(first);
        if (stmt.compare(0, 7, ".shared") == 0) {
          VarDecl d = parse_decl(stmt);
          if (!d.name.empty() && shared_used.insert(g->name + "/" + d.name).second)
            k.static_shared_bytes += d.bytes;
        } else if (stmt.compare(0, 6, ".local") == 0) {
          k.local_bytes += parse_decl(stmt).bytes;
        }
      }
      for (const auto& id : identifiers(g->body)) {
        auto sv = module_shared.find(id);
        if (sv != module_shared.end() && shared_used.insert(id).second)
          k.static_shared_bytes += sv->second;
        auto fn = by_name.find(id);
        if (fn != by_name.end() && !visited.count(id)) todo.push_back(fn->second);
      }
    }
    k.max_threads = launch_bound(f.header, ".maxntid");
    if (!k.max_threads) k.max_threads = launch_bound(f.header, ".reqntid");
    info.kernels[f.name] = k;
  }
  return info;
}

}  // namespace simrt
