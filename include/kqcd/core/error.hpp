// Exceptions thrown by the library. Messages name the problem: the file or field, what was
// expected and what was found.
#pragma once

#include <stdexcept>
#include <string>

namespace kqcd {

/// Base class of every error kqcd throws on bad input or failed preconditions.
class error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// A file could not be read or written, or its content is inconsistent.
class io_error : public error {
public:
  using error::error;
};

/// Arguments that do not fit together (lattice sizes, layouts, parameters).
class invalid_argument : public error {
public:
  using error::error;
};

} // namespace kqcd
