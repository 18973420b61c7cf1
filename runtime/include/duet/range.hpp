#pragma once
// Launch geometry shared by both backends: a global size in work-items and an optional local size.
#include <array>
#include <cstddef>
#include <string>

namespace duet {

// Rounds v up to the next multiple of m (m > 0): the helper apps use to pad a global size.
constexpr std::size_t round_up(std::size_t v, std::size_t m) {
    return (v + m - 1) / m * m;
}

// Global size (1-3 dimensions) in work-items, with an optional local (work-group) size.
class Range {
  public:
    explicit Range(std::size_t x) : global_{x, 1, 1}, dims_(1) {}
    Range(std::size_t x, std::size_t y) : global_{x, y, 1}, dims_(2) {}
    Range(std::size_t x, std::size_t y, std::size_t z) : global_{x, y, z}, dims_(3) {}

    // Sets the local size; unset dimensions are 1.
    Range& local(std::size_t x, std::size_t y = 1, std::size_t z = 1) {
        local_ = {x, y, z};
        has_local_ = true;
        driver_local_ = false;
        return *this;
    }
    // Lets the driver choose the local size (OpenCL: a NULL local size; CUDA, which has no such
    // choice: the occupancy API's block size, Kernel::suggested_group_size). The global size
    // then need not be a multiple of anything on OpenCL.
    Range& driver_local() {
        local_ = {1, 1, 1};
        has_local_ = false;
        driver_local_ = true;
        return *this;
    }
    // The same global size rounded up to a multiple of the local size in every dimension
    // (a usage Error where that overflows size_t).
    Range rounded_up() const;

    int dims() const { return dims_; }
    const std::array<std::size_t, 3>& global() const { return global_; }
    const std::array<std::size_t, 3>& local_size() const { return local_; }
    bool has_local() const { return has_local_; }
    // True after driver_local(): the driver, not Duet's default rule, chooses the local size.
    bool driver_chooses_local() const { return driver_local_; }
    std::size_t global_items() const { return global_[0] * global_[1] * global_[2]; }
    std::size_t local_items() const { return local_[0] * local_[1] * local_[2]; }
    // "1024x768 / 16x16", "1000 / driver's choice" for messages.
    std::string to_string() const;
    // Throws a usage Error when a size is zero or global is not a multiple of local.
    void validate() const;

  private:
    std::array<std::size_t, 3> global_;
    std::array<std::size_t, 3> local_{1, 1, 1};
    int dims_;
    bool has_local_ = false;
    bool driver_local_ = false;
};

} // namespace duet
