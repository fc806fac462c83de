// kqcd convert: read a gauge configuration (any supported format, verified) and write it as NERSC
// (4D_SU3_GAUGE_3x3, IEEE64BIG) or ILDG (64-bit), atomically.
#include "commands.hpp"

#include <kqcd/io/gauge_io.hpp>

#include <cstdio>

namespace kqcd::cli {

namespace {
struct ConvertSettings {
  std::string config, out, format;
  bool force = false;
  bool accept_bad = false;
};
} // namespace

void add_convert_command(CLI::App& app, Action& action) {
  auto s = std::make_shared<ConvertSettings>();
  auto* cmd = app.add_subcommand("convert", "Convert a gauge configuration to NERSC or ILDG (double precision)");
  cmd->add_option("--config", s->config, "Input gauge configuration (format detected from the content)")->required();
  cmd->add_option("--out", s->out, "Output file")->required();
  cmd->add_option("--format", s->format, "Output format")->required()->check(CLI::IsMember({"nersc", "ildg"}));
  cmd->add_flag("--force", s->force, "Replace an existing output file");
  cmd->add_flag("--accept-bad", s->accept_bad, "Accept a known-bad input file with a warning");
  cmd->callback([&action, s] {
    action = [s] {
      GaugeReadOptions options;
      options.accept_bad = s->accept_bad;
      const auto cfg = read_gauge(s->config, options);
      for (const auto& w : cfg.warnings) std::fprintf(stderr, "kqcd: warning: %s\n", w.c_str());
      if (s->format == "nersc") write_nersc(s->out, cfg, s->force);
      else write_ildg(s->out, cfg, s->force);
      std::fprintf(stderr, "[kqcd convert] %s (%s) -> %s (%s)\n", s->config.c_str(), cfg.format.c_str(), s->out.c_str(),
                   s->format.c_str());
      return 0;
    };
  });
}

} // namespace kqcd::cli
