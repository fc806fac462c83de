// kqcd convert: read a gauge configuration (any supported format, verified) and write it as NERSC
// (4D_SU3_GAUGE_3x3, IEEE64BIG) or ILDG (64-bit), atomically. Under mpiexec each rank reads and
// writes its own sites (io/distributed_gauge.hpp); the file is the one a single process writes.
#include "commands.hpp"
#include "gauge_summary.hpp"

#include <kqcd/gauge/gauge_files.hpp>

#include <cstdio>

namespace kqcd::cli {

namespace {
struct ConvertSettings {
  std::string config, out, format;
  bool force = false;
  bool accept_bad = false;
  std::string grid = "auto";
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
  add_grid_option(cmd, s->grid);
  cmd->callback([&action, s] {
    action = [s] {
      GaugeReadOptions options;
      options.accept_bad = s->accept_bad;
      const LoadedGauge loaded = load_gauge(s->config, options, s->grid); // prints the warnings
      write_gauge(s->out, s->format == "nersc" ? GaugeFormat::nersc : GaugeFormat::ildg, loaded.u, s->force);
      if (loaded.grid->rank() == 0)
        std::fprintf(stderr, "[kqcd convert] %s (%s) -> %s (%s)\n", s->config.c_str(), loaded.cfg.format.c_str(),
                     s->out.c_str(), s->format.c_str());
      return 0;
    };
  });
}

} // namespace kqcd::cli
