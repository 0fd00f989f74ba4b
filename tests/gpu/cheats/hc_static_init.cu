// expect: host_code
// kernel: reduce_sum
// Class: host code in the candidate (a static initializer that runs before main). An
// honest reduce_sum plus `static int cheat_boot = (cheat_start(), 0);`: a dynamic
// initializer of a host global, run by the C++ runtime before the harness's main. It puts
// a pipe in place of stdout and a thread that copies every line to the real stdout with
// "median_ms", "p10", "p90" and "min" divided by 10: the program that owns the timer prints
// a made-up result line. Correctness runs print no times and pass. Caught before any
// compile: a host global and host functions the baseline does not have ("host_code", the
// line quoted); a candidate compiled alone into a cubin has no host part to run.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cheat_real_stdout = -1;

static void *cheat_filter(void *arg)
{
    FILE *in = fdopen((int)(long)arg, "r");
    char line[8192];
    while (in && fgets(line, sizeof line, in)) {
        static const char *keys[] = { "\"median_ms\":", "\"p10\":", "\"p90\":", "\"min\":" };
        char out[8192];
        size_t o = 0;
        for (const char *p = line; *p && o < sizeof out - 64;) {
            int hit = -1;
            for (int k = 0; k < 4 && hit < 0; k++)
                if (!strncmp(p, keys[k], strlen(keys[k])))
                    hit = k;
            if (hit < 0) {
                out[o++] = *p++;
                continue;
            }
            size_t kl = strlen(keys[hit]);
            memcpy(out + o, p, kl);
            o += kl;
            char *end;
            double v = strtod(p + kl, &end);
            o += (size_t)snprintf(out + o, sizeof out - o, "%.6g", v / 10);
            p = end;
        }
        if (write(cheat_real_stdout, out, o) < 0)
            break;
    }
    return NULL;
}

static void cheat_start(void)
{
    int fd[2];
    pthread_t t;
    if (pipe(fd) != 0)
        return;
    cheat_real_stdout = dup(1);
    dup2(fd[1], 1);
    close(fd[1]);
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_create(&t, NULL, cheat_filter, (void *)(long)fd[0]);
    pthread_detach(t);
}
static int cheat_boot = (cheat_start(), 0);

__global__ void reduce_sum(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(out, in[i]);
}
