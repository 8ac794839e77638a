# Ptx2llvm.cmake: use ptx2llvm and ptxrt from CMake.
#
#   include(<ptx2llvm checkout>/cmake/Ptx2llvm.cmake)   # or add_subdirectory(<checkout>)
#   ptx2llvm_add_library(my_kernels kernels.ptx more.ptx [OPT -O3] [CPU native]
#                        [TARGET aarch64-unknown-linux-gnu])
#   add_executable(app main.c)
#   target_link_libraries(app PRIVATE my_kernels)   # also brings ptxrt::ptxrt
#
# Provides
#   ptxrt::ptxrt          IMPORTED static library libptxrt.a (include dir ptxrt/include,
#                         links Threads, dl and m)
#   ptx2llvm::ptx2llvm    IMPORTED executable, the compiler
#   ptx2llvm_add_library  translates .ptx files into a library target; for each FILE.ptx
#                         it also writes the typed launch header FILE.h (ptx2llvm --header)
#                         and puts its directory on the include path of the target's users
#   ptx2llvm_add_cuda_executable / ptx2llvm_add_cuda_library
#                         CUDA programs (.cu, host + device code) built with ptx2llvm-cc
#
# Cache variables
#   PTX2LLVM_EXECUTABLE        a prebuilt ptx2llvm; empty: build it with cargo
#   PTXRT_LIBRARY              a prebuilt libptxrt.a; empty: build it with cargo
#   PTX2LLVM_CARGO             cargo (found on PATH or in ~/.cargo/bin)
#   PTX2LLVM_CARGO_TARGET_DIR  cargo's target directory (default: the checkout's target/,
#                              shared with plain `cargo build`)
#   PTX2LLVM_CARGO_PROFILE     cargo profile for those builds (default: release)
#   PTX2LLVM_LLVM_PREFIX       LLVM 19 install the compiler builds against
#                              (LLVM_SYS_191_PREFIX; default /usr/lib/llvm-19)

cmake_minimum_required(VERSION 3.24)
include_guard(GLOBAL)

set(PTX2LLVM_SOURCE_DIR "${CMAKE_CURRENT_LIST_DIR}/.." CACHE INTERNAL "ptx2llvm checkout")
get_filename_component(PTX2LLVM_SOURCE_DIR "${PTX2LLVM_SOURCE_DIR}" ABSOLUTE)

set(PTX2LLVM_EXECUTABLE "" CACHE FILEPATH "A prebuilt ptx2llvm binary; empty: build it with cargo")
set(PTXRT_LIBRARY "" CACHE FILEPATH "A prebuilt libptxrt.a; empty: build it with cargo")
set(PTX2LLVM_CARGO_TARGET_DIR "${PTX2LLVM_SOURCE_DIR}/target" CACHE PATH
    "cargo target directory for building ptx2llvm and ptxrt")
set(PTX2LLVM_CARGO_PROFILE "release" CACHE STRING "cargo profile for building ptx2llvm and ptxrt")
if(DEFINED ENV{LLVM_SYS_191_PREFIX})
  set(_ptx2llvm_llvm_default "$ENV{LLVM_SYS_191_PREFIX}")
else()
  set(_ptx2llvm_llvm_default "/usr/lib/llvm-19")
endif()
set(PTX2LLVM_LLVM_PREFIX "${_ptx2llvm_llvm_default}" CACHE PATH "LLVM 19 prefix (LLVM_SYS_191_PREFIX)")

# Threads needs C or C++.
get_property(_ptx2llvm_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "C" IN_LIST _ptx2llvm_languages AND NOT "CXX" IN_LIST _ptx2llvm_languages)
  enable_language(C)
endif()
find_package(Threads REQUIRED)

# --- what cargo has to build ------------------------------------------------------------
set(_ptx2llvm_cargo_packages "")
if(NOT PTX2LLVM_EXECUTABLE)
  list(APPEND _ptx2llvm_cargo_packages -p ptx2llvm)
endif()
if(NOT PTXRT_LIBRARY)
  list(APPEND _ptx2llvm_cargo_packages -p ptxrt)
endif()

if(PTX2LLVM_CARGO_PROFILE STREQUAL "dev")
  set(_ptx2llvm_profile_dir "debug")
else()
  set(_ptx2llvm_profile_dir "${PTX2LLVM_CARGO_PROFILE}")
endif()
set(_ptx2llvm_cargo_out "${PTX2LLVM_CARGO_TARGET_DIR}/${_ptx2llvm_profile_dir}")

set(_ptx2llvm_exe "${PTX2LLVM_EXECUTABLE}")
set(_ptxrt_lib "${PTXRT_LIBRARY}")
set(_ptx2llvm_build_target "")
if(_ptx2llvm_cargo_packages)
  find_program(PTX2LLVM_CARGO cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
  if(NOT PTX2LLVM_CARGO)
    message(FATAL_ERROR "ptx2llvm: cargo not found; install Rust, or set PTX2LLVM_EXECUTABLE "
                        "and PTXRT_LIBRARY to prebuilt files")
  endif()
  set(_ptx2llvm_byproducts "")
  if(NOT _ptx2llvm_exe)
    set(_ptx2llvm_exe "${_ptx2llvm_cargo_out}/ptx2llvm${CMAKE_EXECUTABLE_SUFFIX}")
    list(APPEND _ptx2llvm_byproducts "${_ptx2llvm_exe}")
  endif()
  if(NOT _ptxrt_lib)
    set(_ptxrt_lib "${_ptx2llvm_cargo_out}/libptxrt.a")
    list(APPEND _ptx2llvm_byproducts "${_ptxrt_lib}")
  endif()
  string(JOIN " " _ptx2llvm_cargo_what ${_ptx2llvm_cargo_packages})
  # Always runs; cargo itself decides what is out of date, and files that did not
  # change keep their timestamps, so nothing downstream rebuilds needlessly.
  add_custom_target(ptx2llvm_cargo_build
    COMMAND "${CMAKE_COMMAND}" -E env
            "CARGO_TARGET_DIR=${PTX2LLVM_CARGO_TARGET_DIR}"
            "LLVM_SYS_191_PREFIX=${PTX2LLVM_LLVM_PREFIX}"
            "${PTX2LLVM_CARGO}" build --profile "${PTX2LLVM_CARGO_PROFILE}"
            --manifest-path "${PTX2LLVM_SOURCE_DIR}/Cargo.toml" ${_ptx2llvm_cargo_packages}
    BYPRODUCTS ${_ptx2llvm_byproducts}
    WORKING_DIRECTORY "${PTX2LLVM_SOURCE_DIR}"
    COMMENT "cargo build ${_ptx2llvm_cargo_what} --profile ${PTX2LLVM_CARGO_PROFILE}"
    USES_TERMINAL
    VERBATIM)
  set(_ptx2llvm_build_target ptx2llvm_cargo_build)
endif()

# --- imported targets -----------------------------------------------------------------------
if(NOT TARGET ptxrt::ptxrt)
  add_library(ptxrt::ptxrt STATIC IMPORTED GLOBAL)
  set_target_properties(ptxrt::ptxrt PROPERTIES
    IMPORTED_LOCATION "${_ptxrt_lib}"
    INTERFACE_INCLUDE_DIRECTORIES "${PTX2LLVM_SOURCE_DIR}/ptxrt/include")
  target_link_libraries(ptxrt::ptxrt INTERFACE Threads::Threads ${CMAKE_DL_LIBS} m)
  if(_ptx2llvm_build_target)
    add_dependencies(ptxrt::ptxrt ${_ptx2llvm_build_target})
  endif()
endif()

if(NOT TARGET ptx2llvm::ptx2llvm)
  add_executable(ptx2llvm::ptx2llvm IMPORTED GLOBAL)
  set_target_properties(ptx2llvm::ptx2llvm PROPERTIES IMPORTED_LOCATION "${_ptx2llvm_exe}")
  if(_ptx2llvm_build_target)
    add_dependencies(ptx2llvm::ptx2llvm ${_ptx2llvm_build_target})
  endif()
endif()

# Global, so that ptx2llvm_add_library works in any directory of the project.
set_property(GLOBAL PROPERTY PTX2LLVM_EXECUTABLE_FILE "${_ptx2llvm_exe}")
set_property(GLOBAL PROPERTY PTX2LLVM_BUILD_TARGET "${_ptx2llvm_build_target}")
set_property(GLOBAL PROPERTY PTX2LLVM_CC_FILE "${PTX2LLVM_SOURCE_DIR}/scripts/ptx2llvm-cc")
set_property(GLOBAL PROPERTY PTX2LLVM_CUDA_INCLUDE_DIR "${PTX2LLVM_SOURCE_DIR}/ptxrt/include/cuda")

include("${CMAKE_CURRENT_LIST_DIR}/Ptx2llvmFunctions.cmake")
