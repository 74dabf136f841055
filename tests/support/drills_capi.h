// One row per host function a chapter's library exposes; the table ends with {nullptr, nullptr}.
#pragma once

struct DrillsEntry {
  const char* name;
  void* fn;
};

extern "C" const DrillsEntry drills_entries[];
