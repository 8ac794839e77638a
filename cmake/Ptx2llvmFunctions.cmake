# Ptx2llvmFunctions.cmake: ptx2llvm_add_library, shared by the in-tree Ptx2llvm.cmake and the
# installed ptx2llvmConfig.cmake. Both define ptxrt::ptxrt and set the global properties
# PTX2LLVM_EXECUTABLE_FILE (the compiler), PTX2LLVM_BUILD_TARGET (a target that builds
# it, or empty), PTX2LLVM_CC_FILE (the ptx2llvm-cc driver) and PTX2LLVM_CUDA_INCLUDE_DIR
# (ptxrt's CUDA headers) before including this file.
include_guard(GLOBAL)

# ptx2llvm_add_library(<name> <file.ptx>... [OPT <-O0..-O3>] [CPU <name>] [TARGET <triple>])
#
# CPU: `native` for the build machine only (fastest there, may not run elsewhere); a list of
# x86-64 levels such as `x86-64,x86-64-v3,x86-64-v4` for a portable library that runs each
# kernel's best version on the CPU it finds (the first level is the oldest CPU it runs on);
# default: the generic baseline of the target.
#
# Translates each .ptx file into an object, archived as the static library <name>_objects,
# and writes the typed launch header FILE.h (ptx2llvm --header) for each FILE.ptx. <name>
# is what programs link: the archive, ptxrt::ptxrt, the headers' directory, and one small
# object that refers to every kernel's descriptor (compiled from the headers), so that the
# linker takes every kernel object out of the archive (kernels are also found by name at run
# time through ptxrtFindKernel) with any linker and without --whole-archive.
function(ptx2llvm_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OPT;CPU;TARGET" "")
  set(sources ${arg_UNPARSED_ARGUMENTS})
  if(NOT sources)
    message(FATAL_ERROR "ptx2llvm_add_library(${name}): no .ptx files given")
  endif()

  get_property(exe GLOBAL PROPERTY PTX2LLVM_EXECUTABLE_FILE)
  get_property(build_target GLOBAL PROPERTY PTX2LLVM_BUILD_TARGET)

  set(flags "")
  if(arg_OPT)
    # -O2, O2 and 2 all mean -O2.
    if(NOT arg_OPT MATCHES "^-?O?([0-3])$")
      message(FATAL_ERROR "ptx2llvm_add_library(${name}): OPT must be one of -O0 -O1 -O2 -O3")
    endif()
    list(APPEND flags "-O${CMAKE_MATCH_1}")
  endif()
  if(arg_CPU)
    list(APPEND flags --cpu "${arg_CPU}")
  endif()
  if(arg_TARGET)
    list(APPEND flags --target "${arg_TARGET}")
  endif()

  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.ptx2llvm")
  file(MAKE_DIRECTORY "${out_dir}")
  set(objects "")
  set(headers "")
  set(includes "")
  foreach(src IN LISTS sources)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # The object keeps the source's relative path, so equal file names do not collide.
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    string(REGEX REPLACE "[.][^./]*$" "" rel_stem "${rel}")
    string(REPLACE "../" "__/" rel_stem "${rel_stem}")
    set(obj "${out_dir}/${rel_stem}${CMAKE_C_OUTPUT_EXTENSION}")
    if(NOT CMAKE_C_OUTPUT_EXTENSION)
      set(obj "${out_dir}/${rel_stem}.o")
    endif()
    get_filename_component(obj_dir "${obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${obj_dir}")
    # The typed launch header `<stem>.h` (ptx2llvm --header) next to the objects; the
    # target's users get its directory on their include path.
    get_filename_component(stem "${abs}" NAME_WE)
    set(header "${out_dir}/include/${stem}.h")
    # The compiler writes a Make-style depfile naming every file the object was built from.
    add_custom_command(
      OUTPUT "${obj}" "${header}"
      COMMAND "${exe}" ${flags} "${abs}" -o "${obj}" --depfile "${obj}.d" --header "${header}"
      DEPFILE "${obj}.d"
      DEPENDS "${abs}" "${exe}" ${build_target}
      COMMENT "ptx2llvm ${rel}"
      VERBATIM)
    list(APPEND objects "${obj}")
    list(APPEND headers "${header}")
    string(APPEND includes "#include \"${stem}.h\"\n")
  endforeach()
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  file(MAKE_DIRECTORY "${out_dir}/include")
  # Users' sources include the headers: they must exist before those compile.
  add_custom_target(${name}_headers DEPENDS ${headers})

  # The objects in a static archive.
  add_library(${name}_objects STATIC ${objects})
  set_target_properties(${name}_objects PROPERTIES LINKER_LANGUAGE C)

  # One object, linked as an object (never dropped), that refers to every kernel: the
  # headers declare the descriptors, PTX2LLVM_REFER_TO_KERNELS makes them list them all.
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set(refs "${out_dir}/${name}_kernels.c")
  else()
    set(refs "${out_dir}/${name}_kernels.cpp")
  endif()
  file(CONFIGURE OUTPUT "${refs}" CONTENT
       "/* Written by ptx2llvm_add_library: refers to every kernel of ${name}. */\n#define PTX2LLVM_REFER_TO_KERNELS\n${includes}")
  add_library(${name}_refs OBJECT "${refs}")
  target_include_directories(${name}_refs PRIVATE "${out_dir}/include")
  target_link_libraries(${name}_refs PRIVATE ptxrt::ptxrt)
  add_dependencies(${name}_refs ${name}_headers)

  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE "$<TARGET_OBJECTS:${name}_refs>" ${name}_objects ptxrt::ptxrt)
  target_include_directories(${name} INTERFACE "${out_dir}/include")
  add_dependencies(${name} ${name}_headers ${name}_refs)
endfunction()

# ptx2llvm_add_cuda_executable(<name> <file.cu|file.cpp|file.c>... [OPT <-O0..-O3>]
#                              [ARCH <sm_XX>] [STD <c++17>])
# ptx2llvm_add_cuda_library(<name> <file.cu>... [OPT ...] [ARCH ...] [STD ...])
#
# CUDA sources (host and device code together) built with ptx2llvm-cc -c, one object per
# .cu file holding both sides. The executable form links them (and any C/C++ sources given)
# with ptxrt; the library form is an INTERFACE target that links the objects (as objects,
# never dropped from an archive), ptxrt::ptxrt and the CUDA headers' directory into its
# users. The include directories and compile definitions of the calling directory
# (include_directories, add_compile_definitions, as they are at the call) are passed on to
# the driver. Needs clang-19 (the driver's compiler) and the CXX language for linking.
function(ptx2llvm_add_cuda_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OPT;ARCH;STD" "")
  _ptx2llvm_cuda_objects(objects "${name}" "${arg_OPT}" "${arg_ARCH}" "${arg_STD}" ${arg_UNPARSED_ARGUMENTS})
  get_property(cuda_include GLOBAL PROPERTY PTX2LLVM_CUDA_INCLUDE_DIR)
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE ${objects} ptxrt::ptxrt)
  target_include_directories(${name} INTERFACE "${cuda_include}")
  add_custom_target(${name}_cuda_objects DEPENDS ${objects})
  add_dependencies(${name} ${name}_cuda_objects)
endfunction()

function(ptx2llvm_add_cuda_executable name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "OPT;ARCH;STD" "")
  set(cu "")
  set(other "")
  foreach(src IN LISTS arg_UNPARSED_ARGUMENTS)
    if(src MATCHES "[.]cu$")
      list(APPEND cu "${src}")
    else()
      list(APPEND other "${src}")
    endif()
  endforeach()
  _ptx2llvm_cuda_objects(objects "${name}" "${arg_OPT}" "${arg_ARCH}" "${arg_STD}" ${cu})
  get_property(cuda_include GLOBAL PROPERTY PTX2LLVM_CUDA_INCLUDE_DIR)
  add_executable(${name} ${objects} ${other})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  target_include_directories(${name} PRIVATE "${cuda_include}")
  target_link_libraries(${name} PRIVATE ptxrt::ptxrt)
endfunction()

function(_ptx2llvm_cuda_objects out name opt arch std)
  get_property(driver GLOBAL PROPERTY PTX2LLVM_CC_FILE)
  get_property(exe GLOBAL PROPERTY PTX2LLVM_EXECUTABLE_FILE)
  get_property(build_target GLOBAL PROPERTY PTX2LLVM_BUILD_TARGET)
  get_property(cuda_include GLOBAL PROPERTY PTX2LLVM_CUDA_INCLUDE_DIR)
  set(flags "")
  if(opt)
    if(NOT opt MATCHES "^-?O?([0-3])$")
      message(FATAL_ERROR "ptx2llvm CUDA target ${name}: OPT must be one of -O0 -O1 -O2 -O3")
    endif()
    list(APPEND flags "-O${CMAKE_MATCH_1}")
  endif()
  if(arch)
    list(APPEND flags "-arch=${arch}")
  endif()
  if(std)
    list(APPEND flags "-std=${std}")
  endif()
  # The directory's include directories and definitions, as they are at this call.
  set(dir_flags "")
  get_property(dirs DIRECTORY PROPERTY INCLUDE_DIRECTORIES)
  foreach(d IN LISTS dirs)
    list(APPEND dir_flags "-I${d}")
  endforeach()
  get_property(defs DIRECTORY PROPERTY COMPILE_DEFINITIONS)
  foreach(d IN LISTS defs)
    list(APPEND dir_flags "-D${d}")
  endforeach()
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.ptx2llvm-cc")
  file(MAKE_DIRECTORY "${out_dir}")
  set(objects "")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    file(RELATIVE_PATH rel "${CMAKE_CURRENT_SOURCE_DIR}" "${abs}")
    string(REGEX REPLACE "[.][^./]*$" "" rel_stem "${rel}")
    string(REPLACE "../" "__/" rel_stem "${rel_stem}")
    set(obj "${out_dir}/${rel_stem}.o")
    get_filename_component(obj_dir "${obj}" DIRECTORY)
    file(MAKE_DIRECTORY "${obj_dir}")
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND "${CMAKE_COMMAND}" -E env "PTX2LLVM=${exe}" "PTX2LLVM_CUDA_INCLUDE=${cuda_include}"
              "${driver}" -c ${flags}
              ${dir_flags} "${abs}" -o "${obj}"
      DEPENDS "${abs}" "${driver}" "${exe}" ${build_target}
      IMPLICIT_DEPENDS CXX "${abs}"
      COMMENT "ptx2llvm-cc ${rel}"
      VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set(${out} "${objects}" PARENT_SCOPE)
endfunction()
