// for loops that declare and step a companion beside the counted variable (test_model)
__global__ void walk_pair(const float *x, float *y, int n)
{
    for (int a = 0, b = 0; a < n; a += 4, b += 2)
        y[b] = x[a];
}

// the condition compares the two: no fixed bound, not counted
__global__ void two_pointer(float *x, int n)
{
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        float t = x[i];
        x[i] = x[j];
        x[j] = t;
    }
}

// the companion is also moved in the body: not followed
__global__ void body_moves(const float *x, float *y, int n)
{
    for (int a = 0, b = 0; a < n; a++, b++) {
        y[b] = x[a];
        if (x[a] > 0.0f)
            b++;
    }
}
