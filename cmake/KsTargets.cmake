# Shared build settings and the two helpers every component uses:
#   ks_add_library(<name> SOURCES ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...])  -> ks_<name>, alias ks::<name>
#   ks_add_test(<name> LABEL unit|integration|conformance [CONCURRENCY] [ONE_PROCESS] [NO_SANITIZERS]
#               SOURCES ... [DEPS ...])
# Each gtest case is its own ctest (gtest discovery), except with ONE_PROCESS: one ctest runs the whole
# executable, for table-driven tests whose per-process setup (reading the table) costs more than their cases;
# gtest still names each failing case, and --gtest_brief keeps the output to the failures.
# NO_SANITIZERS builds the executable plain in every tree, for a test of what the sanitizers replace (glibc's
# allocator): it may then link no ks:: library (they carry the sanitizers), only sources of its own.
# Unit tests are collected in the `unit-tests` target; those marked CONCURRENCY (threads, locks, timers:
# what ThreadSanitizer should see) also in `concurrency-tests`. The sanitizer lanes of scripts/test.sh build
# one of these targets and run `ctest -L unit`, which runs the tests of the executables that were built.

add_library(ks_warnings INTERFACE)
target_compile_options(ks_warnings INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wcast-align -Wunused
  -Wpedantic -Wimplicit-fallthrough -Wmisleading-indentation -Wno-missing-field-initializers
  # GCC-only warnings (clang, used by the fuzz preset, would reject the unknown options under -Werror).
  $<$<CXX_COMPILER_ID:GNU>:-Wduplicated-cond -Wlogical-op>
  # GCC 12 reports false -Wrestrict positives inside std::string at -O3 (GCC bug 105329).
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
if(KS_WERROR)
  target_compile_options(ks_warnings INTERFACE -Werror)
endif()

# Options every target (product and tests) is built with: sanitizers.
add_library(ks_options INTERFACE)
if(KS_SANITIZE)
  # -fno-sanitize-recover: a UBSan finding fails the test instead of only printing a line.
  target_compile_options(ks_options INTERFACE -fsanitize=${KS_SANITIZE} -fno-omit-frame-pointer
    -fno-sanitize-recover=all)
  # A test executable's own sources (KS_TEST_SOURCES, set by ks_add_test) leave out UBSan's null and
  # alignment checks, which instrument every pointer access: at -O0 they double the compile time of the big
  # table-driven tests. The product's sources keep every check; a null dereference in a test still stops
  # it (SIGSEGV, reported by ASan).
  if(KS_SANITIZE MATCHES "undefined")
    target_compile_options(ks_options INTERFACE
      $<$<BOOL:$<TARGET_PROPERTY:KS_TEST_SOURCES>>:-fno-sanitize=null,alignment>)
  endif()
  target_link_options(ks_options INTERFACE -fsanitize=${KS_SANITIZE})
endif()
# The fuzz preset (clang): every library carries libFuzzer's coverage instrumentation plus ASan + UBSan;
# only the fuzz target executables (test/fuzz) link the libFuzzer driver (-fsanitize=fuzzer).
if(KS_FUZZ)
  target_compile_options(ks_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined
    -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(ks_options INTERFACE -fsanitize=address,undefined)
endif()

function(ks_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(ks_${name} STATIC ${ARG_SOURCES})
  add_library(ks::${name} ALIAS ks_${name})
  target_include_directories(ks_${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(ks_${name}
    PUBLIC ks_options Threads::Threads ${ARG_PUBLIC_DEPS}
    PRIVATE ks_warnings ${ARG_PRIVATE_DEPS})
endfunction()

function(ks_add_test name)
  cmake_parse_arguments(ARG "CONCURRENCY;ONE_PROCESS;NO_SANITIZERS" "LABEL" "SOURCES;DEPS" ${ARGN})
  if(NOT ARG_LABEL MATCHES "^(unit|integration|conformance)$")
    message(FATAL_ERROR "ks_add_test(${name}): LABEL must be unit, integration or conformance")
  endif()
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES KS_TEST_SOURCES ON)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  if(ARG_NO_SANITIZERS)
    target_link_libraries(${name} PRIVATE ks_warnings Threads::Threads ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  else()
    target_link_libraries(${name} PRIVATE ks_warnings ks_options ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  endif()
  if(ARG_CONCURRENCY)
    set_property(GLOBAL APPEND PROPERTY KS_CONCURRENCY_TESTS ${name})
  endif()
  if(ARG_LABEL STREQUAL "unit")
    set_property(GLOBAL APPEND PROPERTY KS_UNIT_TESTS ${name})
  endif()
  if(ARG_ONE_PROCESS)
    ks_add_one_process_test(${name} ${ARG_LABEL})
  else()
    # PRE_TEST: the cases are listed when ctest starts, not by running every test executable during the
    # build (which, under the sanitizers, cost the build minutes).
    gtest_discover_tests(${name}
      PROPERTIES LABELS ${ARG_LABEL}
      DISCOVERY_MODE PRE_TEST
      DISCOVERY_TIMEOUT 60)
  endif()
endfunction()

# One ctest for the whole executable. Registered as gtest discovery registers its tests: by a file ctest
# includes at run time, so that an executable a lane did not build (the sanitizer lanes build only some)
# shows up as an unlabelled <name>_NOT_BUILT, which `ctest -L` skips, instead of a labelled test that
# cannot run.
function(ks_add_one_process_test name label)
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${name}_one_process.cmake")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"if(EXISTS \"$<TARGET_FILE:${name}>\")
  add_test(${name} \"$<TARGET_FILE:${name}>\" --gtest_brief=1)
  set_tests_properties(${name} PROPERTIES LABELS ${label} WORKING_DIRECTORY \"${CMAKE_CURRENT_BINARY_DIR}\")
else()
  add_test(${name}_NOT_BUILT ${name}_NOT_BUILT)
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# The `unit-tests` and `concurrency-tests` targets; call once, after every ks_add_test.
function(ks_add_test_group_targets)
  get_property(unit GLOBAL PROPERTY KS_UNIT_TESTS)
  get_property(concurrency GLOBAL PROPERTY KS_CONCURRENCY_TESTS)
  add_custom_target(unit-tests DEPENDS ${unit})
  add_custom_target(concurrency-tests DEPENDS ${concurrency})
endfunction()
