#pragma once
// One copy of a native loop per x86 ISA, the best one picked by the loader on the machine that
// runs it (GCC/Clang function multi-versioning): a build carried to another machine still uses
// that machine's widest vectors, and never an instruction it lacks.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__)
#define DUET_SIMD_CLONES                                                                           \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define DUET_SIMD_CLONES
#endif
