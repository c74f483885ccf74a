// A suite file of one sweep, named by a flag (`commsweep ep --suite FILE`): the format
// `commsweep suite` reads (suite/document.hpp: a list of sweeps, or a mapping of `sweeps`), so
// that one file gives the same rows through both commands. Read with its lines so that a
// refusal names the flag, the file, the line and the key.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "settings/setting.hpp"
#include "suite/document.hpp"

namespace commsweep::settings {

struct DocumentFile {
  std::string path;
  suite::Document doc;
  DocumentEntry entry;  // the mapping, named "--FLAG PATH:LINE: key ..."
};

// Reads PATH, given by --FLAG: a usage Error for an unreadable file, bad syntax, anything but a
// suite of one sweep, a key that is none of SPECS' (nor name, kind), or a kind missing or other
// than KIND (COMMAND, e.g. "commsweep ep", in the message). Held by pointer: the entry reads the
// document's lines.
std::unique_ptr<DocumentFile> read_document_file(const std::string& flag, const std::string& path,
                                                 const std::vector<const Spec*>& specs, const std::string& kind,
                                                 const std::string& command);

}  // namespace commsweep::settings
