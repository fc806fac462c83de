// kqcd tune: where the tune cache lives, whether tuning is on, and the launch shapes it holds.
#include "commands.hpp"

#include <kqcd/core/tune_cache.hpp>

#include <nlohmann/json.hpp>

#include <iostream>

namespace kqcd::cli {

namespace {
int run_tune(bool json) {
  const auto cache = tune_cache();
  const auto entries = cache->entries();
  if (json) {
    nlohmann::json j{{"path", cache->path()}, {"tuning", tuning_enabled()}, {"entries", nlohmann::json::array()}};
    for (const auto& e : entries)
      j["entries"].push_back({{"kernel", e.key.kernel},       {"aux", e.key.aux},
                              {"lattice", e.key.lattice},     {"precision", e.key.precision},
                              {"backend", e.key.backend},     {"device", e.key.device},
                              {"kqcd_version", e.key.version}, {"config", e.config.to_string()},
                              {"seconds", e.seconds}});
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << "tune cache " << cache->path() << " (" << entries.size() << " entries), tuning "
            << (tuning_enabled() ? "on" : "off (KQCD_TUNE=0)") << "\n";
  for (const auto& e : entries)
    std::cout << "  " << e.key.kernel << (e.key.aux.empty() ? "" : " [" + e.key.aux + "]") << " " << e.key.lattice << " "
              << e.key.precision << " " << e.key.backend << " (" << e.key.device << ", kqcd " << e.key.version
              << "): " << e.config.to_string() << ", " << e.seconds * 1e6 << " us\n";
  return 0;
}
} // namespace

void add_tune_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("tune", "Show the tune cache: its path ($KQCD_TUNE_CACHE) and the tuned launch shapes");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([&action, json] { action = [json] { return run_tune(*json); }; });
}

} // namespace kqcd::cli
