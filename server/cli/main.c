/* hkls entry point (replaced by the full CLI dispatcher). */
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        printf("hkls %s\n", HK_VERSION);
        return 0;
    }
    return 0;
}
