# Runs one example on one device and checks what it prints (tests/CMakeLists.txt registers one test
# per example and device):
#   cmake -DEXE=<example binary> -DDEVICE=<device> -DNAME=<example> -DEXPECT=<regex> -P run_example.cmake
# Passes when the example exits 0, prints "<NAME>: all checks passed" (each example checks its own
# claims and stops with "CHECK FAILED: ..." otherwise) and its output matches EXPECT, the line
# that shows the example's point on DEVICE.
execute_process(COMMAND ${EXE} ${DEVICE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
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
