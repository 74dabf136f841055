#include "library.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "oplog_format.h"

namespace replay {

namespace {

constexpr uint64_t kMaxLibraryBytes = 4ull << 30;

template <typename T>
bool read_struct(const std::string& file, uint64_t offset, T& out) {
  if (offset > file.size() || sizeof(T) > file.size() - offset) return false;
  memcpy(&out, file.data() + offset, sizeof(T));
  return true;
}

}  // namespace

std::vector<LibraryModule> read_library(const std::string& path, std::string& error) {
  std::vector<LibraryModule> modules;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return modules;
  }
  in.seekg(0, std::ios::end);
  const std::streamoff length = in.tellg();
  if (length < 0 || uint64_t(length) > kMaxLibraryBytes) {
    error = path + " is not a library the replay reads (size)";
    return modules;
  }
  in.seekg(0);
  std::string file(static_cast<size_t>(length), '\0');
  if (!in.read(file.data(), length)) {
    error = "cannot read " + path;
    return modules;
  }

  Elf64_Ehdr eh;
  if (!read_struct(file, 0, eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) {
    error = path + " is not a 64-bit little-endian ELF file";
    return modules;
  }
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shstrndx >= eh.e_shnum) {
    error = path + ": ELF section table unreadable";
    return modules;
  }
  Elf64_Shdr names;
  if (!read_struct(file, eh.e_shoff + uint64_t(eh.e_shstrndx) * sizeof(Elf64_Shdr), names) ||
      names.sh_offset > file.size() || names.sh_size > file.size() - names.sh_offset) {
    error = path + ": ELF section names unreadable";
    return modules;
  }
  const Elf64_Shdr* found = nullptr;
  Elf64_Shdr sh;
  for (uint32_t i = 0; i < eh.e_shnum; ++i) {
    if (!read_struct(file, eh.e_shoff + uint64_t(i) * sizeof(Elf64_Shdr), sh)) {
      error = path + ": ELF section table unreadable";
      return modules;
    }
    if (sh.sh_name >= names.sh_size) continue;
    const char* name = file.data() + names.sh_offset + sh.sh_name;
    const size_t room = names.sh_size - sh.sh_name;
    if (strnlen(name, room) < room && strcmp(name, ".nv_fatbin") == 0) {
      found = &sh;
      break;
    }
  }
  if (!found) {
    error = path + " has no .nv_fatbin section (no device code)";
    return modules;
  }
  if (sh.sh_type == SHT_NOBITS || sh.sh_offset > file.size() ||
      sh.sh_size > file.size() - sh.sh_offset) {
    error = path + ": .nv_fatbin lies outside the file";
    return modules;
  }

  const auto* section = reinterpret_cast<const uint8_t*>(file.data() + sh.sh_offset);
  const uint64_t size = sh.sh_size;
  for (uint64_t off = 0; off < size;) {
    if (section[off] == 0) {   // alignment padding between fat binaries
      ++off;
      continue;
    }
    const size_t n = simrt::fatbin_size(section + off, size - off);
    if (n == 0) {
      error = path + ": .nv_fatbin holds no fat binary at offset " + std::to_string(off);
      modules.clear();
      return modules;
    }
    LibraryModule m;
    m.ptx = simrt::extract_ptx_from_fatbin(section + off, n);
    m.offset = off;
    m.hash = simrt::oplog::fnv1a64(m.ptx.text.data(), m.ptx.text.size());
    modules.push_back(std::move(m));
    off += n;
  }
  if (modules.empty()) error = path + ": .nv_fatbin is empty";
  return modules;
}

}  // namespace replay
