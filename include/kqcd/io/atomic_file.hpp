// Writing a file so that readers never see a partial one: the bytes go to a temporary file in the
// same folder, which is then renamed over the target.
#pragma once

#include <string>
#include <string_view>

namespace kqcd {

/// Write bytes to path atomically. With overwrite false an existing path is an io_error.
void write_file_atomically(const std::string& path, std::string_view bytes, bool overwrite);

} // namespace kqcd
