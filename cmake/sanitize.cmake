# Sanitizer builds (docs/reliability.md, `make test-sanitize`): -DLOCUS_SANITIZE=address,undefined
# or -DLOCUS_SANITIZE=thread instruments everything this project builds (locus, tests, tools,
# examples; included before the first target). Use a build folder of its own (build-asan,
# build-tsan): the flags change every object. UBSan stays recoverable at compile time so that
# UBSAN_OPTIONS=halt_on_error=1 stops at the first report. The runtime options and suppression
# files (sanitizers/) come from the environment: the Makefile's SAN_ENV.
set(LOCUS_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined | thread | empty (none)")
if(LOCUS_SANITIZE)
  if(LOCUS_SANITIZE MATCHES "thread" AND LOCUS_SANITIZE MATCHES "address")
    message(FATAL_ERROR "LOCUS_SANITIZE=${LOCUS_SANITIZE}: ThreadSanitizer cannot be combined with AddressSanitizer; "
                        "configure two build folders (address,undefined and thread).")
  endif()
  if(NOT LOCUS_SANITIZE MATCHES "^(address|undefined|thread|leak)(,(address|undefined|thread|leak))*$")
    message(FATAL_ERROR "LOCUS_SANITIZE=${LOCUS_SANITIZE}: expected a comma-separated list of address, undefined, "
                        "leak or thread (e.g. address,undefined).")
  endif()
  # LOCUS_SANITIZE_OPT (after the build type's -O3, so it wins): -O1 by default, as the
  # sanitizers' documentation recommends (a fraction of -O3's compile time, exact stack traces);
  # `make test-tsan` uses -O0: its tests run for a fixed time, so only the build time counts.
  # -g1: line tables for the reports at a fraction of -g's cost.
  set(LOCUS_SANITIZE_OPT "-O1" CACHE STRING "Optimisation level of sanitizer builds")
  add_compile_options(-fsanitize=${LOCUS_SANITIZE} -fno-omit-frame-pointer ${LOCUS_SANITIZE_OPT} -g1)
  add_link_options(-fsanitize=${LOCUS_SANITIZE})
  # No target_clones in the cpu kernels (LOCUS_NO_CLONES, src/backends/cpu/kernels.h): their ifunc
  # resolvers run while the dynamic loader relocates liblocus, before the sanitizer runtime is set
  # up, and the instrumented resolver crashes there (seen with TSan: SIGSEGV in libtsan during
  # _dl_relocate_object). The baseline x86-64 kernels are what the sanitizers check.
  file(GLOB locus_cpu_kernel_sources ${CMAKE_CURRENT_LIST_DIR}/../src/backends/cpu/*.cpp)
  set_property(SOURCE ${locus_cpu_kernel_sources} APPEND PROPERTY COMPILE_DEFINITIONS LOCUS_NO_CLONES)
  # UBSan in the cpu kernels without the checks AddressSanitizer already makes or that cannot fire
  # there: null (a null access is ASan's SEGV report, with its stack), object-size (ASan checks
  # every access against its object, heap and stack), vptr (no polymorphic type in the kernels)
  # and pointer-overflow (the kernels' strided pointer arithmetic; an access through a pointer
  # that wrapped is ASan's out-of-bounds report). Alignment, shifts, integer overflow and division,
  # bool, enum, bounds and the rest stay. These checks in every instantiation of the kernels'
  # templates (operation x dtype x loop form) were most of their compile time: copy.cpp 143 ->
  # 89 s, 46 s with ASan alone (an AMD EPYC Zen 3 under load; binary.cpp took 376 s in CI's ASan build).
  if(LOCUS_SANITIZE MATCHES "undefined")
    set_property(SOURCE ${locus_cpu_kernel_sources} APPEND PROPERTY COMPILE_OPTIONS
                 -fno-sanitize=null,object-size,vptr,pointer-overflow)
  endif()
  message(STATUS "locus: sanitizers ${LOCUS_SANITIZE}")
endif()
