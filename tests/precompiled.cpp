// Hosts tests/precompiled.h's precompiled form, which every test binary reuses (tests/CMakeLists.txt).
int main() { return 0; }
