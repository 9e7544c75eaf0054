/* A main() for replaying a fuzz target's corpus without libFuzzer: a target includes
 * this last, and a build with -DZVS_FUZZ_MAIN (any compiler, e.g. gcc with ASan or
 * valgrind) runs LLVMFuzzerTestOneInput over each file or directory named on the
 * command line. Without ZVS_FUZZ_MAIN it adds nothing. */
#ifndef ZVS_FUZZ_REPLAY_H
#define ZVS_FUZZ_REPLAY_H
#ifdef ZVS_FUZZ_MAIN

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fuzz_replay_file(const char *path)
{
    static uint8_t buf[1 << 20];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf), fp);
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (!d) {
            if (fuzz_replay_file(argv[i]) < 0)
                return 1;
            files++;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            char path[4096];
            if (e->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
            if (fuzz_replay_file(path) == 0)
                files++;
        }
        closedir(d);
    }
    const char *name = strrchr(argv[0], '/');
    printf("%s: %d inputs replayed\n", name ? name + 1 : argv[0], files);
    return 0;
}

#endif
#endif
