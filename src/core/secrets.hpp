// Whether an environment variable looks like a credential, by its name or its value. Results,
// reports and logs are shared (attached to tickets, pushed to dashboards): what commsweep
// records of the environment (the provenance's NCCL_* / UCX_* settings, preflight's UCX and
// Open MPI settings) goes through these first.
#pragma once

#include <string>

namespace commsweep {

// A name one of whose '_'-separated words is a credential word: TOKEN, SECRET, PASSWORD,
// PASSWD, PASSPHRASE, CREDENTIAL, PRIVATE, SIGNATURE, COOKIE anywhere in a word; PASS, CERT,
// CRED, CREDS, KEY, AUTH as a whole word; a word ending in KEY (APIKEY, SSHKEY) or starting
// with AUTH (AUTHTOKEN). NCCL_IB_PKEY, an InfiniBand partition key, is a fabric setting and stays.
bool looks_secret(const std::string& name);
// A value that is a credential whatever its variable is called: a PEM block, an
// Authorization header, a URL with a password, a known token format (GitHub, Slack, AWS, JWT,
// OpenAI-style sk-), or a long random-looking word (32+ characters of one base64 / hex run
// mixing upper case, lower case and digits, not a path).
bool looks_secret_value(const std::string& value);
// Either of the above: the setting is left out of anything commsweep writes.
inline bool looks_secret_setting(const std::string& name, const std::string& value) {
  return looks_secret(name) || looks_secret_value(value);
}

}  // namespace commsweep
