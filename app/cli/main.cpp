// railyard-cli: the headless front end of the Railyard cost engine, for scripts, CI and tests.
//
// Why CLI11 rather than QCommandLineParser: the CLI needs nothing else from Qt, and with CLI11
// (header-only, Debian's libcli11-dev) it links the engine alone, so it installs and runs
// without any Qt library. CLI11 has subcommands with their own typed options, required
// arguments and option dependencies (--links needs --json) built in, and its option tables can
// be walked, so the help, the bash completion and the man page all come from one table instead
// of three hand-kept copies.
#include "commandline.h"
#include "commands.h"
#include "largepages.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace {

/**
 * Keeps freed memory in the process for the next allocation instead of handing it back to the
 * kernel. glibc serves a block above M_MMAP_THRESHOLD (128 KiB at first, raised dynamically up
 * to 32 MiB) with its own mmap() and munmap()s it on free(), and trims the heap's top above
 * M_TRIM_THRESHOLD; a buffer freed and allocated again is then faulted in and zeroed by the
 * kernel again, page by page (glibc manual, "Malloc Tunable Parameters"; mallopt(3)). A
 * million-GPU `evaluate` (docs/performance.md, "A million GPUs") frees and reallocates about
 * 400 MB that way: 1,371,000 page faults with the defaults, 1,269,000 with mmap off and no
 * trimming, the same output. A CLI run is short-lived and its peak is what it holds anyway, so
 * nothing is given back early that another process could use for long.
 */
void keepFreedMemory()
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_MAX, 0); // every block from the heap, so free() keeps it for reuse
    mallopt(M_TRIM_THRESHOLD, -1); // never trim the heap's top while the command runs (-1: off)
#endif
    // The heap's padding zeroed by the kernel on the second core, ahead of its first use: after
    // the machine sits idle a first touch costs about 1.5 s a GB here (docs/performance.md,
    // "A million GPUs"). From 256 MB of heap on, so that a command on a fabric of thousands of
    // GPUs (every sample's heap stays far below) holds no padding it never uses.
    railyard::prefaultHeapGrowth(std::size_t { 256 } << 20);
}

} // namespace

int main(int argc, char *argv[])
{
    keepFreedMemory();
    using namespace railyard::cli;
    CommandLine line;
    addAllCommands(line);
    return line.run(argc, argv);
}
