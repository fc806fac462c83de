// CLI11's implementation, compiled once for the tool: the other sources define CLI11_COMPILE, so
// its headers only declare (CLI11's precompiled mode; header-only it compiled again in each of them).
#include <CLI/CLI.hpp>

#include <CLI/impl/App_inl.hpp>
#include <CLI/impl/Argv_inl.hpp>
#include <CLI/impl/Config_inl.hpp>
#include <CLI/impl/Encoding_inl.hpp>
#include <CLI/impl/Formatter_inl.hpp>
#include <CLI/impl/Option_inl.hpp>
#include <CLI/impl/Split_inl.hpp>
#include <CLI/impl/StringTools_inl.hpp>
#include <CLI/impl/Validators_inl.hpp>
#if __has_include(<CLI/impl/ExtraValidators_inl.hpp>)
#include <CLI/impl/ExtraValidators_inl.hpp>
#endif
