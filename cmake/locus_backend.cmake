# locus_add_backend(<name> TYPE <DeviceType enumerator> DISPLAY_NAME <text> [ENABLED <bool>]
#                   [ACCELERATOR] [PINNED_MEMORY] [AUTOCAST_FLOAT16] [RANK <n>] [SOURCES <globs>...])
#
# The one registration line of a backend (docs/adding-a-backend.md): adds its sources (src/backends/<name>/*.cpp by
# default) to the library when ENABLED (default ON), and a line to the generated registry
# (src/core/registry_gen.cpp.in) that registers make_<name>_backend() with its capabilities
# (backend::Capabilities, src/core/backend.h). A backend that is not enabled is still declared, so
# asking for its devices says "locus was built without <DISPLAY_NAME>". Registration order is the
# order of these calls: all_devices() and the environment report list types in it.
# Called from the top-level scope; it sets LOCUS_BACKENDS (names built), LOCUS_BACKEND_SOURCES and
# the registry's LOCUS_REGISTRY_DECLS / LOCUS_REGISTRY_CALLS there.
set(LOCUS_BACKENDS "")
set(LOCUS_REGISTRY_DECLS "")
set(LOCUS_REGISTRY_CALLS "")
set(LOCUS_BACKEND_SOURCES "")

function(locus_add_backend name)
  cmake_parse_arguments(B "ACCELERATOR;PINNED_MEMORY;AUTOCAST_FLOAT16" "TYPE;DISPLAY_NAME;ENABLED;RANK" "SOURCES" ${ARGN})
  if(NOT B_TYPE OR NOT B_DISPLAY_NAME)
    message(FATAL_ERROR "locus_add_backend(${name}): TYPE and DISPLAY_NAME are required")
  endif()
  if(NOT DEFINED B_ENABLED)
    set(B_ENABLED ON)
  endif()
  if(NOT B_RANK)
    set(B_RANK 0)
  endif()
  if(NOT B_SOURCES)
    set(B_SOURCES ${PROJECT_SOURCE_DIR}/src/backends/${name}/*.cpp)
  endif()
  set(acc false)
  set(pinned false)
  if(B_ACCELERATOR)
    set(acc true)
  endif()
  if(B_PINNED_MEMORY)
    set(pinned true)
  endif()
  set(half false)
  if(B_AUTOCAST_FLOAT16)
    set(half true)
  endif()
  set(caps "{DeviceType::${B_TYPE}, \"${B_DISPLAY_NAME}\", ${acc}, ${pinned}, ${B_RANK}, ${half}}")
  if(B_ENABLED)
    file(GLOB srcs CONFIGURE_DEPENDS ${B_SOURCES})
    set(LOCUS_BACKEND_SOURCES ${LOCUS_BACKEND_SOURCES} ${srcs} PARENT_SCOPE)
    set(LOCUS_BACKENDS ${LOCUS_BACKENDS} ${name} PARENT_SCOPE)
    set(LOCUS_REGISTRY_DECLS "${LOCUS_REGISTRY_DECLS}std::unique_ptr<Backend> make_${name}_backend();\n" PARENT_SCOPE)
    set(LOCUS_REGISTRY_CALLS "${LOCUS_REGISTRY_CALLS}  register_backend(make_${name}_backend(), ${caps});\n" PARENT_SCOPE)
  else()
    set(LOCUS_REGISTRY_CALLS "${LOCUS_REGISTRY_CALLS}  register_backend(nullptr, ${caps});  // not built\n" PARENT_SCOPE)
  endif()
endfunction()
