# Runs one example on one device and checks what it prints (tests/CMakeLists.txt registers one test
# per example and device):
#   cmake -DEXE=<example binary> -DDEVICE=<device> -DNAME=<example> -DEXPECT=<regex> -P run_example.cmake
# Passes when the example exits 0, prints "<NAME>: all checks passed" (each example checks its own
# claims and stops with "CHECK FAILED: ..." otherwise) and its output matches EXPECT, the line
# that shows the example's point on DEVICE.
#   ... -DABSENT=1: DEVICE is not present; passes when the example exits 1 with locus's message
#   "example_<NAME>: <DEVICE> is not available" on stderr (not an abort).
execute_process(COMMAND ${EXE} ${DEVICE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(ABSENT)
  if(NOT rc EQUAL 1)
    message(FATAL_ERROR "${NAME} on the absent ${DEVICE} exited with '${rc}', expected 1 and locus's message")
  endif()
  if(NOT err MATCHES "example_${NAME}: ${DEVICE} is not available")
    message(FATAL_ERROR "${NAME} on the absent ${DEVICE} did not print 'example_${NAME}: ${DEVICE} is not available'")
  endif()
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NAME} on ${DEVICE} exited with ${rc}")
endif()
if(all MATCHES "CHECK FAILED")
  message(FATAL_ERROR "${NAME} on ${DEVICE}: a check failed")
endif()
if(NOT out MATCHES "${NAME}: all checks passed")
  message(FATAL_ERROR "${NAME} on ${DEVICE} did not print '${NAME}: all checks passed'")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "${NAME} on ${DEVICE}: the output does not match '${EXPECT}'")
endif()
