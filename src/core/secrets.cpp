#include "core/secrets.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/strings.hpp"

namespace commsweep {

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// One '_'-separated word of a name. KEY and AUTH only as a word, a word's end (APIKEY,
// SSHKEY) or a word's start (AUTHTOKEN, AUTHORIZATION): PKEY, an InfiniBand partition key, is
// a fabric setting and stays. The unambiguous words count anywhere in a word (MYTOKEN).
bool secret_word(const std::string& word) {
  static const char* const kAnywhere[] = {"TOKEN",      "SECRET",  "PASSWORD",  "PASSWD", "PASSPHRASE",
                                          "CREDENTIAL", "PRIVATE", "SIGNATURE", "COOKIE"};
  for (const char* w : kAnywhere) {
    if (word.find(w) != std::string::npos) return true;
  }
  static const std::set<std::string> kWhole{"PASS", "CERT", "CRED", "CREDS", "KEY", "AUTH"};
  if (kWhole.count(word) > 0) return true;
  const bool ends_in_key = word.size() > 3 && word.compare(word.size() - 3, 3, "KEY") == 0;
  return (ends_in_key && word != "PKEY") || starts_with(word, "AUTH");
}

// 32+ characters of [A-Za-z0-9+/=_-] with upper case, lower case and digits all present.
bool random_looking(const std::string& v) {
  static constexpr std::size_t kMinLength = 32;
  if (v.size() < kMinLength || v.front() == '/' || starts_with(v, "./")) return false;
  bool upper = false, lower = false, digit = false;
  for (unsigned char c : v) {
    if (std::isupper(c)) upper = true;
    else if (std::islower(c)) lower = true;
    else if (std::isdigit(c)) digit = true;
    else if (c != '+' && c != '/' && c != '=' && c != '_' && c != '-') return false;
  }
  return upper && lower && digit;
}

}  // namespace

// A name is secret-looking when one of its '_'-separated words is (secret_word): UCX_API_KEY
// is dropped, NCCL_IB_PKEY is kept.
bool looks_secret(const std::string& name) {
  const std::string upper = upper_case(name);
  std::size_t start = 0;
  while (start <= upper.size()) {
    const std::size_t end = std::min(upper.find('_', start), upper.size());
    if (secret_word(upper.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

bool looks_secret_value(const std::string& value) {
  const std::string upper = upper_case(value);
  if (upper.find("-----BEGIN") != std::string::npos) return true;            // PEM keys
  if (starts_with(upper, "BEARER ") || starts_with(upper, "BASIC ")) return true;
  if (const auto scheme = value.find("://"); scheme != std::string::npos) {  // user:pass@host
    const auto at = value.find('@', scheme);
    const auto colon = value.find(':', scheme + 3);
    const auto slash = value.find('/', scheme + 3);
    if (at != std::string::npos && colon < at && (slash == std::string::npos || at < slash)) {
      return true;
    }
  }
  for (const char* prefix : {"ghp_", "gho_", "ghs_", "ghu_", "github_pat_", "xoxb-", "xoxp-",
                             "xoxa-", "AKIA", "ASIA", "sk-", "eyJ"}) {
    if (starts_with(value, prefix) && value.size() >= 16) return true;
  }
  return random_looking(value);
}

}  // namespace commsweep
