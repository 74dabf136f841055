// Two files in one submission both define the contract: the grader cannot choose and says so.
void transpose_naive(const float* x, float* y, int M, int N) {}
void transpose_tiled(const float* x, float* y, int M, int N) {}
