// SHA-256 of a string, as lowercase hex (OpenSSL's EVP interface).
#pragma once

#include <string>
#include <string_view>

namespace lbbench {
std::string sha256_hex(std::string_view data);
}
