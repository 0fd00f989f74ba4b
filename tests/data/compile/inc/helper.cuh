// Included through a relative path by uses_include.cu: the compile job must find it
// although it compiles a temp copy of the including file.
#pragma once
__device__ inline float hk_twice(float x) { return 2.0f * x; }
