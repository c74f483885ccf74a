// commsweep_core holds no code of its own: it links every layer (src/CMakeLists.txt) so that the
// tests, the fuzz targets and the executable name one library. A static library needs one
// translation unit; this is it.
namespace commsweep {}
