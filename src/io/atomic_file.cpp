#include <kqcd/core/error.hpp>
#include <kqcd/io/atomic_file.hpp>
#include <kqcd/io/gauge_file.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace kqcd {

void check_output_path(const std::string& path, bool overwrite) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path() && !fs::exists(target.parent_path()))
    throw io_error("cannot write '" + path + "': folder '" + target.parent_path().string() + "' does not exist");
  if (!overwrite && fs::exists(target))
    throw io_error("cannot write '" + path + "': the file exists (use --force to replace it)");
}

void write_file_atomically(const std::string& path, std::string_view bytes, bool overwrite) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  check_output_path(path, overwrite);
  // The process id keeps two writers of the same target from sharing a temporary file.
  const fs::path tmp = target.string() + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    if (!f.flush()) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw io_error("cannot write '" + tmp.string() + "'");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw io_error("cannot rename '" + tmp.string() + "' to '" + path + "': " + ec.message());
  }
}

} // namespace kqcd
