// Each subcommand of the kqcd tool registers its options on the CLI11 app and sets the action
// that main() runs after parsing. Actions return the process exit code.
#pragma once

#include <kqcd/multigrid/params.hpp>

#include <CLI/CLI.hpp>

#include <array>
#include <functional>
#include <string>

namespace kqcd::cli {

using Action = std::function<int()>;

void add_info_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_plaquette_command(CLI::App& app, Action& action);
void add_convert_command(CLI::App& app, Action& action);
void add_measure_command(CLI::App& app, Action& action);
void add_smear_command(CLI::App& app, Action& action);
void add_flow_command(CLI::App& app, Action& action);
void add_generate_command(CLI::App& app, Action& action);
void add_tune_command(CLI::App& app, Action& action);

/// --mg-block "BXxBYxBZxBT" (bench cg, measure): four positive aggregate extents.
std::array<int, 4> parse_mg_block(const std::string& text);
/// The multigrid options of cmd (--mg-block into block_text, parsed by parse_mg_block after the
/// command line; --mg-nvec, --mg-levels, --mg-setup-sweeps, --mg-smoother-steps, --mg-coarse-tol,
/// --mg-coarse-even-odd into p).
void add_multigrid_options(CLI::App* cmd, mg::MultigridParams& p, std::string& block_text);

} // namespace kqcd::cli
