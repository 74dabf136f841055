// Opcode-table rows whose tests live outside opcode_test.cpp's case table: each test file that
// covers rows registers them here (row -> the tests that cover it), and Opcodes.TableIsCovered
// accepts them.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <utility>

namespace simtest {

inline std::map<std::string, std::string>& covered_rows() {
  static std::map<std::string, std::string> rows;
  return rows;
}
struct CoveredRows {
  CoveredRows(std::initializer_list<std::pair<const char*, const char*>> rows) {
    for (auto& r : rows) covered_rows()[r.first] = r.second;
  }
};

}  // namespace simtest
