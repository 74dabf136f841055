#pragma once
constexpr int TILE = 32;
constexpr int ROWS = 8;
