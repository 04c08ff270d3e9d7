# python.cmake - the Python package dfscope (docs/PYTHON.md): the extension dfscope._native built
# against Debian's interpreter (DFS_PYTHON_EXECUTABLE, /usr/bin/python3 by default) and laid out
# with the package's Python files in BUILD/python/dfscope, which PYTHONPATH=BUILD/python (or
# `make python`'s virtual environment) makes importable. Built when that interpreter has its
# headers (python3-dev) and numpy; skipped with a message otherwise.
option(DFS_PYTHON "Build the Python package (python/, docs/PYTHON.md)" ON)
set(DFS_PYTHON_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "The interpreter the Python package is built for")

set(DFS_HAVE_PYTHON OFF)
set(DFS_NO_PYTHON_WHY "${DFS_PYTHON_EXECUTABLE} without python3-dev or numpy")
# An instrumented library (sanitizers, libFuzzer) cannot be loaded by an uninstrumented python3.
if(NOT DFS_PYTHON)
  set(DFS_NO_PYTHON_WHY "DFS_PYTHON is OFF")
elseif(DFS_SANITIZE OR DFS_FUZZ)
  set(DFS_NO_PYTHON_WHY "a sanitizer or fuzzing build")
elseif(EXISTS ${DFS_PYTHON_EXECUTABLE})
  execute_process(
    COMMAND ${DFS_PYTHON_EXECUTABLE} -c
      "import sysconfig, numpy; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"
    OUTPUT_VARIABLE DFS_PY_INFO ERROR_QUIET RESULT_VARIABLE DFS_PY_RC OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(DFS_PY_RC EQUAL 0)
    string(REPLACE "\n" ";" DFS_PY_INFO "${DFS_PY_INFO}")
    list(GET DFS_PY_INFO 0 DFS_PY_INCLUDE)
    list(GET DFS_PY_INFO 1 DFS_PY_SUFFIX)
    if(EXISTS ${DFS_PY_INCLUDE}/Python.h)
      set(DFS_HAVE_PYTHON ON)
    endif()
  endif()
endif()

if(DFS_HAVE_PYTHON)
  # A shared object holds the library: its code must be position independent. Without semantic
  # interposition the compiler still inlines a file's own functions, as in the program.
  set_target_properties(dfscope dfscope_commands PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(dfscope PRIVATE -fno-semantic-interposition)
  target_compile_options(dfscope_commands PRIVATE -fno-semantic-interposition)

  set(DFS_PY_PACKAGE ${CMAKE_BINARY_DIR}/python/dfscope)
  file(GLOB DFS_PY_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/dfscope/*.py)
  foreach(f ${DFS_PY_FILES})
    get_filename_component(n ${f} NAME)
    configure_file(${f} ${DFS_PY_PACKAGE}/${n} COPYONLY)
  endforeach()

  file(GLOB DFS_PY_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/python/src/*.c)
  add_library(dfscope_python MODULE ${DFS_PY_SOURCES} $<TARGET_OBJECTS:dfscope_commands>)
  target_include_directories(dfscope_python PRIVATE src ${DFS_PY_INCLUDE})
  target_link_libraries(dfscope_python PRIVATE dfscope)
  set_target_properties(dfscope_python PROPERTIES PREFIX "" OUTPUT_NAME _native SUFFIX "${DFS_PY_SUFFIX}"
                        LIBRARY_OUTPUT_DIRECTORY ${DFS_PY_PACKAGE} C_VISIBILITY_PRESET hidden)
  message(STATUS "dfscope: Python package for ${DFS_PYTHON_EXECUTABLE} in ${CMAKE_BINARY_DIR}/python")

  # Its tests (pytest, and the example notebooks run top to bottom) under ctest, with Debian's
  # pytest and nbconvert (scripts/deps.sh test installs them).
  if(BUILD_TESTING)
    set(DFS_PY_TEST_ENV PYTHONPATH=${CMAKE_BINARY_DIR}/python DFSCOPE_CLI=$<TARGET_FILE:dfscope_cli>
        DFS_TRACES=${PROJECT_SOURCE_DIR}/../shared/traces PYTHONDONTWRITEBYTECODE=1)
    add_test(NAME python
             COMMAND ${CMAKE_COMMAND} -E env ${DFS_PY_TEST_ENV}
                     ${DFS_PYTHON_EXECUTABLE} -m pytest -q -p no:cacheprovider ${PROJECT_SOURCE_DIR}/python/tests)
    add_test(NAME python_notebooks
             COMMAND ${CMAKE_COMMAND} -E env ${DFS_PY_TEST_ENV}
                     bash ${PROJECT_SOURCE_DIR}/python/tests/notebooks.sh ${PROJECT_SOURCE_DIR}/examples)
    set_tests_properties(python python_notebooks PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
  endif()
else()
  message(STATUS "dfscope: no Python package (${DFS_NO_PYTHON_WHY})")
endif()
